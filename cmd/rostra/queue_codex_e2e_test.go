// queue_codex_e2e_test.go runs the real codex CLI (pinned, installed by
// testdata/agents/install.sh) in a rostra pane of a detached run, against
// the scripted model server: codex reports its state with its own OSC 7501
// status (no hooks), two prompts queued while it waits for a permission
// are not typed during it, and after the approval they become its next two
// user turns, in order (docs/agents.md §A queue of prompts).
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

func TestCodexIsGivenItsQueuedPromptsOnePerTurnNoneDuringAPermission(t *testing.T) {
	t.Parallel()
	srv := fakemodel.Start(t, fakemodel.Script{Turns: []fakemodel.Turn{
		// codex asks only when the model asks to leave its sandbox
		// (docs/agents.md, codex: "Permission prompts").
		{Shell: "echo one > one.txt", Escalate: true},
		{Text: "First step done."},
		{Text: "Did A."},
		{Text: "Did B."},
	}})
	ws := t.TempDir()
	a := agenttest.New(t, agenttest.Codex, srv.URL(), ws)
	var env, argv strings.Builder
	env.WriteString(envYAML(a.Env))
	argv.WriteString(jsonString(a.Path))
	for _, arg := range append(append([]string(nil), a.Args...), "-a", "on-request", "-s", "read-only") {
		argv.WriteString(", " + jsonString(arg))
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: codex-queue
workspace: .
providers:
  codex: { command: [`+argv.String()+`], delivery: type }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 2s, attention_after: 1h }
workers:
  - id: agent
    provider: codex
    prompt: "run the first step"
    completion: { result: never.txt }
    env:
`+env.String()), 0o644))
	stateDir := filepath.Join(ws, ".rostra", "codex-queue")
	detachedRun(t, ws)
	t.Cleanup(func() {
		if t.Failed() {
			events, _ := os.ReadFile(filepath.Join(stateDir, statedir.EventsFile))
			t.Logf("requests:\n%s\nevents:\n%s", srv.Summary(), events)
		}
	})

	first := srv.WaitMain(1, 3*time.Minute)
	require.True(t, first.Contains("run the first step"), "the attempt's own prompt first")
	require.Eventually(t, func() bool { return latestRow(t, stateDir, "agent").AgentState == "waiting-permission" }, 3*time.Minute, 50*time.Millisecond,
		"codex asks to run the command; row: %+v", latestRow(t, stateDir, "agent"))
	promptA := "QUEUED-A: the first queued prompt\nand its second line"
	for _, p := range []string{promptA, "QUEUED-B: the second one"} {
		r := runBin(t, ws, "send", "--queue", "agent", p)
		require.Equal(t, 0, r.code, r.stderr)
	}
	// Nothing is typed while codex asks: a prompt typed into its
	// permission prompt would answer it (or be lost).
	hold := time.Now().Add(3 * time.Second)
	for time.Now().Before(hold) {
		require.Equal(t, "waiting-permission", latestRow(t, stateDir, "agent").AgentState)
		q, err := statedir.ReadQueue(stateDir, "agent")
		require.NoError(t, err)
		require.Len(t, q.Prompts, 2, "nothing typed during the permission prompt")
		time.Sleep(100 * time.Millisecond)
	}
	require.Len(t, srv.MainRequests(), 1)
	_, err := os.Stat(filepath.Join(ws, "one.txt"))
	require.True(t, os.IsNotExist(err), "the command ran before it was approved")
	r := runBin(t, ws, "send", "--enter", "agent")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	agenttest.WaitFile(t, filepath.Join(ws, "one.txt"), 2*time.Minute)

	second := srv.WaitMain(2, 3*time.Minute)
	assert.False(t, second.Contains("QUEUED-A"), "the tool's answer, not a queued prompt")
	third := srv.WaitMain(3, 3*time.Minute)
	assert.True(t, third.Contains("QUEUED-A: the first queued prompt"), "the first queued prompt is the next user turn")
	assert.True(t, third.Contains("and its second line"), "a multi-line prompt goes in as one paste")
	assert.False(t, third.Contains("QUEUED-B"), "one queued prompt per turn")
	fourth := srv.WaitMain(4, 3*time.Minute)
	assert.True(t, fourth.Contains("QUEUED-B: the second one"))
	assert.True(t, fourth.Contains("Did A."), "B follows A's answer in the conversation")

	require.Eventually(t, func() bool {
		q, err := statedir.ReadQueue(stateDir, "agent")
		return err == nil && len(q.Prompts) == 0 && latestRow(t, stateDir, "agent").AgentState == "waiting-input"
	}, 2*time.Minute, 100*time.Millisecond)
	assert.Len(t, srv.MainRequests(), 4, "requests:\n%s", srv.Summary())

	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	var seq []string
	var asked, answered time.Time
	for _, ev := range events {
		switch {
		case ev.Type == statedir.EventAgentState && ev.AgentState == "waiting-permission" && asked.IsZero():
			asked = ev.TS
		case ev.Type == statedir.EventAgentState && !asked.IsZero() && answered.IsZero() && ev.AgentState != "waiting-permission":
			answered = ev.TS
			assert.Equal(t, "notification", ev.AgentStateSource, "codex's own OSC 7501 status")
		case ev.Type == statedir.EventPromptSent:
			seq = append(seq, fmt.Sprintf("%d %s", ev.PromptID, ev.Delivery))
			assert.True(t, ev.TS.After(answered) && !answered.IsZero(), "prompt %d typed at %v, the permission answered at %v", ev.PromptID, ev.TS, answered)
		}
	}
	assert.Equal(t, []string{"1 paste", "2 paste"}, seq, "codex enables bracketed paste")
	t.Logf("requests:\n%s", srv.Summary())
}
