// agentstate_test.go checks agentstate.go over fake surfaces and a fake
// clock: what each source's signals make of an attempt's agent state on
// its dispatch row and in agent-state events, hooks of attempts that are
// not current, and the hook configuration each agent is given.
package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

const testHookExe = "/opt/rostra's/rostra"

// signal is one thing an attempt's agent says, fed to the engine as its
// source would: a hook posted, a program status or a notification from
// the pane's emulator, or the process's exit.
type signal struct {
	hook    string         // a hook event, with payload
	payload map[string]any //
	status  []string       // OSC 7501: state, kind, msg
	notify  []string       // OSC 9/777/99: title, body
	exit    bool
}

func (s signal) feed(h *harness, fh *fakeHandle) {
	switch {
	case s.hook != "":
		h.eng.Hook(fh.spec.Worker, fh.spec.Attempt, s.hook, s.payload)
	case s.status != nil:
		fh.spec.OnProgramStatus(s.status[0], s.status[1], s.status[2])
	case s.notify != nil:
		fh.spec.OnNotification(s.notify[0], s.notify[1])
	case s.exit:
		fh.finish(0)
	}
	h.sync()
}

func TestAgentStateFromItsSources(t *testing.T) {
	bash := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf build"}}
	type want struct{ state, source, evidence string }
	cases := []struct {
		name    string
		agent   string
		signals []signal
		want    []want // the row after each signal
	}{
		{"claude's hooks through a turn with a permission", "claude", []signal{
			{hook: "SessionStart", payload: map[string]any{"session_id": "s"}},
			{hook: "UserPromptSubmit"},
			{hook: "PermissionRequest", payload: bash},
			{status: []string{"blocked", "permission", "approve Bash: rm -rf build"}}, // the same wait, later: no change
			{hook: "PostToolUse", payload: bash},
			{notify: []string{"Claude Code", "Claude needs your permission to use Bash"}}, // 6 s late: hooks own the waits
			{hook: "Stop"},
			{exit: true},
		}, []want{
			{"starting", "", ""},
			{"working", "hook", ""},
			{"waiting-permission", "hook", "Bash(rm -rf build)"},
			{"waiting-permission", "hook", "Bash(rm -rf build)"},
			{"working", "hook", ""},
			{"working", "hook", ""},
			{"waiting-input", "hook", "turn ended"},
			{"exited", "process", "exited with code 0"},
		}},
		{"codex's own program status", "codex", []signal{
			{status: []string{"working", "", ""}},
			{status: []string{"blocked", "permission", ""}},
			{status: []string{"working", "", ""}},
			{status: []string{"done", "", ""}},
		}, []want{
			{"working", "notification", ""},
			{"waiting-permission", "notification", "blocked: permission"},
			{"working", "notification", ""},
			{"waiting-input", "notification", "done"},
		}},
		{"a notification asking for approval", "gemini", []signal{
			{hook: "BeforeAgent"},
			{notify: []string{"", "Approval needed for run_shell_command"}},
		}, []want{
			{"working", "hook", ""},
			{"working", "hook", ""}, // gemini's hooks have spoken this turn
		}},
		{"a notification before any hook", "qwen", []signal{
			{notify: []string{"qwen", "Approval needed for run_shell_command"}},
		}, []want{
			{"waiting-permission", "notification", "qwen: Approval needed for run_shell_command"},
		}},
		{"a plain command has none", "", []signal{
			{hook: "PermissionRequest", payload: bash},
		}, []want{
			{"", "", ""},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := runfile.WorkerSpec{ID: "a", Agent: c.agent}
			if c.agent != "" {
				w.Command = []string{c.agent, "{prompt}"}
			}
			h := startHarness(t, testPlan(t, w))
			fh := h.opened(h.pane)
			if c.agent == "" {
				assert.Nil(t, fh.spec.OnProgramStatus, "a plain command's pane reports nothing")
			}
			for i, s := range c.signals {
				h.clock.Advance(time.Second)
				s.feed(h, fh)
				if s.exit {
					h.event(statedir.EventWorkerCompleted)
				}
				d := h.dispatch("a#1")
				got := want{d.AgentState, d.AgentStateSource, d.AgentStateEvidence}
				assert.Equal(t, c.want[i], got, "after signal %d (%+v)", i, s)
				if d.AgentState != "" && d.AgentState != "starting" {
					require.NotNil(t, d.AgentStateSince)
				}
			}
		})
	}
}

func TestAgentStateEventsAndSince(t *testing.T) {
	h := startHarness(t, testPlan(t, runfile.WorkerSpec{ID: "a", Agent: "claude", Command: []string{"claude", "{prompt}"}}))
	fh := h.opened(h.pane)
	assert.Equal(t, "claude", h.dispatch("a#1").Agent)
	h.clock.Advance(3 * time.Second)
	h.eng.Hook("a", 1, "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	ev := h.event(statedir.EventAgentState)
	assert.Equal(t, "waiting-permission", ev.AgentState)
	assert.Equal(t, "hook", ev.AgentStateSource)
	assert.Equal(t, "Bash(make)", ev.Reason)
	assert.Equal(t, "a#1 waiting-permission (hook): Bash(make)", ev.Describe("implementer", ""))
	d := h.dispatch("a#1")
	assert.Equal(t, t0.Add(3*time.Second), *d.AgentStateSince)
	fh.finish(0)
	assert.Equal(t, "exited", h.event(statedir.EventAgentState).AgentState)
}

func TestHookOfAnAttemptNotCurrentIsRecordedAndIgnored(t *testing.T) {
	h := startHarness(t, testPlan(t, runfile.WorkerSpec{ID: "a", Agent: "claude", Command: []string{"claude", "{prompt}"}}))
	fh := h.opened(h.pane)
	require.NoError(t, h.eng.Retry("a"))
	h.event(statedir.EventWorkerCancelled)
	h.advance(time.Minute)
	fh2 := h.opened(h.pane)
	require.Equal(t, 2, fh2.spec.Attempt)
	_ = fh

	h.eng.Hook("a", 1, "Stop", nil)
	ev := h.event(statedir.EventAgentHookIgnored)
	assert.Equal(t, 1, ev.Attempt)
	assert.Equal(t, "Stop", ev.Hook)
	assert.Equal(t, "attempt 1 is not current (the worker's current attempt is 2)", ev.Reason)
	assert.Equal(t, "starting", h.dispatch("a#2").AgentState)
	assert.Equal(t, "exited", h.dispatch("a#1").AgentState)

	h.eng.Hook("nobody", 1, "Stop", nil) // an unknown worker: nothing at all
	h.eng.Hook("a", 2, "Stop", nil)
	assert.Equal(t, "waiting-input", h.event(statedir.EventAgentState).AgentState)
}

func TestEachAgentIsGivenItsHooksForOneAttempt(t *testing.T) {
	hook := `'/opt/rostra'\''s/rostra' hook`
	cases := []struct {
		agent   string
		command []string
		check   func(t *testing.T, l LaunchSpec, dir string)
	}{
		{"claude", []string{"env", "FOO=1", "claude", "--permission-mode", "default", "{prompt}"}, func(t *testing.T, l LaunchSpec, dir string) {
			path := filepath.Join(dir, "claude-settings.json")
			require.Len(t, l.Argv, 10)
			assert.Equal(t, []string{"env", "FOO=1", "claude", "--session-id", l.Argv[4], "--settings", path, "--permission-mode", "default", "do it"}, l.Argv)
			assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, l.Argv[4], "a UUID")
			var s struct {
				Hooks map[string][]struct {
					Matcher string
					Hooks   []struct{ Type, Command string }
				}
			}
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &s))
			require.Contains(t, s.Hooks, "PermissionRequest")
			assert.Equal(t, hook, s.Hooks["PermissionRequest"][0].Hooks[0].Command)
			assert.Equal(t, "command", s.Hooks["Stop"][0].Hooks[0].Type)
		}},
		{"codex", []string{"npx", "-y", "@openai/codex@0.171.0", "exec", "{prompt}"}, func(t *testing.T, l LaunchSpec, dir string) {
			assert.Equal(t, []string{"npx", "-y", "@openai/codex@0.171.0", "exec", "do it"}, l.Argv, "codex is given no hooks: rostra never bypasses its hook trust")
			assert.NotContains(t, l.Argv, "--dangerously-bypass-hook-trust")
		}},
		{"qwen", []string{"qwen", "{prompt}"}, func(t *testing.T, l LaunchSpec, dir string) {
			path := filepath.Join(dir, "qwen-system-settings.json")
			require.Len(t, l.Argv, 4)
			assert.Equal(t, []string{"qwen", "--session-id", l.Argv[2], "do it"}, l.Argv)
			assert.Contains(t, l.Env, "QWEN_CODE_SYSTEM_SETTINGS_PATH="+path)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Contains(t, string(b), `"PermissionRequest"`)
		}},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			h := startHarness(t, testPlan(t, runfile.WorkerSpec{ID: "a", Agent: c.agent, Command: c.command, Prompt: "do it"}))
			fh := h.opened(h.pane)
			c.check(t, fh.spec, attemptDir(h, "a", 1))
			assert.NotContains(t, fh.spec.Env, "", "no empty variable")
		})
	}
}

// attemptDir is where attempt n of worker keeps its files.
func attemptDir(h *harness, worker string, n int) string {
	ap, err := h.plan.Expand(&h.plan.Workers[slices.IndexFunc(h.plan.Workers, func(w runfile.WorkerSpec) bool { return w.ID == worker })], n)
	require.NoError(h.t, err)
	return filepath.Dir(ap.PromptFile)
}

func TestGeminiHooksNeedAFolderNoOtherUserWrites(t *testing.T) {
	// The test's state dir is below the world-writable temporary folder.
	h := startHarness(t, testPlan(t, runfile.WorkerSpec{ID: "a", Agent: "gemini", Command: []string{"gemini", "{prompt}"}}))
	fh := h.opened(h.pane)
	ev := h.event(statedir.EventAgentHooksUnavailable)
	assert.True(t, strings.HasSuffix(ev.Reason, "may be written by other users, and gemini then ignores a settings file below it; put the state dir elsewhere"), ev.Reason)
	for _, kv := range fh.spec.Env {
		assert.False(t, strings.HasPrefix(kv, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="), kv)
	}
	assert.NotNil(t, fh.spec.OnProgramStatus, "its terminal is still heard")
}

// The fake handle shows a screen: rows a test sets, and bells.
var _ AgentScreen = (*fakeHandle)(nil)

func (h *fakeHandle) ScreenRows() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.rows)
}

func (h *fakeHandle) Bells() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bellCount
}

// draw is the child drawing rows (and ringing the bell n times).
func (h *fakeHandle) draw(bells int64, rows ...string) {
	h.mu.Lock()
	h.rows = rows
	h.bellCount += bells
	h.mu.Unlock()
	h.waitListening()
	h.output(int64(len(strings.Join(rows, "\n")) + 1))
}

func TestAgentStateFromTheScreenOnceItsOutputPauses(t *testing.T) {
	prompt := []string{" Bash command", "╌╌╌╌╌╌╌╌", "   rm -rf build", " Do you want to proceed?", " ❯ 1. Yes", "   2. No"}
	idle := []string{"> ", "  ? for shortcuts"}
	plan := testPlan(t, runfile.WorkerSpec{ID: "a", Agent: "claude", Command: []string{"claude", "{prompt}"}})
	plan.AttentionAfter = 30 * time.Second
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	row := func() [3]string {
		d := h.dispatch("a#1")
		return [3]string{d.AgentState, d.AgentStateSource, d.AgentStateEvidence}
	}

	fh.draw(0, prompt...)
	h.sync()
	h.advance(100 * time.Millisecond)
	fh.draw(0, prompt...) // still drawing: no match yet
	h.advance(150 * time.Millisecond)
	assert.Equal(t, [3]string{"starting", "", ""}, row(), "matched while the output still came")
	h.advance(200 * time.Millisecond)
	assert.Equal(t, [3]string{"waiting-permission", "screen", "Bash(rm -rf build)"}, row())

	// A refused prompt ends the turn with no hook: the idle prompt says so.
	fh.draw(0, idle...)
	h.advance(300 * time.Millisecond)
	assert.Equal(t, [3]string{"waiting-input", "screen", "? for shortcuts"}, row())

	// Once a hook has spoken in a turn, the screen does not overrule it.
	h.eng.Hook("a", 1, "UserPromptSubmit", nil)
	h.sync()
	fh.draw(0, idle...)
	h.advance(300 * time.Millisecond)
	assert.Equal(t, [3]string{"working", "hook", ""}, row())
	h.advance(31 * time.Second)
	assert.Equal(t, [3]string{"working", "hook", ""}, row(), "quiet does not overrule the hook")
}

func TestAgentStateFromTheBellAndQuiet(t *testing.T) {
	plan := testPlan(t, runfile.WorkerSpec{ID: "a", Agent: "qwen", Command: []string{"qwen", "{prompt}"}})
	plan.AttentionAfter = 30 * time.Second
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	fh.spec.OnProgramStatus("working", "", "") // codex-like status: working
	fh.draw(1, "thinking")
	h.advance(300 * time.Millisecond)
	d := h.dispatch("a#1")
	assert.Equal(t, [2]string{"working", "notification"}, [2]string{d.AgentState, d.AgentStateSource}, "the bell does not overrule a more trusted source of the turn")

	p2 := testPlan(t, runfile.WorkerSpec{ID: "b", Agent: "qwen", Command: []string{"qwen", "{prompt}"}})
	p2.AttentionAfter = 30 * time.Second
	h2 := startHarness(t, p2)
	fb := h2.opened(h2.pane)
	fb.draw(1, "done?")
	h2.advance(300 * time.Millisecond)
	d = h2.dispatch("b#1")
	assert.Equal(t, [3]string{"waiting-input", "bell", "the bell rang"}, [3]string{d.AgentState, d.AgentStateSource, d.AgentStateEvidence})

	p3 := testPlan(t, runfile.WorkerSpec{ID: "c", Agent: "qwen", Command: []string{"qwen", "{prompt}"}})
	p3.AttentionAfter = 30 * time.Second
	h3 := startHarness(t, p3)
	fc := h3.opened(h3.pane)
	fc.draw(0, "hmm")
	h3.advance(300 * time.Millisecond)
	h3.advance(20 * time.Second)
	fc.draw(0, "hmm, more") // output again: the quiet starts over
	h3.advance(300 * time.Millisecond)
	h3.advance(20 * time.Second)
	assert.Equal(t, "starting", h3.dispatch("c#1").AgentState)
	h3.advance(10 * time.Second)
	d = h3.dispatch("c#1")
	assert.Equal(t, [3]string{"waiting-input", "quiet", "no output for 30s"}, [3]string{d.AgentState, d.AgentStateSource, d.AgentStateEvidence})
}
