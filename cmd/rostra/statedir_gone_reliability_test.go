// statedir_gone_reliability_test.go is FAULTS.md 24 on a real run: a
// worker deletes the whole .rostra folder (as `rm -rf .rostra` or
// `git clean -fdx` would) while another worker is still writing output.
// The run goes on: the state dir is made again with its marker, .gitignore
// and lock, team-state.json and events.jsonl are whole (nothing before the
// deletion lost), the running attempt's output.log keeps the bytes written
// before and after, and a state-dir-recreated event says what was lost.
package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/statedir"
)

func TestReliabilityTheStateDirDeletedMidRunIsMadeAgain(t *testing.T) {
	eng, plan := liveRun(t, `version: 1
name: gone
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: sh-early
    role: early
    prompt: "echo early done; echo ok > early.txt"
    completion: { result: early.txt }
  - id: sh-cleaner
    role: cleaner
    prompt: "while [ ! -f early.txt ]; do sleep 0.05; done; sleep 0.3; rm -rf .rostra; echo cleaned; echo ok > cleaned.txt"
    completion: { result: cleaned.txt }
  - id: sh-talker
    role: talker
    prompt: "echo before the deletion; while [ ! -f cleaned.txt ]; do sleep 0.05; done; sleep 1.5; echo after the deletion; echo ok > talked.txt"
    completion: { result: talked.txt }
`, nil)
	waitFinished(t, eng, 20*time.Second)
	require.NoError(t, eng.Err(), "the run was not stopped")
	for _, id := range []string{"sh-early#1", "sh-cleaner#1", "sh-talker#1"} {
		assert.Equal(t, statedir.StatusCompleted, row(t, eng, id).Status, id)
	}
	require.NoError(t, eng.Shutdown())

	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunFinished, st.Status)
	for _, d := range st.Dispatches {
		assert.Equal(t, statedir.StatusCompleted, d.Status, d.DispatchID)
	}
	events, err := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	require.NotEmpty(t, events)
	assert.Equal(t, statedir.EventRunStarted, events[0].Type, "the events from before the deletion are kept")
	var recreated *statedir.Event
	for i := range events {
		if events[i].Type == engine.EventStateDirRecreated {
			recreated = &events[i]
		}
	}
	require.NotNil(t, recreated, "a state-dir-recreated event")
	assert.Contains(t, recreated.Reason, "was deleted while the run went on")
	assert.Contains(t, recreated.Reason, "sh-early#1", "what was lost is named")
	assert.Equal(t, statedir.EventRunFinished, events[len(events)-1].Type)

	talker := row(t, eng, "sh-talker#1")
	log, err := os.ReadFile(talker.OutputLogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "before the deletion")
	assert.Contains(t, string(log), "after the deletion")
	assert.Less(t, strings.Index(string(log), "before"), strings.Index(string(log), "after"))
	prompt, err := os.ReadFile(filepath.Join(filepath.Dir(talker.OutputLogPath), "prompt.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(prompt), "echo before the deletion")

	_, err = os.Stat(filepath.Join(plan.StateDir, statedir.MarkerFile))
	assert.NoError(t, err, "the marker is written again")
	ignore, err := os.ReadFile(filepath.Join(plan.StateDir, statedir.GitignoreFile))
	require.NoError(t, err)
	assert.Contains(t, string(ignore), "*\n")
}
