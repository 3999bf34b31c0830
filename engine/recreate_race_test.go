//go:build linux

// recreate_race_test.go races rm -rf of the state dir with the engine's
// state writes: rm can delete the temporary file of a write in progress
// (or its folder) before the folder itself is gone, and the run must go on
// all the same, not stop as for a full disk.
package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func TestRmRfWhileTheStateIsWrittenDoesNotStopTheRun(t *testing.T) {
	for round := range 12 {
		plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
		h := startHarness(t, plan)
		h.opened(h.pane)
		h.event(statedir.EventWorkerDispatched)
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				h.eng.do(func() { h.eng.dirty = true }) // a state write each batch
			}
		}()
		err := os.RemoveAll(plan.StateDir) // may meet a write's new file: "directory not empty"
		close(stop)
		<-done
		h.sync()
		require.NoError(t, h.eng.Err(), "round %d: the run stopped", round)
		h.shutdown()
		// Whether rm took the folder or only its files, the run's record
		// is on disk at the end: events.jsonl whole, from its first line.
		events, rerr := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
		require.NoError(t, rerr, "round %d (rm: %v)", round, err)
		require.NotEmpty(t, events, "round %d (rm: %v)", round, err)
		assert.Equal(t, statedir.EventRunStarted, events[0].Type, "round %d (rm: %v)", round, err)
		assert.Equal(t, statedir.EventRunInterrupted, events[len(events)-1].Type, "round %d (rm: %v)", round, err)
	}
}

// TestAnEventsLogReplacedDuringTheRunIsWrittenAgain: a worker moves a file
// of its own over events.jsonl (or plants a link there); the log rostra
// holds lost its name, so it is written again in its place, whole, and the
// run goes on; nothing is written through the link.
func TestAnEventsLogReplacedDuringTheRunIsWrittenAgain(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	h := startHarness(t, plan)
	h.opened(h.pane)
	h.event(statedir.EventWorkerDispatched)
	h.sync()
	bait := filepath.Join(t.TempDir(), "bait.txt")
	require.NoError(t, os.WriteFile(bait, []byte("not rostra's\n"), 0o644))
	tmp := filepath.Join(plan.StateDir, "planted")
	require.NoError(t, os.Symlink(bait, tmp))
	require.NoError(t, os.Rename(tmp, filepath.Join(plan.StateDir, statedir.EventsFile)))
	h.eng.do(func() { h.eng.dirty = true }) // a write asks the guard
	h.event(EventStateDirRecreated)
	h.sync()
	require.NoError(t, h.eng.Err())
	h.shutdown()
	data, err := os.ReadFile(bait)
	require.NoError(t, err)
	assert.Equal(t, "not rostra's\n", string(data))
	events, err := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	assert.Equal(t, statedir.EventRunStarted, events[0].Type)
	assert.Equal(t, statedir.EventRunInterrupted, events[len(events)-1].Type)
}
