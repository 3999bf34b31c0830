// agent_others_e2e_test.go runs the real codex and gemini CLIs (pinned,
// installed by testdata/agents/install.sh) in a rostra pane, in tmux,
// against the scripted model server, as agent_e2e_test.go does claude:
// rostra types the prompt, the model asks for a shell command, the CLI asks
// permission, the pane's title shows it within a second of the prompt on
// screen, the human approves (codex with `rostra send`, gemini with keys in
// the pane), the result file appears, the turn ends (waiting-input) and
// the attempt settles on its file. codex is given no hooks (its state is
// its own OSC 7501 status); gemini once with rostra's hooks and once
// without them, from its screen rules alone
// (docs/agents.md, "Which sources work, per CLI").
package main

import (
	"encoding/json"
	"os"
	"os/exec"
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

// agentE2E is one real CLI's run through rostra in tmux.
type agentE2E struct {
	kind     agenttest.Kind
	escalate bool     // the tool call asks to leave codex's sandbox
	args     []string // after the Agent's own
	ws       string   // the workspace ("" a temporary folder)
	setup    func(a *agenttest.Agent)
	prompt   string // the permission prompt's text on the CLI's screen
	// approve approves the prompt once; it is called again each second
	// while the prompt stays (a CLI may drop the first key).
	approve func(s tmuxServer, ws string)
	// sources the waiting states may come from (a regexp), and working
	// what must come between the approval and waiting-input (a regexp;
	// "" working from sources).
	sources, working string
}

// agentE2EResult is what the run showed.
type agentE2EResult struct {
	ws     string
	states []string // the agent-state events, as state/source
	events []statedir.Event
	perm   statedir.Event // the first agent-state event of the wait
	gap    time.Duration  // badge on screen minus the CLI's prompt on screen
}

func (c agentE2E) run(t *testing.T) agentE2EResult {
	t.Helper()
	srv := fakemodel.Start(t, fakemodel.Script{Turns: []fakemodel.Turn{
		{Shell: "echo done > result.txt", Escalate: c.escalate},
		{Text: "All done."},
	}})
	ws := c.ws
	if ws == "" {
		ws = t.TempDir()
	}
	a := agenttest.New(t, c.kind, srv.URL(), ws)
	if c.setup != nil {
		c.setup(a)
	}
	var env, argv strings.Builder
	env.WriteString(envYAML(a.Env))
	argv.WriteString(jsonString(a.Path))
	for _, arg := range append(append([]string(nil), a.Args...), c.args...) {
		argv.WriteString(", " + jsonString(arg))
	}
	name := string(c.kind) + "-e2e"
	runFile := filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(`version: 1
name: `+name+`
workspace: .
providers:
  cli: { command: [`+argv.String()+`], delivery: type }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 2s, attention_after: 1h }
workers:
  - id: agent
    provider: cli
    prompt: "write the result file"
    completion: { result: result.txt, settle: on-files }
    env:
`+env.String()), 0o644))
	stateDir := filepath.Join(ws, ".rostra", name)
	// A failed test must not leave the run's server behind (before the
	// workspace's removal: cleanups run last first).
	t.Cleanup(func() {
		stop := exec.Command(rostraBin, "stop")
		stop.Dir = ws
		_ = stop.Run()
	})

	s := newTmux(t, string(c.kind))
	exitFile := filepath.Join(ws, "exit-code")
	s.run("new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "-c", ws,
		rostraBin+" run "+runFile+" 2>"+filepath.Join(ws, "stderr")+"; echo $? > "+exitFile+"; sleep 60")
	t.Cleanup(func() {
		if t.Failed() {
			stderr, _ := os.ReadFile(filepath.Join(ws, "stderr"))
			events, _ := os.ReadFile(filepath.Join(stateDir, statedir.EventsFile))
			t.Logf("the screen at the failure:\n%s\nrostra's stderr: %s\nrequests:\n%s\nevents:\n%s", s.screen(), stderr, srv.Summary(), events)
		}
	})
	long := func(what string, want ...string) string {
		t.Helper()
		return s.waitScreenFor(what, 3*time.Minute, want...)
	}

	// The CLI's prompt and rostra's badge, each first seen by the same
	// capture loop (every 20 ms or so: a capture is a tmux process).
	var promptAt, badgeAt time.Time
	var screen string
	require.Eventually(t, func() bool {
		screen = s.screen()
		now := time.Now()
		if promptAt.IsZero() && strings.Contains(screen, c.prompt) {
			promptAt = now
		}
		if badgeAt.IsZero() && strings.Contains(screen, "⏸ permission") {
			badgeAt = now
		}
		if !promptAt.IsZero() && badgeAt.IsZero() && now.Sub(promptAt) > 5*time.Second {
			return true // long past the goal: fail below with the screen
		}
		return !promptAt.IsZero() && !badgeAt.IsZero()
	}, 4*time.Minute, 10*time.Millisecond, "the permission prompt never came; the screen:\n%s", s.screen())
	require.False(t, badgeAt.IsZero(), "the prompt is on screen but the title has no ⏸ permission badge; the screen:\n%s", screen)
	gap := badgeAt.Sub(promptAt)
	assert.LessOrEqual(t, gap, time.Second, "the badge came %v after the prompt", gap)
	screen = long("the wait counted", "⏸ permission · ", c.prompt, "1 need you")
	t.Logf("the permission prompt in the pane (badge %+v after the prompt):\n%s", gap, screen)
	_, err := os.Stat(filepath.Join(ws, "result.txt"))
	require.True(t, os.IsNotExist(err), "the command ran before it was approved")

	// The row says it too, once team-state.json is written (the screen
	// is told by an event, the file a moment later).
	var row [2]string
	assert.Eventually(t, func() bool {
		st := readState(t, stateDir)
		require.Len(t, st.Dispatches, 1)
		row = [2]string{st.Dispatches[0].Agent, st.Dispatches[0].AgentState}
		return row == [2]string{string(c.kind), "waiting-permission"}
	}, 5*time.Second, 20*time.Millisecond, "the row: %v", row)
	evs := agentEvents(t, stateDir)
	require.NotEmpty(t, evs)
	perm := evs[len(evs)-1]
	for i := len(evs) - 1; i >= 0 && evs[i].AgentState == "waiting-permission"; i-- {
		perm = evs[i]
	}
	require.Equal(t, "waiting-permission", perm.AgentState, "%+v", evs)
	assert.Regexp(t, c.sources, perm.AgentStateSource)
	t.Logf("state (from %s: %s) at %s; badge seen at %s", perm.AgentStateSource, perm.Reason,
		perm.TS.Format("15:04:05.000"), badgeAt.UTC().Format("15:04:05.000"))

	presses := 0
	require.Eventually(t, func() bool {
		if !strings.Contains(s.screen(), c.prompt) {
			return true
		}
		presses++
		c.approve(s, ws)
		return false
	}, 2*time.Minute, time.Second, "the permission prompt was not approved")
	t.Logf("approved with %d presses", presses)
	agenttest.WaitFile(t, filepath.Join(ws, "result.txt"), 2*time.Minute)
	long("the attempt settles on its file", "completed")
	long("the turn's end", "All done.")

	r := agentE2EResult{ws: ws, perm: perm, gap: gap}
	require.Eventually(t, func() bool {
		r.states = r.states[:0]
		for _, ev := range agentEvents(t, stateDir) {
			r.states = append(r.states, ev.AgentState+"/"+ev.AgentStateSource)
		}
		iPerm := indexOf(r.states, "waiting-permission/"+perm.AgentStateSource)
		return iPerm >= 0 && strings.Contains(strings.Join(r.states[iPerm+1:], " "), "waiting-input/")
	}, time.Minute, 100*time.Millisecond, "no waiting-input after the approval")
	t.Logf("agent states: %v", r.states)
	iPerm := indexOf(r.states, "waiting-permission/"+perm.AgentStateSource)
	if c.working == "" {
		c.working = `working/` + c.sources + ` `
	}
	assert.Regexp(t, c.working+`.*waiting-input/`+c.sources, strings.Join(r.states[iPerm+1:], " "), "approved: working, then the turn's end")
	r.events = allEvents(t, stateDir)

	s.keys("q")
	require.Eventually(t, func() bool {
		if strings.Contains(s.screen(), "Leave rostra?") {
			s.keys("s")
		}
		b, err := os.ReadFile(exitFile)
		return err == nil && len(b) > 0
	}, 30*time.Second, 100*time.Millisecond, "rostra did not exit; screen:\n%s", s.screen())
	runBin(t, ws, "stop")
	return r
}

func TestCodexInARostraPaneAsksAndIsApprovedWithSend(t *testing.T) {
	t.Parallel()
	r := agentE2E{
		kind: agenttest.Codex, escalate: true,
		// codex asks only when the model asks to leave its sandbox
		// (docs/agents.md, codex: "Permission prompts").
		args:   []string{"-a", "on-request", "-s", "read-only"},
		prompt: "Would you like to run the following command?",
		approve: func(s tmuxServer, ws string) {
			res := runBin(t, ws, "send", "--enter", "agent")
			require.Equal(t, 0, res.code, res.stdout+res.stderr)
		},
		// codex has no hooks from rostra: its own OSC 7501 status.
		sources: "notification",
	}.run(t)
	assert.Contains(t, r.perm.Reason, "permission", "the evidence of codex's blocked status")
	unavailable := eventsOf(r.events, statedir.EventAgentHooksUnavailable)
	require.Len(t, unavailable, 1)
	assert.Contains(t, unavailable[0].Reason, "codex runs only the hooks its user trusted")
}

func TestGeminiInARostraPaneAsksAndIsApprovedWithKeys(t *testing.T) {
	t.Parallel()
	// The user's own hook, in their ~/.gemini/settings.json: it still
	// runs beside rostra's (docs/agents.md §gemini 0.61.0).
	userHooks := agenttest.NewHookLog(t)
	r := agentE2E{
		kind: agenttest.Gemini,
		setup: func(a *agenttest.Agent) {
			path := filepath.Join(a.Home, ".gemini", "settings.json")
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			var s map[string]any
			require.NoError(t, json.Unmarshal(b, &s))
			hooks := map[string]any{}
			for _, ev := range []string{"BeforeTool", "AfterAgent"} {
				hooks[ev] = []any{map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "command", "command": userHooks.Command()}}}}
			}
			s["hooks"] = hooks
			b, err = json.Marshal(s)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, b, 0o644))
		},
		// gemini ignores a system settings file below a folder others may
		// write to (/tmp): the workspace, so the state dir, is elsewhere.
		ws:     privateDir(t),
		args:   []string{"--approval-mode", "default"},
		prompt: "Allow execution",
		approve: func(s tmuxServer, ws string) {
			s.keys("i")
			s.keys("Enter")
			s.keys("C-]")
		},
		sources: "hook",
		// After the approval gemini's screen shows it working before its
		// AfterTool hook says so (which then changes nothing).
		working: "working/(hook|screen) ",
	}.run(t)
	assert.Contains(t, r.perm.Reason, "echo done > result.txt", "the evidence: the command")
	assert.Empty(t, eventsOf(r.events, statedir.EventAgentHooksUnavailable))
	settings, err := filepath.Glob(filepath.Join(r.ws, ".rostra", "gemini-e2e", "attempts", "agent", "1", "gemini-system-settings.json"))
	require.NoError(t, err)
	assert.Len(t, settings, 1, "rostra's hooks for the attempt")
	assert.Subset(t, userHooks.Events(t), []string{"BeforeTool", "AfterAgent"}, "the user's own hooks")
}

func TestGeminiWithoutHooksFromItsScreenAlone(t *testing.T) {
	t.Parallel()
	// Below /tmp gemini would ignore rostra's hooks, so rostra gives none
	// and says why; the states come from gemini's screen rules.
	r := agentE2E{
		kind:   agenttest.Gemini,
		args:   []string{"--approval-mode", "default"},
		prompt: "Allow execution",
		approve: func(s tmuxServer, ws string) {
			s.keys("i")
			s.keys("Enter")
			s.keys("C-]")
		},
		sources: "screen",
		// The screen is matched when the output pauses (200 ms): a tool
		// run and the next request shorter than that show no working
		// (seen under load 50).
		working: "(working/screen )?",
	}.run(t)
	unavailable := eventsOf(r.events, statedir.EventAgentHooksUnavailable)
	require.Len(t, unavailable, 1)
	assert.Contains(t, unavailable[0].Reason, "may be written by other users")
	for _, s := range r.states {
		assert.NotContains(t, s, "/hook", "a hook spoke: %v", r.states)
	}
}

// privateDir is a temporary folder no other user may write to along its
// path (below the user's cache folder, not /tmp), removed at the end.
func privateDir(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(cache, 0o755))
	dir, err := os.MkdirTemp(cache, "rostra-e2e-")
	require.NoError(t, err)
	// After the run's cleanup (runBin stop): cleanups run last first.
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// allEvents are the events of the run in stateDir so far.
func allEvents(t *testing.T, stateDir string) []statedir.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	var out []statedir.Event
	for _, line := range strings.Split(string(b), "\n") {
		var ev statedir.Event
		if json.Unmarshal([]byte(line), &ev) == nil {
			out = append(out, ev)
		}
	}
	return out
}

// eventsOf are the events of type typ in evs.
func eventsOf(evs []statedir.Event, typ string) []statedir.Event {
	var out []statedir.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}
