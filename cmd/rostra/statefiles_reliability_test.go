// statefiles_reliability_test.go is FAULTS.md 23 on a real run: a worker
// that plants symlinks in the state dir during its first attempt, where
// rostra will write next, cannot send those writes anywhere: each planted
// name is an error naming it, the attempt that meets it fails with that
// reason, and the run goes on.
package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

func TestReliabilityPlantedSymlinksInTheStateDirAreNeverFollowed(t *testing.T) {
	outside := t.TempDir()
	bait := filepath.Join(outside, "bait.txt")
	require.NoError(t, os.WriteFile(bait, []byte("not rostra's\n"), 0o644))
	t.Setenv("OUTSIDE", outside)
	// Attempt 1 plants: its own status.json (written when it settles), the
	// folder of attempt 2, and attempt 3's output.log inside a real folder;
	// then fails. Attempts 2 and 3 meet what was planted; attempt 4 runs.
	eng, plan := liveRun(t, `version: 1
name: plant
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 4, retry_backoff: 10ms, stop_grace: 1s }
workers:
  - id: sh-planter
    role: planter
    prompt: |
      a=$ROSTRA_STATE_DIR/attempts/$ROSTRA_WORKER
      if [ "$ROSTRA_ATTEMPT" = 1 ]; then
        ln -s "$OUTSIDE/bait.txt" "$a/1/status.json"
        ln -s "$OUTSIDE" "$a/2"
        mkdir "$a/3" && ln -s "$OUTSIDE/bait.txt" "$a/3/output.log"
        echo planted; exit 1
      fi
      echo "attempt $ROSTRA_ATTEMPT ran"; echo done > result.txt
    completion: { result: result.txt }
`, nil)
	waitFinished(t, eng, 20*time.Second)
	attempts := filepath.Join(plan.StateDir, "attempts", "sh-planter")

	one := row(t, eng, "sh-planter#1")
	assert.Equal(t, statedir.StatusError, one.Status)
	info, err := os.Lstat(filepath.Join(attempts, "1", "status.json"))
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular(), "the planted status.json link is replaced by the sidecar, not written through")

	two := row(t, eng, "sh-planter#2")
	assert.Equal(t, statedir.StatusError, two.Status)
	assert.Equal(t, statedir.FailureNotStarted, two.FailureClass)
	assert.Contains(t, two.Reason, filepath.Join(attempts, "2")+" is a symlink (to "+outside+")")

	three := row(t, eng, "sh-planter#3")
	assert.Equal(t, statedir.StatusError, three.Status)
	assert.Contains(t, three.Reason, filepath.Join(attempts, "3")+": it exists already")

	four := row(t, eng, "sh-planter#4")
	assert.Equal(t, statedir.StatusCompleted, four.Status, four.Reason)
	log, err := os.ReadFile(four.OutputLogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "attempt 4 ran")

	// Nothing reached the bait or the folder outside.
	data, err := os.ReadFile(bait)
	require.NoError(t, err)
	assert.Equal(t, "not rostra's\n", string(data))
	ents, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Len(t, ents, 1, "only the bait is outside")
}

// TestReliabilityResumeNeverFollowsAPlantedServerLog: a worker replaced
// server.log with a symlink during the run; the server that resumes the
// run does not append its log to the link's target: it refuses, naming
// the link, and nothing reaches the bait.
func TestReliabilityResumeNeverFollowsAPlantedServerLog(t *testing.T) {
	outside := t.TempDir()
	bait := filepath.Join(outside, "bait.txt")
	require.NoError(t, os.WriteFile(bait, []byte("not rostra's\n"), 0o644))
	ws := runWorkspace(t, `version: 1
name: plantlog
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: planter
    role: planter
    provider: shell
    prompt: "ln -sf `+bait+` $ROSTRA_STATE_DIR/server.log && echo planted; exec sleep 300"
`)
	stateDir := filepath.Join(ws, ".rostra", "plantlog")
	detachedRun(t, ws)
	require.Eventually(t, func() bool {
		fi, err := os.Lstat(filepath.Join(stateDir, "server.log"))
		return err == nil && fi.Mode()&os.ModeSymlink != 0
	}, 20*time.Second, 20*time.Millisecond, "the worker plants server.log")
	r := runBin(t, ws, "stop")
	require.Equal(t, 130, r.code, r.stderr)

	r = runBin(t, ws, "run", "--detach", "--resume")
	if m := serverPidRx.FindStringSubmatch(r.stdout); m != nil {
		pid, _ := strconv.Atoi(m[1])
		t.Cleanup(func() { stopServer(t, ws, pid) })
	}
	data, err := os.ReadFile(bait)
	require.NoError(t, err)
	assert.Equal(t, "not rostra's\n", string(data), "nothing is written through the planted link")
	assert.NotEqual(t, 0, r.code, "the resume is refused: %s%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, filepath.Join(stateDir, "server.log")+" is a symlink (to "+bait+")")
}
