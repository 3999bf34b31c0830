//go:build linux

// statewatch_linux_test.go checks that the state dir's going is heard as
// an event, not found by looking every second: the watch wakes for each way
// the folder can leave its path and not for the files written in it or
// beside it, and a quiet run (fake clock, no write) makes the folder again.
package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func TestStateWatchWakesWhenTheStateDirGoes(t *testing.T) {
	for _, tc := range []struct {
		name string
		gone func(dir, parent string) error
	}{
		{"rm -rf the state dir", func(dir, _ string) error { return exec.Command("rm", "-rf", dir).Run() }},
		{"the state dir moved away", func(dir, parent string) error { return os.Rename(dir, filepath.Join(parent, "moved")) }},
		{"rm -rf its parent", func(_, parent string) error { return exec.Command("rm", "-rf", parent).Run() }},
		{"its parent moved away", func(_, parent string) error { return os.Rename(parent, parent+".old") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := filepath.Join(t.TempDir(), "ws")
			dir := filepath.Join(parent, ".rostra")
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "attempts"), 0o700))
			held, err := os.Open(dir) // as stateFS holds it
			require.NoError(t, err)
			defer held.Close()
			c := make(chan struct{}, 1)
			w, err := statedir.WatchDir(dir, c)
			require.NoError(t, err)
			defer w.Close()

			// What a run and its workers do in and beside it is not heard.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "team-state.json.tmp"), []byte("{}"), 0o600))
			require.NoError(t, os.Rename(filepath.Join(dir, "team-state.json.tmp"), filepath.Join(dir, "team-state.json")))
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "attempts")))
			require.NoError(t, os.WriteFile(filepath.Join(parent, "main.go"), []byte("package main\n"), 0o644))
			require.NoError(t, os.Rename(filepath.Join(parent, "main.go"), filepath.Join(parent, "old.go")))
			require.NoError(t, os.Remove(filepath.Join(parent, "old.go")))
			select {
			case <-c:
				t.Fatal("woken by files written in the state dir or beside it")
			case <-time.After(200 * time.Millisecond):
			}

			require.NoError(t, tc.gone(dir, parent))
			select {
			case <-c:
			case <-time.After(10 * time.Second):
				t.Fatal("not woken")
			}
		})
	}
}

// TestAQuietRunMakesItsDeletedStateDirAgain: no write comes and fake time
// stands still, so only the watch can tell; made again, the new folder is
// watched too.
func TestAQuietRunMakesItsDeletedStateDirAgain(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	h := startHarness(t, plan)
	h.opened(h.pane)
	h.event(statedir.EventWorkerDispatched)
	for round := range 2 {
		h.sync()
		done := make(chan struct{})
		h.eng.disk.barrier([]chan struct{}{done})
		<-done
		require.NoError(t, os.RemoveAll(plan.StateDir), "round %d", round)
		ev := h.event(EventStateDirRecreated)
		assert.Contains(t, ev.Reason, "was deleted while the run went on")
		assert.NotContains(t, ev.Reason, "looks for it once a second")
		assert.FileExists(t, filepath.Join(plan.StateDir, statedir.TeamStateFile))
	}
}
