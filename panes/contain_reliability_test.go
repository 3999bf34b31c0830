//go:build linux

// contain_reliability_test.go checks FAULTS.md 29 and 30 on
// real processes, for each containment kind: nothing of an attempt outlives
// it, not even a process that left the group and the session, cleared its
// environment and was orphaned before any scan saw it; orphans handed to
// rostra are reaped as soon as they end; an orphan belongs to the attempts
// live when it was reparented; and, contained, nothing survives a SIGKILL
// of rostra.
//
// Supervise changes the whole process (a reaper of every child), so each
// kind runs in a helper: this test binary again, as "rostra", whose own
// test functions (TestSupervised*) assert and whose exit code the parent
// checks.
package panes

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const supervisedEnv = "PANES_SUPERVISED"

var allContainments = []string{ContainCgroup, ContainPIDNamespace, ContainTracking}

// runSupervised runs the helper test fn in a process supervised with kind.
func runSupervised(t *testing.T, fn, kind string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+fn+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), supervisedEnv+"="+kind)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the supervised helper (%s) failed:\n%s", kind, out)
	require.Contains(t, string(out), "--- PASS: "+fn, "the helper ran nothing:\n%s", out)
	return string(out)
}

// supervised starts the helper's supervision, or skips outside a helper.
func supervised(t *testing.T) string {
	t.Helper()
	kind := os.Getenv(supervisedEnv)
	if kind == "" {
		t.Skip("helper process only (run by the containment tests)")
	}
	got, why, err := Supervise(kind)
	require.NoError(t, err)
	// As root on a kernel with cgroup v2 and user namespaces, every kind is
	// there to be had; the test of each must not pass on a fallback.
	require.Equal(t, kind, got, "containment fell back: %s", why)
	return kind
}

// TestReliabilityContainment runs the helper once per kind, the kinds in
// parallel: each helper is a process of its own (its own reaper, cgroup
// and namespace), and most of each one's time is waiting on real stop
// graces.
func TestReliabilityContainment(t *testing.T) {
	for _, kind := range allContainments {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			t.Log(runSupervised(t, "TestSupervisedAttempts", kind))
		})
	}
}

// TestSupervisedAttempts is the helper of TestReliabilityContainment.
func TestSupervisedAttempts(t *testing.T) {
	kind := supervised(t)
	// The engine runs git through os/exec: the reaper must leave rostra's
	// own children to their Wait, even while it sweeps on every SIGCHLD.
	t.Run("children rostra starts itself keep their exit status", func(t *testing.T) {
		for range 50 {
			err := exec.Command("/bin/sh", "-c", "exit 3").Run()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			require.Equal(t, 3, ee.ExitCode())
		}
	})
	for _, s := range bothSurfaces {
		t.Run(s.name+"/exit, output, containment", func(t *testing.T) {
			l := newLaunch(t, sh(`echo "pid:$$"; cat /proc/self/cgroup; ls /proc | grep -c '^[0-9]'; exit 3`))
			a, err := s.start(l, nil)
			require.NoError(t, err)
			waitDone(t, a, 10*time.Second)
			require.NoError(t, a.Close())
			assert.Equal(t, Exit{Code: 3}, a.Exit())
			assert.Equal(t, kind, a.(interface{ Containment() string }).Containment())
			log, err := os.ReadFile(l.OutputLog)
			require.NoError(t, err)
			switch kind {
			case ContainPIDNamespace:
				// The worker's pid is the namespace's (after the init and its
				// threads), and its /proc is the namespace's: a handful of
				// processes, not the machine's.
				pid := regexp.MustCompile(`pid:(\d+)`).FindStringSubmatch(string(log))
				require.NotNil(t, pid, "%s", log)
				nsPid, _ := strconv.Atoi(pid[1])
				assert.Less(t, nsPid, 64, "the worker's pid in its namespace")
				n := regexp.MustCompile(`(?m)^(\d+)\s*$`).FindStringSubmatch(string(log))
				require.NotNil(t, n, "%s", log)
				count, _ := strconv.Atoi(n[1])
				assert.LessOrEqual(t, count, 5, "processes in the namespace's /proc")
			case ContainCgroup:
				assert.Regexp(t, `0::/.*rostra-\d+-\d+/a\d+`, string(log))
			}
		})

		// Left the group and the session, cleared its environment, and its
		// parent ended before any pass over /proc could see it: tracking
		// alone cannot find it (process_linux.go), but it is rostra's
		// orphan, a member of the cgroup, or in the namespace.
		t.Run(s.name+"/untraceable escapee", func(t *testing.T) {
			l := newLaunch(t, sh(untraceable(t)+`sleep 0.3`))
			l.StopGrace = 500 * time.Millisecond
			scr, newScreen := newRecScreen()
			a, err := s.start(l, newScreen)
			require.NoError(t, err)
			m := scr.waitFor(t, `esc:(\d+)`, 5*time.Second)
			esc, _ := strconv.Atoi(m[1])
			if kind == ContainPIDNamespace {
				esc = hostPid(t, a.Pid(), esc)
			}
			require.False(t, pidGone(esc), "the escapee runs")
			waitDone(t, a, 10*time.Second)
			require.NoError(t, a.Close())
			require.Eventually(t, func() bool { return pidGone(esc) }, 5*time.Second, 10*time.Millisecond,
				"escapee %d outlived its attempt (%s)", esc, kind)
		})

		// claude leaves [git] and [sh] defunct: orphans that end while the
		// attempt goes on are reaped at once, not when rostra exits.
		t.Run(s.name+"/orphans reaped as they end", func(t *testing.T) {
			l := newLaunch(t, sh(`for i in 1 2 3 4 5; do (sh -c 'exit 0' &); done; echo spawned; sleep 30`))
			scr, newScreen := newRecScreen()
			a, err := s.start(l, newScreen)
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			scr.waitFor(t, `spawned`, 5*time.Second)
			require.Eventually(t, func() bool { return len(zombiesOf(os.Getpid())) == 0 }, 3*time.Second, 10*time.Millisecond,
				"zombies of rostra while the attempt runs: %v", zombiesOf(os.Getpid()))
			if kind == ContainPIDNamespace {
				require.Eventually(t, func() bool { return len(zombiesOf(a.Pid())) == 0 }, 3*time.Second, 10*time.Millisecond,
					"zombies of the init: %v", zombiesOf(a.Pid()))
			}
			require.NoError(t, a.Signal(syscall.SIGTERM))
			waitDone(t, a, 10*time.Second)
		})
	}
	require.NoError(t, Shutdown(time.Second))
}

// TestReliabilityOrphanBelongsToTheAttemptsLiveWhenReparented: with
// tracking only, an untraceable orphan of attempt B, reparented while A and
// B both ran, is kept when B settles and stopped when A does.
func TestReliabilityOrphanBelongsToTheAttemptsLiveWhenReparented(t *testing.T) {
	t.Log(runSupervised(t, "TestSupervisedOrphanAttribution", ContainTracking))
}

func TestSupervisedOrphanAttribution(t *testing.T) {
	supervised(t)
	scrA, newA := newRecScreen()
	la := newLaunch(t, sh(`echo a-up; exec sleep 1000`))
	la.StopGrace = 300 * time.Millisecond
	a, err := StartWrapper(la, WrapperOptions{NewScreen: newA})
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	scrA.waitFor(t, `a-up`, 5*time.Second)

	scrB, newB := newRecScreen()
	lb := newLaunch(t, sh(untraceable(t)+`exit 0`))
	lb.StopGrace = 300 * time.Millisecond
	b, err := StartWrapper(lb, WrapperOptions{NewScreen: newB})
	require.NoError(t, err)
	m := scrB.waitFor(t, `esc:(\d+)`, 5*time.Second)
	esc, _ := strconv.Atoi(m[1])
	waitDone(t, b, 5*time.Second)
	require.NoError(t, b.Close())
	time.Sleep(3 * lb.StopGrace)
	assert.False(t, pidGone(esc), "the orphan is also A's: A was live when it was reparented")

	require.NoError(t, a.Signal(syscall.SIGTERM))
	waitDone(t, a, 5*time.Second)
	require.NoError(t, a.Close())
	require.Eventually(t, func() bool { return pidGone(esc) }, 5*time.Second, 10*time.Millisecond,
		"the orphan outlived the last attempt it could belong to")
	require.NoError(t, Shutdown(time.Second))
}

// TestReliabilityAQuietSupervisorMakesNoSystemCall: while an attempt is
// live and quiet the supervisor does not look at /proc (nothing can be
// handed over that is not that attempt's, and its settle looks first);
// once none is live, a backstop looks again a second after the settle.
func TestReliabilityAQuietSupervisorMakesNoSystemCall(t *testing.T) {
	t.Log(runSupervised(t, "TestSupervisedQuiet", ContainTracking))
}

func TestSupervisedQuiet(t *testing.T) {
	supervised(t)
	scr, newScreen := newRecScreen()
	l := newLaunch(t, sh(`echo up; exec sleep 1000`))
	a, err := StartWrapper(l, WrapperOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	scr.waitFor(t, `up`, 5*time.Second)
	before := sup.sweeps.Load()
	time.Sleep(2500 * time.Millisecond) // the ticker this replaced swept twice here
	assert.Equal(t, before, sup.sweeps.Load(), "passes over /proc while an attempt is live and quiet")

	require.NoError(t, a.Signal(syscall.SIGTERM))
	waitDone(t, a, 5*time.Second)
	require.NoError(t, a.Close())
	settled := sup.sweeps.Load()
	require.Eventually(t, func() bool { return sup.sweeps.Load() > settled }, 5*time.Second, 10*time.Millisecond,
		"a backstop pass after the last settle")
	require.NoError(t, Shutdown(time.Second))
}

// TestBackstopDelays: none while an attempt is live; after a settle from a
// second, doubling to a minute, then ending when no orphan is left to
// watch; a pass that finds an orphan starts it over.
func TestBackstopDelays(t *testing.T) {
	s := &supervisor{live: map[*attemptRef]bool{}, orphans: map[int]*orphan{}, doomed: map[int]uint64{}}
	ref := &attemptRef{}
	s.live[ref] = true
	s.backstop = backstopFirst
	assert.Zero(t, s.nextBackstopLocked(3), "an attempt is live")
	delete(s.live, ref)
	var got []time.Duration
	for range 9 {
		got = append(got, s.nextBackstopLocked(0))
	}
	sec := time.Second
	assert.Equal(t, []time.Duration{sec, 2 * sec, 4 * sec, 8 * sec, 16 * sec, 32 * sec, time.Minute, 0, 0}, got)
	assert.Equal(t, sec, s.nextBackstopLocked(1), "a pass found an orphan")
	s.orphans[42] = &orphan{}
	s.backstop = time.Minute
	assert.Equal(t, time.Minute, s.nextBackstopLocked(0))
	assert.Equal(t, time.Minute, s.nextBackstopLocked(0), "an orphan is still watched")
}

// TestReliabilityNothingSurvivesASIGKILLedRostra: the helper starts an
// attempt whose escapee tracking cannot find, and is SIGKILLed. Contained,
// the escapee dies with it (the cgroup watchdog, or the kernel emptying the
// namespace); with tracking only, it lives on (the limit docs/internals.md states).
func TestReliabilityNothingSurvivesASIGKILLedRostra(t *testing.T) {
	for _, kind := range allContainments {
		for _, s := range []string{"pty", "wrapper"} {
			t.Run(kind+"/"+s, func(t *testing.T) {
				cmd := exec.Command(os.Args[0], "-test.run=^TestSupervisedRostraToKill$", "-test.v")
				cmd.Env = append(os.Environ(), supervisedEnv+"="+kind, "PANES_HELPER_SURFACE="+s)
				out, err := cmd.StdoutPipe()
				require.NoError(t, err)
				require.NoError(t, cmd.Start())
				t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
				var esc int
				var cgDir string
				lines := bufio.NewScanner(out)
				for (esc == 0 || cgDir == "") && lines.Scan() {
					fmt.Sscanf(lines.Text(), "escapee:%d", &esc)
					if d, ok := strings.CutPrefix(lines.Text(), "cgroup:"); ok {
						cgDir = d
					}
				}
				require.NotZero(t, esc, "the helper never told the escapee")
				require.False(t, pidGone(esc))
				t.Cleanup(func() { _ = syscall.Kill(esc, syscall.SIGKILL) })

				require.NoError(t, cmd.Process.Kill())
				_ = cmd.Wait()
				if kind == ContainTracking {
					time.Sleep(time.Second)
					assert.False(t, pidGone(esc) || isZombie(esc), "tracking alone: the untraceable escapee outlives a SIGKILLed rostra (docs/internals.md says so)")
					return
				}
				require.Eventually(t, func() bool { return pidGone(esc) || isZombie(esc) }, 10*time.Second, 10*time.Millisecond,
					"escapee %d outlived its SIGKILLed rostra (%s)", esc, kind)
				if kind == ContainCgroup {
					require.Eventually(t, func() bool { _, err := os.Stat(cgDir); return os.IsNotExist(err) }, 10*time.Second, 10*time.Millisecond,
						"the watchdog removes the dead rostra's cgroups (%s)", cgDir)
				}
			})
		}
	}
}

// TestSupervisedRostraToKill is the rostra of the test above.
func TestSupervisedRostraToKill(t *testing.T) {
	kind := supervised(t)
	l := Launch{Argv: sh(untraceable(t) + `exec sleep 1000`)}
	scr, newScreen := newRecScreen()
	var a interface {
		Pid() int
		Close() error
	}
	switch os.Getenv("PANES_HELPER_SURFACE") {
	case "pty":
		p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
		require.NoError(t, err)
		a = p
	default:
		p, err := StartWrapper(l, WrapperOptions{NewScreen: newScreen})
		require.NoError(t, err)
		a = p
	}
	m := scr.waitFor(t, `esc:(\d+)`, 5*time.Second)
	esc, _ := strconv.Atoi(m[1])
	if kind == ContainPIDNamespace {
		esc = hostPid(t, a.Pid(), esc)
	}
	cgDir := "-"
	if sup.cgParent != nil {
		cgDir = sup.cgParent.dir
	}
	fmt.Printf("cgroup:%s\nescapee:%d\n", cgDir, esc)
	select {} // until SIGKILLed
}

// hostPid finds, among the descendants of the init whose host pid is init,
// the process that is nsPid in the namespace (NSpid in /proc/<pid>/status).
func hostPid(t *testing.T, init, nsPid int) int {
	t.Helper()
	var found int
	require.Eventually(t, func() bool {
		for pid := range subtree(init, startTime(init)) {
			b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if f, ok := strings.CutPrefix(line, "NSpid:"); ok {
					ids := strings.Fields(f)
					if len(ids) == 2 && ids[1] == strconv.Itoa(nsPid) {
						found = pid
						return true
					}
				}
			}
		}
		return false
	}, 5*time.Second, 10*time.Millisecond, "no process is pid %d in the namespace of init %d", nsPid, init)
	return found
}

// untraceable is a shell snippet that leaves a process tracking cannot
// find: it leaves the group and the session and clears its environment
// (all done before the snippet goes on, so that no pass over /proc can see
// it as a member first), and its parent, a subshell, has ended. It prints
// "esc:<pid>".
func untraceable(t *testing.T) string {
	f := filepath.Join(t.TempDir(), "esc")
	return `(env -i /usr/bin/setsid /bin/sh -c 'echo $$ > ` + f + `; exec sleep 1000' & ` +
		`while [ ! -s ` + f + ` ]; do sleep 0.01; done; echo "esc:$(cat ` + f + `)"); `
}

// zombiesOf lists the children of pid that ended and were not reaped.
func zombiesOf(pid int) []int {
	var out []int
	for _, p := range listPIDs() {
		if st, ok := readProcStat(p); ok && st.ppid == pid && dead(st) {
			out = append(out, p)
		}
	}
	return out
}
