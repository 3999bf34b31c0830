package statedir

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheIndexOfRunsKeepsTheRecentOnesWhoseStateDirIsThere(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	runs, err := RecentRuns()
	require.NoError(t, err)
	assert.Empty(t, runs, "no index yet")

	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	// Two runs starting together both stay.
	var wg sync.WaitGroup
	for _, d := range []string{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, RecordRun(RunIndexEntry{StateDir: d, Run: filepath.Base(d), StartedAt: time.Now().UTC()}))
		}()
	}
	wg.Wait()
	require.NoError(t, RecordRun(RunIndexEntry{StateDir: c, Run: "c"}))
	require.NoError(t, RecordRun(RunIndexEntry{StateDir: a, Run: "a again"}))
	runs, err = RecentRuns()
	require.NoError(t, err)
	require.Len(t, runs, 3)
	assert.Equal(t, "a again", runs[0].Run, "newest first, one entry per state dir")
	assert.Equal(t, c, runs[1].StateDir)

	require.NoError(t, os.RemoveAll(c))
	runs, err = RecentRuns()
	require.NoError(t, err)
	assert.Len(t, runs, 2, "a state dir that is gone is dropped")
	dir, _ := RunIndexDir()
	fi, err := os.Stat(filepath.Join(dir, RunIndexFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestCrashedIsARunningRunWhoseRostraIsGone(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, TeamStateFile), []byte("{}"), 0o600))
	alive := &TeamState{Status: RunRunning, Pid: os.Getpid(), PidStart: ProcessStart(os.Getpid())}
	_, crashed := Crashed(dir, alive)
	assert.False(t, crashed, "its rostra lives")
	gone := &TeamState{Status: RunRunning, Pid: os.Getpid(), PidStart: "1"} // the pid is another process's now
	at, crashed := Crashed(dir, gone)
	assert.True(t, crashed)
	assert.WithinDuration(t, time.Now(), at, time.Minute, "when its state was last written")
	_, crashed = Crashed(dir, &TeamState{Status: RunFinished, Pid: 1 << 22})
	assert.False(t, crashed, "finished")
	_, crashed = Crashed(dir, &TeamState{Status: RunInterrupted, Pid: 1 << 22})
	assert.False(t, crashed, "stopped, not crashed")
}
