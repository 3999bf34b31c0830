// diskfull_tail_reliability_test.go is FAULTS.md 25 with the real
// binary: the state dir on a 1 MiB tmpfs, a worker whose output fills it.
// The lost tail of its output.log is recorded on its row, the run stops
// (exit 1), and team-state.json is left with every row settled and the run
// interrupted, written with the space rostra set aside at the start.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/statedir"
)

func TestReliabilityDiskFilledByOutputLeavesSettledRowsAndTheLostTail(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	mnt := filepath.Join(ws, ".rostra")
	require.NoError(t, os.Mkdir(mnt, 0o700))
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): needs root", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: full
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: sh-sleeper
    role: sleeper
    prompt: "echo started; exec sleep 300"
  - id: sh-flood
    role: flood
    surfaces: [wrapper]
    prompt: "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo ok > flood.txt"
    completion: { result: flood.txt }
`), 0o644))
	stateDir := filepath.Join(mnt, "full")
	cmd, out := startBin(t, ws, "sh-sleeper#1 started on pane", "run", "--headless")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("rostra did not stop after the disk filled:\n%s", out.String())
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, out.String())
	assert.Equal(t, 1, ee.ExitCode(), out.String())
	assert.Contains(t, out.String(), "no space left on device")

	st, err := statedir.ReadTeamState(stateDir)
	require.NoError(t, err, out.String())
	assert.Equal(t, statedir.RunInterrupted, st.Status, "the run's last state was saved:\n%s", out.String())
	var flood *statedir.DispatchRow
	for i, d := range st.Dispatches {
		assert.NotEqual(t, statedir.StatusRunning, d.Status, d.DispatchID)
		if d.WorkerID == "sh-flood" {
			flood = &st.Dispatches[i]
		}
	}
	require.NotNil(t, flood)
	assert.Positive(t, flood.OutputLogLostBytes, flood.Reason)
	assert.Contains(t, flood.Reason, "output.log lost its last")
	info, err := os.Stat(flood.OutputLogPath)
	require.NoError(t, err)
	assert.Less(t, info.Size(), int64(1<<20), "the log holds what fitted")
	// The worker may be stopped before it wrote everything (the run stops
	// on the full disk), so the two add up to what rostra read, at most
	// what the worker meant to write.
	assert.LessOrEqual(t, info.Size()+flood.OutputLogLostBytes, int64(3000001))
}
