// agent_e2e_test.go runs the real claude CLI (pinned, installed by
// testdata/agents/install.sh) in a rostra pane, in tmux, against the
// scripted model server: rostra types the prompt, the model asks for a
// shell command, claude asks permission, the pane's title shows it from
// claude's PermissionRequest hook, the human approves with keys in the
// pane, the result file appears, the turn ends (waiting-input) and the
// attempt settles on its file (docs/agents.md).
package main

import (
	"bufio"
	"encoding/json"
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

func TestClaudeInARostraPaneAsksAndIsApproved(t *testing.T) {
	t.Parallel()
	srv := fakemodel.Start(t, fakemodel.Script{Turns: []fakemodel.Turn{
		{Shell: "echo done > result.txt"},
		{Text: "All done."},
	}})
	ws := t.TempDir()
	a := agenttest.New(t, agenttest.Claude, srv.URL(), ws)
	var env strings.Builder
	env.WriteString(envYAML(a.Env))
	runFile := filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(`version: 1
name: claude-e2e
workspace: .
providers:
  claude: { command: [`+jsonString(a.Path)+`, "--permission-mode", "default"], delivery: type }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 2s, attention_after: 1h }
workers:
  - id: agent
    provider: claude
    prompt: "write the result file"
    completion: { result: result.txt, settle: on-files }
    env:
`+env.String()), 0o644))

	s := newTmux(t, "claude")
	exitFile := filepath.Join(ws, "exit-code")
	s.run("new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "-c", ws,
		rostraBin+" run "+runFile+" 2>"+filepath.Join(ws, "stderr")+"; echo $? > "+exitFile+"; sleep 60")
	long := func(what string, want ...string) string {
		t.Helper()
		return s.waitScreenFor(what, 3*time.Minute, want...)
	}

	// claude says it twice, as it draws the prompt: its own program status
	// (OSC 7501, "approve Bash: …") and its PermissionRequest hook
	// ("Bash(…)"); whichever comes first is shown (docs/agents.md).
	long("the permission asked", "⏸ permission · ")
	shown := time.Now()
	screen := long("the permission prompt", "⏸ permission · ", "Do you want to proceed?", "1 need you")
	title, _, _ := strings.Cut(screen, "\n")
	assert.Contains(t, title, "echo done > result.txt", "the title's evidence")
	t.Logf("the permission prompt in the pane:\n%s", screen)
	_, err := os.Stat(filepath.Join(ws, "result.txt"))
	require.True(t, os.IsNotExist(err), "the command ran before it was approved")
	evs := agentEvents(t, filepath.Join(ws, ".rostra", "claude-e2e"))
	require.NotEmpty(t, evs)
	perm := evs[len(evs)-1]
	for i := len(evs) - 1; i >= 0 && evs[i].AgentState == "waiting-permission"; i-- {
		perm = evs[i] // the first of the wait: the one the screen shows
	}
	require.Equal(t, "waiting-permission", perm.AgentState, "%+v", evs)
	assert.Contains(t, []string{"hook", "notification"}, perm.AgentStateSource)
	t.Logf("state (from %s: %s) to screen: at most %v (its event at %s, seen by capture-pane at %s)", perm.AgentStateSource, perm.Reason,
		shown.Sub(perm.TS), perm.TS.Format("15:04:05.000"), shown.UTC().Format("15:04:05.000"))

	// Approve as a person would: into the pane (i), Enter until the prompt
	// is gone (claude ignores keys for a moment after drawing it).
	s.keys("i")
	long("input mode", "INPUT → agent")
	require.Eventually(t, func() bool {
		if !strings.Contains(s.screen(), "Do you want to proceed?") {
			return true
		}
		s.keys("Enter")
		return false
	}, 2*time.Minute, time.Second, "the permission prompt did not take Enter")
	s.keys("C-]")
	agenttest.WaitFile(t, filepath.Join(ws, "result.txt"), 2*time.Minute)
	long("the attempt settles on its file", "completed")

	// The file settles the attempt; the Stop hook may come a moment later.
	var states []string
	var iPerm int
	require.Eventually(t, func() bool {
		states = states[:0]
		for _, ev := range agentEvents(t, filepath.Join(ws, ".rostra", "claude-e2e")) {
			states = append(states, ev.AgentState+"/"+ev.AgentStateSource)
		}
		iPerm = indexOf(states, "waiting-permission/"+perm.AgentStateSource)
		return iPerm >= 0 && strings.Contains(strings.Join(states[iPerm+1:], " "), "waiting-input/")
	}, time.Minute, 100*time.Millisecond, "no waiting-input after the approval")
	t.Logf("agent states: %v", states)
	after := strings.Join(states[iPerm+1:], " ")
	assert.Regexp(t, `working/(hook|notification).* waiting-input/(hook|notification)`, after, "approved: working, then the turn's end")

	s.keys("q")
	require.Eventually(t, func() bool {
		if strings.Contains(s.screen(), "Leave rostra?") {
			s.keys("s")
		}
		b, err := os.ReadFile(exitFile)
		return err == nil && len(b) > 0
	}, 30*time.Second, 100*time.Millisecond, "rostra did not exit; screen:\n%s", s.screen())
	// The run's server ends once its client has gone; rostra stop waits
	// for it (it says there is no server when it has gone already).
	runBin(t, ws, "stop")
}

// agentEvents are the agent-state events of the run in stateDir so far.
func agentEvents(t *testing.T, stateDir string) []statedir.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	defer f.Close()
	var out []statedir.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev statedir.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == statedir.EventAgentState {
			out = append(out, ev)
		}
	}
	return out
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// envYAML is env (KEY=value each) as the lines of a worker's `env:` map in
// a run file, six spaces in.
func envYAML(env []string) string {
	var b strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "      %s: %s\n", k, jsonString(v))
	}
	return b.String()
}
