// parts_test.go checks the seam for workers on other hosts (parts.go):
// a remote worker is not dispatched here, its rows and pane are what the
// Parts mirror in, it counts toward the run's end like any row, a
// human's retry of it goes to its part, and a shutdown stops the parts.
package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

type fakeParts struct {
	mirror   chan Mirror
	mu       sync.Mutex
	stopped  []string
	controls []string
}

func (p *fakeParts) Run(m Mirror) { p.mirror <- m }
func (p *fakeParts) Stop(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = append(p.stopped, reason)
}
func (p *fakeParts) Control(op, worker string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.controls = append(p.controls, op+" "+worker)
	return nil
}

func TestRemoteWorkersAreMirroredNotDispatched(t *testing.T) {
	plan := testPlan(t, runfile.WorkerSpec{ID: "here"}, runfile.WorkerSpec{ID: "far", Host: "box"})
	parts := &fakeParts{mirror: make(chan Mirror, 1)}
	h := &harness{t: t, plan: plan, clock: NewFakeClock(t0),
		pane: newFakeSurface(runfile.SurfacePane), wrapper: newFakeSurface(runfile.SurfaceWrapper)}
	h.eng = New(plan, Options{
		Surfaces: map[runfile.SurfaceKind]Surface{runfile.SurfacePane: h.pane, runfile.SurfaceWrapper: h.wrapper},
		Clock:    h.clock, Environ: []string{}, Parts: parts,
	})
	h.sub = h.eng.Subscribe()
	require.NoError(t, h.eng.Start())
	t.Cleanup(h.shutdown)

	var m Mirror
	select {
	case m = <-parts.mirror:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the parts were never run")
	}
	local := h.opened(h.pane)
	h.noneOpened(h.pane)
	assert.Equal(t, "box", h.worker("far").Host)
	assert.Equal(t, statedir.StatusPending, h.worker("far").Status)

	// The part's row and dispatch, mirrored in; the pane handle too.
	started := t0.Add(time.Second)
	remote := &fakeHandle{pid: 4242, done: make(chan struct{})}
	m.MirrorRow(statedir.WorkerRow{WorkerID: "far", Role: "implementer", Status: statedir.StatusRunning, Attempts: 1},
		[]statedir.DispatchRow{{DispatchID: "far-1", WorkerID: "far", Attempt: 1, Status: statedir.StatusRunning, StartedAt: started}})
	m.MirrorHandle("far", remote, 1)
	h.sync()
	require.Eventually(t, func() bool { return h.worker("far").Status == statedir.StatusRunning }, 10*time.Second, time.Millisecond)
	assert.Equal(t, "box", h.worker("far").Host, "the host is the plan's, whatever the part says")
	got, n := h.eng.Handle("far")
	assert.Equal(t, Handle(remote), got)
	assert.Equal(t, 1, n)

	// The local worker ends; the run waits for the remote one.
	local.finish(0)
	require.Eventually(t, func() bool { return h.worker("here").Status == statedir.StatusCompleted }, 10*time.Second, time.Millisecond)
	assert.Equal(t, statedir.RunRunning, h.eng.Snapshot().Status)

	// A retry of it goes to its part.
	require.NoError(t, h.eng.Retry("far"))
	require.NoError(t, h.eng.Cancel("far"))
	assert.Equal(t, []string{"retry far", "cancel far"}, parts.controls)

	// Its second attempt, then its end: the dispatch rows are replaced in
	// place and added to, and the run finishes with every row completed.
	ended := started.Add(time.Second)
	m.MirrorRow(statedir.WorkerRow{WorkerID: "far", Status: statedir.StatusCompleted, Attempts: 2},
		[]statedir.DispatchRow{
			{DispatchID: "far-1", WorkerID: "far", Attempt: 1, Status: statedir.StatusError, StartedAt: started, EndedAt: &ended},
			{DispatchID: "far-2", WorkerID: "far", Attempt: 2, Status: statedir.StatusCompleted, StartedAt: ended, EndedAt: &ended},
		})
	select {
	case <-h.eng.Finished():
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the run never finished")
	}
	st := h.eng.Snapshot()
	var far []string
	for _, d := range st.Dispatches {
		if d.WorkerID == "far" {
			far = append(far, d.DispatchID+" "+d.Status)
		}
	}
	assert.Equal(t, []string{"far-1 error", "far-2 completed"}, far)
	var events []string
	for {
		ev, ok := h.sub.Next()
		if !ok || ev.Type == statedir.EventRunFinished {
			break
		}
		if ev.WorkerID == "far" {
			events = append(events, ev.Type)
		}
	}
	assert.Equal(t, []string{statedir.EventWorkerFailed, statedir.EventWorkerCompleted}, events,
		"the remote attempts' ends are events here (the first dispatch had no surface yet)")
	assert.Equal(t, 0, h.eng.ExitCode())

	h.shutdown()
	assert.Len(t, parts.stopped, 1, "a shutdown stops the parts")
}

func TestRemoteWorkersWithoutPartsFail(t *testing.T) {
	plan := testPlan(t, runfile.WorkerSpec{ID: "far", Host: "box"})
	h := startHarness(t, plan)
	select {
	case <-h.eng.Finished():
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the run never finished")
	}
	assert.Equal(t, statedir.StatusError, h.worker("far").Status)
	assert.Contains(t, h.worker("far").Reason, "placed on host box")
}
