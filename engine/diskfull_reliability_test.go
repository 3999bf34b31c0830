//go:build linux

// diskfull_reliability_test.go is fault 15 at the engine's level, on a real
// 64 KiB tmpfs as the state dir, with fake surfaces and a fake clock so the
// moment the disk fills is the test's choice: whichever write meets the full
// disk first (team-state.json or an events.jsonl line), the previous
// team-state.json stays whole, the error is published, and the run stops.
package engine

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// tmpfsStateDir mounts a 64 KiB tmpfs and returns a plan whose state dir is
// on it.
func tmpfsStatePlan(t *testing.T, workers ...runfile.WorkerSpec) *runfile.Plan {
	t.Helper()
	plan := testPlan(t, workers...)
	mnt := filepath.Dir(plan.StateDir)
	require.NoError(t, os.RemoveAll(mnt))
	require.NoError(t, os.Mkdir(mnt, 0o700))
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): fault 15 needs root", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	require.NoError(t, os.Mkdir(plan.StateDir, 0o700))
	return plan
}

// fillDisk takes every free block of the file system holding dir.
func fillDisk(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			require.ErrorIs(t, err, syscall.ENOSPC)
			break
		}
	}
	// Single bytes fill the last partial block too.
	for {
		if _, err := f.Write(buf[:1]); err != nil {
			require.ErrorIs(t, err, syscall.ENOSPC)
			return
		}
	}
}

// fillEventsTail pads events.jsonl with blank lines (which readers skip)
// until its last block is full, so the next event line cannot be written.
func fillEventsTail(t *testing.T, stateDir string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(stateDir, statedir.EventsFile), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f.Close()
	for {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			require.ErrorIs(t, err, syscall.ENOSPC)
			return
		}
	}
}

func waitStopped(eng *Engine, within time.Duration) bool {
	select {
	case <-eng.Stopped():
		return true
	case <-time.After(within):
		return false
	}
}

func TestReliabilityDiskFullOnTeamStateStopsTheRun(t *testing.T) {
	plan := tmpfsStatePlan(t, withResult(runfile.WorkerSpec{ID: "a"}), withResult(runfile.WorkerSpec{ID: "b"}))
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "a", "b")
	fa, fb := opened["a"], opened["b"]
	h.sync()
	path := filepath.Join(plan.StateDir, statedir.TeamStateFile)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	fillDisk(t, plan.StateDir)
	// Room for the next event line, none for a new team-state.json.
	fa.finish(1)
	ev := h.event(statedir.EventStateWriteFailed)
	assert.Contains(t, ev.Reason, "write "+path)
	assert.Contains(t, ev.Reason, "no space left on device")
	require.True(t, waitStopped(h.eng, 5*time.Second), "the run must stop when its state cannot be saved")
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fb.sigs(), "the other worker is stopped")
	require.Error(t, h.eng.Err())

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the previous team-state.json is intact")
	_, err = statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	tmps, _ := filepath.Glob(filepath.Join(plan.StateDir, ".team-state.json.tmp-*"))
	assert.Empty(t, tmps)
}

func TestReliabilityDiskFullOnEventsStopsTheRun(t *testing.T) {
	plan := tmpfsStatePlan(t, withResult(runfile.WorkerSpec{ID: "a"}), withResult(runfile.WorkerSpec{ID: "b"}))
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "a", "b")
	fa, fb := opened["a"], opened["b"]
	h.sync()
	path := filepath.Join(plan.StateDir, statedir.TeamStateFile)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	fillDisk(t, plan.StateDir)
	fillEventsTail(t, plan.StateDir)
	fa.finish(1) // its worker-failed line meets the full disk first
	require.True(t, waitStopped(h.eng, 3*time.Second), "a full disk met by an event line stops the run")
	assert.True(t, errors.Is(h.eng.Err(), syscall.ENOSPC), "the engine noted %v", h.eng.Err())
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fb.sigs(), "the other worker is stopped")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the previous team-state.json is intact")
}

// tmpfsOf mounts a tmpfs of size on dir (made empty first).
func tmpfsOf(t *testing.T, dir, size string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o700))
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the disk-full tests need root", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
}

// FAULTS.md 25: with room set aside at the start, a run stopped by a full
// disk still leaves every row settled and the run interrupted, not
// `running`.
func TestReliabilityDiskFullLeavesSettledRows(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}), withResult(runfile.WorkerSpec{ID: "b"}))
	tmpfsOf(t, filepath.Dir(plan.StateDir), "2m")
	require.NoError(t, os.Mkdir(plan.StateDir, 0o700))
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "a", "b")
	h.sync()
	_, err := os.Stat(filepath.Join(plan.StateDir, statedir.ReserveFile))
	require.NoError(t, err, "the reserve is made at the start")

	fillDisk(t, plan.StateDir)
	fillEventsTail(t, plan.StateDir)
	opened["a"].finish(1)
	require.True(t, waitStopped(h.eng, 5*time.Second), "a full disk stops the run")
	require.ErrorIs(t, h.eng.Err(), syscall.ENOSPC)
	assert.Contains(t, h.eng.Err().Error(), "the space rostra kept in reserve was freed")

	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunInterrupted, st.Status, "not left running")
	for _, d := range st.Dispatches {
		assert.NotEqual(t, statedir.StatusRunning, d.Status, d.DispatchID)
		assert.NotNil(t, d.EndedAt, d.DispatchID)
	}
	for _, w := range st.Workers {
		assert.NotEqual(t, statedir.StatusRunning, w.Status, w.WorkerID)
	}
	events, err := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	assert.Equal(t, statedir.EventRunInterrupted, events[len(events)-1].Type, "the last events were saved too")
}

// When not even the reserve could save the last state, --resume reads the
// outcome from events.jsonl instead of calling a finished attempt
// interrupted and running it again.
func TestReliabilityResumeTrustsEventsWhenTheStateLagged(t *testing.T) {
	defer func(n int64) { statedir.ReserveSize = n }(statedir.ReserveSize)
	statedir.ReserveSize = 1 << 40 // no reserve: the last state cannot be written
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}), withResult(runfile.WorkerSpec{ID: "b"}))
	tmpfsOf(t, filepath.Dir(plan.StateDir), "512k")
	require.NoError(t, os.Mkdir(plan.StateDir, 0o700))
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "a", "b")
	h.sync()
	_, err := os.Stat(filepath.Join(plan.StateDir, statedir.ReserveFile))
	require.True(t, os.IsNotExist(err), "no room for the reserve")

	fillDisk(t, plan.StateDir) // room for a few event lines, none for team-state.json
	h.write("out/a/result.json", "{}")
	opened["a"].finish(0)
	require.True(t, waitStopped(h.eng, 5*time.Second))
	h.shutdown()

	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	require.Equal(t, statedir.RunRunning, st.Status, "the test needs a state that lags")
	require.NoError(t, os.Remove(filepath.Join(plan.StateDir, "filler")))

	prep, err := PrepareStateDir(plan, true, t0.Add(time.Hour))
	require.NoError(t, err)
	defer prep.Lock.Release()
	rows := map[string]statedir.DispatchRow{}
	for _, d := range prep.Resumed.Dispatches {
		rows[d.DispatchID] = d
	}
	assert.Equal(t, statedir.StatusCompleted, rows["a#1"].Status, rows["a#1"].Reason)
	assert.Contains(t, rows["a#1"].Reason, "on resume: a#1 settled completed from events.jsonl (team-state.json could not record it)")
	assert.Equal(t, statedir.StatusCancelled, rows["b#1"].Status, "stopped with the run, as its event says")
	assert.Equal(t, statedir.FailureCancelled, rows["b#1"].FailureClass)
	workers := map[string]statedir.WorkerRow{}
	for _, w := range prep.Resumed.Workers {
		workers[w.WorkerID] = w
	}
	assert.Equal(t, statedir.StatusCompleted, workers["a"].Status, "a is not run again")
	assert.Equal(t, statedir.StatusCancelled, workers["b"].Status)
	assert.Len(t, prep.Reconciled, 2)
	events, err := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	assert.Equal(t, EventStateReconciled, events[len(events)-1].Type, "the resume logs what it trusted")
}

// Without an event for it, an attempt whose completion files are all there
// is completed from them; one with neither is interrupted.
func TestResumeSettlesFromCompletionFilesWhenNoEventSurvived(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}), withResult(runfile.WorkerSpec{ID: "b"}))
	require.NoError(t, os.MkdirAll(filepath.Join(plan.Workspace, "out", "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, "out", "a", "result.json"), []byte("{}"), 0o644))
	st := statedir.TeamState{Version: 1, Run: "t", Status: statedir.RunRunning, Pid: 1 << 22, StartedAt: t0,
		Workers: []statedir.WorkerRow{
			{WorkerID: "a", Status: statedir.StatusRunning, Attempts: 1, ResultPath: "out/a/result.json"},
			{WorkerID: "b", Status: statedir.StatusRunning, Attempts: 1, ResultPath: "out/b/result.json"},
		},
		Dispatches: []statedir.DispatchRow{
			{DispatchID: "a#1", WorkerID: "a", Attempt: 1, Status: statedir.StatusRunning, StartedAt: t0},
			{DispatchID: "b#1", WorkerID: "b", Attempt: 1, Status: statedir.StatusRunning, StartedAt: t0},
		}}
	require.NoError(t, statedir.WriteFileAtomic(filepath.Join(plan.StateDir, statedir.TeamStateFile), stateBytes(t, st), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, statedir.EventsFile), []byte(`{"type":"run-started"}`+"\n"), 0o600))
	prep, err := PrepareStateDir(plan, true, t0.Add(time.Hour))
	require.NoError(t, err)
	defer prep.Lock.Release()
	a, b := prep.Resumed.Dispatches[0], prep.Resumed.Dispatches[1]
	assert.Equal(t, statedir.StatusCompleted, a.Status)
	assert.Contains(t, a.Reason, "a#1 settled completed from its completion files")
	assert.Equal(t, statedir.StatusCompleted, prep.Resumed.Workers[0].Status)
	assert.Equal(t, statedir.StatusError, b.Status)
	assert.Equal(t, statedir.FailureInterrupted, b.FailureClass)
	assert.Equal(t, []string{"a#1 settled completed from its completion files (no outcome in events.jsonl or team-state.json)"}, prep.Reconciled)
}

// TestResumeNeverWritesThroughAPlantedEventsLink: a resume that has
// something to log before the run starts (rows settled from completion
// files, a damaged team-state.json kept aside) meets events.jsonl replaced
// by a symlink to a file of the user's: it neither cuts that file's last
// line nor appends to it.
func TestResumeNeverWritesThroughAPlantedEventsLink(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	require.NoError(t, os.MkdirAll(filepath.Join(plan.Workspace, "out", "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, "out", "a", "result.json"), []byte("{}"), 0o644))
	st := statedir.TeamState{Version: 1, Run: "t", Status: statedir.RunRunning, Pid: 1 << 22, StartedAt: t0,
		Workers:    []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusRunning, Attempts: 1, ResultPath: "out/a/result.json"}},
		Dispatches: []statedir.DispatchRow{{DispatchID: "a#1", WorkerID: "a", Attempt: 1, Status: statedir.StatusRunning, StartedAt: t0}}}
	require.NoError(t, statedir.WriteFileAtomic(filepath.Join(plan.StateDir, statedir.TeamStateFile), stateBytes(t, st), 0o600))
	bait := filepath.Join(t.TempDir(), "notes.txt")
	const notes = "the user's notes\nwhose last line has no newline"
	require.NoError(t, os.WriteFile(bait, []byte(notes), 0o644))
	require.NoError(t, os.Symlink(bait, filepath.Join(plan.StateDir, statedir.EventsFile)))

	prep, err := PrepareStateDir(plan, true, t0.Add(time.Hour))
	if err == nil {
		prep.Lock.Release()
	}
	data, rerr := os.ReadFile(bait)
	require.NoError(t, rerr)
	assert.Equal(t, notes, string(data), "nothing is cut from or appended to the link's target")
}
