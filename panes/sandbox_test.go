//go:build linux

// sandbox_test.go checks the sandbox (sandbox_linux.go) on real processes
// and the real kernel: writes outside the allowed folders are refused and
// change nothing, allowed writes land, a setsid'd grandchild of a double
// fork is under the same rules, the pane's terminal still works, and a
// sandbox that cannot be applied fails the start, for both surfaces and
// each containment kind.
package panes

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// treeDigest is every file, folder and link under root, with its mode and
// a hash of its content: a byte for byte record to compare.
func treeDigest(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			v := fi.Mode().String()
			switch {
			case fi.Mode().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				v += fmt.Sprintf(" %x", sha256.Sum256(b))
			case fi.Mode()&fs.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				v += " -> " + l
			}
			out[p] = v
			return nil
		})
		require.NoError(t, err)
	}
	return out
}

// sandboxWorld is a worktree the attempt may write, and around it what it
// must not: a sibling folder, a fake HOME, a name in /tmp.
type sandboxWorld struct {
	work, outside, home, tmpX string
}

func newSandboxWorld(t *testing.T) sandboxWorld {
	t.Helper()
	root := t.TempDir()
	w := sandboxWorld{
		work:    filepath.Join(root, "work"),
		outside: filepath.Join(root, "outside"),
		home:    filepath.Join(root, "home"),
		tmpX:    filepath.Join("/tmp", fmt.Sprintf("rostra-sandbox-x-%d-%d", os.Getpid(), time.Now().UnixNano())),
	}
	for _, d := range []string{w.work, filepath.Join(w.outside, "keep", "deep"), w.home} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	files := map[string]string{
		filepath.Join(w.outside, "keep", "a"):         "keep me\n",
		filepath.Join(w.outside, "keep", "deep", "b"): "and me\n",
		filepath.Join(w.outside, "victim"):            "not to be truncated\n",
		filepath.Join(w.home, ".bashrc"):              "# the user's bashrc\n",
		filepath.Join(w.work, "mine"):                 "stays in the worktree\n",
	}
	for p, c := range files {
		require.NoError(t, os.WriteFile(p, []byte(c), 0o644))
	}
	t.Cleanup(func() { _ = os.Remove(w.tmpX) })
	return w
}

func (w sandboxWorld) launch(t *testing.T, script string) Launch {
	l := newLaunch(t, sh(script))
	l.Dir = w.work
	l.Env = append(os.Environ(), "HOME="+w.home, "OUT="+w.outside, "TMPX="+w.tmpX,
		"RPID="+strconv.Itoa(os.Getpid()))
	l.Sandbox = &Sandbox{Writable: []string{w.work}}
	return l
}

// refusedWrites tries each write the sandbox must refuse and says, for
// each, "<name>=<exit status>" after the command's own error.
const refusedWrites = `
rm -rf "$OUT/keep"; echo "rm=$?"
echo bad > ../outside/new; echo "outside=$?"
echo bad >> "$HOME/.bashrc"; echo "bashrc=$?"
echo bad > "$TMPX"; echo "tmp=$?"
mv mine "$OUT/mine"; echo "mv=$?"
truncate -s 0 "$OUT/victim"; echo "truncate=$?"
perl -e 'truncate($ARGV[0], 0) or die "truncate(2): $!\n"' "$OUT/victim"; echo "truncate2=$?"
`

var refusedNames = []string{"rm", "outside", "bashrc", "tmp", "mv", "truncate"}

// allowedWrites are writes the sandbox lets through.
const allowedWrites = `
echo ok > allowed; echo "w=$?"
mkdir -p sub/deeper && echo ok > sub/deeper/f && ln -s allowed link && mv sub/deeper/f moved && rm -r sub; echo "tree=$?"
echo ok > "$TMPDIR/t" && cat "$TMPDIR/t" >/dev/null; echo "tmpdir=$?"
echo ok > /dev/null; echo "null=$?"
echo to-stderr > /dev/stderr; echo "stderr=$?"
`

func checkSandboxed(t *testing.T, s surfaceUnderTest) {
	w := newSandboxWorld(t)
	before := treeDigest(t, w.outside, w.home)
	// The grandchild: a double fork, setsid, writing after its parent
	// ended; it reports through a fifo (its own session has no terminal),
	// which the leader reads to the end.
	script := refusedWrites + allowedWrites + `
mkfifo gc.fifo
(setsid sh -c 'exec >gc.fifo 2>&1; echo bad > "$OUT/gc"; echo "gc=$?"; echo bad >> "$HOME/.bashrc"; echo "gcrc=$?"; echo ok > gc-allowed; echo "gcw=$?"; kill -0 "$RPID"; echo "gckill=$?"' &)
cat gc.fifo
echo "tmpdir:$TMPDIR"
`
	l := w.launch(t, script)
	scr, newScreen := newRecScreen()
	a, err := s.start(l, newScreen)
	require.NoError(t, err)
	log := string(endedLog(t, a, l.OutputLog, 20*time.Second))
	_ = scr
	status := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^(\w+)=(\d+)\r?$`).FindAllStringSubmatch(log, -1) {
		status[m[1]], _ = strconv.Atoi(m[2])
	}
	for _, name := range append(refusedNames, "gc", "gcrc") {
		if assert.Contains(t, status, name, "%s", log) {
			assert.NotZero(t, status[name], "%s was not refused:\n%s", name, log)
		}
	}
	for _, name := range []string{"w", "tree", "tmpdir", "null", "stderr", "gcw"} {
		if assert.Contains(t, status, name, "%s", log) {
			assert.Zero(t, status[name], "%s was refused:\n%s", name, log)
		}
	}
	abi, err := LandlockABI()
	require.NoError(t, err)
	if abi >= 3 {
		// truncate(2) by path, which opens nothing: the truncate right.
		assert.NotZero(t, status["truncate2"], "truncate(2) was not refused:\n%s", log)
	}
	if abi >= 6 {
		// Signals to processes outside the sandbox are scoped out.
		assert.NotZero(t, status["gckill"], "a signal left the sandbox:\n%s", log)
	}
	assert.Contains(t, log, "Permission denied", "the kernel's EACCES, as the agent sees it")
	assert.Contains(t, log, "to-stderr")

	assert.Equal(t, before, treeDigest(t, w.outside, w.home), "something outside the worktree changed:\n%s", log)
	_, err = os.Lstat(w.tmpX)
	assert.ErrorIs(t, err, os.ErrNotExist, "/tmp/x was written")
	for _, f := range []string{"allowed", "link", "moved", "gc-allowed", "mine"} {
		_, err := os.Lstat(filepath.Join(w.work, f))
		assert.NoError(t, err, "an allowed write did not land:\n%s", log)
	}
	// The private TMPDIR was made for the attempt and is gone with it.
	m := regexp.MustCompile(`tmpdir:(\S+)`).FindStringSubmatch(log)
	require.NotNil(t, m, "%s", log)
	assert.NotEqual(t, os.TempDir(), m[1])
	_, err = os.Stat(m[1])
	assert.ErrorIs(t, err, os.ErrNotExist, "the attempt's TMPDIR outlived it")
}

func TestSandboxRefusesWritesOutsideItsTree(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) { checkSandboxed(t, s) })
	}
}

// The pane's terminal works in the sandbox: output, the size through the
// inherited tty and through /dev/tty opened inside (an ioctl on a device
// the sandbox opened, which ABI 5 handles), and a resize.
func TestSandboxedPaneKeepsItsTerminal(t *testing.T) {
	w := newSandboxWorld(t)
	l := w.launch(t, `stty size; stty size </dev/tty; echo hi >/dev/tty; echo "tty=$?"; echo ready; read line; stty size </dev/tty; echo "sized=$?"`)
	l.Cols, l.Rows = 80, 24
	scr, newScreen := newRecScreen()
	p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, `ready`, 10*time.Second)
	require.NoError(t, p.Resize(100, 30))
	_, err = p.Write([]byte("\n"))
	require.NoError(t, err)
	log := string(endedLog(t, p, l.OutputLog, 10*time.Second))
	assert.Equal(t, Exit{Code: 0}, p.Exit(), "%s", log)
	assert.Equal(t, 2, strings.Count(log, "24 80"), "%s", log)
	assert.Contains(t, log, "\nhi")
	assert.Contains(t, log, "tty=0")
	assert.Contains(t, log, "30 100")
	assert.Contains(t, log, "sized=0")
}

// Without Landlock the start fails with the reason; nothing runs.
func TestSandboxWithoutLandlockFailsTheStart(t *testing.T) {
	saved := landlockABI
	landlockABI = func() (int, error) {
		return 0, fmt.Errorf("the kernel has no Landlock (it came with Linux 5.13; landlock_create_ruleset: ENOSYS)")
	}
	t.Cleanup(func() { landlockABI = saved })
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			w := newSandboxWorld(t)
			l := w.launch(t, `echo ran > ran`)
			_, err := s.start(l, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "sandbox: the kernel has no Landlock")
			assert.NoFileExists(t, filepath.Join(w.work, "ran"))
		})
	}
}

// A ruleset the kernel refuses in the child fails the start with the
// kernel's reason, whoever applies it (the helper or the init).
func checkSandboxFaultFailsTheStart(t *testing.T, s surfaceUnderTest) {
	sandboxFault = true
	t.Cleanup(func() { sandboxFault = false })
	w := newSandboxWorld(t)
	l := w.launch(t, `echo ran > ran`)
	_, err := s.start(l, nil)
	require.Error(t, err)
	assert.Regexp(t, `sandbox: create the Landlock ruleset \(ABI \d+\): invalid argument`, err.Error())
	var se *SandboxError
	assert.ErrorAs(t, err, &se, "the engine tells a sandbox's failure from the worker's")
	assert.NoFileExists(t, filepath.Join(w.work, "ran"))
}

func TestSandboxRulesetErrorFailsTheStart(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) { checkSandboxFaultFailsTheStart(t, s) })
	}
}

func TestSandboxBadPathsFailTheStart(t *testing.T) {
	w := newSandboxWorld(t)
	for _, c := range []struct {
		sb   Sandbox
		want string
	}{
		{Sandbox{Writable: []string{"relative"}}, `writable folder "relative" is not an absolute path`},
		{Sandbox{Writable: []string{filepath.Join(w.work, "missing")}}, "writable folder: stat " + filepath.Join(w.work, "missing") + ": no such file or directory"},
		{Sandbox{Writable: []string{filepath.Join(w.work, "mine")}}, "is not a folder"},
	} {
		l := w.launch(t, `true`)
		l.Sandbox = &c.sb
		_, err := StartWrapper(l, WrapperOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
		var se *SandboxError
		assert.ErrorAs(t, err, &se)
	}
}

// Each containment kind applies the sandbox on its own path (the init of a
// PID namespace, the helper cloned into a cgroup, the helper tracked).
func TestReliabilitySandboxInEachContainment(t *testing.T) {
	for _, kind := range allContainments {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			t.Log(runSupervised(t, "TestSupervisedSandbox", kind))
		})
	}
}

func TestSupervisedSandbox(t *testing.T) {
	kind := supervised(t)
	for _, s := range bothSurfaces {
		t.Run(s.name+"/refused and allowed", func(t *testing.T) { checkSandboxed(t, s) })
		t.Run(s.name+"/ruleset error", func(t *testing.T) { checkSandboxFaultFailsTheStart(t, s) })
		t.Run(s.name+"/contained", func(t *testing.T) {
			w := newSandboxWorld(t)
			l := w.launch(t, `cat /proc/self/cgroup; echo bad > "$OUT/x"; echo "x=$?"`)
			a, err := s.start(l, nil)
			require.NoError(t, err)
			log := string(endedLog(t, a, l.OutputLog, 10*time.Second))
			assert.Equal(t, kind, a.(interface{ Containment() string }).Containment())
			assert.Regexp(t, `x=[1-9]`, log)
			if kind == ContainCgroup {
				assert.Regexp(t, `0::/.*rostra-\d+-\d+/a\d+`, log, "the worker is in the attempt's cgroup")
			}
		})
	}
	require.NoError(t, Shutdown(time.Second))
}

// BenchmarkSandboxedStart is the cost of the sandbox at an attempt's
// start: the helper's exec and the ruleset, against a plain start, each
// start to end of /bin/true.
func BenchmarkSandboxedStart(b *testing.B) {
	work := b.TempDir()
	for _, sandboxed := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "sandboxed"}[sandboxed], func(b *testing.B) {
			var starting time.Duration
			for b.Loop() {
				l := Launch{Argv: []string{"/bin/true"}, Dir: work}
				if sandboxed {
					l.Sandbox = &Sandbox{Writable: []string{work}}
				}
				t0 := time.Now()
				a, err := StartWrapper(l, WrapperOptions{})
				starting += time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				<-a.Done()
				_ = a.Close()
			}
			b.ReportMetric(float64(starting.Microseconds())/1000/float64(b.N), "start-ms/op")
		})
	}
}

// BenchmarkRestrictThread is the ruleset alone: made, filled and applied,
// each time on a thread of its own that then ends (a thread once restricted
// stays so).
func BenchmarkRestrictThread(b *testing.B) {
	sb, _, err := prepareSandbox(&Sandbox{Writable: []string{b.TempDir()}}, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	defer sb.release()
	for b.Loop() {
		errc := make(chan error, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			errc <- restrictThread(sb.spec)
		}()
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
	}
}

const noLandlockEnv = "PANES_SECCOMP_NO_LANDLOCK"

// A kernel where landlock_create_ruleset is unavailable, for real: a
// seccomp filter makes it fail with ENOSYS in a helper process (this test
// binary again), first after rostra's probe succeeded (the child's ruleset
// fails), then before it (rostra's probe fails). Neither runs the worker.
func TestSandboxWhereLandlockIsFilteredOutFailsTheStart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSeccompedLandlock$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), noLandlockEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the helper failed:\n%s", out)
	require.Contains(t, string(out), "--- PASS: TestSeccompedLandlock", "%s", out)
	t.Log(string(out))
}

func TestSeccompedLandlock(t *testing.T) {
	if os.Getenv(noLandlockEnv) == "" {
		t.Skip("helper process only (run by TestSandboxWhereLandlockIsFilteredOutFailsTheStart)")
	}
	_, err := LandlockABI() // rostra's probe, before the filter
	require.NoError(t, err)
	filterOutLandlock(t)

	w := newSandboxWorld(t)
	l := w.launch(t, `echo ran > ran`)
	_, err = StartWrapper(l, WrapperOptions{})
	require.Error(t, err)
	t.Log(err)
	assert.Contains(t, err.Error(), "sandbox: the kernel has no Landlock", "the child's own probe")
	assert.NoFileExists(t, filepath.Join(w.work, "ran"))

	landlockABI = sync.OnceValues(probeLandlockABI) // a rostra started now
	_, err = StartPTY(l, PTYOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sandbox: the kernel has no Landlock")
	assert.NoFileExists(t, filepath.Join(w.work, "ran"))
}

// filterOutLandlock makes landlock_create_ruleset fail with ENOSYS in every
// thread of this process and whatever it starts.
func filterOutLandlock(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The number is the same on every architecture (the unified table).
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 1, K: unix.SYS_LANDLOCK_CREATE_RULESET},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	require.NoError(t, unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	require.Zero(t, errno, "seccomp: %v", errno)
	_, err := probeLandlockABI()
	require.ErrorContains(t, err, "ENOSYS", "the filter is in place")
}
