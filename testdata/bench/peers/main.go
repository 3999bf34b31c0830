// Command peers measures rostra beside its peers in one run, interleaved
// round by round: a bare pty drain (this program reading `cat` on a pty),
// rostra with its UI in an outer 200×50 tmux (as `rostra run` runs: a
// server, with this terminal attached to it; its CPU is the server's and
// the attached client's), rostra-direct (`rostra run --no-server`: the UI in
// rostra's own process, as before the server), rostra-detached (`rostra run
// --detach`: the server with no client; it draws nothing, so it has no
// "shown" or echo figure), tmux 3.x itself (attached in the same outer
// tmux) and mprocs when its binary is given. testdata/bench/
// peers.sh builds what it needs and runs it; see
// docs/performance.md.
//
// With -before, a second rostra binary runs as before/rostra,
// before/rostra-direct and before/rostra-detached, interleaved with the
// first: a change measured side by side in one run (testdata/bench/idle.sh).
//
// Workloads (docs/performance.md): one pane cat of a coloured log; four panes at
// once; 16 quiet panes' CPU over a window; 4 quiet isolated panes' CPU,
// with the git processes rostra runs for them (idle-iso, rostra only); RSS
// of 16 panes holding 10,000 coloured 120-column lines over 16 empty
// panes; keystroke echo into cat, alone (echo) and beside a pane that
// streams lines as an agent answering does (echo-busy).
// Times of a child are taken by the child itself (date before and after
// cat), so every peer is timed the same way.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/creack/pty"
)

var (
	rostraBin = flag.String("rostra", "", "rostra binary")
	beforeBin = flag.String("before", "", "another rostra binary (the code before a change): its peers run too, interleaved, named before/<peer>")
	isoFiles  = flag.Int("iso-files", 5000, "files in the repository of the idle-iso workload")
	mprocsBin = flag.String("mprocs", "", "mprocs binary (optional)")
	rounds    = flag.Int("rounds", 3, "rounds of each workload")
	mib       = flag.Int("mib", 64, "MiB for one pane (four panes get half each)")
	idleSecs  = flag.Int("idle", 30, "seconds of the idle CPU window")
	settle    = flag.Int("settle", 65, "seconds the idle panes run before the idle window opens (a minute: rostra's titles out of focus, and all of them once no key was pressed for a minute, tick once a minute)")
	echoN     = flag.Int("echo", 150, "keystroke samples")
	only      = flag.String("only", "", "comma-separated workloads to run (one,four,idle,idle-iso,rss,echo,echo-busy,hundred); empty = all")
	onlyPeers = flag.String("peers", "", "comma-separated peers to run (rostra,rostra-direct,rostra-detached,tmux,mprocs; a before/ peer runs with its own); empty = all")
	work      = flag.String("dir", "", "work folder (default: a temp folder)")
)

type peer struct {
	name string
	// start runs one worker per shell command in cmds, drawn in the outer
	// tmux, and returns the pid whose CPU and memory are the peer's.
	start func(dir string, cmds []string) (pid int, err error)
	// stop ends what start started, and waits for it to be gone.
	stop func()
	// echoCommand runs the peer with one `cat` (then the other commands
	// of cmds, each in a pane of its own), in the terminal it is given
	// (the echo workload's own pty); focusKeys then make typed keys go to
	// the cat.
	echoCommand func(dir string, cmds []string) *exec.Cmd
	focusKeys   []byte
	// also lists more pids whose CPU counts (rostra's attached client).
	also func() []int
	// noUI: nothing is drawn in the outer terminal (a detached server).
	noUI bool
	// startIsolated is start with every worker in a git worktree of its
	// own, in a repository of -iso-files files (rostra only).
	startIsolated func(dir string, cmds []string) (pid int, err error)
}

func main() {
	flag.Parse()
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "rostra-peers-")
		must(err)
		dir = d
		defer os.RemoveAll(d)
	}
	must(os.MkdirAll(dir, 0o755))
	want := func(w string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), w) }
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# peers: %d rounds, load average before: %s", *rounds, load)

	peers := []peer{}
	for _, bin := range []struct{ prefix, path string }{{"before/", *beforeBin}, {"", *rostraBin}} {
		if bin.path == "" {
			continue
		}
		peers = append(peers, rostraPeer(bin.prefix+"rostra", rostraServed, bin.path), rostraPeer(bin.prefix+"rostra-direct", rostraDirect, bin.path),
			rostraPeer(bin.prefix+"rostra-detached", rostraDetached, bin.path))
	}
	peers = append(peers, tmuxPeer())
	if *mprocsBin != "" {
		peers = append(peers, mprocsPeer())
	}
	if *onlyPeers != "" {
		peers = slices.DeleteFunc(peers, func(p peer) bool {
			return !slices.Contains(strings.Split(*onlyPeers, ","), strings.TrimPrefix(p.name, "before/"))
		})
	}
	res := map[string][]float64{}
	add := func(k string, v float64) { res[k] = append(res[k], v) }

	big := colourLog(filepath.Join(dir, "big.log"), *mib)
	half := colourLog(filepath.Join(dir, "half.log"), *mib/2)
	lines := colourLines(filepath.Join(dir, "lines.log"), 10000)

	for r := range *rounds {
		fmt.Printf("# round %d\n", r+1)
		if want("one") {
			t, cpu := bareDrain(big, 1)
			add("one/bare", t)
			add("one-cpu/bare", cpu)
			for _, p := range peers {
				child, shown, cpu := floodRun(p, dir, big, 1)
				add("one/"+p.name, child)
				add("one-shown/"+p.name, shown)
				add("one-cpu/"+p.name, cpu)
			}
		}
		if want("four") {
			t, _ := bareDrain(half, 4)
			add("four/bare", t)
			for _, p := range peers {
				child, _, _ := floodRun(p, dir, half, 4)
				add("four/"+p.name, child)
			}
		}
		if want("idle") {
			for _, p := range peers {
				cpu, wake := idleRun(p, dir)
				add("idle/"+p.name, cpu)
				add("idle-wake/"+p.name, wake)
			}
		}
		if want("idle-iso") {
			for _, p := range peers {
				if p.startIsolated != nil {
					add("idle-iso/"+p.name, idleIsoRun(p, dir))
				}
			}
		}
		if want("hundred") {
			for _, p := range peers {
				if !strings.HasPrefix(strings.TrimPrefix(p.name, "before/"), "rostra") {
					continue // 100 tmux panes do not fit a 200×50 window
				}
				start, startCPU, cpu, rss := hundredRun(p, dir)
				add("hundred-start/"+p.name, start)
				add("hundred-start-cpu/"+p.name, startCPU)
				add("hundred-idle/"+p.name, cpu)
				add("hundred-rss/"+p.name, rss)
			}
		}
		if want("rss") {
			for _, p := range peers {
				perLine, empty, anon := rssRun(p, dir, lines)
				add("rss-line/"+p.name, perLine)
				add("rss-empty/"+p.name, empty)
				add("rss-anon/"+p.name, anon)
			}
		}
		for _, w := range []struct {
			name string
			cmds []string
		}{{"echo", []string{"exec cat"}}, {"echo-busy", []string{"exec cat", busyLines}}} {
			if !want(w.name) {
				continue
			}
			for _, p := range peers {
				if p.echoCommand == nil {
					continue
				}
				med, p95 := echoRun(p, dir, w.cmds)
				add(w.name+"-med/"+p.name, med)
				add(w.name+"-p95/"+p.name, p95)
			}
		}
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("# load average after: %s", load)
	report(res, peers)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

func report(res map[string][]float64, peers []peer) {
	m := func(k string) float64 { return median(res[k]) }
	names := []string{}
	for _, p := range peers {
		names = append(names, p.name)
	}
	fmt.Println()
	fmt.Println("| work | bare pty drain | " + strings.Join(names, " | ") + " |")
	fmt.Println("|---|---|" + strings.Repeat("---|", len(names)))
	row := func(label string, bare string, cell func(n string) string) {
		cells := []string{}
		for _, n := range names {
			cells = append(cells, cell(n))
		}
		fmt.Printf("| %s | %s | %s |\n", label, bare, strings.Join(cells, " | "))
	}
	if b := m("one/bare"); b > 0 {
		rate := func(s float64) float64 { return float64(*mib) / s }
		row(fmt.Sprintf("one pane, cat %d MiB: child's time (MiB/s; × bare)", *mib), fmt.Sprintf("%.2f s (%.0f)", b, rate(b)), func(n string) string {
			v := m("one/" + n)
			return fmt.Sprintf("%.2f s (%.0f; %.2f×)", v, rate(v), v/b)
		})
		row("  the peer's CPU per MiB (bare: its reads; a peer's: reads, emulator, log, drawing)", fmt.Sprintf("%.1f ms", m("one-cpu/bare")*1000/float64(*mib)), func(n string) string {
			return fmt.Sprintf("%.1f ms", m("one-cpu/"+n)*1000/float64(*mib))
		})
		row("  last line shown after the child exits", "—", func(n string) string {
			if v := m("one-shown/" + n); v >= 0 {
				return fmt.Sprintf("%.0f ms", v*1000)
			}
			return "— (draws nothing)"
		})
	}
	if b := m("four/bare"); b > 0 {
		total := float64(4 * (*mib / 2))
		row(fmt.Sprintf("four panes, 4 × %d MiB: aggregate MiB/s (× bare)", *mib/2), fmt.Sprintf("%.0f", total/b), func(n string) string {
			v := m("four/" + n)
			return fmt.Sprintf("%.0f (%.2f×)", total/v, b/v)
		})
	}
	if len(res["idle/"+names[0]]) > 0 {
		row(fmt.Sprintf("16 quiet panes (12 sleep, 4 cat), CPU over %d s", *idleSecs), "—", func(n string) string { return fmt.Sprintf("%.3f %%", m("idle/"+n)) })
		row("  wakeups per second (context switches of all threads)", "—", func(n string) string { return fmt.Sprintf("%.1f", m("idle-wake/"+n)) })
	}
	if len(res["idle-iso/"+names[0]]) > 0 {
		row(fmt.Sprintf("4 quiet isolated panes, %d-file repository, CPU with git's over %d s", *isoFiles, *idleSecs), "—", func(n string) string {
			if len(res["idle-iso/"+n]) == 0 {
				return "—"
			}
			return fmt.Sprintf("%.3f %%", m("idle-iso/"+n))
		})
	}
	if len(res["hundred-start/"+names[0]]) > 0 {
		cell := func(k, f string) func(n string) string {
			return func(n string) string {
				if len(res[k+n]) == 0 {
					return "—"
				}
				return fmt.Sprintf(f, m(k+n))
			}
		}
		row("100 workers (sleep): from the start to the last one running", "—", cell("hundred-start/", "%.2f s"))
		row("  the peer's CPU until then (its start included)", "—", cell("hundred-start-cpu/", "%.2f s"))
		row(fmt.Sprintf("  100 quiet panes, CPU over %d s", *idleSecs), "—", cell("hundred-idle/", "%.3f %%"))
		row("  100 quiet panes, RSS (server and client)", "—", cell("hundred-rss/", "%.1f MiB"))
	}
	if len(res["rss-line/"+names[0]]) > 0 {
		row("16 × 10,000 coloured 120-col lines: RSS per line over empty", "—", func(n string) string { return fmt.Sprintf("%.0f B", m("rss-line/"+n)) })
		row("  RSS per empty pane (16 quiet vs 1)", "—", func(n string) string { return fmt.Sprintf("%.0f KB", m("rss-empty/"+n)/1024) })
		row("  the same, anonymous memory only (RssAnon)", "—", func(n string) string { return fmt.Sprintf("%.0f KB", m("rss-anon/"+n)/1024) })
	}
	for _, w := range []struct{ key, what string }{
		{"echo", "keystroke echo into cat"},
		{"echo-busy", "  the same beside a pane streaming 50 lines a second"},
	} {
		if len(res[w.key+"-med/"+names[0]]) == 0 {
			continue
		}
		row(fmt.Sprintf("%s, %d samples: median, p95", w.what, *echoN), "—", func(n string) string {
			if len(res[w.key+"-med/"+n]) == 0 {
				return "—"
			}
			return fmt.Sprintf("%.1f ms, %.1f ms", m(w.key+"-med/"+n), m(w.key+"-p95/"+n))
		})
	}
	fmt.Println()
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range res {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Printf("# %s: %v\n", k, res[k])
	}
}

// colourLog writes mib MiB of coloured log lines (the workload).
func colourLog(path string, mib int) string {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, "\x1b[2m%06d\x1b[m \x1b[3%dmINFO\x1b[m compiling \x1b[1mpkg/module%d/file%d.go\x1b[m … \x1b[32mok\x1b[m %d ms\n", i, i%7+1, i%13, i%101, i%997)
	}
	f, err := os.Create(path)
	must(err)
	for range mib {
		_, err := f.Write(buf.Bytes()[:1<<20])
		must(err)
	}
	must(f.Close())
	return path
}

// colourLines writes n coloured lines of exactly 120 columns.
func colourLines(path string, n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("request served cache miss upstream latency retry pool handler session token queue worker compile module package test passed warning config")
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "\x1b[2m%06d\x1b[m \x1b[3%dm%-5s\x1b[m ", i, 1+i%7, []string{"INFO", "WARN", "ERROR", "DEBUG"}[i%4])
		col := 13
		for col < 120 {
			w := words[rng.IntN(len(words))]
			if col+len(w)+1 > 120 {
				w = strings.Repeat(".", 120-col)
			} else {
				w += " "
			}
			fmt.Fprintf(&b, "\x1b[38;5;%dm%s", 16+rng.IntN(216), w)
			col += len(w)
		}
		b.WriteString("\x1b[m\r\n")
	}
	must(os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// bareDrain cats path on n ptys at once and reads every master to the
// end; it returns the time until every cat has exited and the CPU seconds
// this process spent reading (the kernel's pty read path, the floor of any
// peer's CPU per MiB).
func bareDrain(path string, n int) (float64, float64) {
	var wg sync.WaitGroup
	cpu0 := selfCPU()
	start := time.Now()
	for range n {
		cmd := exec.Command("cat", path)
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 24})
		must(err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			drainFile(f)
			_ = cmd.Wait()
		}()
	}
	wg.Wait()
	return time.Since(start).Seconds(), selfCPU() - cpu0
}

// drainFile reads f to its end as cheaply as Go can: non-blocking reads
// made without the scheduler, waiting in the poller only when there is
// nothing to read, as rostra's pane reader does (a plain f.Read costs a
// quarter more CPU a MiB). It closes f.
// docs/performance.md §A pane's output
func drainFile(f *os.File) {
	buf := make([]byte, 32<<10)
	// creack/pty's Fd turned the master blocking: read a non-blocking copy.
	fd, err := syscall.Dup(int(f.Fd()))
	must(err)
	_ = f.Close()
	must(syscall.SetNonblock(fd, true))
	g := os.NewFile(uintptr(fd), "ptmx")
	defer g.Close()
	rc, err := g.SyscallConn()
	must(err)
	for done := false; !done; {
		err := rc.Read(func(uintptr) bool {
			n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
			if e == syscall.EAGAIN {
				return false
			}
			done = e != 0 || n == 0
			return true
		})
		done = done || err != nil
	}
}

// selfCPU is this process's user and system CPU seconds so far.
func selfCPU() float64 {
	var ru syscall.Rusage
	must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// outerSock is the outer tmux every peer draws into; this run's own (its
// pid in the name), so a second run of the harness cannot kill it.
var outerSock = fmt.Sprintf("rostra-peers-outer-%d", os.Getpid())

func tmux(sock string, args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

func outerStart(dir, cmd string) {
	_, _ = tmux(outerSock, "kill-server")
	_, err := tmux(outerSock, "new-session", "-d", "-x", "200", "-y", "50", "-c", dir, cmd)
	must(err)
}

func outerCapture() string {
	s, _ := tmux(outerSock, "capture-pane", "-p")
	return s
}

func outerStop() { _, _ = tmux(outerSock, "kill-server") }

// waitFile waits for a file to exist (written by a child when done).
func waitFile(path string, d time.Duration) ([]byte, error) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return b, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil, fmt.Errorf("%s never appeared", path)
}

// floodRun runs n cats of path under p; it returns the children's time
// (first start to last end), how long after the last child's end its
// closing marker showed in the outer terminal, and the peer's CPU seconds
// from its start until then (its start-up included, its workers' not).
func floodRun(p peer, dir, path string, n int) (float64, float64, float64) {
	cmds := []string{}
	for i := range n {
		ts := filepath.Join(dir, fmt.Sprintf("t%d", i))
		_ = os.Remove(ts)
		cmds = append(cmds, fmt.Sprintf(`s=$(date +%%s%%N); cat %s; e=$(date +%%s%%N); echo "$s $e" > %s.tmp; mv %s.tmp %s; echo; echo DONE-MARK-%d; exec sleep 600`, path, ts, ts, ts, i))
	}
	pid, err := p.start(dir, cmds)
	must(err)
	defer p.stop()
	var first, last int64
	for i := range n {
		b, err := waitFile(filepath.Join(dir, fmt.Sprintf("t%d", i)), 10*time.Minute)
		must(err)
		f := strings.Fields(string(b))
		s, _ := strconv.ParseInt(f[0], 10, 64)
		e, _ := strconv.ParseInt(f[1], 10, 64)
		if first == 0 || s < first {
			first = s
		}
		last = max(last, e)
	}
	shown := -1.0
	if n == 1 && !p.noUI {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(outerCapture(), "DONE-MARK-0") {
				shown = float64(time.Now().UnixNano()-last) / 1e9
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return float64(last-first) / 1e9, shown, peerCPU(p, pid)
}

// peerCPU is the CPU seconds pid and p's other pids have used so far.
func peerCPU(p peer, pid int) float64 {
	t := cpuTicks(pid)
	if p.also != nil {
		for _, o := range p.also() {
			t += cpuTicks(o)
		}
	}
	return float64(t) / ticksPerSecond
}

// ticksPerSecond is USER_HZ, the unit of /proc/<pid>/stat's times.
const ticksPerSecond = 100

// cpuTicks is utime+stime of pid and its threads, in clock ticks.
func cpuTicks(pid int) int64 { return statTicks(pid, 11, 12) }

// cpuTicksWithChildren adds the CPU of the children pid waited for
// (cutime+cstime: the git processes rostra runs; its workers are not
// reaped while they run).
func cpuTicksWithChildren(pid int) int64 { return statTicks(pid, 11, 12, 13, 14) }

// statTicks sums fields of /proc/pid/stat, counted after the comm.
func statTicks(pid int, fields ...int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var sum int64
	for _, i := range fields {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		sum += v
	}
	return sum
}

func rssBytes(pid int) int64 { return statusBytes(pid, "VmRSS:") }

// statusBytes is the field of /proc/pid/status named key (a size in kB),
// in bytes; 0 when pid is gone.
func statusBytes(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, key) {
			kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func repeat(cmd string, n int) []string {
	c := make([]string, n)
	for i := range c {
		c[i] = cmd
	}
	return c
}

// idleRun starts 16 quiet panes (12 sleep, 4 cat waiting for input) and
// returns the CPU (% of a core) the peer used over the idle window, after
// -settle seconds.
//
// The CPU is read from each thread's schedstat (nanoseconds: a window of
// 20 s at 0.05 % is 10 ms, one clock tick of /proc/<pid>/stat), and the
// wakeups are the context switches of every thread (voluntary and not)
// per second of the window.
func idleRun(p peer, dir string) (cpu, wakeups float64) {
	pid, err := p.start(dir, append(repeat("exec sleep 3600", 12), repeat("exec cat", 4)...))
	must(err)
	defer p.stop()
	time.Sleep(time.Duration(*settle) * time.Second)
	pids := func() []int {
		ps := []int{pid}
		if p.also != nil {
			ps = append(ps, p.also()...)
		}
		return ps
	}
	sum := func(f func(int) int64) int64 {
		var t int64
		for _, o := range pids() {
			t += f(o)
		}
		return t
	}
	t0, c0, w0 := time.Now(), sum(cpuNanos), sum(switches)
	time.Sleep(time.Duration(*idleSecs) * time.Second)
	c1, w1 := sum(cpuNanos), sum(switches)
	secs := time.Since(t0).Seconds()
	return float64(c1-c0) / 1e9 / secs * 100, float64(w1-w0) / secs
}

// hundredRun starts 100 workers, each of which marks a file as it starts
// and then sleeps, and returns the seconds from the peer's start to the
// last mark, the CPU seconds the peer had used by then (the start's cost,
// less load-bound than its wall time), the CPU (% of a core) of the 100 quiet panes over the idle
// window after -settle seconds, and the RSS (MiB) of the peer's
// processes at its end.
func hundredRun(p peer, dir string) (start, startCPU, cpu, rssMiB float64) {
	marks := filepath.Join(dir, "hundred")
	_ = os.RemoveAll(marks)
	must(os.MkdirAll(marks, 0o755))
	cmds := make([]string, 100)
	for i := range cmds {
		cmds[i] = fmt.Sprintf("echo > %s/%d; exec sleep 3600", marks, i)
	}
	t0 := time.Now()
	pid, err := p.start(dir, cmds)
	must(err)
	defer p.stop()
	var last time.Time
	for i := range cmds {
		_, err := waitFile(filepath.Join(marks, strconv.Itoa(i)), 2*time.Minute)
		must(err)
		st, err := os.Stat(filepath.Join(marks, strconv.Itoa(i)))
		must(err)
		if st.ModTime().After(last) {
			last = st.ModTime()
		}
	}
	start = last.Sub(t0).Seconds()
	pids := func() []int {
		ps := []int{pid}
		if p.also != nil {
			ps = append(ps, p.also()...)
		}
		return ps
	}
	sum := func(f func(int) int64) int64 {
		var t int64
		for _, o := range pids() {
			t += f(o)
		}
		return t
	}
	startCPU = float64(sum(cpuNanos)) / 1e9
	time.Sleep(time.Duration(*settle) * time.Second)
	t1, c0 := time.Now(), sum(cpuNanos)
	time.Sleep(time.Duration(*idleSecs) * time.Second)
	cpu = float64(sum(cpuNanos)-c0) / 1e9 / time.Since(t1).Seconds() * 100
	return start, startCPU, cpu, float64(sum(rssBytes)) / (1 << 20)
}

// cpuNanos is the CPU time pid's threads have run, in nanoseconds (the
// first field of each /proc/<pid>/task/<tid>/schedstat).
func cpuNanos(pid int) int64 {
	var sum int64
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/schedstat", pid))
	for _, t := range tasks {
		if b, err := os.ReadFile(t); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				v, _ := strconv.ParseInt(f[0], 10, 64)
				sum += v
			}
		}
	}
	return sum
}

// switches is the context switches of pid's threads so far: each is a
// thread going to sleep or taken off its core, so an idle process's count
// grows by its wakeups.
func switches(pid int) int64 {
	var sum int64
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/status", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "voluntary_ctxt_switches:") || strings.HasPrefix(l, "nonvoluntary_ctxt_switches:") {
				v, _ := strconv.ParseInt(strings.TrimSpace(l[strings.IndexByte(l, ':')+1:]), 10, 64)
				sum += v
			}
		}
	}
	return sum
}

// idleIsoRun is idleRun with 4 workers, each in a worktree of its own, and
// counts the git processes rostra ran (the live diff-stat) too.
func idleIsoRun(p peer, dir string) float64 {
	pid, err := p.startIsolated(dir, repeat("exec sleep 3600", 4))
	must(err)
	defer p.stop()
	return idleWindow(p, pid, cpuTicksWithChildren)
}

func idleWindow(p peer, pid int, cpu func(int) int64) float64 {
	time.Sleep(5 * time.Second)
	ticks := func() int64 {
		t := cpu(pid)
		if p.also != nil {
			for _, o := range p.also() {
				t += cpuTicks(o)
			}
		}
		return t
	}
	t0, c0 := time.Now(), ticks()
	time.Sleep(time.Duration(*idleSecs) * time.Second)
	c1 := ticks()
	return float64(c1-c0) / ticksPerSecond / time.Since(t0).Seconds() * 100
}

// rssRun returns the RSS per kept line (16 panes × 10,000 lines over 16
// empty panes) and per empty pane (16 quiet panes over one). The RSS is
// the sum of the peer's processes: rostra's server and its attached
// client, as hundredRun's.
// anonEmpty is the same as perEmpty in anonymous memory (RssAnon): the
// pages the peer wrote, without the binary's pages it has mapped (which
// the server and the client each count, and which move by tens of KB a
// pane from one run to the next).
func rssRun(p peer, dir, lines string) (perLine, perEmpty, anonEmpty float64) {
	settle := func(pid int) (rss, anon int64) {
		time.Sleep(3 * time.Second)
		pids := []int{pid}
		if p.also != nil {
			pids = append(pids, p.also()...)
		}
		for _, pid := range pids {
			rss += statusBytes(pid, "VmRSS:")
			anon += statusBytes(pid, "RssAnon:")
		}
		return rss, anon
	}
	pid, err := p.start(dir, []string{"exec sleep 600"})
	must(err)
	one, oneAnon := settle(pid)
	p.stop()
	pid, err = p.start(dir, repeat("exec sleep 600", 16))
	must(err)
	empty, emptyAnon := settle(pid)
	p.stop()
	cmds := []string{}
	for i := range 16 {
		ts := filepath.Join(dir, fmt.Sprintf("r%d", i))
		_ = os.Remove(ts)
		cmds = append(cmds, fmt.Sprintf("cat %s; echo ok > %s; exec sleep 600", lines, ts))
	}
	pid, err = p.start(dir, cmds)
	must(err)
	for i := range 16 {
		_, err := waitFile(filepath.Join(dir, fmt.Sprintf("r%d", i)), 5*time.Minute)
		must(err)
	}
	full, _ := settle(pid)
	p.stop()
	return float64(full-empty) / (16 * 10000), float64(empty-one) / 15, float64(emptyAnon-oneAnon) / 15
}

// echoRun runs the peer with one cat in a pty of its own (the terminal,
// 200×50) and times each typed letter until it is drawn.
// busyLines is the streaming pane of echo-busy: 50 lines a second, as an
// agent writing its answer, each line a change to draw.
const busyLines = `i=0; while :; do i=$((i+1)); echo "line $i of an answer streamed by another agent"; sleep 0.02; done`

func echoRun(p peer, dir string, cmds []string) (med, p95 float64) {
	cmd := p.echoCommand(dir, cmds)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 200, Rows: 50})
	must(err)
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = f.Close()
		p.stop()
	}()
	out := make(chan []byte, 1024)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				out <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				close(out)
				return
			}
		}
	}()
	var text textOnly
	drain := func(d time.Duration) {
		t := time.After(d)
		for {
			select {
			case b, ok := <-out:
				if !ok {
					return
				}
				text.feed(b)
			case <-t:
				return
			}
		}
	}
	drain(3 * time.Second) // start up
	_, _ = f.Write(p.focusKeys)
	drain(time.Second)
	letters := "zqjxkvwy"
	var samples []float64
	for i := range *echoN {
		c := letters[i%len(letters)]
		text.reset()
		sent := time.Now()
		_, _ = f.Write([]byte{c})
		deadline := time.After(2 * time.Second)
	wait:
		for {
			select {
			case b, ok := <-out:
				if !ok {
					break wait
				}
				if text.feed(b); text.has(c) {
					samples = append(samples, float64(time.Since(sent).Microseconds())/1000)
					break wait
				}
			case <-deadline:
				break wait
			}
		}
		drain(time.Duration(40+rand.IntN(40)) * time.Millisecond)
		if i%60 == 59 { // cat's line buffer
			_, _ = f.Write([]byte{'\r'})
			drain(100 * time.Millisecond)
		}
	}
	if len(samples) < *echoN/2 {
		fmt.Fprintf(os.Stderr, "peers: %s echoed only %d of %d keys\n", p.name, len(samples), *echoN)
		return -1, -1
	}
	slices.Sort(samples)
	return samples[len(samples)/2], samples[len(samples)*95/100]
}

// textOnly keeps the printable text of a terminal stream, escape
// sequences dropped.
type textOnly struct {
	state int
	buf   []byte
}

func (t *textOnly) reset() { t.buf = t.buf[:0] }

func (t *textOnly) has(c byte) bool { return bytes.IndexByte(t.buf, c) >= 0 }

func (t *textOnly) feed(b []byte) {
	for _, c := range b {
		switch t.state {
		case 0:
			if c == 0x1b {
				t.state = 1
			} else if c >= 0x20 {
				t.buf = append(t.buf, c)
			}
		case 1: // after ESC
			switch c {
			case '[':
				t.state = 2
			case ']', 'P', '_', '^':
				t.state = 3
			default:
				t.state = 0
			}
		case 2: // CSI
			if c >= 0x40 && c <= 0x7e {
				t.state = 0
			}
		case 3: // string until BEL or ST
			if c == 0x07 {
				t.state = 0
			} else if c == 0x1b {
				t.state = 4
			}
		case 4:
			t.state = 0
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var runs int

// rostraRunFile writes a run file of one shell worker per command into a
// fresh folder (a stopped run's state dir is not reused) and returns it.
// isolated puts each worker in a worktree of its own, in a git repository
// of -iso-files files made there.
func rostraRunFile(dir string, cmds []string, isolated bool) string {
	runs++
	d := filepath.Join(dir, fmt.Sprintf("rostra-%d", runs))
	must(os.MkdirAll(d, 0o755))
	isolation := ""
	if isolated {
		gitRepo(d, *isoFiles)
		isolation = ", isolation: worktree"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nname: peers\nworkspace: .\npanes: { max: %d }\n", max(16, len(cmds)))
	b.WriteString("providers:\n  shell: { command: [\"sh\", \"-c\", \"{prompt}\"] }\n")
	b.WriteString("defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0" + isolation + " }\nworkers:\n")
	for i, c := range cmds {
		fmt.Fprintf(&b, "  - { id: w%d, role: cat, provider: shell, prompt: %s }\n", i, strconv.Quote(c))
	}
	path := filepath.Join(d, "rostra.yaml")
	must(os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// waitRunning waits until team-state.json shows n attempts started.
func waitRunning(path string, n int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		var st struct {
			Dispatches []struct {
				Pid int `json:"pid"`
			} `json:"dispatches"`
		}
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &st) == nil {
			started := 0
			for _, d := range st.Dispatches {
				if d.Pid > 0 {
					started++
				}
			}
			if started >= n {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s: %d attempts not all started after %s", path, n, d)
}

// gitRepo makes d a git repository of n files in folders of 100,
// committed, its state dir ignored.
func gitRepo(d string, n int) {
	for i := range n {
		sub := filepath.Join(d, "src", fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			must(os.MkdirAll(sub, 0o755))
		}
		must(os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprintf("line %d\n", i)), 0o644))
	}
	must(os.WriteFile(filepath.Join(d, ".gitignore"), []byte(".rostra/\n"), 0o644))
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=peers", "-c", "user.email=peers@localhost", "commit", "-q", "-m", "base"}} {
		c := exec.Command("git", args...)
		c.Dir = d
		if out, err := c.CombinedOutput(); err != nil {
			must(fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out))
		}
	}
}

// waitGone waits for pid to exit.
func waitGone(pid int, d time.Duration) {
	if pid <= 0 {
		return // kill(0) would be this program's own process group
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && bytes.Contains(b, []byte(") Z ")) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

func panePID() int {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s, _ := tmux(outerSock, "display", "-p", "#{pane_pid}")
		if pid, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	must(errors.New("the outer tmux has no pane"))
	return 0
}

// How rostraPeer runs rostra.
const (
	rostraServed   = "served"   // rostra run: a server, this terminal attached
	rostraDirect   = "direct"   // rostra run --no-server: the UI in rostra's process
	rostraDetached = "detached" // rostra run --detach: the server, no client
)

// serverPID finds the rostra server serving the state dir of run file rf.
func serverPID(rf string) int {
	stateDir := filepath.Join(filepath.Dir(rf), ".rostra", "peers")
	want := []byte("__serve\x00--state-dir\x00" + stateDir + "\x00")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, c := range procs {
			if b, err := os.ReadFile(c); err == nil && bytes.Contains(b, want) {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(c)))
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range procs {
		if b, err := os.ReadFile(c); err == nil && bytes.Contains(b, []byte("__serve")) {
			fmt.Fprintf(os.Stderr, "peers: a server: %s: %q\n", c, b)
		}
	}
	must(fmt.Errorf("no rostra server for %s (state dir %s)", rf, stateDir))
	return 0
}

func rostraPeer(name, mode, bin string) peer {
	var pid, client int
	var rf string
	p := peer{name: name, focusKeys: []byte("i"), noUI: mode == rostraDetached}
	if mode == rostraServed {
		p.also = func() []int { return []int{client} }
	}
	launch := func(runFile string) (int, error) {
		rf = runFile
		switch mode {
		case rostraDetached:
			c := exec.Command(bin, "run", "--detach", rf)
			c.Dir = filepath.Dir(rf)
			if out, err := c.CombinedOutput(); err != nil {
				return 0, fmt.Errorf("rostra run --detach: %v: %s", err, out)
			}
			pid = serverPID(rf)
		case rostraDirect:
			outerStart(filepath.Dir(rf), "exec "+shellQuote(bin)+" run --no-server "+shellQuote(rf))
			pid = panePID()
		default:
			outerStart(filepath.Dir(rf), "exec "+shellQuote(bin)+" run "+shellQuote(rf))
			client = panePID()
			pid = serverPID(rf)
		}
		time.Sleep(500 * time.Millisecond) // the UI up, the workers started
		return pid, nil
	}
	p.start = func(dir string, cmds []string) (int, error) { return launch(rostraRunFile(dir, cmds, false)) }
	p.startIsolated = func(dir string, cmds []string) (int, error) {
		pid, err := launch(rostraRunFile(dir, cmds, true))
		if err == nil {
			// Worktrees take a while to check out: measure once all run.
			err = waitRunning(filepath.Join(filepath.Dir(rf), ".rostra", "peers", "team-state.json"), len(cmds), 5*time.Minute)
		}
		return pid, err
	}
	p.stop = func() {
		if mode != rostraDirect {
			// The server outlives its terminal: stop it as a person would.
			pid = serverPID(rf)
			c := exec.Command(bin, "stop", "--run", rf)
			_ = c.Run()
		}
		if mode != rostraDetached {
			outerStop() // SIGHUP: the direct UI stops every worker and exits
		}
		waitGone(pid, 15*time.Second)
	}
	if mode != rostraDetached {
		p.echoCommand = func(dir string, cmds []string) *exec.Cmd {
			rf = rostraRunFile(dir, cmds, false)
			args := []string{"run", rf}
			if mode == rostraDirect {
				args = []string{"run", "--no-server", rf}
				pid = 0 // echoRun ends it; there is nothing else to wait for
			}
			c := exec.Command(bin, args...)
			c.Dir = filepath.Dir(rf)
			return c
		}
	}
	return p
}

// innerSock is the tmux peer's own server, this run's like outerSock.
var innerSock = fmt.Sprintf("rostra-peers-inner-%d", os.Getpid())

func tmuxPeer() peer {
	var pid int
	p := peer{name: "tmux"}
	conf := ""
	inner := func(args ...string) (string, error) {
		return tmux(innerSock, append([]string{"-f", conf}, args...)...)
	}
	setup := func(dir string, cmds []string) {
		conf = filepath.Join(dir, "tmux.conf")
		must(os.WriteFile(conf, []byte("set -g history-limit 10000\nset -g status off\n"), 0o644))
		_, _ = tmux(innerSock, "kill-server")
		_, err := inner("new-session", "-d", "-x", "200", "-y", "50", "-s", "s", "-c", dir, "sh -c "+shellQuote(cmds[0]))
		must(err)
		for _, c := range cmds[1:] {
			_, err := inner("split-window", "-t", "s", "-c", dir, "sh -c "+shellQuote(c))
			must(err)
			_, _ = inner("select-layout", "-t", "s", "tiled")
		}
		s, err := inner("display", "-p", "-t", "s", "#{pid}")
		must(err)
		pid, _ = strconv.Atoi(strings.TrimSpace(s))
	}
	p.start = func(dir string, cmds []string) (int, error) {
		setup(dir, cmds)
		outerStart(dir, "exec tmux -L "+innerSock+" attach -t s")
		time.Sleep(500 * time.Millisecond)
		return pid, nil
	}
	p.stop = func() {
		outerStop()
		_, _ = tmux(innerSock, "kill-server")
		waitGone(pid, 15*time.Second)
	}
	p.echoCommand = func(dir string, cmds []string) *exec.Cmd {
		setup(dir, cmds)
		_, _ = inner("select-pane", "-t", "s.0") // the cat; a split focuses the new pane
		return exec.Command("tmux", "-L", innerSock, "attach", "-t", "s")
	}
	return p
}

func mprocsPeer() peer {
	var pid int
	p := peer{name: "mprocs", focusKeys: []byte{0x01}} // C-a: focus the terminal
	config := func(dir string, cmds []string) string {
		runs++
		d := filepath.Join(dir, fmt.Sprintf("mprocs-%d", runs))
		must(os.MkdirAll(d, 0o755))
		var b strings.Builder
		b.WriteString("scrollback: 10000\nprocs:\n")
		for i, c := range cmds {
			fmt.Fprintf(&b, "  p%02d:\n    shell: %s\n", i, strconv.Quote(c))
		}
		path := filepath.Join(d, "mprocs.yaml")
		must(os.WriteFile(path, []byte(b.String()), 0o644))
		return path
	}
	p.start = func(dir string, cmds []string) (int, error) {
		cf := config(dir, cmds)
		outerStart(filepath.Dir(cf), "exec "+shellQuote(*mprocsBin)+" -c "+shellQuote(cf))
		pid = panePID()
		time.Sleep(500 * time.Millisecond)
		return pid, nil
	}
	p.stop = func() {
		outerStop()
		waitGone(pid, 15*time.Second)
	}
	p.echoCommand = func(dir string, cmds []string) *exec.Cmd {
		cf := config(dir, cmds)
		c := exec.Command(*mprocsBin, "-c", cf)
		c.Dir = filepath.Dir(cf)
		return c
	}
	return p
}
