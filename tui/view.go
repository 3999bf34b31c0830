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
	v.ReportFocus = true // the focused pane's child hears of it (sendFocus)
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
		msg := wrapText("rostra needs a terminal of at least "+strconv.Itoa(minWidth)+"×"+strconv.Itoa(minHeight)+"; "+keyOf(m.keys.flat, "quit")+" quits", m.width)
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
			hints:   &m.paneHints,
			th:      m.th,
			copy:    m.copyOn(v.idx),
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

// copyOn is copy mode when it is on pane i.
func (m *Model) copyOn(i int) *copyMode {
	if m.copy != nil && m.copy.idx == i {
		return m.copy
	}
	return nil
}

// statusOrder is the order of the counts in the status bar.
var statusOrder = []string{
	engine.StatusRunning, engine.StatusRetrying, engine.StatusPending, engine.StatusCompleted,
	engine.StatusError, engine.StatusTimeout, engine.StatusCancelled,
}

// statusBar is the bottom line: counts by status, attention, page or zoom,
// then what the keys do now, and the state dir on the right. When the
// terminal is narrow the counts shorten, the state dir goes, and key hints
// are dropped least useful first, so "? help" and "q quit" stay.
func (m *Model) statusBar() string {
	counts := map[string]int{}
	for _, wr := range m.st.Workers {
		counts[wr.Status]++
	}
	var long, short []string
	for _, s := range statusOrder {
		if counts[s] > 0 {
			n := strconv.Itoa(counts[s])
			long = append(long, paint(m.th.statusColour(s), statusGlyph(s)+" "+n+" "+s))
			short = append(short, paint(m.th.statusColour(s), statusGlyph(s)+n))
		}
	}
	now := m.opts.Now()
	attn := 0
	for _, p := range m.panes {
		if p.attention(now, m.plan.AttentionAfter) != "" {
			attn++
		}
	}
	var extra, extraShort string
	if attn > 0 {
		extra += "  " + paint(m.th.attn, " ⚑ "+strconv.Itoa(attn)+" attention ") + paint(m.th.dim, " "+keyOf(m.keys.flat, "attention")+" jumps")
		extraShort += " " + paint(m.th.attn, "⚑"+strconv.Itoa(attn))
	}
	if n := m.pages(); n > 1 && !m.zoom {
		pg := "page " + strconv.Itoa(m.page+1) + "/" + strconv.Itoa(n)
		extra += "  " + paint(m.th.barKey, pg) + paint(m.th.dim, " "+keyOf(m.keys.flat, "previous page")+" "+keyOf(m.keys.flat, "next page"))
		extraShort += " " + paint(m.th.barKey, strconv.Itoa(m.page+1)+"/"+strconv.Itoa(n))
	}
	if m.zoom {
		extra += "  " + paint(m.th.barKey, "ZOOM") + paint(m.th.dim, " "+keyOf(m.keys.flat, "zoom")+" back")
		extraShort += " " + paint(m.th.barKey, "ZOOM")
	}
	left := " " + strings.Join(long, "  ") + extra + "  │ "
	var mid string
	hinted := false
	switch {
	case m.stopping:
		mid = paint(m.th.warn, "stopping every worker: SIGTERM, then SIGKILL after stop_grace…")
	case m.mode == modeInput:
		mid = paint(m.th.attn, " INPUT → "+m.focused().spec.ID+" ") + paint(m.th.barKey, " keys go to the pane · "+hintLine(m.keys.typing))
	case m.mode == modeSearch:
		mid = m.searchInput.View() + paint(m.th.dim, "  "+hintLine(m.keys.search))
	case m.mode == modeCopy && m.note != "":
		mid = paint(m.th.attn, " COPY ") + " " + paint(m.th.warn, m.note)
	case m.mode == modeCopy:
		mid = paint(m.th.attn, " COPY ") + " " + paint(m.th.barKey, hintLine(m.keys.copy))
	case m.overlay == overlayFind && m.note == "":
		mid = paint(m.th.barKey, hintLine(m.keys.find))
	case m.note != "":
		mid = paint(m.th.warn, m.note)
	case m.confirm != nil:
		mid = paint(m.th.warn, hintLine(m.confirmKeys()))
	default:
		hinted = true
	}
	prefix := ""
	if m.st.Status == engine.RunFinished && hinted {
		prefix = paint(m.th.barKey, "run finished · ")
	}
	right := paint(m.th.dim, m.st.StateDir+" ")
	normal := m.keys.flat
	ranks := 0
	for _, a := range normal {
		ranks = max(ranks, a.rank)
	}
	if hinted {
		mid = prefix + hints(normal, ranks, m.th)
	}
	line := left + mid
	if w := ansi.StringWidth(line); w+ansi.StringWidth(right)+2 <= m.width {
		return line + strings.Repeat(" ", m.width-w-ansi.StringWidth(right)) + right
	}
	if !hinted {
		if ansi.StringWidth(left+mid) > m.width {
			left = " " + strings.Join(short, " ") + extraShort + " │ "
		}
		return fit(left+mid, m.width)
	}
	// Long counts with the four most useful hints beat short counts with
	// all of them.
	shortLeft := " " + strings.Join(short, " ") + extraShort + " │ "
	for _, try := range []struct {
		left string
		min  int
	}{{left, 4}, {shortLeft, 1}} {
		for n := ranks; n >= try.min; n-- {
			if l := try.left + prefix + hints(normal, n, m.th); ansi.StringWidth(l) <= m.width {
				return fit(l, m.width)
			}
		}
	}
	left, mid = shortLeft, prefix+hints(normal, 2, m.th)
	return fit(left+mid, m.width)
}

// hints shows the key map's n most useful key hints, in the key map's order.
func hints(acts []act, n int, th *theme) string {
	var b strings.Builder
	for _, a := range acts {
		if a.rank == 0 || a.rank > n {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("  ")
		}
		b.WriteString(paint(th.barKey, keyLabel(a.Keys()[0])) + " " + a.name)
	}
	return b.String()
}
