// Command agentstate measures what following agents' states costs
// (docs/performance.md, "Agent state"), with rostra run in an outer
// 200×50 tmux as a person runs it (a server, this terminal attached):
//
//   - latency: a worker of agent claude; this program posts its hook,
//     `rostra hook` with the attempt's variables and a PermissionRequest
//     or Stop payload, as claude would, and times until the pane's title
//     in the outer terminal shows the state (tmux capture-pane, in a
//     tight loop: its resolution is one capture, printed). Two figures
//     per sample: from the hook's start (what the agent sees) and from
//     its exit (the server's and the UI's share).
//   - idle: the CPU of the server and the attached client over a window,
//     16 panes whose agents wait at their prompt (a script that writes
//     codex's OSC 7501 idle status, then sleeps: waiting-input from a
//     notification) against 16 plain quiet panes (sleep, no agent),
//     interleaved round by round.
//
// testdata/bench/agentstate.sh builds rostra and runs it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	rostraBin = flag.String("rostra", "", "rostra binary")
	samples   = flag.Int("samples", 40, "hook samples of each kind (permission, idle)")
	rounds    = flag.Int("rounds", 2, "rounds of the idle workload")
	idleSecs  = flag.Int("idle", 30, "seconds of the idle CPU window")
	settle    = flag.Int("settle", 5, "seconds the panes run (after the agents wait) before the idle window opens; 65 passes the first minute, after which every title and badge reads to the minute")
	only      = flag.String("only", "", "latency or idle; empty = both")
)

var sock = fmt.Sprintf("rostra-agentstate-%d", os.Getpid())

// current is the run file of the run going, stopped by fail.
var current string

func main() {
	flag.Parse()
	if *rostraBin == "" {
		fail(errors.New("-rostra is required"))
	}
	dir, err := os.MkdirTemp("", "rostra-agentstate-")
	fail(err)
	defer os.RemoveAll(dir)
	defer tmux("kill-server")
	fmt.Printf("# %d cores; load average before: %s", numCPU(), loadavg())
	if *only == "" || *only == "latency" {
		latency(dir)
	}
	if *only == "" || *only == "idle" {
		idle(dir)
	}
	fmt.Printf("# load average after: %s", loadavg())
}

// latency times hooks to the state on screen.
func latency(dir string) {
	rf := runFile(dir, "lat", []string{"exec sleep 3600"}, "claude")
	client, server := start(rf)
	defer stop(rf, client, server)
	stateDir := filepath.Join(filepath.Dir(rf), ".rostra", "bench")
	waitScreen("the pane", 30*time.Second, "w0 · ")
	env := append(os.Environ(), "ROSTRA_STATE_DIR="+stateDir, "ROSTRA_WORKER=w0", "ROSTRA_ATTEMPT=1")

	var fromStart, fromExit, hookRun []time.Duration
	var captures int
	var captureTime time.Duration
	for i := range 2 * *samples {
		payload, want := `{"hook_event_name":"Stop"}`, "✓ idle"
		if i%2 == 0 {
			cmd := fmt.Sprintf("sample-%d", i)
			payload = `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"` + cmd + `"}}`
			want = "⏸ permission · Bash(" + cmd + ")"
		}
		c := exec.Command(*rostraBin, "hook")
		c.Env = env
		c.Stdin = strings.NewReader(payload)
		t0 := time.Now()
		fail(c.Run())
		t1 := time.Now()
		for {
			c0 := time.Now()
			s := capture()
			captures++
			captureTime += time.Since(c0)
			title, _, _ := strings.Cut(s, "\n")
			if strings.Contains(title, want) {
				break
			}
			if time.Since(t0) > 10*time.Second {
				fail(fmt.Errorf("sample %d: the title never showed %q; it shows %q", i, want, title))
			}
		}
		seen := time.Now()
		fromStart = append(fromStart, seen.Sub(t0))
		fromExit = append(fromExit, seen.Sub(t1))
		hookRun = append(hookRun, t1.Sub(t0))
		time.Sleep(100 * time.Millisecond) // an agent's hooks are apart
	}
	res := time.Duration(int64(captureTime) / int64(captures))
	fmt.Printf("hook to state on screen, %d samples (permission and idle alternating), one capture-pane takes %v on average:\n", len(fromStart), res.Round(100*time.Microsecond))
	fmt.Printf("  from the hook's start: median %v, p95 %v, max %v\n", pct(fromStart, 50), pct(fromStart, 95), pct(fromStart, 100))
	fmt.Printf("  from the hook's exit:  median %v, p95 %v, max %v\n", pct(fromExit, 50), pct(fromExit, 95), pct(fromExit, 100))
	fmt.Printf("  rostra hook's own run: median %v, p95 %v\n", pct(hookRun, 50), pct(hookRun, 95))
}

// idle compares 16 waiting agents with 16 plain quiet panes.
func idle(dir string) {
	agentCmd := `printf '\033]7501;state=idle:app=codex\007'; exec sleep 3600`
	res := map[string][]float64{}
	for r := range *rounds {
		for _, w := range []struct{ name, cmd, agent string }{
			{"16 agents waiting-input", agentCmd, "codex"},
			{"16 plain quiet panes", "exec sleep 3600", ""},
		} {
			rf := runFile(dir, fmt.Sprintf("idle-%d-%s", r, w.agent), repeat(w.cmd, 16), w.agent)
			client, server := start(rf)
			if w.agent != "" {
				waitAgents(filepath.Join(filepath.Dir(rf), ".rostra", "bench"), 16, "waiting-input")
			}
			time.Sleep(time.Duration(*settle) * time.Second)
			s0, k0, t0 := cpuTicks(server), cpuTicks(client), time.Now()
			time.Sleep(time.Duration(*idleSecs) * time.Second)
			secs := time.Since(t0).Seconds()
			s1, k1 := cpuTicks(server), cpuTicks(client)
			pctCore := float64(s1-s0+k1-k0) / 100 / secs * 100
			fmt.Printf("# round %d: %s: %.3f %% of a core over %d s (server %d ticks, client %d ticks; %d before the window); load %s",
				r+1, w.name, pctCore, *idleSecs, s1-s0, k1-k0, s0+k0, loadavg())
			res[w.name] = append(res[w.name], pctCore)
			stop(rf, client, server)
		}
	}
	for _, k := range []string{"16 agents waiting-input", "16 plain quiet panes"} {
		v := slices.Clone(res[k])
		slices.Sort(v)
		fmt.Printf("idle CPU, %s: median %.3f %% of a core over %d rounds (%v)\n", k, v[len(v)/2], len(v), res[k])
	}
}

// runFile writes a run file of one worker per command, each of agent
// (none when ""), into a fresh folder.
func runFile(dir, name string, cmds []string, agent string) string {
	d := filepath.Join(dir, name)
	fail(os.MkdirAll(d, 0o755))
	if agent == "" {
		agent = "none"
	}
	var b strings.Builder
	b.WriteString("version: 1\nname: bench\nworkspace: .\npanes: { max: 16 }\n")
	fmt.Fprintf(&b, "providers:\n  p: { command: [\"sh\", \"-c\", \"{prompt}\"], agent: %s }\n", agent)
	b.WriteString("defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0 }\nworkers:\n")
	for i, c := range cmds {
		fmt.Fprintf(&b, "  - { id: w%d, provider: p, prompt: %s }\n", i, strconv.Quote(c))
	}
	path := filepath.Join(d, "rostra.yaml")
	fail(os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// start runs rostra on rf in the outer tmux and returns the client's and
// the server's pids.
func start(rf string) (client, server int) {
	current = rf
	tmux("kill-server")
	_, err := tmux("new-session", "-d", "-x", "200", "-y", "50", "-c", filepath.Dir(rf), "exec "+shellQuote(*rostraBin)+" run "+shellQuote(rf))
	fail(err)
	deadline := time.Now().Add(10 * time.Second)
	for client == 0 && time.Now().Before(deadline) {
		s, _ := tmux("display", "-p", "#{pane_pid}")
		client, _ = strconv.Atoi(strings.TrimSpace(s))
		time.Sleep(20 * time.Millisecond)
	}
	want := []byte("__serve\x00--state-dir\x00" + filepath.Join(filepath.Dir(rf), ".rostra", "bench") + "\x00")
	for server == 0 && time.Now().Before(deadline) {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, c := range procs {
			if b, err := os.ReadFile(c); err == nil && bytes.Contains(b, want) {
				server, _ = strconv.Atoi(filepath.Base(filepath.Dir(c)))
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if client == 0 || server == 0 {
		fail(fmt.Errorf("rostra on %s: client %d, server %d; the screen:\n%s", rf, client, server, capture()))
	}
	return client, server
}

func stop(rf string, client, server int) {
	_ = exec.Command(*rostraBin, "stop", "--run", rf).Run()
	tmux("kill-server")
	for _, pid := range []int{server, client} {
		deadline := time.Now().Add(15 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitAgents waits until n rows of the run in stateDir have agent state.
func waitAgents(stateDir string, n int, state string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var st struct {
			Dispatches []struct {
				AgentState string `json:"agentState"`
			} `json:"dispatches"`
		}
		got := 0
		if b, err := os.ReadFile(filepath.Join(stateDir, "team-state.json")); err == nil && json.Unmarshal(b, &st) == nil {
			for _, d := range st.Dispatches {
				if d.AgentState == state {
					got++
				}
			}
		}
		if got >= n {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fail(fmt.Errorf("%s: not %d agents %s after 30 s; the screen:\n%s", stateDir, n, state, capture()))
}

func waitScreen(what string, d time.Duration, want string) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(capture(), want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	fail(fmt.Errorf("%s: the screen never showed %q:\n%s", what, want, capture()))
}

func tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

func capture() string {
	s, _ := tmux("capture-pane", "-p")
	return s
}

// cpuTicks is utime+stime of pid and its threads, in USER_HZ ticks.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

func pct(v []time.Duration, p int) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	i := min(len(s)*p/100, len(s)-1)
	return s[i].Round(100 * time.Microsecond)
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return string(b)
}

func numCPU() int {
	out, _ := exec.Command("nproc").Output()
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func fail(err error) {
	if err != nil {
		if current != "" {
			_ = exec.Command(*rostraBin, "stop", "--run", current).Run()
		}
		tmux("kill-server")
		fmt.Fprintln(os.Stderr, "agentstate:", err)
		os.Exit(1)
	}
}
