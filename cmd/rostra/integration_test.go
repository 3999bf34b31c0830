// integration_test.go runs the engine over the real surfaces: real ptys,
// real process groups, real files. Each test loads a run file written for
// it, so the path from YAML to settled row is the one users take.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// liveRun loads runYAML from a temp workspace and starts an engine on the
// real surfaces; the engine is shut down when the test ends.
func liveRun(t testing.TB, runYAML string, open panes.PTYOpener) (*engine.Engine, *runfile.Plan) {
	t.Helper()
	plan, prep := prepareRun(t, runYAML)
	eng := engine.New(plan, engine.Options{Surfaces: surfaces(open)})
	startOpened(t, eng)
	t.Cleanup(func() {
		eng.Shutdown()
		prep.Lock.Release()
	})
	return eng, plan
}

// startOpened starts eng and waits until every worker's first attempt has
// been opened (or failed to open): the engine opens attempts off its loop,
// so Start returns before their handles exist.
func startOpened(t testing.TB, eng *engine.Engine) {
	t.Helper()
	sub := eng.Subscribe()
	defer sub.Close()
	require.NoError(t, eng.Start())
	waiting := map[string]bool{}
	for _, w := range eng.Plan().Workers {
		waiting[w.ID] = true
	}
	got := make(chan struct{})
	go func() {
		defer close(got)
		for len(waiting) > 0 {
			ev, ok := sub.Next()
			if !ok {
				return
			}
			switch ev.Type {
			case statedir.EventWorkerDispatched, statedir.EventWorkerFailed, statedir.EventWorkerCancelled:
				delete(waiting, ev.WorkerID)
			}
		}
	}()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatalf("the first attempts were not opened within 10s")
	}
}

// prepareRun writes runYAML into a temp workspace, loads it and takes its
// state dir.
func prepareRun(t testing.TB, runYAML string) (*runfile.Plan, *engine.PreparedRun) {
	t.Helper()
	plan, err := runfile.Load(filepath.Join(runWorkspace(t, runYAML), "rostra.yaml"))
	require.NoError(t, err)
	prep, err := engine.PrepareStateDir(plan, false, time.Now())
	require.NoError(t, err)
	return plan, prep
}

func waitFinished(t testing.TB, eng *engine.Engine, within time.Duration) {
	t.Helper()
	select {
	case <-eng.Finished():
	case <-time.After(within):
		t.Fatalf("run not finished after %s: %+v", within, eng.Snapshot().Dispatches)
	}
}

func row(t testing.TB, eng *engine.Engine, id string) statedir.DispatchRow {
	t.Helper()
	for _, d := range eng.Snapshot().Dispatches {
		if d.DispatchID == id {
			return d
		}
	}
	t.Fatalf("no dispatch row %s", id)
	return statedir.DispatchRow{}
}

func shellRun(body string) string {
	return `version: 1
name: it
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
` + body
}

func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

func TestCancelKillsAChildThatIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	eng, _ := liveRun(t, shellRun(`
  - id: sh-stubborn
    role: stubborn
    prompt: "trap '' TERM; echo ready; while :; do sleep 1; done"
`), nil)
	var pid int
	require.Eventually(t, func() bool {
		d := row(t, eng, "sh-stubborn#1")
		pid = d.Pid
		data, _ := os.ReadFile(d.OutputLogPath)
		return strings.Contains(string(data), "ready")
	}, 5*time.Second, 10*time.Millisecond)
	start := time.Now()
	require.NoError(t, eng.Cancel("sh-stubborn"))
	waitFinished(t, eng, 5*time.Second)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "SIGKILL waits for stop_grace")
	d := row(t, eng, "sh-stubborn#1")
	assert.Equal(t, statedir.StatusCancelled, d.Status)
	// A member SIGKILLed with the group stays a zombie until the subreaper
	// (this process) has reaped it: wait for that, with a deadline.
	assert.Eventually(t, func() bool { return groupGone(pid) }, 5*time.Second, 10*time.Millisecond, "no member of the group is left")
}

func TestGrandchildHoldingThePtyIsStopped(t *testing.T) {
	t.Parallel()
	eng, _ := liveRun(t, shellRun(`
  - id: sh-forker
    role: forker
    prompt: 'bash -c "trap \"\" HUP; exec sleep 300" & echo $! > grandchild.pid; echo parent done'
  - id: sh-plain
    role: plain
    prompt: "echo parent done"
`), nil)
	waitFinished(t, eng, 10*time.Second)
	d := row(t, eng, "sh-forker#1")
	assert.Equal(t, statedir.StatusCompleted, d.Status)
	require.NotNil(t, d.EndedAt)
	ref := row(t, eng, "sh-plain#1")
	require.NotNil(t, ref.EndedAt)
	assert.Less(t, d.EndedAt.Sub(d.StartedAt), graceBound(time.Second, ref.EndedAt.Sub(ref.StartedAt)), "settled within stop_grace of the exit")
	data, err := os.ReadFile(filepath.Join(eng.Plan().Workspace, "grandchild.pid"))
	require.NoError(t, err)
	var gpid int
	fmt.Sscan(string(data), &gpid)
	require.Eventually(t, func() bool { return errors.Is(syscall.Kill(gpid, 0), syscall.ESRCH) }, 5*time.Second, 10*time.Millisecond,
		"the grandchild is stopped with the group")
	log, err := os.ReadFile(d.OutputLogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "parent done")
}

func TestEveryByteOfAQuickExitIsLogged(t *testing.T) {
	t.Parallel()
	// 200 KB then exit 3 at once: the pty's last bytes are read before EIO.
	eng, _ := liveRun(t, shellRun(`
  - id: sh-burst
    role: burst
    prompt: "head -c 204800 /dev/zero | tr '\\0' 'x'; exit 3"
    surfaces: [pane]
  - id: sh-pipeburst
    role: pipeburst
    prompt: "head -c 204800 /dev/zero | tr '\\0' 'y'; exit 3"
    surfaces: [wrapper]
`), nil)
	waitFinished(t, eng, 10*time.Second)
	for id, ch := range map[string]string{"sh-burst#1": "x", "sh-pipeburst#1": "y"} {
		d := row(t, eng, id)
		require.NotNil(t, d.ExitCode, id)
		assert.Equal(t, 3, *d.ExitCode, id)
		assert.Equal(t, "exited with code 3", d.Reason, id)
		log, err := os.ReadFile(d.OutputLogPath)
		require.NoError(t, err)
		assert.Equal(t, 204800, strings.Count(string(log), ch), id)
	}
}

func TestOnFilesSettlesAnAgentThatStaysOpen(t *testing.T) {
	t.Parallel()
	eng, plan := liveRun(t, shellRun(`
  - id: sh-session
    role: session
    prompt: "mkdir -p out; echo '{{}}' > out/result.json; echo written; exec sleep 300"
    completion: { result: out/result.json, settle: on-files, stable: 200ms }
`), nil)
	waitFinished(t, eng, 5*time.Second)
	d := row(t, eng, "sh-session#1")
	assert.Equal(t, statedir.StatusCompleted, d.Status)
	assert.Equal(t, statedir.StatusCompleted, eng.Snapshot().Workers[0].Status)
	// The process was still running when it settled; it is stopped after
	// stop_grace, and its group does not outlive the attempt.
	require.Eventually(t, func() bool { return groupGone(d.Pid) }, 5*time.Second, 20*time.Millisecond)
	assert.FileExists(t, filepath.Join(plan.Workspace, "out", "result.json"))
}

func TestPtyThatCannotOpenDegradesWithTheOSError(t *testing.T) {
	t.Parallel()
	failing := func(cols, rows int) (*os.File, *os.File, error) {
		return nil, nil, &os.PathError{Op: "open", Path: "/dev/ptmx", Err: syscall.EMFILE}
	}
	eng, _ := liveRun(t, shellRun(`
  - id: sh-plain
    role: plain
    prompt: "echo on a wrapper"
`), failing)
	waitFinished(t, eng, 5*time.Second)
	d := row(t, eng, "sh-plain#1")
	assert.Equal(t, runfile.SurfaceWrapper, d.Surface)
	assert.Equal(t, runfile.SurfacePane, d.DegradedFrom)
	assert.Equal(t, "open pty: open /dev/ptmx: too many open files", d.DegradedReason)
	assert.Equal(t, statedir.StatusCompleted, d.Status)
}

func TestWallTimeoutOnARealProcess(t *testing.T) {
	t.Parallel()
	eng, _ := liveRun(t, shellRun(`
  - id: sh-slow
    role: slow
    prompt: "sleep 30"
    timeout: 300ms
`), nil)
	waitFinished(t, eng, 5*time.Second)
	d := row(t, eng, "sh-slow#1")
	assert.Equal(t, statedir.StatusTimeout, d.Status)
	assert.Equal(t, "attempt timed out after 300ms", d.Reason)
	assert.True(t, d.Timeout)
	assert.Eventually(t, func() bool { return groupGone(d.Pid) }, 5*time.Second, 10*time.Millisecond, "the group is gone once reaped")
}

// BenchmarkDispatch: 64 workers running `true`, dispatched, settled and
// persisted, on the real surfaces (pane limit 8, so 56 degrade to wrappers
// as they would in a real run of that size).
func BenchmarkDispatch(b *testing.B) {
	var body strings.Builder
	for i := range 64 {
		fmt.Fprintf(&body, "  - { id: w%02d, role: w, provider: sh, prompt: \"true\" }\n", i)
	}
	runYAML := shellRun(body.String())
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		plan, prep := prepareRun(b, runYAML)
		b.StartTimer()
		eng := engine.New(plan, engine.Options{Surfaces: surfaces(nil)})
		require.NoError(b, eng.Start())
		<-eng.Finished()
		require.NoError(b, eng.Shutdown())
		b.StopTimer()
		require.Equal(b, 0, eng.ExitCode())
		prep.Lock.Release()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/64/1e6, "ms/worker")
}

func TestTypedPromptReachesAnInteractiveAgentOncePerAttempt(t *testing.T) {
	t.Parallel()
	// A read loop under a pty: it logs every line it is given. Attempt 1
	// gives up after its first line (exit 1, retried); attempt 2 writes the
	// result. Each attempt must have received the prompt exactly once.
	eng, plan := liveRun(t, `version: 1
name: typed
providers:
  live: { command: ["bash", "-c", "while IFS= read -r l; do echo \"$ROSTRA_ATTEMPT:$l\" >> lines.txt; if [ $ROSTRA_ATTEMPT = 1 ]; then exit 1; fi; echo done > result.txt; done"], delivery: type }
defaults: { max_attempts: 2, retry_backoff: 10ms, stop_grace: 1s }
workers:
  - id: live-pairer
    role: pairer
    prompt: "pair on {worker} attempt {attempt}"
    completion: { result: result.txt, settle: on-files, stable: 100ms }
  - id: live-piped
    role: piped
    surfaces: [wrapper]
    command: ["bash", "-c", "cat > piped.txt; echo done > piped-result.txt"]
    prompt: "line one\nline two"
    completion: { result: piped-result.txt }
`, nil)
	waitFinished(t, eng, 15*time.Second)
	lines, err := os.ReadFile(filepath.Join(plan.Workspace, "lines.txt"))
	require.NoError(t, err)
	assert.Equal(t, "1:pair on live-pairer attempt 1\n2:pair on live-pairer attempt 2\n", string(lines))
	assert.Equal(t, statedir.StatusCompleted, row(t, eng, "live-pairer#2").Status)

	piped, err := os.ReadFile(filepath.Join(plan.Workspace, "piped.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line one\nline two", string(piped), "the wrapper reads the prompt from stdin, then EOF")

	events, err := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	var delivered []string
	for _, ev := range events {
		if ev.Type == statedir.EventWorkerPromptDelivered {
			delivered = append(delivered, fmt.Sprintf("%s#%d %s", ev.WorkerID, ev.Attempt, ev.Delivery))
		}
	}
	assert.ElementsMatch(t, []string{"live-pairer#1 keys", "live-pairer#2 keys", "live-piped#1 stdin"}, delivered)
}

// A prompt past Linux's 128 KiB limit for one argument, passed through
// {prompt}: exec refuses it on every surface, the attempt says what to do
// instead, and it is not retried.
func TestAPromptTooLongForExecIsNotRetried(t *testing.T) {
	eng, _ := liveRun(t, `version: 1
name: big
providers:
  sh: { command: ["bash", "-c", "echo started; exit 0", "{prompt}"] }
defaults: { max_attempts: 3, retry_backoff: 10ms }
workers:
  - id: sh-big
    role: big
    prompt: "`+strings.Repeat("x", 200<<10)+`"
`, nil)
	waitFinished(t, eng, 10*time.Second)
	st := eng.Snapshot()
	require.Len(t, st.Dispatches, 1, "no retry")
	d := st.Dispatches[0]
	assert.Equal(t, statedir.StatusError, d.Status)
	assert.Equal(t, statedir.FailureNotStarted, d.FailureClass)
	assert.Contains(t, d.Reason, "argument list too long")
	assert.Contains(t, d.Reason, "the longest 204800")
	assert.Contains(t, d.Reason, "{prompt_file}")
	assert.Empty(t, d.Surface, "no surface started it")
}
