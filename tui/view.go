// view.go composes the screen: the visible panes' frames laid side by side
// row by row, the status bar (counts by status, attention, page, key hints
// or the current mode, the state dir), a status message too long for the
// bar on its own lines above it, then any dialog or panel on top. Outside
// text (ids, reasons, folders, messages) is shown escaped (internal/
// printable; docs/design.md, "Nothing raw reaches a terminal").
// The cursor is shown where the focused child put it, while it has the
// keyboard.
package tui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/statedir"
)

// View is the frame bubbletea draws.
//
// bubbletea asks for the view after every message, its own too (a batch
// of commands, a sequence), and the panes' windows are read live from their
// emulators: the view is made again only after an Update that may have
// changed it (redraw), not after one that draws nothing new (output that
// waits for its frame, an echo's watch) nor bubbletea's own, so output is
// drawn at frame times only. Otherwise a stream was drawn at every message,
// and the renderer's credit of frames, used up, held back the echo of a
// key typed meanwhile (echo.go).
func (m *Model) View() tea.View {
	if !m.redraw && m.heldOK {
		return m.held
	}
	m.held, m.heldOK, m.redraw = m.view(), true, false
	return m.held
}

func (m *Model) view() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.ReportFocus = true // the focused pane's child hears of it (sendFocus)
	v.WindowTitle = "rostra · " + printable.String(m.plan.Name)
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
	frames := make(map[int]paneFrame, len(vis))
	for _, v := range vis {
		p := m.panes[v.idx]
		frames[v.idx] = p.frame(v.r, frameCtx{
			focused: v.idx == m.focus,
			input:   v.idx == m.focus && m.mode == modeInput,
			now:     now,
			fine:    m.fineClock(v.idx, now),
			attn:    p.attentionAt(now, m.plan.AttentionAfter, m.fineClock(v.idx, now)),
			hints:   &m.paneHints,
			th:      m.th,
			copy:    m.copyOn(v.idx),
		})
	}
	heads := map[int]string{} // y → a run's header (tiling.go)
	if !m.zoom {
		for _, gh := range m.tiles().heads {
			if gh.page == m.page {
				heads[gh.y] = m.groupHeader(gh, m.width)
			}
		}
	}
	// Panes of one grid row share their y and height: draw row by row,
	// into one buffer the size of the last frame (the rows are slices of
	// it, and a frame with no note nor overlay is that buffer and the
	// status bar: what an idle frame leaves to collect, see
	// docs/performance.md §Memory of a quiet pane).
	var b strings.Builder
	b.Grow(m.frameBytes)
	starts := make([]int, 0, area.h+1)
	for y := area.y; y < area.y+area.h; y++ {
		starts = append(starts, b.Len())
		if h, ok := heads[y]; ok {
			b.WriteString(h)
			b.WriteByte('\n')
			continue
		}
		x := 0
		for _, v := range vis {
			if y < v.r.y || y >= v.r.y+v.r.h {
				continue
			}
			if v.r.x > x {
				writeSpaces(&b, v.r.x-x)
			}
			f := frames[v.idx]
			f.writeLine(&b, y-v.r.y)
			x = v.r.x + v.r.w
		}
		if x < m.width {
			writeSpaces(&b, m.width-x)
		}
		b.WriteByte('\n')
	}
	starts = append(starts, b.Len())
	status := m.statusBar()
	nl := m.noteLines()
	ob := m.overlayBox()
	if len(nl) == 0 && ob == nil {
		b.WriteString(status)
		m.frameBytes = b.Len()
		return b.String()
	}
	body := b.String()
	m.frameBytes = len(body) + len(status)
	for i := range len(starts) - 1 {
		lines = append(lines, body[starts[i]:starts[i+1]-1])
	}
	if len(nl) > 0 {
		copy(lines[max(0, len(lines)-len(nl)):], nl)
	}
	lines = append(lines, status)
	if ob != nil {
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
	statedir.StatusRunning, statedir.StatusRetrying, statedir.StatusPending, statedir.StatusCompleted,
	statedir.StatusError, statedir.StatusTimeout, statedir.StatusCancelled,
}

// statusBar is the bottom line: counts by status, attention, page or zoom,
// then what the keys do now (or a short status message), and the state
// dir on the right. When the terminal is narrow the counts shorten, the
// state dir shortens to the run's folder (it never goes), and key hints
// are dropped least useful first, so "? help" and "q quit" stay.
func (m *Model) statusBar() string {
	left, shortLeft := m.barCounts()
	var mid string
	hinted := false
	switch {
	case m.stopping:
		mid = paint(m.th.warn, "stopping every worker: SIGTERM, then SIGKILL after stop_grace…")
	case m.mode == modeInput && m.note != "" && !m.noteOnItsLine():
		// What became of a key (dropped: its link is lost, its child
		// not reading) is shown in input mode too.
		mid = paint(m.th.attn, " INPUT → "+printable.String(m.focused().spec.ID)+" ") + " " + paint(m.th.warn, printable.String(m.note))
	case m.mode == modeInput:
		mid = paint(m.th.attn, " INPUT → "+printable.String(m.focused().spec.ID)+" ") + paint(m.th.barKey, " keys go to the pane · "+hintLine(m.keys.typing))
	case m.mode == modeSearch:
		mid = m.searchInput.View() + paint(m.th.dim, "  "+hintLine(m.keys.search))
	case m.mode == modeCopy && m.note != "":
		mid = paint(m.th.attn, " COPY ") + " " + paint(m.th.warn, printable.String(m.note))
	case m.mode == modeCopy:
		mid = paint(m.th.attn, " COPY ") + " " + paint(m.th.barKey, hintLine(m.keys.copy))
	case m.overlay == overlayFind && m.note == "":
		mid = paint(m.th.barKey, hintLine(m.keys.find))
	case m.note != "" && !m.noteOnItsLine():
		mid = paint(m.th.warn, printable.String(m.note))
	case m.confirm != nil:
		mid = paint(m.th.warn, hintLine(m.confirmKeys()))
	default:
		hinted = true
	}
	prefix := ""
	if m.st.Status == statedir.RunFinished && hinted {
		prefix = paint(m.th.barKey, "run finished · ")
	}
	// The run's folder is always on the right, shortened when room is
	// short: two runs of one name differ by their folder alone.
	stateDir := printable.String(m.st.StateDir)
	right := paint(m.th.dim, stateDir+" ")
	rightShort := m.barFolder()
	normal := m.keys.flat
	ranks := 0
	for _, a := range normal {
		ranks = max(ranks, a.rank)
	}
	if hinted {
		mid = prefix + hints(normal, ranks, m.th)
	}
	withRight := func(line, right string) string {
		return fit(line, m.width-ansi.StringWidth(right)) + right
	}
	line := left + mid
	if w := ansi.StringWidth(line); w+ansi.StringWidth(right)+2 <= m.width {
		return withRight(line, right)
	}
	room := m.width - ansi.StringWidth(rightShort)
	if !hinted {
		if ansi.StringWidth(left+mid) > room {
			left = shortLeft
		}
		return withRight(left+mid, rightShort)
	}
	// Long counts with the four most useful hints beat short counts with
	// all of them.
	for _, try := range []struct {
		left string
		min  int
	}{{left, 4}, {shortLeft, 1}} {
		for n := ranks; n >= try.min; n-- {
			if l := try.left + prefix + hints(normal, n, m.th); ansi.StringWidth(l) <= room {
				return withRight(l, rightShort)
			}
		}
	}
	left, mid = shortLeft, prefix+hints(normal, 2, m.th)
	return withRight(left+mid, rightShort)
}

// barFolder is the run's folder as the status bar shows it when the whole
// state dir does not fit.
func (m *Model) barFolder() string {
	return paint(m.th.dim, " "+shortFolder(printable.String(m.st.StateDir), max(8, min(24, m.width/4)))+" ")
}

// shortFolder is the run's folder in at most w cells: a state dir in its
// usual place, <workspace>/.rostra/<name>, is shown as its workspace (two
// runs of one name differ by their folder alone), the home folder as ~,
// and only the last elements after "…/" when that is still too long.
func shortFolder(dir string, w int) string {
	if filepath.Base(filepath.Dir(dir)) == ".rostra" {
		dir = filepath.Dir(filepath.Dir(dir))
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		if dir == home {
			dir = "~"
		} else if rest, ok := strings.CutPrefix(dir, home+"/"); ok {
			dir = "~/" + rest
		}
	}
	if ansi.StringWidth(dir) <= w {
		return dir
	}
	parts := strings.Split(dir, "/")
	out := parts[len(parts)-1]
	for i := len(parts) - 2; i >= 0; i-- {
		next := parts[i] + "/" + out
		if ansi.StringWidth("…/"+next) > w {
			break
		}
		out = next
	}
	return fitText("…/"+out, w)
}

// noteOnItsLine reports whether the status message is too long for the
// status bar beside the short counts and the folder: it is drawn over the
// panes' last rows instead, wrapped (noteLines), never cut.
func (m *Model) noteOnItsLine() bool {
	if m.note == "" || m.width <= 0 || m.mode == modeCopy {
		// Copy mode's notes (where a search is) stay in the bar: the
		// pane's border below them says the same, and must stay in sight.
		return false
	}
	_, counts := m.barCounts()
	room := m.width - ansi.StringWidth(counts) - ansi.StringWidth(m.barFolder())
	if m.mode == modeInput {
		room -= ansi.StringWidth(" INPUT → "+printable.String(m.focused().spec.ID)) + 3
	}
	return ansi.StringWidth(printable.String(m.note)) > room
}

// noteMaxLines bounds the message's own lines: a longer one ends with a
// pointer to the event log, which holds it whole.
const noteMaxLines = 3

// noteLines is a long status message wrapped to the screen's width, drawn
// above the status bar.
func (m *Model) noteLines() []string {
	if !m.noteOnItsLine() {
		return nil
	}
	w := m.width - 2
	lines := wrapText(printable.String(m.note), w)
	if len(lines) > noteMaxLines {
		more := " … (whole: " + keyOf(m.keys.flat, "events") + ")"
		lines = lines[:noteMaxLines]
		last := lines[noteMaxLines-1]
		lines[noteMaxLines-1] = ansi.Truncate(last, w-ansi.StringWidth(more), "") + more
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = paint(m.th.warn, " "+fit(l, w)+" ")
	}
	return out
}

// barCounts is the status bar's left part, long and short: the counts
// by status, attention, the page or zoom.
func (m *Model) barCounts() (long, short string) {
	counts := map[string]int{}
	for _, wr := range m.st.Workers {
		counts[wr.Status]++
	}
	var longs, shorts []string
	for _, s := range statusOrder {
		if counts[s] > 0 {
			n := strconv.Itoa(counts[s])
			longs = append(longs, paint(m.th.statusColour(s), statusGlyph(s)+" "+n+" "+s))
			shorts = append(shorts, paint(m.th.statusColour(s), statusGlyph(s)+n))
		}
	}
	if gl, gs, ok := m.groupCounts(); ok {
		longs, shorts = []string{gl}, []string{gs} // run by run (multirun.go)
	}
	now := m.opts.Now()
	attn := 0
	for _, p := range m.panes {
		if p.agentRow() == nil && p.attention(now, m.plan.AttentionAfter) != "" {
			attn++
		}
	}
	extra, extraShort := m.agentBar()
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
	return " " + strings.Join(longs, "  ") + extra + "  │ ", " " + strings.Join(shorts, " ") + extraShort + " │ "
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

// writeSpaces writes n spaces to b.
func writeSpaces(b *strings.Builder, n int) {
	const spaces = "                                                                "
	for n > len(spaces) {
		b.WriteString(spaces)
		n -= len(spaces)
	}
	b.WriteString(spaces[:n])
}
