// view.go composes the screen: the visible panes' frames laid side by side
// row by row, the status bar (counts by status, attention, page, key hints
// or the current mode, the state dir), then any dialog or panel on top.
// The cursor is shown where the focused child put it, while it has the
// keyboard.
package tui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/engine"
)

// View is the frame bubbletea draws.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "rostra · " + m.plan.Name
	if m.mode == modeInput {
		p := m.focused()
		if p.term != nil && p.term.Modes().Mouse == 1003 {
			v.MouseMode = tea.MouseModeAllMotion
		}
		v.Cursor = m.cursor()
	}
	return v
}

// Render is the screen as text with ANSI styles (View's content).
func (m *Model) Render() string {
	if m.width <= 0 || m.height <= 0 {
		return "rostra: starting…"
	}
	if m.width < minWidth || m.height < minHeight {
		// Too small for a frame: say so in what room there is.
		lines := make([]string, m.height)
		msg := wrapText("rostra needs a terminal of at least "+strconv.Itoa(minWidth)+"×"+strconv.Itoa(minHeight)+"; q quits", m.width)
		for i := range lines {
			l := ""
			if i < len(msg) {
				l = msg[i]
			}
			lines[i] = fit(l, m.width)
		}
		return strings.Join(lines, "\n")
	}
	area := m.area()
	lines := make([]string, 0, m.height)
	now := m.opts.Now()
	vis := m.visible()
	frames := make(map[int][]string, len(vis))
	for _, v := range vis {
		p := m.panes[v.idx]
		frames[v.idx] = p.frame(v.r, frameCtx{
			focused: v.idx == m.focus,
			input:   v.idx == m.focus && m.mode == modeInput,
			now:     now,
			attn:    p.attention(now, m.plan.AttentionAfter),
		})
	}
	// Panes of one grid row share their y and height: draw row by row.
	var b strings.Builder
	for y := area.y; y < area.y+area.h; y++ {
		b.Reset()
		x := 0
		for _, v := range vis {
			if y < v.r.y || y >= v.r.y+v.r.h {
				continue
			}
			if v.r.x > x {
				b.WriteString(strings.Repeat(" ", v.r.x-x))
			}
			b.WriteString(frames[v.idx][y-v.r.y])
			x = v.r.x + v.r.w
		}
		if x < m.width {
			b.WriteString(strings.Repeat(" ", m.width-x))
		}
		lines = append(lines, b.String())
	}
	lines = append(lines, m.statusBar())
	if ob := m.overlayBox(); ob != nil {
		splice(lines, ob, m.width)
	}
	return strings.Join(lines, "\n")
}

// The smallest terminal the UI draws panes in.
const (
	minWidth  = 20
	minHeight = 5
)

// cursor is the focused child's cursor on the screen, when it shows one.
func (m *Model) cursor() *tea.Cursor {
	p := m.focused()
	if p.term == nil || !p.live() {
		return nil
	}
	for _, v := range m.visible() {
		if v.idx != m.focus {
			continue
		}
		x, y, visible := p.term.Cursor()
		if !visible {
			return nil
		}
		in := v.r.inner()
		in.y += len(p.notices(in.w))
		_, trows := p.term.Size()
		if ih := in.h - len(p.notices(in.w)); trows > ih {
			y -= max(0, min(y-ih+1, trows-ih))
		}
		if x >= in.w || y < 0 || in.y+y >= v.r.y+v.r.h-1 {
			return nil
		}
		c := tea.NewCursor(in.x+x, in.y+y)
		c.Blink = false
		return c
	}
	return nil
}

// statusOrder is the order of the counts in the status bar.
var statusOrder = []string{
	engine.StatusRunning, engine.StatusRetrying, engine.StatusPending, engine.StatusCompleted,
	engine.StatusError, engine.StatusTimeout, engine.StatusCancelled,
}

func (m *Model) statusBar() string {
	counts := map[string]int{}
	for _, wr := range m.st.Workers {
		counts[wr.Status]++
	}
	var parts []string
	for _, s := range statusOrder {
		if counts[s] > 0 {
			parts = append(parts, paint(statusColour(s), statusGlyph(s)+" "+strconv.Itoa(counts[s])+" "+s))
		}
	}
	left := " " + strings.Join(parts, "  ")
	now := m.opts.Now()
	attn := 0
	for _, p := range m.panes {
		if p.attention(now, m.plan.AttentionAfter) != "" {
			attn++
		}
	}
	if attn > 0 {
		left += "  " + paint(sgrAttn, " ⚑ "+strconv.Itoa(attn)+" attention ") + paint(sgrDim, " a jumps")
	}
	if n := m.pages(); n > 1 && !m.zoom {
		left += "  " + paint(sgrBarKey, "page "+strconv.Itoa(m.page+1)+"/"+strconv.Itoa(n)) + paint(sgrDim, " [ ]")
	}
	if m.zoom {
		left += "  " + paint(sgrBarKey, "ZOOM") + paint(sgrDim, " z back")
	}
	var mid string
	switch {
	case m.stopping:
		mid = paint(sgrWarn, "stopping every worker: SIGTERM, then SIGKILL after stop_grace…")
	case m.mode == modeInput:
		mid = paint(sgrAttn, " INPUT → "+m.focused().spec.ID+" ") + paint(sgrBarKey, " keys go to the pane · Ctrl-] leaves")
	case m.mode == modeSearch:
		mid = paint(sgrBarKey, "/") + m.query + "█" + paint(sgrDim, "  Enter search · Esc cancel")
	case m.note != "":
		mid = paint(sgrWarn, m.note)
	case m.confirm != nil:
		mid = paint(sgrWarn, "y confirms · n cancels")
	default:
		if m.st.Status == engine.RunFinished {
			mid = paint(sgrBarKey, "run finished · ")
		}
		mid += hints()
	}
	right := paint(sgrDim, m.st.StateDir+" ")
	line := left + "  │ " + mid
	lw, rw := ansi.StringWidth(line), ansi.StringWidth(right)
	if lw+rw+2 <= m.width {
		return line + strings.Repeat(" ", m.width-lw-rw) + right
	}
	return fit(line, m.width)
}

func hints() string {
	keys := [][2]string{{"Tab", "focus"}, {"z", "zoom"}, {"i", "type"}, {"r", "retry"}, {"x", "cancel"}, {"e", "events"}, {"/", "search"}, {"?", "help"}, {"q", "quit"}}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(paint(sgrBarKey, k[0]) + " " + k[1])
	}
	return b.String()
}
