// signal_reliability_test.go is FAULTS.md 28 on the real binary: SIGHUP
// (the terminal closed) and SIGQUIT stop a headless run as SIGTERM does,
// with settled rows and exit 129 / 131, and a closed stdout (`rostra run
// --headless | head -2`) stops the printing, not the run.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

func TestReliabilityHeadlessStopSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGHUP, 129},
		{syscall.SIGQUIT, 131},
		{syscall.SIGTERM, 130},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			ws := slowRun(t, "trap '' TERM HUP; ")
			cmd, out := startBin(t, ws, "started on pane", "run", "--headless")
			require.NoError(t, cmd.Process.Signal(tc.sig))
			err := cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, out.String())
			assert.Equal(t, tc.code, ee.ExitCode(), out.String())
			assert.NotContains(t, out.String(), "goroutine ", "no runtime dump")

			st, err := statedir.ReadTeamState(filepath.Join(ws, ".rostra", "slow"))
			require.NoError(t, err)
			assert.Equal(t, statedir.RunInterrupted, st.Status)
			require.Len(t, st.Dispatches, 1)
			d := st.Dispatches[0]
			assert.Equal(t, statedir.StatusCancelled, d.Status)
			assert.NotNil(t, d.EndedAt)
			assert.ErrorIs(t, syscall.Kill(-d.Pid, 0), syscall.ESRCH, "the worker (ignoring TERM and HUP) is gone")
		})
	}
}

func TestReliabilityClosedStdoutStopsThePrintingNotTheRun(t *testing.T) {
	ws := runWorkspace(t, `version: 1
name: piped
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - { id: a, provider: shell, prompt: "sleep 0.5; echo a" }
  - { id: b, provider: shell, prompt: "sleep 0.7; echo b" }
  - { id: c, provider: shell, prompt: "sleep 0.9; echo c" }
`)
	sh := exec.Command("bash", "-c", strconv.Quote(rostraBin)+` run --headless rostra.yaml 2>stderr | head -2; echo "rostra exited ${PIPESTATUS[0]}"`)
	sh.Dir = ws
	out, err := sh.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 3, "%s", out)
	assert.Equal(t, "rostra exited 0", lines[2], "every worker completed although stdout closed early")

	stateDir := filepath.Join(ws, ".rostra", "piped")
	st, err := statedir.ReadTeamState(stateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunFinished, st.Status)
	for _, w := range st.Workers {
		assert.Equal(t, statedir.StatusCompleted, w.Status, w.WorkerID)
	}
	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	assert.Equal(t, statedir.EventRunFinished, events[len(events)-1].Type, "the lines not printed are in events.jsonl")
	stderr, err := os.ReadFile(filepath.Join(ws, "stderr"))
	require.NoError(t, err)
	assert.Contains(t, string(stderr), "broken pipe; no more event lines are printed, the run goes on")
}
