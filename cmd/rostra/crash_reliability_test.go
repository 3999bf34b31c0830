// crash_reliability_test.go drives the real rostra binary through FAULTS.md's
// faults that only a whole process can show: rostra SIGKILLed mid-run and
// resumed (14), the lock of a killed holder (16), a full disk under the
// state dir (15), ptys that cannot be opened for real (18), hostile inputs
// (20), and the state files' permissions.
package main

import (
	"errors"
	"fmt"
	"io/fs"
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
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

var startedRx = regexp.MustCompile(`(\S+)#(\d+) started on (\w+) \(pid (\d+)\)`)

// startedPids maps "<worker>#<n>" to the pid of the attempt, from the
// headless output.
func startedPids(out string) map[string]int {
	pids := map[string]int{}
	for _, m := range startedRx.FindAllStringSubmatch(out, -1) {
		pid, _ := strconv.Atoi(m[4])
		pids[m[1]+"#"+m[2]] = pid
	}
	return pids
}

// reapChild waits for pid, a child of this test process (an orphan of a
// killed rostra, reparented here because the test is a subreaper), and
// returns how it ended.
func reapChild(t *testing.T, pid int, within time.Duration) syscall.WaitStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid {
			return ws
		}
		// ECHILD: not reparented here yet (its parent is still dying).
		if err != nil && !errors.Is(err, syscall.EINTR) && !errors.Is(err, syscall.ECHILD) {
			require.NoError(t, err, "wait for pid %d", pid)
		}
		require.True(t, time.Now().Before(deadline), "pid %d still alive, or never reparented to the test, %s after rostra died (wait4: %v)", pid, within, err)
		time.Sleep(5 * time.Millisecond) // bounded poll: a stranger's orphan gives no event to wait on
	}
}

func readPidFile(t *testing.T, path string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	}, 5*time.Second, 5*time.Millisecond, "no pid in %s", path)
	return pid
}

const crashRun = `version: 1
name: crash
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: sh-quick
    role: quick
    prompt: "echo quick {attempt}"
  - id: sh-paned
    role: paned
    surfaces: [pane]
    prompt: "if [ {attempt} -ge 2 ]; then echo resumed-{worker}; exit 0; fi; sleep 30 & echo $! > paned-gc.pid; wait"
  - id: sh-wrapped
    role: wrapped
    surfaces: [wrapper]
    prompt: "if [ {attempt} -ge 2 ]; then echo resumed-{worker}; exit 0; fi; exec sleep 30"
`

// TestReliabilityRostraSIGKILLedMidRunThenResumed is faults 14 and 16, with
// tracking only (what a machine without a writable cgroup or user
// namespaces gets): each process ends the way the tracking fallback ends
// it, which the test reads by reaping it. Contained, everything dies with
// rostra at once (TestReliabilityNothingOutlivesRostra).
func TestReliabilityRostraSIGKILLedMidRunThenResumed(t *testing.T) {
	// Not parallel: it reaps orphans as a subreaper, which an engine
	// running beside it could reap first.
	t.Setenv(containmentEnv, "tracking")
	// Orphans of the killed rostra come to this process, so the test can
	// see how each of them ended.
	require.NoError(t, unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
	ws := runWorkspace(t, crashRun)
	runFile := filepath.Join(ws, "rostra.yaml")
	stateDir := filepath.Join(ws, ".rostra", "crash")

	cmd, out := startBin(t, ws, "sh-quick#1 completed", "run", "--headless")
	require.Eventually(t, func() bool { return len(startedPids(out.String())) == 3 }, 10*time.Second, 5*time.Millisecond, out.String())
	pids := startedPids(out.String())
	paned, wrapped := pids["sh-paned#1"], pids["sh-wrapped#1"]
	grandchild := readPidFile(t, filepath.Join(ws, "paned-gc.pid"))
	// Events reach the printer before the batch that made them is saved:
	// kill only once team-state.json has the rows the test reasons about.
	require.Eventually(t, func() bool {
		st, err := statedir.ReadTeamState(stateDir)
		if err != nil || len(st.Dispatches) != 3 {
			return false
		}
		for _, w := range st.Workers {
			want := statedir.StatusRunning
			if w.WorkerID == "sh-quick" {
				want = statedir.StatusCompleted
			}
			if w.Status != want {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond, "team-state.json never showed the run mid-way")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())

	// The pty session was hung up: its foreground group got SIGHUP.
	gcStatus := reapChild(t, grandchild, 5*time.Second)
	assert.True(t, gcStatus.Signaled() && gcStatus.Signal() == syscall.SIGHUP, "pty grandchild ended with %v", gcStatus)
	panedStatus := reapChild(t, paned, 5*time.Second)
	assert.True(t, panedStatus.Signaled(), "pty leader ended with %v", panedStatus)
	// The wrapper child has no terminal to lose: Pdeathsig killed it.
	wrappedStatus := reapChild(t, wrapped, 5*time.Second)
	assert.True(t, wrappedStatus.Signaled() && wrappedStatus.Signal() == syscall.SIGKILL, "wrapper child ended with %v", wrappedStatus)

	// The files parse, as the dead rostra left them.
	st, err := statedir.ReadTeamState(stateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunRunning, st.Status)
	deadPid := st.Pid
	assert.Equal(t, cmd.Process.Pid, deadPid)
	_, err = statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)

	// Fault 16: the kernel dropped the dead holder's flock.
	lock, err := statedir.AcquireRunLock(stateDir)
	require.NoError(t, err, "the lock of a SIGKILLed rostra must be free")
	require.NoError(t, lock.Release())

	// The run file changes its provider's command meanwhile; the resumed
	// attempts must still run the command recorded for the run.
	changed := strings.Replace(crashRun, `command: ["bash", "-c", "{prompt}"]`, `command: ["bash", "-c", "echo CHANGED-COMMAND; exit 9"]`, 1)
	require.NotEqual(t, crashRun, changed)
	require.NoError(t, os.WriteFile(runFile, []byte(changed), 0o644))

	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, fmt.Sprintf("was interrupted (rostra pid %d died)", deadPid))
	assert.Contains(t, r.stderr, "rostra run --resume")
	assert.NotContains(t, r.stderr, "already driven")

	r = runBin(t, ws, "run", "--headless", "--resume")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, fmt.Sprintf("2 attempt(s) left running by rostra pid %d marked interrupted", deadPid))

	st, err = statedir.ReadTeamState(stateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunFinished, st.Status)
	rows := map[string]statedir.DispatchRow{}
	for _, d := range st.Dispatches {
		rows[d.DispatchID] = d
	}
	for _, id := range []string{"sh-paned", "sh-wrapped"} {
		first := rows[id+"#1"]
		assert.Equal(t, statedir.StatusError, first.Status, id)
		assert.Equal(t, fmt.Sprintf("interrupted (rostra pid %d died)", deadPid), first.Reason, id)
		assert.NotNil(t, first.EndedAt, id)
		second, ok := rows[id+"#2"]
		require.True(t, ok, "%s gets a new attempt", id)
		assert.Equal(t, statedir.StatusCompleted, second.Status, id)
		log, err := os.ReadFile(second.OutputLogPath)
		require.NoError(t, err)
		assert.Contains(t, string(log), "resumed-"+id)
		assert.NotContains(t, string(log), "CHANGED-COMMAND", "the recorded command runs, not the changed run file's")
	}
	_, again := rows["sh-quick#2"]
	assert.False(t, again, "a completed worker is not run again")
	for _, w := range st.Workers {
		assert.Equal(t, statedir.StatusCompleted, w.Status, w.WorkerID)
		assert.Equal(t, []string{"bash", "-c", "{prompt}"}, w.Command, w.WorkerID)
	}
	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	assert.Equal(t, statedir.EventRunFinished, events[len(events)-1].Type)
	checkPrivate(t, stateDir)
}

// TestReliabilityDiskFullWhileWritingTeamState is fault 15, on a real 64 KiB
// tmpfs under the state dir: a worker fills it, the next team-state.json
// cannot be written, and rostra stops the run with the previous file intact.
func TestReliabilityDiskFullWhileWritingTeamState(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	mnt := filepath.Join(ws, ".rostra")
	require.NoError(t, os.Mkdir(mnt, 0o700))
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): fault 15 needs root", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: full
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: sh-sleeper
    role: sleeper
    prompt: "echo started; exec sleep 300"
  - id: sh-filler
    role: filler
    prompt: "until [ -s sleeper-started ]; do sleep 0.05; done; head -c 1000000 /dev/zero > \"$ROSTRA_STATE_DIR/filler\"; exit 1"
`), 0o644))
	stateDir := filepath.Join(mnt, "full")
	cmd, out := startBin(t, ws, "sh-sleeper#1 started on pane", "run", "--headless")
	pids := startedPids(out.String())
	sleeper := pids["sh-sleeper#1"]
	require.NotZero(t, sleeper)
	before, err := os.ReadFile(filepath.Join(stateDir, statedir.TeamStateFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "sleeper-started"), []byte("1"), 0o644))

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("rostra did not stop after the disk filled:\n%s", out.String())
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, out.String())
	assert.Equal(t, 1, ee.ExitCode(), out.String())
	text := out.String()
	assert.Contains(t, text, "state-write-failed: write "+filepath.Join(stateDir, statedir.TeamStateFile))
	assert.Contains(t, text, "no space left on device")
	assert.Contains(t, text, "rostra run: write "+filepath.Join(stateDir, statedir.TeamStateFile), "the error is on stderr")
	assert.True(t, groupGone(sleeper), "the other worker was stopped")

	// What is on disk is the last state that could be written, whole.
	st, err := statedir.ReadTeamState(stateDir)
	require.NoError(t, err, "team-state.json must still parse")
	assert.Equal(t, statedir.RunRunning, st.Status, "the interrupted run is the last state written")
	after, err := os.ReadFile(filepath.Join(stateDir, statedir.TeamStateFile))
	require.NoError(t, err)
	assert.True(t, len(after) >= len(before), "the file is a whole state, not a truncated one")
	tmps, err := filepath.Glob(filepath.Join(stateDir, ".team-state.json.tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, tmps, "no temp file left behind")
	_, err = statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)

	// With room again, the run resumes from that state.
	require.NoError(t, os.Remove(filepath.Join(stateDir, "filler")))
	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "rostra run --resume")
}

// TestReliabilityPtyExhaustedForRealDegradesToWrapper is fault 18 with the
// kernel's own errors: (a) every pty of a private devpts instance in use,
// (b) RLIMIT_NOFILE so low that the pty cannot be opened.
func TestReliabilityPtyExhaustedForRealDegradesToWrapper(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: pty
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: sh-plain
    role: plain
    prompt: "echo ran on $([ -t 1 ] && echo a-tty || echo a-pipe)"
`)
	stateDir := filepath.Join(ws, ".rostra", "pty")

	t.Run("devpts full", func(t *testing.T) {
		// A mount namespace of its own with a devpts instance of one pty,
		// held by the shell, so /dev/ptmx has none left for rostra.
		script := `mount -t devpts -o newinstance,ptmxmode=0666,max=1 devpts /dev/pts &&
mount --bind /dev/pts/ptmx /dev/ptmx &&
exec 3<>/dev/ptmx && exec "$0" run --headless`
		cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, rostraBin)
		cmd.Dir = ws
		outb, err := cmd.CombinedOutput()
		if err != nil && !strings.Contains(string(outb), "run started") {
			t.Skipf("cannot make a private devpts here (needs root and mount namespaces): %s", outb)
		}
		require.NoError(t, err, "%s", outb)
		out := string(outb)
		assert.Contains(t, out, "DEGRADED plain: pane -> wrapper (open pty: open /dev/ptmx: no space left on device)\n")
		st, err := statedir.ReadTeamState(stateDir)
		require.NoError(t, err)
		d := st.Dispatches[0]
		assert.Equal(t, runfile.SurfaceWrapper, d.Surface)
		assert.Equal(t, runfile.SurfacePane, d.DegradedFrom)
		assert.Equal(t, "open pty: open /dev/ptmx: no space left on device", d.DegradedReason)
		assert.Equal(t, statedir.StatusCompleted, d.Status)
		log, err := os.ReadFile(d.OutputLogPath)
		require.NoError(t, err)
		assert.Equal(t, "ran on a-pipe\n", string(log))
		require.NoError(t, os.RemoveAll(stateDir))
	})

	t.Run("RLIMIT_NOFILE", func(t *testing.T) {
		// The wrapper needs one fd more than the pty (its /dev/null stdin),
		// so a limit that stops the pane usually stops the wrapper too: the
		// attempt is an error carrying each surface's OS error, and rostra
		// itself keeps going. Find the highest limit at which the pane
		// fails. Which call meets the limit first (the pty, or the exec
		// after it) and whether the wrapper then gets its one more vary with
		// what rostra's other goroutines hold at that moment (a state
		// write), so any of them is the pane's failure.
		var out string
		for n := 40; n >= 9; n-- {
			require.NoError(t, os.RemoveAll(stateDir))
			// Soft and hard limit both (the Go runtime raises the soft one
			// to the hard one at start).
			cmd := exec.Command("sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" run --headless`, n), rostraBin)
			cmd.Dir = ws
			b, _ := cmd.CombinedOutput()
			if regexp.MustCompile(`pane: [^;)]*too many open files`).Match(b) {
				out = string(b)
				t.Logf("RLIMIT_NOFILE=%d: %s", n, out)
				break
			}
		}
		require.NotEmpty(t, out, "no limit made the pane fail")
		st, err := statedir.ReadTeamState(stateDir)
		require.NoError(t, err)
		assert.Equal(t, statedir.RunFinished, st.Status)
		d := st.Dispatches[0]
		if d.Surface == runfile.SurfaceWrapper {
			assert.Regexp(t, `DEGRADED plain: pane -> wrapper \([^)]*too many open files\)`, out)
			assert.Contains(t, d.DegradedReason, "too many open files")
		} else {
			assert.Regexp(t, `failed: no surface could open: pane: [^;]*too many open files; wrapper: [^\n]*too many open files`, out)
			assert.Contains(t, d.Reason, "too many open files")
		}
	})
}

// TestReliabilityHostileInputs is fault 20: a 10,000-line prompt, a worker
// id of 64 characters (65 refused with the place), env values with newlines
// (passed as they are), bytes that are not UTF-8 (a run file holding them is
// refused with the place; rostra's own environment passes them byte for
// byte), a NUL (the run file is refused with the place).
func TestReliabilityHostileInputs(t *testing.T) {
	t.Parallel()
	id := "w" + strings.Repeat("x", 62) + "z"
	require.Len(t, id, 64)
	var prompt strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&prompt, "      line %d of the prompt with \"quotes\" and $dollars and `ticks`\n", i)
	}
	runYAML := `version: 1
name: hostile
providers:
  cat: { command: ["bash", "-c", "wc -l < \"$ROSTRA_PROMPT_FILE\"; printf '%s' \"$MULTI\" | od -c | head -3; exit 0"] }
defaults: { max_attempts: 1 }
workers:
  - id: ` + id + `
    role: long
    provider: cat
    env:
      MULTI: "one\ntwo\tthree"
    prompt: |
` + prompt.String()
	ws := runWorkspace(t, runYAML)
	r := runBin(t, ws, "run", "--headless")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	st, err := statedir.ReadTeamState(filepath.Join(ws, ".rostra", "hostile"))
	require.NoError(t, err)
	d := st.Dispatches[0]
	assert.Equal(t, id+"#1", d.DispatchID)
	promptFile := filepath.Join(filepath.Dir(d.OutputLogPath), "prompt.txt")
	data, err := os.ReadFile(promptFile)
	require.NoError(t, err)
	assert.Equal(t, 10000, strings.Count(string(data), "\n"))
	log, err := os.ReadFile(d.OutputLogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "10000\r\n")
	assert.Contains(t, string(log), `o   n   e  \n   t   w   o  \t   t   h   r   e   e`, "the newline reaches the child's env as it is")

	refused := func(t *testing.T, yaml string, want ...string) {
		t.Helper()
		dir := runWorkspace(t, yaml)
		r := runBin(t, dir, "run", "--headless")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		for _, w := range want {
			assert.Contains(t, r.stderr, w)
		}
		assert.NoDirExists(t, filepath.Join(dir, ".rostra"), "nothing starts")
	}
	t.Run("65-char id", func(t *testing.T) {
		refused(t, "version: 1\nname: h\nworkers:\n  - id: "+id+"q\n    command: [\"true\"]\n", "rostra.yaml:4:", "workers[0].id")
	})
	t.Run("non-UTF-8 env value from the run file", func(t *testing.T) {
		// The YAML reader would turn the bytes into U+FFFD without a word:
		// refused, with the place.
		refused(t, "version: 1\nname: h\nworkers:\n  - id: a\n    command: [\"true\"]\n    env: { K: \"a\xff\xfe\\nb\" }\n",
			"rostra.yaml:6:", "UTF-8")
	})
	t.Run("non-UTF-8 env value inherited by rostra", func(t *testing.T) {
		dir := runWorkspace(t, "version: 1\nname: h\ndefaults: { max_attempts: 1 }\nworkers:\n  - id: a\n    command: [\"bash\", \"-c\", \"printf '%s' \\\"$ROSTRA_T_K\\\" | od -An -tx1\"]\n    surfaces: [wrapper]\n")
		cmd := exec.Command(rostraBin, "run", "--headless")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "ROSTRA_T_K=a\xff\xfe\nb")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		st, err := statedir.ReadTeamState(filepath.Join(dir, ".rostra", "h"))
		require.NoError(t, err)
		log, err := os.ReadFile(st.Dispatches[0].OutputLogPath)
		require.NoError(t, err)
		assert.Equal(t, " 61 ff fe 0a 62\n", string(log), "rostra's environment reaches the child byte for byte")
	})
	t.Run("NUL in an env value", func(t *testing.T) {
		// YAML's \0 escape: execve cannot carry it; the attempt must say so
		// or the loader refuse it, never crash.
		dir := runWorkspace(t, "version: 1\nname: h\ndefaults: { max_attempts: 1 }\nworkers:\n  - id: a\n    command: [\"true\"]\n    env: { K: \"a\\0b\" }\n")
		r := runBin(t, dir, "run", "--headless")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		assert.NotContains(t, r.stderr, "panic")
		assert.Contains(t, r.stderr, "rostra.yaml:7:15: workers[0].env.K: an environment value cannot hold a NUL byte")
	})
}

// TestReliabilityStateFilesArePrivateOnARealRun: under umask 0, real runs
// (panes, wrappers, a retry, an archived earlier run, a report) leave 0700
// folders and 0600 files in the state dir, and write nothing into the
// workspace besides what the workers write.
func TestReliabilityStateFilesArePrivateOnARealRun(t *testing.T) {
	ws := runWorkspace(t, `version: 1
name: private
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { retry_backoff: 10ms }
workers:
  - id: sh-pane
    role: pane
    prompt: "mkdir -p out/{worker}; echo ok > out/{worker}/result.json"
    completion: { result: "out/{worker}/result.json" }
  - id: sh-wrapper
    role: wrapper
    surfaces: [wrapper]
    prompt: "[ {attempt} -ge 2 ] || exit 1; mkdir -p out/{worker}; echo ok > out/{worker}/result.json"
    completion: { result: "out/{worker}/result.json" }
`)
	before := listTree(t, ws)
	old := syscall.Umask(0)
	first := runBin(t, ws, "run", "--headless")
	second := runBin(t, ws, "run", "--headless") // archives the first
	stateDir := filepath.Join(ws, ".rostra", "private")
	report := runBin(t, ws, "report", stateDir)
	syscall.Umask(old)
	require.Equal(t, 0, first.code, first.stdout+first.stderr)
	require.Equal(t, 0, second.code, second.stdout+second.stderr)
	require.Equal(t, 0, report.code, report.stderr)
	require.Contains(t, second.stderr, "was archived to")
	checkPrivate(t, stateDir)
	for p := range listTree(t, ws) {
		if before[p] || p == ".rostra" || strings.HasPrefix(p, ".rostra/") || p == "out" || strings.HasPrefix(p, "out/") {
			continue
		}
		t.Errorf("rostra wrote %s outside its state dir", p)
	}
	info, err := os.Stat(filepath.Join(ws, ".rostra"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm(), ".rostra")
	archived, err := filepath.Glob(filepath.Join(stateDir, "previous", "*", "attempts", "sh-wrapper", "2", "output.log"))
	require.NoError(t, err)
	assert.Len(t, archived, 1, "the walk covered an archived run")
	reports, err := filepath.Glob(filepath.Join(stateDir, "reports", "*.md"))
	require.NoError(t, err)
	assert.Len(t, reports, 1, "the walk covered a report")
}

func listTree(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = true
		return nil
	}))
	return out
}

// checkPrivate walks a state dir: folders 0700, files 0600.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n++
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		assert.Equal(t, want, info.Mode().Perm(), p)
		return nil
	}))
	assert.Greater(t, n, 5)
}

// TestReliabilityWrapperGrandchildAfterRostraSIGKILL: a wrapper child's own
// child has no Pdeathsig and no terminal to lose, so it outlives a
// SIGKILLed rostra; --resume stops it (panes.StopRunLeftovers) before it
// starts new attempts, so nothing of the dead run is left running.
//
// With tracking only (ROSTRA_CONTAINMENT=tracking, what a machine without
// a writable cgroup or user namespaces gets), the grandchild outlives the
// SIGKILLed rostra and the resume stops it; contained, it dies with rostra
// (TestReliabilityNothingOutlivesRostra).
func TestReliabilityWrapperGrandchildAfterRostraSIGKILL(t *testing.T) {
	// Not parallel: it reaps orphans as a subreaper, which an engine
	// running beside it could reap first.
	t.Setenv(containmentEnv, "tracking")
	require.NoError(t, unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
	ws := runWorkspace(t, `version: 1
name: wgc
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: sh-wrapped
    role: wrapped
    surfaces: [wrapper]
    prompt: "if [ {attempt} -ge 2 ]; then exit 0; fi; sleep 30 & echo $! > gc.pid; wait"
`)
	cmd, _ := startBin(t, ws, "sh-wrapped#1 started on wrapper", "run", "--headless")
	gc := readPidFile(t, filepath.Join(ws, "gc.pid"))
	t.Cleanup(func() {
		_ = syscall.Kill(gc, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(gc, &ws, 0, nil)
	})
	var leader int
	require.Eventually(t, func() bool {
		st, err := statedir.ReadTeamState(filepath.Join(ws, ".rostra", "wgc"))
		if err != nil || len(st.Dispatches) != 1 {
			return false
		}
		leader = st.Dispatches[0].Pid
		return leader > 0
	}, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	// The wrapper's leader dies of Pdeathsig, asynchronously: wait until
	// it has (it comes to this subreaper), so that the grandchild is the
	// one process the dead rostra left running.
	leaderStatus := reapChild(t, leader, 5*time.Second)
	require.True(t, leaderStatus.Signaled(), "the wrapper leader ended with %v", leaderStatus)

	r := runBin(t, ws, "run", "--headless", "--resume")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "rostra: stopped 1 process(es) the dead rostra left running")
	// It was reparented to this test (a subreaper): reap it to see it ended.
	status := reapChild(t, gc, 5*time.Second)
	assert.True(t, status.Signaled() && status.Signal() == syscall.SIGTERM, "grandchild ended with %v", status)
}

// TestReliabilityResumeAfterATruncatedTeamState is fault 13 through the
// CLI: rostra dies, its team-state.json is then found cut in half (a file
// system that lost the end of the last write); --resume goes on from
// team-state.json.prev, keeps the damaged file aside and notes it in
// events.jsonl.
func TestReliabilityResumeAfterATruncatedTeamState(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: torn
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: sh-a
    role: a
    prompt: "if [ {attempt} -ge 2 ]; then exit 0; fi; echo started; exec sleep 30"
  - id: sh-b
    role: b
    prompt: "exit 0"
`)
	stateDir := filepath.Join(ws, ".rostra", "torn")
	path := filepath.Join(stateDir, statedir.TeamStateFile)
	cmd, _ := startBin(t, ws, "sh-a#1 started on pane", "run", "--headless")
	require.Eventually(t, func() bool {
		st, err := statedir.ReadTeamState(stateDir)
		return err == nil && len(st.Dispatches) == 2 && st.Workers[1].Status == statedir.StatusCompleted
	}, 10*time.Second, 5*time.Millisecond)
	// The copy is one write older: both attempts running.
	prev, err := os.ReadFile(path + statedir.PreviousSuffix)
	require.NoError(t, err)
	require.Contains(t, string(prev), `"dispatchId": "sh-a#1"`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	full, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, full[:len(full)/2], 0o600))

	r := runBin(t, ws, "run", "--headless", "--resume")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	st, err := statedir.ReadTeamState(stateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunFinished, st.Status)
	for _, w := range st.Workers {
		assert.Equal(t, statedir.StatusCompleted, w.Status, w.WorkerID)
	}
	assert.Equal(t, 2, st.Workers[0].Attempts, "sh-a's interrupted attempt, from the copy, then the resumed one")
	damaged, err := filepath.Glob(path + ".damaged-*")
	require.NoError(t, err)
	require.Len(t, damaged, 1)
	kept, err := os.ReadFile(damaged[0])
	require.NoError(t, err)
	assert.Equal(t, full[:len(full)/2], kept, "the damaged file is kept as it was")
	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	var recovered []string
	for _, ev := range events {
		if ev.Type == statedir.EventStateRecovered {
			recovered = append(recovered, ev.Reason)
		}
	}
	require.Len(t, recovered, 1)
	assert.Contains(t, recovered[0], "previous good copy")
}
