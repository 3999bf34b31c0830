// queue_claude_e2e_test.go runs the real claude CLI (pinned, installed by
// testdata/agents/install.sh) in a rostra pane of a detached run, against
// the scripted model server: two prompts queued with `rostra send --queue`
// while claude works on its first turn are typed one per idle turn, in
// order, and the model sees them as two more user turns, the multi-line one
// whole (docs/agents.md §A queue of prompts).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/agenttest"
	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/statedir"
)

func TestClaudeIsGivenItsQueuedPromptsOnePerTurn(t *testing.T) {
	t.Parallel()
	srv := fakemodel.Start(t, fakemodel.Script{Turns: []fakemodel.Turn{
		{Shell: "sleep 3; echo one > one.txt"}, // the first turn works a while
		{Text: "First step done."},
		{Text: "Did A."},
		{Text: "Did B."},
	}})
	ws := t.TempDir()
	a := agenttest.New(t, agenttest.Claude, srv.URL(), ws)
	var env strings.Builder
	env.WriteString(envYAML(a.Env))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: claude-queue
workspace: .
providers:
  claude: { command: [`+jsonString(a.Path)+`, "--allowedTools", "Bash"], delivery: type }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 2s, attention_after: 1h }
workers:
  - id: agent
    provider: claude
    prompt: "run the first step"
    completion: { result: never.txt }
    env:
`+env.String()), 0o644))
	stateDir := filepath.Join(ws, ".rostra", "claude-queue")
	detachedRun(t, ws)

	first := srv.WaitMain(1, 3*time.Minute)
	require.True(t, first.Contains("run the first step"), "the attempt's own prompt first")
	promptA := "QUEUED-A: the first queued prompt\nand its second line"
	for _, p := range []string{promptA, "QUEUED-B: the second one"} {
		r := runBin(t, ws, "send", "--queue", "agent", p)
		require.Equal(t, 0, r.code, r.stderr)
	}
	d := latestRow(t, stateDir, "agent")
	assert.NotEqual(t, "waiting-input", d.AgentState, "queued while claude works: %+v", d)

	third := srv.WaitMain(3, 3*time.Minute)
	assert.True(t, third.Contains("QUEUED-A: the first queued prompt"), "the first queued prompt is the next user turn")
	assert.True(t, third.Contains("and its second line"), "a multi-line prompt goes in as one paste")
	assert.False(t, third.Contains("QUEUED-B"), "one queued prompt per turn")
	fourth := srv.WaitMain(4, 3*time.Minute)
	assert.True(t, fourth.Contains("QUEUED-B: the second one"))
	assert.True(t, fourth.Contains("Did A."), "B follows A's answer in the conversation")

	// The turn after B ends with nothing left to type: no fifth turn.
	require.Eventually(t, func() bool {
		q, err := statedir.ReadQueue(stateDir, "agent")
		return err == nil && len(q.Prompts) == 0 && latestRow(t, stateDir, "agent").AgentState == "waiting-input"
	}, 2*time.Minute, 100*time.Millisecond)
	assert.Len(t, srv.MainRequests(), 4, "requests:\n%s", srv.Summary())

	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	var seq []string
	var idle time.Time
	for _, ev := range events {
		switch {
		case ev.Type == statedir.EventAgentState && ev.AgentState == "waiting-input":
			idle = ev.TS
		case ev.Type == statedir.EventPromptSent:
			seq = append(seq, fmt.Sprintf("%d %s", ev.PromptID, ev.Delivery))
			t.Logf("prompt %d typed (Enter written) %v after claude waited for input", ev.PromptID, ev.TS.Sub(idle).Round(time.Millisecond))
		}
	}
	assert.Equal(t, []string{"1 paste", "2 paste"}, seq, "claude enables bracketed paste")
	t.Logf("requests:\n%s", srv.Summary())
}

// latestRow is worker's latest dispatch row as team-state.json has it.
func latestRow(t *testing.T, stateDir, worker string) statedir.DispatchRow {
	t.Helper()
	st := readState(t, stateDir)
	var d statedir.DispatchRow
	for _, r := range st.Dispatches {
		if r.WorkerID == worker {
			d = r
		}
	}
	return d
}
