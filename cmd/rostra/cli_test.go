// cli_test.go drives the real rostra binary as a script would: the headless
// demo run, its state files, exit codes, the lock against a second
// instance, SIGINT, and an existing state dir (archived or refused).
package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// rostraBin is rostra as released; rostraTestPanicBin is built with
// -tags rostra_testpanic (panickey.go) for the UI panic test.
var rostraBin, rostraTestPanicBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rostra-bin-")
	if err != nil {
		panic(err)
	}
	rostraBin = filepath.Join(dir, "rostra")
	rostraTestPanicBin = filepath.Join(dir, "rostra-testpanic")
	// Both at once: the second is mostly a link, which overlaps the first.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, build := range []*exec.Cmd{
		// VCS stamping where there is a checkout (GOFLAGS may turn it off).
		exec.Command("go", "build", "-buildvcs=auto", "-o", rostraBin, "."),
		exec.Command("go", "build", "-tags", "rostra_testpanic", "-o", rostraTestPanicBin, "."),
	} {
		build.Stderr = os.Stderr
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = build.Run()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			panic("build rostra: " + err.Error())
		}
	}
	// The index of runs every rostra run adds itself to (docs/state.md
	// §The index of runs) lives in the user's state home: the tests' own.
	if os.Getenv("ROSTRA_TEST_KEEP_STATE_HOME") == "" {
		os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state-home"))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

func runBin(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runBinEnv(t, dir, nil, args...)
}

// runBinEnv runs rostra with env added to the test's environment.
func runBinEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(rostraBin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// demoWorkspace copies the demo the way `rostra demo` does.
func demoWorkspace(t *testing.T) string {
	t.Helper()
	ws, err := copyDemo()
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(ws) })
	return ws
}

// demoStep is the demo agents' step time in the tests (fake-agent.sh's
// DEMO_STEP): short, so the demo runs in a second or two, not its minute
// on screen.
const demoStep = "DEMO_STEP=0.01"

func TestHeadlessDemoRun(t *testing.T) {
	t.Parallel()
	ws := demoWorkspace(t)
	r := runBinEnv(t, ws, []string{demoStep}, "run", "--headless", "rostra.yaml")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "DEGRADED documenter: pane -> wrapper (pane limit reached (5 of 5 in use))\n")
	assert.Equal(t, 1, strings.Count(r.stdout, "DEGRADED"), "exactly one DEGRADED line")

	stateDir := filepath.Join(ws, ".rostra", "demo")
	st, err := statedir.ReadTeamState(stateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunFinished, st.Status)
	byWorker := map[string]statedir.WorkerRow{}
	for _, w := range st.Workers {
		byWorker[w.WorkerID] = w
		assert.Equal(t, statedir.StatusCompleted, w.Status, w.WorkerID)
	}
	assert.Equal(t, "grok", byWorker["grok-verifier"].Provider, "the role suffix is stripped, never taken as the provider")
	assert.Equal(t, 2, byWorker["codex-tester"].Attempts)

	rows := map[string]statedir.DispatchRow{}
	for _, d := range st.Dispatches {
		rows[d.DispatchID] = d
	}
	assert.Equal(t, "missing completion paths: out/codex-tester/result.json", rows["codex-tester#1"].Reason)
	assert.Equal(t, statedir.StatusError, rows["codex-tester#1"].Status)
	assert.Equal(t, statedir.StatusCompleted, rows["codex-tester#2"].Status)
	assert.Equal(t, "exited with code 1; outputs present", rows["grok-verifier#1"].Reason)
	assert.Equal(t, runfile.SurfaceWrapper, rows["codex-documenter#1"].Surface)
	assert.Equal(t, runfile.SurfacePane, rows["codex-documenter#1"].DegradedFrom)
	assert.Equal(t, "pane limit reached (5 of 5 in use)", rows["codex-documenter#1"].DegradedReason)
	assert.Equal(t, runfile.SurfacePane, rows["claude-live-pairer#1"].Surface)
	assert.FileExists(t, filepath.Join(ws, "out", "gemini-reviewer", "result.md"))
	assert.NoFileExists(t, filepath.Join(ws, "out", "gemini-reviewer", "result.json"))

	log, err := os.ReadFile(rows["claude-implementer#1"].OutputLogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "wrote out/claude-implementer/result.json")

	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	count := map[string]int{}
	for _, ev := range events {
		count[ev.Type]++
	}
	assert.Equal(t, 1, count[statedir.EventRunStarted])
	assert.Equal(t, 7, count[statedir.EventWorkerDispatched])
	assert.Equal(t, 1, count[statedir.EventWorkerDegraded])
	assert.Equal(t, 1, count[statedir.EventWorkerRetry])
	assert.Equal(t, 1, count[statedir.EventWorkerFailed])
	assert.Equal(t, 6, count[statedir.EventWorkerCompleted])
	assert.Equal(t, 1, count[statedir.EventWorkerPromptDelivered])
	assert.Equal(t, 1, count[statedir.EventRunFinished])
	// The implementer's work is committed before the run finishes; the
	// run's end for its worktree follows run-finished (a UI run may still
	// retry after it).
	assert.Equal(t, statedir.EventWorktreeKept, events[len(events)-1].Type)
	assert.Equal(t, statedir.EventRunFinished, events[len(events)-2].Type)
	assert.Equal(t, 1, count[statedir.EventWorktreeBase])
	assert.Equal(t, 1, count[statedir.EventWorktreeCommitted])

	impl := rows["claude-implementer#1"]
	assert.Equal(t, runfile.IsolationWorktree, impl.Isolation)
	assert.Equal(t, "rostra/demo/claude-implementer", impl.Branch)
	assert.NotEmpty(t, impl.WorkCommit)
	assert.Equal(t, runfile.IsolationNone, rows["codex-tester#1"].Isolation)
	assert.Equal(t, statedir.WorktreeKept, byWorker["claude-implementer"].WorktreeOutcome)
	assert.Equal(t, statedir.DiffStat{Files: 2, Additions: 4}, byWorker["claude-implementer"].DiffStat, "src/parser.go and its result")
	assert.NoFileExists(t, filepath.Join(ws, "out", "claude-implementer", "result.json"), "it wrote in its worktree")

	// Review and merge from the CLI.
	d := runBin(t, ws, "diff", "claude-implementer")
	require.Equal(t, 0, d.code, d.stderr)
	assert.Contains(t, d.stdout, "+func Count(line string) int")
	assert.NotContains(t, d.stdout, "\x1b[", "not coloured: stdout is no terminal")
	m := runBin(t, ws, "merge", "claude-implementer")
	require.Equal(t, 0, m.code, m.stderr)
	assert.Contains(t, m.stdout, "merged rostra/demo/claude-implementer into main")
	parser, err := os.ReadFile(filepath.Join(ws, "src", "parser.go"))
	require.NoError(t, err)
	assert.Contains(t, string(parser), "func Count(")

	// status reads what the run left.
	s := runBin(t, ws, "status", stateDir)
	require.Equal(t, 0, s.code, s.stderr)
	assert.Contains(t, s.stdout, "run demo: finished")
	assert.Contains(t, s.stdout, "degraded from pane: pane limit reached (5 of 5 in use)")
	assert.Contains(t, s.stdout, "CONTAINMENT")
	assert.NotEmpty(t, rows["claude-implementer#1"].Containment, "every opened attempt records its containment")
	assert.Contains(t, s.stdout, rows["claude-implementer#1"].Containment)
	assert.Contains(t, s.stdout, "WORKTREE")
	assert.Contains(t, s.stdout, "rostra/demo/claude-implementer")

	// A second run archives the finished one and starts afresh.
	r2 := runBinEnv(t, ws, []string{demoStep}, "run", "--headless", "rostra.yaml")
	require.Equal(t, 0, r2.code, r2.stderr)
	assert.Contains(t, r2.stderr, "was archived to")
	archived, err := filepath.Glob(filepath.Join(stateDir, "previous", "*", statedir.TeamStateFile))
	require.NoError(t, err)
	assert.Len(t, archived, 1)
}

// runWorkspace makes a temp workspace holding runYAML as rostra.yaml and
// returns its path.
func runWorkspace(t testing.TB, runYAML string) string {
	t.Helper()
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(runYAML), 0o644))
	// A served run outlives the terminal by design, so a test that failed
	// before it stopped its run would leave the server and its workers
	// behind, in a state dir about to be removed: stop it first (cleanups
	// run last-in first-out, the folder's removal after this).
	t.Cleanup(func() {
		stop := exec.Command(rostraBin, "stop")
		stop.Dir = ws
		out, _ := stop.CombinedOutput()
		if stop.ProcessState == nil || stop.ProcessState.ExitCode() != 2 { // 2: no server runs
			t.Logf("the test left its run's server running: rostra stop said %s", out)
		}
	})
	return ws
}

// slowRun writes a run file whose only worker runs until it is stopped.
func slowRun(t *testing.T, extra string) string {
	t.Helper()
	return runWorkspace(t, `version: 1
name: slow
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults:
  stop_grace: 1s
workers:
  - id: shell-sleeper
    role: sleeper
    prompt: "echo started; `+extra+`sleep 60"
`)
}

// startBin starts rostra in the background and waits for a line on stdout.
func startBin(t *testing.T, dir, want string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(rostraBin, args...)
	cmd.Dir = dir
	out := &syncBuffer{}
	cmd.Stdout = out
	cmd.Stderr = out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	require.Eventually(t, func() bool { return strings.Contains(out.String(), want) }, 10*time.Second, 10*time.Millisecond,
		"rostra never printed %q:\n%s", want, out.String())
	return cmd, out
}

func TestSecondInstanceIsRefusedNamingTheHolder(t *testing.T) {
	t.Parallel()
	ws := slowRun(t, "")
	first, _ := startBin(t, ws, "started on pane", "run", "--headless")
	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "run is already driven by pid "+strconv.Itoa(first.Process.Pid)+" (state dir "+filepath.Join(ws, ".rostra", "slow")+")")
}

func TestSIGINTStopsWorkersAndLeavesCompleteState(t *testing.T) {
	t.Parallel()
	ws := slowRun(t, "trap '' TERM; ")
	cmd, out := startBin(t, ws, "started on pane", "run", "--headless")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "rostra should exit non-zero: %v\n%s", err, out.String())
	assert.Equal(t, 130, ee.ExitCode())

	st, err := statedir.ReadTeamState(filepath.Join(ws, ".rostra", "slow"))
	require.NoError(t, err)
	assert.Equal(t, statedir.RunInterrupted, st.Status)
	require.Len(t, st.Dispatches, 1)
	d := st.Dispatches[0]
	assert.Equal(t, statedir.StatusCancelled, d.Status)
	assert.Equal(t, "stopped: rostra is quitting", d.Reason)
	// The child ignored SIGTERM; its whole group is gone after the SIGKILL.
	assert.ErrorIs(t, syscall.Kill(-d.Pid, 0), syscall.ESRCH)

	// The unfinished run is refused without --resume, naming it.
	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "rostra run --resume")
}

func TestValidateReportsProblemsWithExitCode2(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	bad := filepath.Join(ws, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("version: 1\nname: x\nworkers:\n  - id: grok-verifier\n    role: verifier\n"), 0o644))
	r := runBin(t, ws, "validate", bad)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "unsupported worker(s): grok-verifier (provider grok) (run supports: none)")
	assert.Equal(t, 2, runBin(t, ws, "run", "--headless", bad).code)
	assert.Equal(t, 2, runBin(t, ws, "nonsense").code)
	assert.Equal(t, 2, runBin(t, ws, "status", filepath.Join(ws, "nowhere")).code)

	good := runBin(t, ws, "validate", filepath.Join(demoWorkspace(t), "rostra.yaml"))
	assert.Equal(t, 0, good.code, good.stderr)
}

func TestExitCode1WhenAWorkerFails(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: fails
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1 }
workers:
  - id: shell-breaker
    role: breaker
    prompt: "exit 4"
`)
	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "shell-breaker#1 failed: exited with code 4")
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestStatusAndReportReadThroughADamagedTeamState(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: dmg
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - { id: shell-ok, role: ok, prompt: "true" }
`)
	require.Equal(t, 0, runBin(t, ws, "run", "--headless").code)
	stateDir := filepath.Join(ws, ".rostra", "dmg")
	path := filepath.Join(stateDir, statedir.TeamStateFile)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data[:len(data)/2], 0o600)) // a file system lost the end

	s := runBin(t, ws, "status", stateDir)
	require.Equal(t, 0, s.code, s.stderr)
	assert.Contains(t, s.stderr, "is not valid JSON")
	assert.Contains(t, s.stderr, statedir.TeamStateFile+statedir.PreviousSuffix)
	assert.Contains(t, s.stdout, "shell-ok")

	r := runBin(t, ws, "report", stateDir)
	require.Equal(t, 0, r.code, r.stderr)
	reports, err := filepath.Glob(filepath.Join(stateDir, "reports", "report-*.md"))
	require.NoError(t, err)
	require.Len(t, reports, 1)
	md, err := os.ReadFile(reports[0])
	require.NoError(t, err)
	assert.Contains(t, string(md), "> Note: "+path+" is not valid JSON")
	damaged, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, data[:len(data)/2], damaged, "readers change nothing")
}
