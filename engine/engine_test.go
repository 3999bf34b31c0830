// engine_test.go checks the engine's rules (docs/design.md) with fake surfaces and
// a fake clock: every settlement branch (docs/design.md §Settlement) with its reason text, retry
// counting and backoff, degradation, manual retry and cancel, and the roster
// refusal.
package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

func intp(n int) *int { return &n }

func withResult(w runfile.WorkerSpec) runfile.WorkerSpec {
	w.Completion.Result = "out/{worker}/result.json"
	return w
}

func TestSettlementBranches(t *testing.T) {
	cases := []struct {
		name       string
		worker     runfile.WorkerSpec
		files      []string
		exit       ExitStatus
		wantStatus string
		wantReason string
		wantClass  string
		wantRetry  bool
	}{
		{name: "completed on exit 0", worker: withResult(runfile.WorkerSpec{ID: "a"}),
			files: []string{"out/a/result.json"}, exit: ExitStatus{Code: 0},
			wantStatus: statedir.StatusCompleted, wantReason: ""},
		{name: "completed whatever the exit code", worker: withResult(runfile.WorkerSpec{ID: "a"}),
			files: []string{"out/a/result.json"}, exit: ExitStatus{Code: 1},
			wantStatus: statedir.StatusCompleted, wantReason: "exited with code 1; outputs present"},
		{name: "completed through an alias", worker: func() runfile.WorkerSpec {
			w := withResult(runfile.WorkerSpec{ID: "a"})
			w.Completion.Aliases = []string{"out/{worker}/result.md"}
			return w
		}(), files: []string{"out/a/result.md"}, exit: ExitStatus{Code: 0},
			wantStatus: statedir.StatusCompleted},
		{name: "no result exit code", worker: withResult(runfile.WorkerSpec{ID: "a", NoResultExitCode: intp(3)}),
			exit: ExitStatus{Code: 3}, wantStatus: statedir.StatusError,
			wantReason: "CLI ended cleanly without emitting a result", wantClass: statedir.FailureNoResult, wantRetry: true},
		{name: "non-zero exit without outputs", worker: withResult(runfile.WorkerSpec{ID: "a", NoResultExitCode: intp(3)}),
			exit: ExitStatus{Code: 1}, wantStatus: statedir.StatusError,
			wantReason: "exited with code 1", wantClass: statedir.FailureExitCode, wantRetry: true},
		{name: "killed by a signal", worker: withResult(runfile.WorkerSpec{ID: "a"}),
			exit: ExitStatus{Code: -1, Signal: "SIGSEGV"}, wantStatus: statedir.StatusError,
			wantReason: "killed by signal SIGSEGV", wantClass: statedir.FailureExitCode, wantRetry: true},
		{name: "exit 0 with missing paths", worker: func() runfile.WorkerSpec {
			w := withResult(runfile.WorkerSpec{ID: "a"})
			w.Completion.Paths = []string{"out/{worker}/notes.md", "out/{worker}/log.md"}
			return w
		}(), files: []string{"out/a/result.json", "out/a/log.md"}, exit: ExitStatus{Code: 0},
			wantStatus: statedir.StatusError, wantReason: "missing completion paths: out/a/notes.md", wantClass: statedir.FailureMissingOutputs, wantRetry: true},
		{name: "no completion files: exit 0 completes", worker: runfile.WorkerSpec{ID: "a"},
			exit: ExitStatus{Code: 0}, wantStatus: statedir.StatusCompleted},
		{name: "no completion files: a non-zero exit fails", worker: runfile.WorkerSpec{ID: "a"},
			exit: ExitStatus{Code: 4}, wantStatus: statedir.StatusError, wantReason: "exited with code 4", wantClass: statedir.FailureExitCode, wantRetry: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := startHarness(t, testPlan(t, tc.worker))
			fh := h.opened(h.pane)
			for _, f := range tc.files {
				h.write(f, "{}")
			}
			fh.end(tc.exit)
			ev := h.event(map[string]string{statedir.StatusCompleted: statedir.EventWorkerCompleted, statedir.StatusError: statedir.EventWorkerFailed}[tc.wantStatus])
			assert.Equal(t, tc.wantReason, ev.Reason)
			d := h.dispatch("a#1")
			assert.Equal(t, tc.wantStatus, d.Status)
			assert.Equal(t, tc.wantReason, d.Reason)
			assert.Equal(t, tc.wantClass, d.FailureClass)
			require.NotNil(t, d.EndedAt)
			if tc.exit.Code >= 0 {
				require.NotNil(t, d.ExitCode)
				assert.Equal(t, tc.exit.Code, *d.ExitCode)
			}
			var sc statedir.StatusSidecar
			data, err := os.ReadFile(d.StatusSidecarPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &sc))
			assert.Equal(t, runfile.SurfacePane, sc.Surface)
			assert.Equal(t, tc.exit.Signal, sc.Signal)
			if tc.wantRetry {
				assert.Equal(t, statedir.StatusRetrying, h.worker("a").Status)
				h.advance(2 * time.Second)
				second := h.opened(h.pane)
				assert.Equal(t, 2, second.spec.Attempt)
			} else {
				assert.Equal(t, tc.wantStatus, h.worker("a").Status)
				h.event(statedir.EventRunFinished)
			}
		})
	}
}

func TestRetriesStopAtMaxAttemptsAfterBackoff(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 3})))
	for n := 1; n <= 3; n++ {
		fh := h.opened(h.pane)
		require.Equal(t, n, fh.spec.Attempt)
		fh.finish(2)
		h.event(statedir.EventWorkerFailed)
		if n < 3 {
			retry := h.event(statedir.EventWorkerRetry)
			assert.Equal(t, "2s", retry.Delay)
			h.advance(1999 * time.Millisecond)
			h.noneOpened(h.pane) // the backoff is not cut short
			h.advance(time.Millisecond)
		}
	}
	h.event(statedir.EventRunFinished)
	h.noneOpened(h.pane)
	w := h.worker("a")
	assert.Equal(t, statedir.StatusError, w.Status)
	assert.Equal(t, 3, w.Attempts)
	assert.Equal(t, "exited with code 2", w.Reason)
	assert.Equal(t, 1, h.eng.ExitCode())
}

func TestBackoffKeepsItsLengthWhenTheClockJumpsBack(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	h.opened(h.pane).finish(1)
	h.event(statedir.EventWorkerRetry)
	h.clock.Set(t0.Add(-time.Hour)) // wall clock stepped back an hour
	h.advance(1500 * time.Millisecond)
	h.noneOpened(h.pane)
	h.advance(500 * time.Millisecond)
	assert.Equal(t, 2, h.opened(h.pane).spec.Attempt)
}

func TestWallTimeoutStopsTheGroupAndDoesNotRetry(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a", Timeout: 30 * time.Minute})))
	fh := h.opened(h.pane)
	fh.ignoreTerm = true
	h.advance(30 * time.Minute)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fh.sigs())
	h.advance(4 * time.Second)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fh.sigs(), "SIGKILL only after stop_grace")
	h.advance(time.Second)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, fh.sigs())
	ev := h.event(statedir.EventWorkerTimeout)
	assert.Equal(t, "attempt timed out after 30m0s", ev.Reason)
	d := h.dispatch("a#1")
	assert.Equal(t, statedir.StatusTimeout, d.Status)
	assert.Equal(t, statedir.FailureTimeout, d.FailureClass)
	assert.True(t, d.Timeout)
	h.event(statedir.EventRunFinished)
	h.noneOpened(h.pane)
}

func TestIdleTimeoutCountsFromTheLastOutput(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a", IdleTimeout: 2 * time.Minute})))
	fh := h.opened(h.pane)
	h.advance(90 * time.Second)
	fh.out.Add(10) // output at 1m30s
	h.advance(90 * time.Second)
	assert.Empty(t, fh.sigs(), "output 90s ago is not idle")
	h.advance(90 * time.Second)
	ev := h.event(statedir.EventWorkerTimeout)
	assert.Equal(t, "no output for 2m0s", ev.Reason)
}

func TestCancelRunningAttempt(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	fh := h.opened(h.pane)
	fh.ignoreTerm = true
	require.NoError(t, h.eng.Cancel("a"))
	require.NoError(t, h.eng.Cancel("a"), "a second cancel while stopping is harmless")
	h.advance(5 * time.Second)
	ev := h.event(statedir.EventWorkerCancelled)
	assert.Equal(t, "cancelled by a human", ev.Reason)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, fh.sigs(), "one stop sequence, not two")
	assert.Equal(t, statedir.StatusCancelled, h.dispatch("a#1").Status)
	assert.Equal(t, statedir.FailureCancelled, h.dispatch("a#1").FailureClass)
	h.event(statedir.EventRunFinished)
	h.noneOpened(h.pane)
	assert.ErrorIs(t, h.eng.Cancel("a"), ErrNotRunning)
	assert.ErrorIs(t, h.eng.Cancel("nobody"), ErrUnknownWorker)
}

func TestCancelDuringBackoff(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	h.opened(h.pane).finish(1)
	h.event(statedir.EventWorkerRetry)
	require.NoError(t, h.eng.Cancel("a"))
	assert.ErrorIs(t, h.eng.Cancel("a"), ErrNotRunning)
	h.advance(time.Minute)
	h.noneOpened(h.pane)
	assert.Equal(t, statedir.StatusCancelled, h.worker("a").Status)
	h.event(statedir.EventRunFinished)
}

func TestRetryWhileCancellingYieldsOneAttempt(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	fh := h.opened(h.pane)
	fh.ignoreTerm = true
	require.NoError(t, h.eng.Cancel("a"))
	require.NoError(t, h.eng.Retry("a"))
	require.NoError(t, h.eng.Retry("a"))
	h.advance(5 * time.Second) // SIGKILL after the grace ends it
	second := h.opened(h.pane)
	assert.Equal(t, 2, second.spec.Attempt)
	h.noneOpened(h.pane)
	assert.True(t, h.dispatch("a#2").Manual)
	assert.Equal(t, statedir.StatusCancelled, h.dispatch("a#1").Status)
	assert.Equal(t, statedir.FailureCancelled, h.dispatch("a#1").FailureClass)
}

func TestCancelAfterRetryWhileCancellingYieldsNone(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	fh := h.opened(h.pane)
	fh.ignoreTerm = true
	require.NoError(t, h.eng.Retry("a"))
	require.NoError(t, h.eng.Cancel("a"))
	h.advance(5 * time.Second)
	h.event(statedir.EventWorkerCancelled)
	h.noneOpened(h.pane)
}

func TestManualRetryPastMaxAttempts(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 1})))
	h.opened(h.pane).finish(1)
	h.event(statedir.EventRunFinished)
	require.NoError(t, h.eng.Retry("a"))
	fh := h.opened(h.pane)
	assert.Equal(t, 2, fh.spec.Attempt)
	h.write("out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventWorkerCompleted)
	d := h.dispatch("a#2")
	assert.True(t, d.Manual)
	assert.Equal(t, statedir.StatusCompleted, d.Status)
	assert.Equal(t, statedir.StatusCompleted, h.worker("a").Status)
	assert.Equal(t, 0, h.eng.ExitCode())
}

func TestManualRetryReplacesPendingBackoff(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	h.opened(h.pane).finish(1)
	h.event(statedir.EventWorkerRetry)
	require.NoError(t, h.eng.Retry("a"))
	assert.Equal(t, 2, h.opened(h.pane).spec.Attempt)
	h.advance(time.Minute)
	h.noneOpened(h.pane) // the old backoff does not start a third
}

func TestDegradesWhenThePtyCannotOpen(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "grok-verifier", Role: "verifier"}))
	hs := startHarnessWith(t, plan, func(pane, _ *fakeSurface) { pane.fail = errNoPty })
	fh := hs.opened(hs.wrapper)
	ev := hs.event(statedir.EventWorkerDegraded)
	assert.Equal(t, runfile.SurfacePane, ev.From)
	assert.Equal(t, runfile.SurfaceWrapper, ev.To)
	assert.Equal(t, errNoPty.Error(), ev.Reason)
	d := hs.dispatch("grok-verifier#1")
	assert.Equal(t, runfile.SurfaceWrapper, d.Surface)
	assert.Equal(t, runfile.SurfacePane, d.DegradedFrom)
	assert.Equal(t, "open pty: open /dev/ptmx: too many open files", d.DegradedReason)
	assert.Equal(t, fh.pid, d.Pid)
}

func TestPaneLimitDegradesTheLaterWorkersInRosterOrder(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}), withResult(runfile.WorkerSpec{ID: "b"}), withResult(runfile.WorkerSpec{ID: "c"}))
	plan.PanesMax = 1
	h := startHarness(t, plan)
	assert.Equal(t, "a", h.opened(h.pane).spec.Worker, "the pane slot goes in roster order")
	h.openedEach(h.wrapper, "b", "c")
	assert.Equal(t, "pane limit reached (1 of 1 in use)", h.dispatch("b#1").DegradedReason)
	assert.Equal(t, "pane limit reached (1 of 1 in use)", h.dispatch("c#1").DegradedReason)
	assert.Empty(t, h.dispatch("a#1").DegradedFrom)
}

func TestNoSurfaceOpensIsAnErrorWithEveryReasonAndRetries(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 2}))
	h := startHarnessWith(t, plan, func(pane, wrapper *fakeSurface) {
		pane.fail = errNoPty
		wrapper.fail = os.ErrPermission
	})
	ev := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, "no surface could open: pane: open pty: open /dev/ptmx: too many open files; wrapper: permission denied", ev.Reason)
	assert.Equal(t, statedir.FailureNotStarted, h.dispatch("a#1").FailureClass)
	h.event(statedir.EventWorkerRetry)
}

func TestRosterRefusalIsRecordedNotFatal(t *testing.T) {
	// Attempt 2 writes its own result path, but the roster points at the
	// path recorded for the worker (attempt 1's): the dispatch completes,
	// the roster refuses, and the run carries on.
	w := runfile.WorkerSpec{ID: "a"}
	w.Completion.Result = "out/{attempt}/result.json"
	h := startHarness(t, testPlan(t, w))
	h.opened(h.pane).finish(0)
	h.event(statedir.EventWorkerRetry)
	h.advance(2 * time.Second)
	fh := h.opened(h.pane)
	h.write("out/2/result.json", "{}")
	fh.finish(0)
	ev := h.event(statedir.EventWorkerRosterNotUpdated)
	assert.Equal(t, "roster not updated: result file out/1/result.json is missing (nor any alias)", ev.Reason)
	d := h.dispatch("a#2")
	assert.Equal(t, statedir.StatusCompleted, d.Status)
	assert.Contains(t, d.Reason, "roster not updated")
	wr := h.worker("a")
	assert.Equal(t, statedir.StatusError, wr.Status)
	h.event(statedir.EventRunFinished)
}

func TestOnFilesSettlesWhileTheProcessRuns(t *testing.T) {
	w := withResult(runfile.WorkerSpec{ID: "a"})
	w.Completion.Settle = runfile.SettleOnFiles
	w.Completion.Stable = 500 * time.Millisecond
	h := startHarness(t, testPlan(t, w))
	fh := h.opened(h.pane)
	// Written whole, then renamed into place: a plain write's create and
	// write events may reach the engine apart, and the second (the size
	// changed) rightly restarts the window after the clock was advanced.
	h.write("out/a/result.json.tmp", "{\"partial\":")
	require.NoError(t, os.Rename(filepath.Join(h.plan.Workspace, "out/a/result.json.tmp"), filepath.Join(h.plan.Workspace, "out/a/result.json")))
	// The watcher notices the file; the stability window starts.
	require.Eventually(t, func() bool { h.sync(); return h.clock.Pending() > 0 && h.stableArmed("a") }, 5*time.Second, 5*time.Millisecond)
	h.advance(400 * time.Millisecond)
	assert.Equal(t, statedir.StatusRunning, h.dispatch("a#1").Status)
	h.advance(100 * time.Millisecond)
	ev := h.event(statedir.EventWorkerCompleted)
	assert.Equal(t, statedir.StatusCompleted, ev.Status)
	assert.Empty(t, fh.sigs(), "the process gets stop_grace to exit first")
	h.advance(5 * time.Second)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fh.sigs())
}

func (h *harness) stableArmed(worker string) bool {
	armed := false
	h.eng.do(func() {
		w := h.eng.byID[worker]
		armed = w.cur != nil && w.cur.stableTimer != nil
	})
	return armed
}

func TestEventsAndStateOnDisk(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	fh := h.opened(h.pane)
	h.write("out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	h.sync()
	st, err := statedir.ReadTeamState(h.plan.StateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunFinished, st.Status)
	require.Len(t, st.Dispatches, 1)
	assert.Equal(t, "a#1", st.Dispatches[0].DispatchID)
	assert.Equal(t, "out/a/result.json", st.Workers[0].ResultPath)
	events, err := statedir.ReadEvents(filepath.Join(h.plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	var types []string
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	assert.Equal(t, []string{statedir.EventRunStarted, statedir.EventWorkerDispatched, statedir.EventWorkerCompleted, statedir.EventRunFinished}, types)
	prompt, err := os.ReadFile(filepath.Join(h.plan.StateDir, "attempts", "a", "1", "prompt.txt"))
	require.NoError(t, err)
	assert.Equal(t, "", string(prompt))
}

func TestSlowSubscriberNeverBlocksTheEngine(t *testing.T) {
	defer func(n int) { subscriptionCap = n }(subscriptionCap)
	subscriptionCap = 16
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 100}))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.sync()                  // attempt 1's dispatch is out before the slow reader comes
	slow := h.eng.Subscribe() // never read
	for i := range 20 {
		if i > 0 {
			fh = h.opened(h.pane)
		}
		fh.finish(1)
		h.event(statedir.EventWorkerRetry)
		h.advance(2 * time.Second)
	}
	assert.Equal(t, 20*3-16, slow.Dropped())
	_, ok := slow.Next()
	assert.True(t, ok, "the newest events are kept")
}

func startHarnessWith(t testing.TB, plan *runfile.Plan, setup func(pane, wrapper *fakeSurface)) *harness {
	t.Helper()
	h := &harness{t: t, plan: plan, clock: NewFakeClock(t0),
		pane: newFakeSurface(runfile.SurfacePane), wrapper: newFakeSurface(runfile.SurfaceWrapper)}
	setup(h.pane, h.wrapper)
	iso, err := workspace.PrepareIsolation(plan, nil, t0)
	require.NoError(t, err)
	h.eng = New(plan, Options{
		Surfaces:  map[runfile.SurfaceKind]Surface{runfile.SurfacePane: h.pane, runfile.SurfaceWrapper: h.wrapper},
		Clock:     h.clock,
		Environ:   []string{},
		Isolation: iso,
		// Workers of a known agent get hooks that run it (agentstate.go).
		HookCommand: testHookExe,
	})
	h.sub = h.eng.Subscribe()
	require.NoError(t, h.eng.Start())
	t.Cleanup(func() { h.shutdown() })
	return h
}

func TestWritePolicyViolationFailsWithoutRetry(t *testing.T) {
	w := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**"}})
	plan := testPlan(t, w)
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, "main.go"), []byte("package main\n"), 0o644))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.write("out/a/result.json", "{}")
	h.write("src/new.go", "package src\n")
	require.NoError(t, os.Remove(filepath.Join(plan.Workspace, "main.go")))
	fh.finish(1)
	ev := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, "readonly source changed: main.go, src/new.go", ev.Reason)
	d := h.dispatch("a#1")
	assert.Equal(t, statedir.StatusError, d.Status)
	assert.Equal(t, statedir.FailureWritePolicy, d.FailureClass)
	assert.Equal(t, []string{"out/**"}, d.WritePolicy)
	assert.Equal(t, runfile.WritePolicy{Globs: []string{"out/**"}}.Digest(), d.WritePolicyDigest)
	h.event(statedir.EventRunFinished)
	h.noneOpened(h.pane) // no automatic retry after a violation
}

func TestWritePolicyViolationKeepsTheFailureText(t *testing.T) {
	w := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**"}})
	h := startHarness(t, testPlan(t, w))
	fh := h.opened(h.pane)
	h.write("README.md", "changed\n")
	fh.finish(2)
	ev := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, "readonly source changed: README.md: exited with code 2", ev.Reason)
}

func TestWritePolicyBelongsToTheAttempt(t *testing.T) {
	w := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/{attempt}/**"}})
	w.Completion.Result = "out/{attempt}/result.json"
	h := startHarness(t, testPlan(t, w))
	h.opened(h.pane).finish(0) // missing result: retried
	h.event(statedir.EventWorkerRetry)
	h.advance(2 * time.Second)
	fh := h.opened(h.pane)
	h.write("out/2/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventWorkerCompleted)
	first, second := h.dispatch("a#1"), h.dispatch("a#2")
	assert.Equal(t, []string{"out/1/**"}, first.WritePolicy)
	assert.Equal(t, []string{"out/2/**"}, second.WritePolicy)
	assert.NotEqual(t, first.WritePolicyDigest, second.WritePolicyDigest)
	assert.Equal(t, statedir.StatusCompleted, second.Status, "writing out/2 is allowed to attempt 2")
}

func TestWritesOfOtherWorkersAreNotChargedToAnAuditedOne(t *testing.T) {
	a := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/a/**"}})
	b := withResult(runfile.WorkerSpec{ID: "b", Writes: []string{"src/**"}})
	h := startHarness(t, testPlan(t, a, b))
	opened := h.openedEach(h.pane, "a", "b")
	fa, fb := opened["a"], opened["b"]
	h.write("out/a/result.json", "{}")
	h.write("out/b/result.json", "{}")   // b's completion file
	h.write("src/b.go", "package src\n") // allowed to b; b's own result is allowed to b too
	fa.finish(0)
	ev := h.event(statedir.EventWorkerCompleted)
	assert.Equal(t, "a", ev.WorkerID)
	fb.finish(0)
	ev = h.event(statedir.EventWorkerCompleted)
	assert.Equal(t, "b", ev.WorkerID)
}

func TestWorkersWithoutWritesAreNotAudited(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	fh := h.opened(h.pane)
	h.write("anything.txt", "x")
	h.write("out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventWorkerCompleted)
	d := h.dispatch("a#1")
	assert.Nil(t, d.WritePolicy)
	assert.Empty(t, d.WritePolicyDigest)
}

func TestOnFilesWithoutFileEventsLooksOnATimer(t *testing.T) {
	defer func(f func(string, []string, func()) (*fileWatch, error)) { startFileWatch = f }(startFileWatch)
	startFileWatch = func(string, []string, func()) (*fileWatch, error) {
		return nil, errors.New("watch completion files: too many open files")
	}
	w := withResult(runfile.WorkerSpec{ID: "a"})
	w.Completion.Settle = runfile.SettleOnFiles
	h := startHarness(t, testPlan(t, w))
	h.opened(h.pane)
	ev := h.event(statedir.EventWorkerWatchFailed)
	assert.Equal(t, "watch completion files: too many open files; looking for the completion files every 1s instead", ev.Reason)
	h.write("out/a/result.json", "{}")
	h.advance(time.Second) // the next look finds the file; the stability window starts
	assert.Equal(t, statedir.StatusRunning, h.dispatch("a#1").Status)
	h.advance(time.Second)
	done := h.event(statedir.EventWorkerCompleted)
	assert.Equal(t, "a", done.WorkerID)
}

func TestArgumentListTooLongIsNotRetriedAndSaysWhatToDo(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 3}))
	h := startHarnessWith(t, plan, func(pane, _ *fakeSurface) {
		pane.fail = fmt.Errorf("start agent: %w", &os.PathError{Op: "fork/exec", Path: "/usr/bin/agent", Err: syscall.E2BIG})
	})
	ev := h.event(statedir.EventWorkerFailed)
	assert.Contains(t, ev.Reason, "start agent: fork/exec /usr/bin/agent: argument list too long: the command line is too long to start")
	assert.Contains(t, ev.Reason, "{prompt_file}")
	assert.Contains(t, ev.Reason, "delivery: type")
	h.event(statedir.EventRunFinished)
	d := h.dispatch("a#1")
	assert.Equal(t, statedir.StatusError, d.Status)
	assert.Equal(t, statedir.FailureNotStarted, d.FailureClass)
	assert.Equal(t, statedir.StatusError, h.worker("a").Status, "not retrying")
	h.noneOpened(h.wrapper) // the wrapper would exec the same command line
	assert.Len(t, h.eng.Snapshot().Dispatches, 1)
}
