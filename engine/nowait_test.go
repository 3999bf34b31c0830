// nowait_test.go checks docs/design.md §Readers never wait on the engine:
// readers return while the loop's slow work (a write-audit walk, a fork) is
// held up, an unaudited worker is dispatched while an audited one's
// snapshot is taken, posted closures keep their order however many arrive,
// and the rules around an attempt still being opened hold: cancel, retry
// and shutdown racing it, and the pane limit.
package engine

import (
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// holdSnapshots makes every write-audit walk wait until the returned
// release is called; entered receives the workspace of each walk as it
// starts waiting.
func holdSnapshots(t *testing.T) (entered chan string, release func()) {
	t.Helper()
	gate := make(chan struct{})
	entered = make(chan string, 16)
	orig := snapshotWorkspace
	snapshotWorkspace = func(root string, exclude []string) (*workspace.WorkspaceSnapshot, error) {
		entered <- root
		<-gate
		return orig(root, exclude)
	}
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() {
		release()
		snapshotWorkspace = orig
	})
	return entered, release
}

func waitFor[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// readersAnswer calls every reader the UI and cmd use and fails unless
// they all return within the deadline.
func readersAnswer(t *testing.T, e *Engine, within time.Duration) {
	t.Helper()
	done := make(chan statedir.TeamState, 1)
	go func() {
		st := e.Snapshot()
		e.Handle("a")
		e.ExitCode()
		e.Err()
		done <- st
	}()
	select {
	case st := <-done:
		assert.NotEmpty(t, st.Workers)
	case <-time.After(within):
		t.Fatalf("a reader waited more than %s for the engine", within)
	}
}

func TestReadersDoNotWaitForTheSettlementWalk(t *testing.T) {
	w := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**"}})
	plan := testPlan(t, w)
	entered, release := holdSnapshots(t)
	release() // the walk before the attempt goes through
	h := startHarness(t, plan)
	waitFor(t, entered, "the walk before the attempt")
	fh := h.opened(h.pane)
	h.write("out/a/result.json", "{}")

	// Hold the walk after the attempt.
	entered2, release2 := holdSnapshots(t)
	fh.finish(0)
	waitFor(t, entered2, "the walk after the attempt")
	readersAnswer(t, h.eng, time.Second)
	assert.Equal(t, statedir.StatusRunning, h.eng.Snapshot().Dispatches[0].Status, "not decided before the walk is back")
	release2()
	ev := h.event(statedir.EventWorkerCompleted)
	assert.Equal(t, "a", ev.WorkerID)
}

func TestReadersDoNotWaitForAFork(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	var h *harness
	gate := make(chan struct{})
	h = startHarnessWith(t, plan, func(pane, _ *fakeSurface) {
		pane.gate, pane.entered = gate, make(chan LaunchSpec, 4)
	})
	waitFor(t, h.pane.entered, "the pane to be opening")
	readersAnswer(t, h.eng, time.Second)
	h2, n := h.eng.Handle("a")
	assert.Nil(t, h2, "no handle while the attempt is being opened")
	assert.Zero(t, n)
	close(gate)
	fh := h.opened(h.pane)
	h.event(statedir.EventWorkerDispatched)
	got, n := h.eng.Handle("a")
	assert.Equal(t, Handle(fh), got)
	assert.Equal(t, 1, n)
}

func TestUnauditedDispatchDoesNotWaitForAnAuditSnapshot(t *testing.T) {
	audited := withResult(runfile.WorkerSpec{ID: "audited", Writes: []string{"out/**"}})
	plain := withResult(runfile.WorkerSpec{ID: "plain"})
	plan := testPlan(t, audited, plain)
	entered, release := holdSnapshots(t)
	h := startHarness(t, plan)
	waitFor(t, entered, "the audited worker's snapshot")
	fh := h.opened(h.pane)
	assert.Equal(t, "plain", fh.spec.Worker, "the unaudited worker starts while the snapshot is taken")
	readersAnswer(t, h.eng, time.Second)
	release()
	assert.Equal(t, "audited", h.opened(h.pane).spec.Worker)
}

func TestPostKeepsOrderWhenManyArriveAtOnce(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	h.opened(h.pane)
	hold := make(chan struct{})
	held := make(chan struct{})
	h.eng.post(func() { close(held); <-hold }) // the loop is busy
	<-held
	const n = 5000 // well past any channel's capacity
	var got []int
	for i := range n {
		h.eng.post(func() { got = append(got, i) })
	}
	close(hold)
	h.sync()
	require.Len(t, got, n)
	for i, v := range got {
		if v != i {
			t.Fatalf("closure %d ran in place %d", v, i)
		}
	}
}

func TestCancelWhileOpeningStopsTheProcessOnceStarted(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	gate := make(chan struct{})
	h := startHarnessWith(t, plan, func(pane, _ *fakeSurface) {
		pane.gate, pane.entered = gate, make(chan LaunchSpec, 4)
	})
	waitFor(t, h.pane.entered, "the pane to be opening")
	require.NoError(t, h.eng.Cancel("a"))
	close(gate)
	fh := h.opened(h.pane)
	ev := h.event(statedir.EventWorkerCancelled)
	assert.Equal(t, "cancelled by a human", ev.Reason)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fh.sigs())
	d := h.dispatch("a#1")
	assert.Equal(t, statedir.StatusCancelled, d.Status)
	assert.Equal(t, statedir.FailureCancelled, d.FailureClass)
	h.noneOpened(h.pane)
}

func TestCancelBeforeTheProcessStartsStartsNone(t *testing.T) {
	w := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**"}})
	entered, release := holdSnapshots(t)
	h := startHarness(t, testPlan(t, w))
	waitFor(t, entered, "the snapshot before the attempt")
	require.NoError(t, h.eng.Cancel("a"))
	release()
	ev := h.event(statedir.EventWorkerCancelled)
	assert.Equal(t, "cancelled by a human", ev.Reason)
	d := h.dispatch("a#1")
	assert.Equal(t, statedir.StatusCancelled, d.Status)
	assert.Zero(t, d.Pid)
	assert.Equal(t, statedir.StatusCancelled, h.worker("a").Status)
	h.noneOpened(h.pane)
	h.event(statedir.EventRunFinished)
}

func TestRetryWhileOpeningYieldsOneNewAttempt(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	gate := make(chan struct{})
	h := startHarnessWith(t, plan, func(pane, _ *fakeSurface) {
		pane.gate, pane.entered = gate, make(chan LaunchSpec, 4)
	})
	waitFor(t, h.pane.entered, "the pane to be opening")
	require.NoError(t, h.eng.Retry("a"))
	require.NoError(t, h.eng.Retry("a"))
	close(gate)
	first := h.opened(h.pane)
	assert.Equal(t, 1, first.spec.Attempt)
	assert.Equal(t, "cancelled for a manual retry", h.event(statedir.EventWorkerCancelled).Reason)
	second := h.opened(h.pane)
	assert.Equal(t, 2, second.spec.Attempt)
	assert.True(t, h.dispatch("a#2").Manual)
	h.noneOpened(h.pane)
}

func TestShutdownWaitsForAnAttemptStillOpening(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	gate := make(chan struct{})
	h := startHarnessWith(t, plan, func(pane, _ *fakeSurface) {
		pane.gate, pane.entered = gate, make(chan LaunchSpec, 4)
	})
	waitFor(t, h.pane.entered, "the pane to be opening")
	h.eng.do(func() { h.eng.beginShutdown("stopped: rostra is quitting") })
	select {
	case <-h.eng.Stopped():
		t.Fatal("stopped while an attempt was still being opened")
	default:
	}
	close(gate)
	fh := h.opened(h.pane)
	waitFor(t, h.eng.Stopped(), "the engine to stop")
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fh.sigs(), "the process started late is stopped")
	st := h.eng.Snapshot()
	assert.Equal(t, statedir.RunInterrupted, st.Status)
	assert.Equal(t, statedir.StatusCancelled, st.Dispatches[0].Status)
	assert.Equal(t, "stopped: rostra is quitting", st.Dispatches[0].Reason)
}
