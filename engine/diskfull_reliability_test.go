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
)

// tmpfsStateDir mounts a 64 KiB tmpfs and returns a plan whose state dir is
// on it.
func tmpfsStatePlan(t *testing.T, workers ...WorkerSpec) *Plan {
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
	f, err := os.OpenFile(filepath.Join(stateDir, EventsFile), os.O_WRONLY|os.O_APPEND, 0)
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
	plan := tmpfsStatePlan(t, withResult(WorkerSpec{ID: "a"}), withResult(WorkerSpec{ID: "b"}))
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "a", "b")
	fa, fb := opened["a"], opened["b"]
	h.sync()
	path := filepath.Join(plan.StateDir, TeamStateFile)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	fillDisk(t, plan.StateDir)
	// Room for the next event line, none for a new team-state.json.
	fa.finish(1)
	ev := h.event(EventStateWriteFailed)
	assert.Contains(t, ev.Reason, "write "+path)
	assert.Contains(t, ev.Reason, "no space left on device")
	require.True(t, waitStopped(h.eng, 5*time.Second), "the run must stop when its state cannot be saved")
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, fb.sigs(), "the other worker is stopped")
	require.Error(t, h.eng.Err())

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the previous team-state.json is intact")
	_, err = ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	tmps, _ := filepath.Glob(filepath.Join(plan.StateDir, ".team-state.json.tmp-*"))
	assert.Empty(t, tmps)
}

func TestReliabilityDiskFullOnEventsStopsTheRun(t *testing.T) {
	plan := tmpfsStatePlan(t, withResult(WorkerSpec{ID: "a"}), withResult(WorkerSpec{ID: "b"}))
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "a", "b")
	fa, fb := opened["a"], opened["b"]
	h.sync()
	path := filepath.Join(plan.StateDir, TeamStateFile)
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
