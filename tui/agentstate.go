// agentstate.go shows what each pane's agent is doing (docs/agents.md):
// the badge in its title, coloured by state with its evidence
// ("⏸ permission · Bash(rm -rf build)", "✓ idle 2m", "● working"), the
// status bar's counts ("2 need you · 3 working · 1 idle"), and the order
// in which `a` visits the panes that need the human: permission prompts
// first, then agents idle at their prompt, each longest-waiting first,
// then the other panes that want attention.
package tui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/statedir"
)

// The agent states of a dispatch row (agents.State's values; the UI
// reads the saved row, not the engine's package).
const (
	agentStarting   = "starting"
	agentWorking    = "working"
	agentPermission = "waiting-permission"
	agentInput      = "waiting-input"
)

// agentRow is the pane's live attempt when its agent has a state the
// human acts on (it has not exited), else nil.
func (p *pane) agentRow() *statedir.DispatchRow {
	d := p.cur()
	if d == nil || d.EndedAt != nil || p.worker.Status != statedir.StatusRunning {
		return nil
	}
	switch d.AgentState {
	case agentStarting, agentWorking, agentPermission, agentInput:
		return d
	}
	return nil
}

// agentWait is how long the pane's agent has waited for the human, and
// whether it waits.
func (p *pane) agentWait(now time.Time) (time.Duration, bool) {
	d := p.agentRow()
	if d == nil || (d.AgentState != agentPermission && d.AgentState != agentInput) {
		return 0, false
	}
	if d.AgentStateSince == nil {
		return 0, true
	}
	return now.Sub(*d.AgentStateSince), true
}

// agentBadge is the title's badge for the pane's agent, long and short,
// and its colour; "" when it has none.
func (p *pane) agentBadge(now time.Time, th *theme, fine bool) (long, short, colour string) {
	d := p.agentRow()
	if d == nil {
		return "", "", ""
	}
	var since time.Duration
	if d.AgentStateSince != nil {
		since = now.Sub(*d.AgentStateSince)
	}
	switch d.AgentState {
	case agentPermission:
		long = "⏸ permission"
		if d.AgentStateEvidence != "" {
			long += " · " + printable.String(d.AgentStateEvidence)
		}
		return long, "⏸ permission", th.attn
	case agentInput:
		if !fine {
			return "✓ idle " + elapsedCoarse(since), "✓ idle", th.statusColour(statedir.StatusCompleted)
		}
		return "✓ idle " + elapsedShort(since), "✓ idle", th.statusColour(statedir.StatusCompleted)
	case agentWorking:
		return "● working", "●", th.statusColour(statedir.StatusRunning)
	}
	return "○ starting", "○", th.dim
}

// agentCounts counts the panes by what their agents do: need you (a
// permission asked), working (starting too), idle (waiting for a prompt).
func (m *Model) agentCounts() (needYou, working, idle int) {
	for _, p := range m.panes {
		d := p.agentRow()
		if d == nil {
			continue
		}
		switch d.AgentState {
		case agentPermission:
			needYou++
		case agentInput:
			idle++
		default:
			working++
		}
	}
	return needYou, working, idle
}

// agentBar is the status bar's part for the agents, long and short.
func (m *Model) agentBar() (long, short string) {
	needYou, working, idle := m.agentCounts()
	var longs, shorts []string
	add := func(n int, colour, words, glyph string) {
		if n > 0 {
			longs = append(longs, paint(colour, strconv.Itoa(n)+" "+words))
			shorts = append(shorts, paint(colour, glyph+strconv.Itoa(n)))
		}
	}
	add(needYou, m.th.attn, "need you", "⏸")
	add(working, m.th.statusColour(statedir.StatusRunning), "working", "●")
	add(idle, m.th.statusColour(statedir.StatusCompleted), "idle", "✓")
	if len(longs) == 0 {
		return "", ""
	}
	return "  " + strings.Join(longs, paint(m.th.dim, " · ")), " " + strings.Join(shorts, " ")
}

// attentionOrder is the panes `a` visits, in order: agents at a
// permission prompt, then agents idle at their prompt, each the
// longest-waiting first; then the other panes that want the human
// (attention), in the roster's order.
func (m *Model) attentionOrder(now time.Time) []int {
	type waiting struct {
		idx  int
		rank int
		wait time.Duration
	}
	var ws []waiting
	var others []int
	for i, p := range m.panes {
		if wait, ok := p.agentWait(now); ok {
			rank := 1
			if p.agentRow().AgentState == agentPermission {
				rank = 0
			}
			ws = append(ws, waiting{i, rank, wait})
			continue
		}
		if p.attention(now, m.plan.AttentionAfter) != "" {
			others = append(others, i)
		}
	}
	slices.SortStableFunc(ws, func(a, b waiting) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return int(b.wait - a.wait)
	})
	order := make([]int, 0, len(ws)+len(others))
	for _, w := range ws {
		order = append(order, w.idx)
	}
	return append(order, others...)
}
