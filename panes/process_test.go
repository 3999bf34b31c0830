//go:build linux

// process_test.go tests what both surfaces share, on real processes: exit
// status, draining every byte, waiting for output holders, stopping whole
// groups and setsid escapees, start failures, dying with rostra.
package panes

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
	"go.uber.org/goleak"
)

// attempt is what the tests need of both PTYProcess and WrapperProcess.
type attempt interface {
	Pid() int
	Done() <-chan struct{}
	Exited() <-chan struct{}
	Exit() Exit
	Signal(syscall.Signal) error
	OutputBytes() int64
	Close() error
}

type surfaceUnderTest struct {
	name  string
	start func(l Launch, screen func(cols, rows int, reply func([]byte)) Screen) (attempt, error)
}

var bothSurfaces = []surfaceUnderTest{
	{"pty", func(l Launch, s func(int, int, func([]byte)) Screen) (attempt, error) {
		p, err := StartPTY(l, PTYOptions{NewScreen: s})
		if err != nil {
			return nil, err
		}
		return p, nil
	}},
	{"wrapper", func(l Launch, s func(int, int, func([]byte)) Screen) (attempt, error) {
		p, err := StartWrapper(l, WrapperOptions{NewScreen: s})
		if err != nil {
			return nil, err
		}
		return p, nil
	}},
}

func ignoreSpawnLoop() goleak.Option { return goleak.IgnoreTopFunction(SpawnLoopFunc) }

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func newLaunch(t *testing.T, argv []string) Launch {
	t.Helper()
	return Launch{
		Argv:      argv,
		Dir:       t.TempDir(),
		OutputLog: filepath.Join(t.TempDir(), "output.log"),
		StopGrace: 2 * time.Second,
	}
}

// recScreen is a Screen that records what it was given and lets a test wait
// for a string to appear.
type recScreen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	sizes   [][2]int
	changed chan struct{}
	reply   func([]byte)
	onWrite func(s *recScreen, b []byte)
	term    *vt.Terminal // follows the child's modes, as the real Screen does
}

func newRecScreen() (*recScreen, func(cols, rows int, reply func([]byte)) Screen) {
	s := &recScreen{changed: make(chan struct{})}
	return s, func(cols, rows int, reply func([]byte)) Screen {
		s.mu.Lock()
		s.sizes = append(s.sizes, [2]int{cols, rows})
		s.reply = reply
		s.term = vt.New(cols, rows, vt.Options{})
		s.mu.Unlock()
		return s
	}
}

// Modes are the child's modes, as a Terminal fed the same bytes has them.
func (s *recScreen) Modes() vt.Modes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.term.Modes()
}

func (s *recScreen) Write(b []byte) (int, error) {
	s.mu.Lock()
	s.buf.Write(b)
	_, _ = s.term.Write(b)
	close(s.changed)
	s.changed = make(chan struct{})
	hook := s.onWrite
	s.mu.Unlock()
	if hook != nil {
		hook(s, b)
	}
	return len(b), nil
}

func (s *recScreen) Resize(cols, rows int) {
	s.mu.Lock()
	s.sizes = append(s.sizes, [2]int{cols, rows})
	s.mu.Unlock()
}

func (s *recScreen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen's bytes match re and returns the match.
func (s *recScreen) waitFor(t *testing.T, re string, d time.Duration) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		m := rx.FindStringSubmatch(s.buf.String())
		ch := s.changed
		s.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-ch:
		case <-deadline.C:
			require.FailNowf(t, "screen never matched", "%q not in %q", re, s.String())
		}
	}
}

func waitDone(t *testing.T, a attempt, d time.Duration) {
	t.Helper()
	select {
	case <-a.Done():
	case <-time.After(d):
		require.FailNow(t, "attempt not done", "after %s; exited: %v; processes: %s", d, isClosed(a.Exited()), describeGroup(a.Pid()))
	}
}

// endedLog waits up to d for a to end, closes it and returns what its
// output.log (at path) holds.
func endedLog(t *testing.T, a attempt, path string, d time.Duration) []byte {
	t.Helper()
	waitDone(t, a, d)
	require.NoError(t, a.Close())
	log, err := os.ReadFile(path)
	require.NoError(t, err)
	return log
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// describeGroup lists the processes of a group or session, for failures.
func describeGroup(pgid int) string {
	var b strings.Builder
	for _, pid := range listPIDs() {
		if st, ok := readProcStat(pid); ok && (pid == pgid || st.pgrp == pgid || st.session == pgid) {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			fmt.Fprintf(&b, "[pid %d ppid %d pgrp %d sid %d state %c %q] ", pid, st.ppid, st.pgrp, st.session, st.state, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
		}
	}
	return b.String()
}

func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

func pidGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(ents)
}

func TestExitCodeAndEveryByteOfOutput(t *testing.T) {
	// 228,894 bytes with no newline (so a pty's ONLCR changes nothing),
	// then exit at once: the tail must not be lost to the exit.
	var want strings.Builder
	for i := 1; i <= 40000; i++ {
		want.WriteString(strconv.Itoa(i))
		want.WriteByte(',')
	}
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			l := newLaunch(t, sh(`seq 1 40000 | tr '\n' ','; exit 3`))
			a, err := s.start(l, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			waitDone(t, a, 10*time.Second)
			require.NoError(t, a.Close())
			assert.Equal(t, Exit{Code: 3}, a.Exit())
			got, err := os.ReadFile(l.OutputLog)
			require.NoError(t, err)
			require.Equal(t, want.Len(), len(got), "output.log length")
			require.True(t, want.String() == string(got), "output.log content differs")
			assert.Equal(t, int64(want.Len()), a.OutputBytes())
			fi, err := os.Stat(l.OutputLog)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		})
	}
}

func TestExitBySignalIsReportedFromWait(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			a, err := s.start(newLaunch(t, sh(`kill -KILL $$`)), nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			waitDone(t, a, 5*time.Second)
			require.NoError(t, a.Close())
			assert.Equal(t, Exit{Code: -1, Signal: "killed"}, a.Exit())
		})
	}
}

func TestStopKillsGroupThatIgnoresTERMAfterGrace(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, ignoreSpawnLoop())
			scr, newScreen := newRecScreen()
			// The ignored TERM is inherited by the grandchild too.
			a, err := s.start(newLaunch(t, sh(`trap "" TERM; sleep 1000 & echo "ready:$!"; wait`)), newScreen)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			m := scr.waitFor(t, `ready:(\d+)`, 5*time.Second)
			grandchild, _ := strconv.Atoi(m[1])

			// The engine's stopping rule (docs/design.md §Stopping): SIGTERM, then after the
			// grace Close, which SIGKILLs what is left and reaps it.
			const grace = 300 * time.Millisecond
			require.NoError(t, a.Signal(syscall.SIGTERM))
			select {
			case <-a.Exited():
				t.Fatal("TERM was ignored: only the grace may end it")
			case <-time.After(grace):
			}
			require.NoError(t, a.Close())
			assert.Equal(t, Exit{Code: -1, Signal: "killed"}, a.Exit())
			assert.True(t, groupGone(a.Pid()), "kill(-pgid, 0) must be ESRCH")
			assert.True(t, pidGone(grandchild), "grandchild %d still present", grandchild)
		})
	}
}

func TestSignalSequenceTERMThenKILL(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			scr, newScreen := newRecScreen()
			a, err := s.start(newLaunch(t, sh(`trap "" TERM; sleep 1000 & echo ready; wait`)), newScreen)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			scr.waitFor(t, `ready`, 5*time.Second)
			require.NoError(t, a.Signal(syscall.SIGTERM))
			select {
			case <-a.Exited():
				t.Fatal("SIGTERM is ignored; the leader must still run")
			case <-time.After(200 * time.Millisecond):
			}
			require.NoError(t, a.Signal(syscall.SIGKILL))
			waitDone(t, a, 5*time.Second)
			assert.Equal(t, "killed", a.Exit().Signal)
			require.NoError(t, a.Close())
			assert.True(t, groupGone(a.Pid()))
			// Signalling a finished attempt is not an error.
			assert.NoError(t, a.Signal(syscall.SIGTERM))
		})
	}
}

func TestGrandchildHoldingOutputEndsWithinGrace(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, ignoreSpawnLoop())
			// HUP ignored: the grandchild survives the session leader's exit
			// and keeps the output open.
			l := newLaunch(t, sh(`trap "" HUP; sleep 1000 & echo "gc:$!"`))
			l.StopGrace = 400 * time.Millisecond
			start := time.Now()
			a, err := s.start(l, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			startedIn := time.Since(start)
			select {
			case <-a.Exited():
			case <-time.After(5 * time.Second):
				require.FailNow(t, "leader did not exit", "started in %s; %s", startedIn, describeGroup(a.Pid()))
			}
			waitDone(t, a, l.StopGrace+killedDrainLimit+2*time.Second)
			elapsed := time.Since(start)
			assert.GreaterOrEqual(t, elapsed, l.StopGrace, "Done must wait for the holder up to the grace")
			assert.Equal(t, Exit{Code: 0}, a.Exit())

			log, err := os.ReadFile(l.OutputLog)
			require.NoError(t, err)
			m := regexp.MustCompile(`gc:(\d+)`).FindSubmatch(log)
			require.NotNil(t, m, "log: %q", log)
			grandchild, _ := strconv.Atoi(string(m[1]))
			require.NoError(t, a.Close())
			assert.True(t, pidGone(grandchild), "grandchild %d still present", grandchild)
			assert.True(t, groupGone(a.Pid()))
		})
	}
}

func TestSetsidEscapeeIsSignalled(t *testing.T) {
	scripts := map[string]string{
		"token": `setsid sleep 1000 & echo "esc:$!"; wait`,
		// No token: found as the descendant of a live attempt process.
		"cleared env": `(env -i /usr/bin/setsid /bin/sleep 1000 & echo "esc:$!"; wait); wait`,
	}
	for _, s := range bothSurfaces {
		for how, script := range scripts {
			t.Run(s.name+"/"+how, func(t *testing.T) { testEscapee(t, s, script) })
		}
	}
}

func testEscapee(t *testing.T, s surfaceUnderTest, script string) {
	{
		{
			defer goleak.VerifyNone(t, ignoreSpawnLoop())
			scr, newScreen := newRecScreen()
			l := newLaunch(t, sh(script))
			l.StopGrace = 30 * time.Second // the grace must not be what ends it
			a, err := s.start(l, newScreen)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			m := scr.waitFor(t, `esc:(\d+)`, 5*time.Second)
			escapee, _ := strconv.Atoi(m[1])
			require.Eventually(t, func() bool {
				st, ok := readProcStat(escapee)
				return ok && st.session == escapee
			}, 5*time.Second, 5*time.Millisecond, "the escapee must have its own session")
			st, _ := readProcStat(escapee)
			require.NotEqual(t, a.Pid(), st.pgrp, "the escapee left the process group")

			require.NoError(t, a.Signal(syscall.SIGKILL))
			waitDone(t, a, 5*time.Second)
			require.NoError(t, a.Close())
			assert.True(t, pidGone(escapee), "escapee %d still present", escapee)
		}
	}
}

func TestStartFailureIsTheReason(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			before := openFDs(t)
			_, err := s.start(newLaunch(t, []string{"/nonexistent/agent", "-p"}), nil)
			require.Error(t, err)
			assert.Equal(t, "start /nonexistent/agent: fork/exec /nonexistent/agent: no such file or directory", err.Error())

			_, err = s.start(newLaunch(t, []string{"no-such-agent-cli"}), nil)
			require.Error(t, err)
			assert.Equal(t, "start no-such-agent-cli: executable file not found in $PATH", err.Error())

			l := newLaunch(t, []string{"true"})
			l.Dir = "/nonexistent/dir"
			_, err = s.start(l, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "start true: ")
			assert.Contains(t, err.Error(), "no such file or directory")
			assert.Equal(t, before, openFDs(t), "a failed start must not leak fds")
		})
	}
}

func TestChildEnvCarriesAttemptToken(t *testing.T) {
	env := childEnv([]string{"A=1", AttemptTokenEnv + "=outer"}, "inner")
	assert.Equal(t, []string{"A=1", AttemptTokenEnv + "=outer,inner"}, env)
	env = childEnv([]string{"TERM=dumb"}, "tok")
	assert.Equal(t, []string{"TERM=dumb", AttemptTokenEnv + "=tok"}, env)
}

func TestTerminalEnv(t *testing.T) {
	identity := []string{"TERM=xterm-256color", "COLORTERM=truecolor", "TERM_PROGRAM=rostra", "TERM_PROGRAM_VERSION=" + vt.Version()}
	for _, tc := range []struct {
		name     string
		env, set []string
		want     []string
	}{
		{"plain", []string{"A=1"}, nil, append([]string{"A=1"}, identity...)},
		{"inside tmux",
			[]string{"TERM=tmux-256color", "TMUX=/tmp/x,1,0", "A=1", "TMUX_PANE=%1", "TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.3a"},
			nil, append([]string{"A=1"}, identity...)},
		{"inside kitty, zellij and wezterm",
			[]string{"KITTY_WINDOW_ID=1", "ZELLIJ=0", "ZELLIJ_SESSION_NAME=x", "WEZTERM_PANE=3", "ITERM_PROFILE=p", "VTE_VERSION=1", "WT_SESSION=s", "STY=x", "B=2"},
			nil, append([]string{"B=2"}, identity...)},
		{"the worker's TERM wins",
			[]string{"TERM=tmux-256color", "TERM=screen", "COLORTERM=24bit"},
			[]string{"TERM"}, []string{"TERM=tmux-256color", "TERM=screen", "COLORTERM=truecolor", "TERM_PROGRAM=rostra", "TERM_PROGRAM_VERSION=" + vt.Version()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.ElementsMatch(t, tc.want, terminalEnv(tc.env, tc.set))
		})
	}
}

func TestLookPathUsesTheChildsPATH(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "fake-agent")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\necho from-child-path\n"), 0o755))
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			l := newLaunch(t, []string{"fake-agent"})
			l.Env = []string{"PATH=" + dir + ":/usr/bin:/bin"}
			a, err := s.start(l, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			log := endedLog(t, a, l.OutputLog, 5*time.Second)
			assert.Contains(t, string(log), "from-child-path")
		})
	}
}

// TestChildDiesWithRostra SIGKILLs a process that started an attempt (this
// test binary, re-executed) and checks that the attempt's leader dies too.
func TestChildDiesWithRostra(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRostraParent$")
			cmd.Env = append(os.Environ(), "PANES_HELPER_SURFACE="+s.name)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			var line [64]byte
			n, err := out.Read(line[:])
			require.NoError(t, err)
			m := regexp.MustCompile(`child:(\d+)`).FindSubmatch(line[:n])
			require.NotNil(t, m, "helper said %q", line[:n])
			child, _ := strconv.Atoi(string(m[1]))
			require.False(t, pidGone(child))

			require.NoError(t, cmd.Process.Kill())
			_ = cmd.Wait()
			// The orphan is reparented to this test binary (a subreaper):
			// dead means a zombie or gone; reap it.
			require.Eventually(t, func() bool {
				st, ok := readProcStat(child)
				return !ok || st.state == 'Z'
			}, 5*time.Second, 5*time.Millisecond, "child %d outlived its rostra", child)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(child, &ws, syscall.WNOHANG, nil)
		})
	}
}

// TestHelperRostraParent is the "rostra" of TestChildDiesWithRostra.
func TestHelperRostraParent(t *testing.T) {
	name := os.Getenv("PANES_HELPER_SURFACE")
	if name == "" {
		t.Skip("helper process only")
	}
	l := Launch{Argv: []string{"sleep", "1000"}}
	var pid int
	switch name {
	case "pty":
		// Ignoring SIGHUP leaves Pdeathsig as the only thing that kills it.
		l.Argv = sh(`trap "" HUP; exec sleep 1000`)
		p, err := StartPTY(l, PTYOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		pid = p.Pid()
	default:
		p, err := StartWrapper(l, WrapperOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		pid = p.Pid()
	}
	fmt.Printf("child:%d\n", pid)
	select {} // until SIGKILLed
}

// TestCloseStopsARunningAttempt: Close without a Stop first (rostra quitting
// hard) kills the group, ends the attempt and releases everything.
func TestCloseStopsARunningAttempt(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, ignoreSpawnLoop())
			scr, newScreen := newRecScreen()
			l := newLaunch(t, sh(`trap "" TERM HUP; sleep 1000 & echo ready; wait`))
			l.StopGrace = time.Minute // Close must not wait for it
			before := openFDs(t)
			a, err := s.start(l, newScreen)
			require.NoError(t, err)
			scr.waitFor(t, `ready`, 5*time.Second)
			start := time.Now()
			require.NoError(t, a.Close())
			assert.Less(t, time.Since(start), 3*time.Second)
			assert.True(t, isClosed(a.Done()))
			assert.Equal(t, Exit{Code: -1, Signal: "killed"}, a.Exit())
			assert.True(t, groupGone(a.Pid()))
			assert.Equal(t, before, openFDs(t), "fds released")
		})
	}
}

// TestCloseStopsADaemonLeftInTheGroup: a group member that closed the
// output does not hold Done; Close, after the leader was reaped (its pid no
// longer trusted as the group id), still finds and kills it.
func TestCloseStopsADaemonLeftInTheGroup(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, ignoreSpawnLoop())
			l := newLaunch(t, sh(`trap "" HUP; sleep 1000 >/dev/null 2>&1 </dev/null & echo "bg:$!"`))
			l.StopGrace = time.Minute
			a, err := s.start(l, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			waitDone(t, a, 5*time.Second) // nothing holds the output
			log, err := os.ReadFile(l.OutputLog)
			require.NoError(t, err)
			m := regexp.MustCompile(`bg:(\d+)`).FindSubmatch(log)
			require.NotNil(t, m, "log: %q", log)
			daemon, _ := strconv.Atoi(string(m[1]))
			require.False(t, pidGone(daemon), "the daemon outlives the leader")

			require.NoError(t, a.Close())
			assert.True(t, pidGone(daemon), "daemon %d still present", daemon)
			assert.True(t, groupGone(a.Pid()))
		})
	}
}

// TestChildOutlivesTheThreadThatStartedIt: Pdeathsig fires when the thread
// that forked the child exits. StartWrapper called from a goroutine locked
// to a thread that then dies (the runtime terminates it) must not take the
// child with it: the fork happens on panes' spawn thread.
func TestChildOutlivesTheThreadThatStartedIt(t *testing.T) {
	type start struct {
		p   *WrapperProcess
		tid int
	}
	started := make(chan start, 1)
	hostage := make(chan struct{})
	defer close(hostage)
	for {
		onMain := make(chan bool, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			if syscall.Gettid() == os.Getpid() {
				// The main thread is never terminated: keep it busy here,
				// so the next try runs on another thread.
				onMain <- true
				<-hostage
				return
			}
			onMain <- false
			p, err := StartWrapper(Launch{Argv: []string{"sleep", "1000"}}, WrapperOptions{})
			if err != nil {
				panic(err)
			}
			started <- start{p, syscall.Gettid()}
		}()
		if !<-onMain {
			break
		}
	}
	s := <-started
	t.Cleanup(func() { _ = s.p.Close() })
	require.Eventually(t, func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", s.tid))
		return err != nil
	}, 5*time.Second, 5*time.Millisecond, "the starter's thread must be gone")
	select {
	case <-s.p.Exited():
		t.Fatalf("the child died with its starter's thread: %+v", s.p.Exit())
	case <-time.After(200 * time.Millisecond):
	}
}

// TestOutputLogWriteErrorDoesNotStopTheDrain: a full disk (here /dev/full)
// loses the log, never the child's progress or the screen.
func TestOutputLogWriteErrorDoesNotStopTheDrain(t *testing.T) {
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			scr, newScreen := newRecScreen()
			l := newLaunch(t, sh(`seq 1 20000 | tr '\n' ','; echo end`))
			l.OutputLog = "/dev/full"
			a, err := s.start(l, newScreen)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			waitDone(t, a, 10*time.Second)
			assert.Equal(t, Exit{Code: 0}, a.Exit())
			assert.Contains(t, scr.String(), "19999,20000,end")
			logErr := a.(interface{ OutputLogErr() error }).OutputLogErr()
			assert.ErrorIs(t, logErr, syscall.ENOSPC)
			assert.Greater(t, a.OutputBytes(), int64(100000))
		})
	}
}
