// agentstate_test.go checks agentstate.go: the agent badge in a pane's
// title with its evidence (escaped), the status bar's counts, and the
// order in which `a` visits the panes that need the human.
package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// agentRun is n (2 to 4) running agents: one asking to run a command for
// 2 s, one idle for 2 min, one working, one idle for 5 min.
func agentRun(t *testing.T, n, width, height int) *fakeEngine {
	f := fakeRun(t, n, width, height)
	set := func(id, state, source, evidence string, ago time.Duration) {
		f.setWorker(id, func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
			since := testNow.Add(-ago)
			d.Agent, d.AgentState, d.AgentStateSource, d.AgentStateEvidence, d.AgentStateSince = "claude", state, source, evidence, &since
		})
	}
	set("claude-implementer", "waiting-permission", "hook", "Bash(rm -rf build\x1b[2J)", 2*time.Second)
	set("codex-tester", "waiting-input", "notification", "done", 2*time.Minute)
	if n > 2 {
		set("gemini-reviewer", "working", "hook", "", time.Second)
	}
	if n > 3 {
		set("grok-verifier", "waiting-input", "screen", "? for shortcuts", 5*time.Minute)
	}
	return f
}

func TestGoldenAgentStates(t *testing.T) {
	m := newModel(t, agentRun(t, 2, 160, 12), 160, 12)
	requireGolden(t, m)
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "⏸ permission · Bash(rm -rf build\\… claude-implementer", "the evidence is cut before the title")
	m.Update(tea.WindowSizeMsg{Width: 220, Height: 12})
	assert.Contains(t, ansi.Strip(m.Render()), "⏸ permission · Bash(rm -rf build\\e[2J) claude-implementer", "the evidence is escaped")
	assert.Contains(t, screen, "✓ idle 2m codex-tester")
	assert.Contains(t, screen, "1 need you · 1 idle")
	assert.NotContains(t, screen, "attention", "an agent's state stands for the ⚑ flag")
}

func TestGoldenAgentStatesNarrow(t *testing.T) {
	m := newModel(t, agentRun(t, 4, 200, 12), 200, 12)
	requireGolden(t, m)
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "⏸ permission claude-", "a narrow title keeps the state, not the evidence")
	assert.Contains(t, screen, "● gemini-reviewer", "a narrow title keeps the glyph")
	assert.Contains(t, screen, "1 need you · 1 working · 2 idle")
}

func TestAVisitsThePanesThatNeedYouLongestWaitingFirst(t *testing.T) {
	m := newModel(t, agentRun(t, 4, 200, 12), 200, 12)
	var visited []string
	for range 4 {
		press(m, "a")
		visited = append(visited, m.focused().spec.ID)
	}
	// The permission first (focused already: the next one is visited),
	// then the idle ones, the longest idle first; the working agent is
	// never visited.
	require.Equal(t, "claude-implementer", m.panes[0].spec.ID)
	assert.Equal(t, []string{"grok-verifier", "codex-tester", "claude-implementer", "grok-verifier"}, visited)
}

func TestAPlainCommandKeepsItsAttentionFlag(t *testing.T) {
	f := fakeRun(t, 2, 120, 16)
	f.setWorker("codex-tester", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		since := testNow.Add(-time.Minute)
		d.Agent, d.AgentState, d.AgentStateSince = "codex", "waiting-permission", &since
	})
	m := newModel(t, f, 120, 16)
	m.panes[0].bell = true
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "⚑ bell")
	assert.Contains(t, screen, "⏸ permission")
	assert.Contains(t, screen, "1 need you")
	assert.Contains(t, screen, "⚑ 1 attention", "the plain command's bell is counted apart")
	require.Equal(t, []int{1, 0}, m.attentionOrder(testNow))
}
