// statedir_reliability_test.go drives the real rostra binary through FAULTS.md
// 26 and 27: a state_dir that is (or holds) the workspace is refused at
// validation, a folder of someone else's is refused at run time and left as
// it was, and a worker that deletes run.lock does not let a second rostra
// in to stop the live run's workers as a dead run's leftovers.
package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

func TestReliabilityStateDirOfOthersFilesIsRefused(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "project")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	mine := filepath.Join(base, "mine")
	require.NoError(t, os.MkdirAll(mine, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mine, "thesis.tex"), []byte("years of work\n"), 0o644))
	run := func(stateDir string) string {
		return "version: 1\nname: sd\nstate_dir: " + stateDir + "\nworkers:\n  - { id: a, command: [\"true\"] }\n"
	}

	// The workspace's parent: refused where it is written, before any run.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(run("..")), 0o644))
	r := runBin(t, ws, "validate", "rostra.yaml")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "rostra.yaml:3:12: state_dir: "+base+" is a folder that holds the workspace")
	r = runBin(t, ws, "run", "--headless", "rostra.yaml")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "state_dir: "+base+" is a folder that holds the workspace")

	// A folder of someone else's: refused at run time, untouched.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(run(mine)), 0o644))
	for range 2 {
		r = runBin(t, ws, "run", "--headless", "rostra.yaml")
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "state dir "+mine+" holds files rostra did not write (thesis.tex) and no .rostra-state marker")
	}
	entries, err := os.ReadDir(mine)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written, nothing archived")
	data, err := os.ReadFile(filepath.Join(mine, "thesis.tex"))
	require.NoError(t, err)
	assert.Equal(t, "years of work\n", string(data))

	// The default state dir is made, marked, and run in twice.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(strings.Replace(run("x"), "state_dir: x\n", "", 1)), 0o644))
	for range 2 {
		r = runBin(t, ws, "run", "--headless", "rostra.yaml")
		require.Equal(t, 0, r.code, r.stderr)
	}
	assert.FileExists(t, filepath.Join(ws, ".rostra", "sd", statedir.MarkerFile))
	assert.Contains(t, r.stderr, "was archived to")
}

// TestReliabilityWorkerDeletingRunLockLetsNoSecondRostraIn: the worker
// deletes run.lock, as `git clean -fdx` or a careless rm would; a
// `rostra run --resume` then must be refused, not stop the live workers.
func TestReliabilityWorkerDeletingRunLockLetsNoSecondRostraIn(t *testing.T) {
	t.Parallel()
	ws := slowRun(t, "rm -f .rostra/slow/run.lock; echo deleted; ")
	first, out := startBin(t, ws, "started on pane", "run", "--headless")
	stateDir := filepath.Join(ws, ".rostra", "slow")
	require.Eventually(t, func() bool {
		_, err := os.Lstat(filepath.Join(stateDir, statedir.LockFile))
		return os.IsNotExist(err)
	}, 10*time.Second, 5*time.Millisecond, "the worker never deleted run.lock:\n%s", out.String())
	var worker int
	require.Eventually(t, func() bool {
		st, err := statedir.ReadTeamState(stateDir)
		if err != nil || len(st.Dispatches) != 1 {
			return false
		}
		worker = st.Dispatches[0].Pid
		return worker > 0
	}, 10*time.Second, 5*time.Millisecond)

	for _, args := range [][]string{{"run", "--headless", "--resume"}, {"run", "--headless"}} {
		r := runBin(t, ws, args...)
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "run is already driven by another rostra (state dir "+stateDir)
		assert.NotContains(t, r.stderr, "stopped")
	}
	assert.NoError(t, syscall.Kill(worker, 0), "the live run's worker must not be stopped")
	assert.Nil(t, first.ProcessState, "the first rostra still runs")
	require.NoError(t, first.Process.Signal(syscall.SIGTERM))
	_ = first.Wait()
}
