// dialog.go holds what is drawn over the panes: the confirmation dialog
// (retry or cancel a running attempt, quit or leave while workers run,
// merge a worktree's branch) and the two panels, the ? help (every key of
// the key map, through bubbles help) and the event log. A panel is a
// bubbles viewport, so it scrolls when it does not fit; each is a lipgloss
// box spliced into the frame at the centre of the screen, and is built
// only while it is open (as is the list of every pane's matches, drawn by
// findall.go).
package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/internal/printable"
)

// confirmDialog asks y/n before an action that stops a running attempt.
type confirmDialog struct {
	title string
	lines []string
	yes   func() tea.Cmd
	acts  []act // the dialog's keys; nil: the key map's yes and no

	drawn  []string // the box, as last drawn for width drawnW
	drawnW int
}

// helpNotes follow the keys in the help.
const helpNotes = "⚑ marks a pane whose child rang the bell, has been quiet for " +
	"attention_after while running, ended without its outputs, or is out of " +
	"retries. DEGRADED says why a worker did not get its planned surface. " +
	"Drag inside a pane to select its text and copy it (OSC 52); hold " +
	"Shift for the terminal's own selection. A search ignores case unless " +
	"the query has an upper-case letter."

// box draws a bordered box w cells wide around body, titled, with a footer.
func box(th *theme, title, body string, w int, footer string) []string {
	iw := max(1, w-th.box.GetHorizontalFrameSize())
	content := th.boxTitle.Render(fitText(title, iw)) + "\n" + body
	if footer != "" {
		content += "\n" + th.boxFoot.Render(fitText(footer, iw))
	}
	return strings.Split(th.box.Width(w).Render(content), "\n")
}

// confirmKeys are the keys of the open dialog.
func (m *Model) confirmKeys() []act {
	if m.confirm != nil && m.confirm.acts != nil {
		return m.confirm.acts
	}
	return m.keys.confirm
}

// overlayBox is the open dialog or panel, or nil. Boxes are drawn again
// only when what they show changed: lipgloss measures and wraps every
// line, which costs a frame budget's worth (BenchmarkViewHelpOpen).
func (m *Model) overlayBox() []string {
	switch {
	case m.confirm != nil:
		c := m.confirm
		w := min(m.width-2, 84)
		if c.drawn == nil || c.drawnW != w {
			iw := w - m.th.box.GetHorizontalFrameSize()
			lines := make([]string, 0, len(c.lines)+2)
			lines = append(lines, "")
			for _, l := range c.lines {
				// A worker id, a branch, a reason: outside text, escaped;
				// a line too long for a narrow terminal wraps, never cut.
				lines = append(lines, wrapText(printable.String(l), iw)...)
			}
			lines = append(lines, "")
			c.drawn, c.drawnW = box(m.th, printable.String(c.title), strings.Join(lines, "\n"), w, hintLine(m.confirmKeys())), w
		}
		return c.drawn
	case m.queueBox != nil:
		return m.queueBoxLines()
	case m.overlay == overlayNone:
		return nil
	case m.overlay == overlayFind:
		if m.panelBox == nil {
			m.panelBox = m.findBox()
		}
		return m.panelBox
	}
	if m.panelBox == nil {
		switch m.overlay {
		case overlayHelp:
			m.panelBox = box(m.th, "rostra keys", m.panel.View(), m.panelWidth(), m.panelFooter("help"))
		case overlayEvents:
			m.panelBox = box(m.th, "event log", m.panel.View(), m.panelWidth(), m.panelFooter("events"))
		}
	}
	return m.panelBox
}

// panelFooter names the panel's keys, and which lines are in sight when
// not all are.
func (m *Model) panelFooter(toggle string) string {
	f := keyHints(m.keys.panel, "scroll") + " · " + keyOf(m.keys.panel, "closes") + " " + keyOf(m.keys.flat, toggle) + " closes"
	if n := m.panel.TotalLineCount(); n > m.panel.VisibleLineCount() {
		top := m.panel.YOffset()
		f += " · lines " + strconv.Itoa(top+1) + "–" + strconv.Itoa(top+m.panel.VisibleLineCount()) + " of " + strconv.Itoa(n)
	}
	return f
}

// panelWidth is the open panel's box width.
func (m *Model) panelWidth() int {
	if m.overlay == overlayEvents {
		return max(8, min(m.width-2, 140))
	}
	return max(8, min(m.width-2, 120))
}

// togglePanel opens panel o, or closes it when it is the one open.
func (m *Model) togglePanel(o overlayKind) {
	if m.overlay == o {
		m.overlay = overlayNone
		return
	}
	m.overlay = o
	m.fillPanel(true)
}

func (m *Model) closePanel() tea.Cmd {
	m.overlay = overlayNone
	return nil
}

func (m *Model) panelUp() tea.Cmd       { m.panel.ScrollUp(1); m.panelBox = nil; return nil }
func (m *Model) panelDown() tea.Cmd     { m.panel.ScrollDown(1); m.panelBox = nil; return nil }
func (m *Model) panelPageUp() tea.Cmd   { m.panel.PageUp(); m.panelBox = nil; return nil }
func (m *Model) panelPageDown() tea.Cmd { m.panel.PageDown(); m.panelBox = nil; return nil }

// fillPanel sizes the open panel's viewport to the screen and gives it its
// content; from the top (help) or the newest event (event log) when fresh,
// else where the human scrolled to (the event log follows new events while
// it is at the bottom).
func (m *Model) fillPanel(fresh bool) {
	m.panelBox = nil
	if m.overlay == overlayNone || m.width <= 0 {
		return
	}
	iw := m.panelWidth() - m.th.box.GetHorizontalFrameSize()
	// The box's border, title and footer take 4 rows; the status bar one.
	room := max(1, m.height-1-2-4)
	m.panel.SetWidth(iw)
	switch m.overlay {
	case overlayHelp:
		lines := strings.Split(helpText(m.keys, m.th, iw), "\n")
		m.panel.SetHeight(min(room, len(lines)))
		m.panel.SetContentLines(lines)
		if fresh {
			m.panel.GotoTop()
		}
	case overlayEvents:
		follow := fresh || m.panel.AtBottom()
		lines := eventLines(m.evlog.lines, iw)
		if len(lines) == 0 {
			lines = append(lines, "no events yet")
		}
		m.panel.SetHeight(min(room, 28))
		m.panel.SetContentLines(lines)
		if follow {
			m.panel.GotoBottom()
		}
	}
}

// newPanel is the viewport the panels scroll in; its keys are the key
// map's panel keys (input.go), not the viewport's own.
func newPanel() viewport.Model {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{}
	vp.MouseWheelEnabled = false
	return vp
}

// helpText is every section of the key map as bubbles help draws it, in as
// many columns as fit in w cells, then the notes.
func helpText(km keyMap, th *theme, w int) string {
	// One width for every section's key column, so the columns line up.
	kw := 0
	for _, s := range km.sections() {
		for _, a := range s.acts {
			kw = max(kw, lipgloss.Width(a.Help().Key))
		}
	}
	h := help.New()
	h.Styles.FullKey = th.helpKey.Width(kw)
	h.Styles.FullDesc = lipgloss.NewStyle()
	var blocks []string
	for _, s := range km.sections() {
		bs := make([]key.Binding, len(s.acts))
		for i, a := range s.acts {
			bs[i] = a.Binding
		}
		blocks = append(blocks, th.boxTitle.Render(s.title)+"\n"+h.FullHelpView([][]key.Binding{bs}))
	}
	const gap = "   "
	body := lipgloss.JoinVertical(lipgloss.Left, spaced(blocks)...)
	for cols := 3; cols >= 2; cols-- {
		var parts []string
		for i, col := range balance(blocks, cols) {
			if i > 0 {
				parts = append(parts, gap)
			}
			parts = append(parts, lipgloss.JoinVertical(lipgloss.Left, spaced(col)...))
		}
		if s := lipgloss.JoinHorizontal(lipgloss.Top, parts...); lipgloss.Width(s) <= w {
			body = s
			break
		}
	}
	return body + "\n\n" + strings.Join(wrapText(helpNotes, w), "\n")
}

// spaced puts an empty line between blocks.
func spaced(blocks []string) []string {
	out := make([]string, 0, 2*len(blocks))
	for i, b := range blocks {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, b)
	}
	return out
}

// balance splits blocks, in order, into n columns of about equal height.
func balance(blocks []string, n int) [][]string {
	total := 0
	for _, b := range blocks {
		total += lipgloss.Height(b) + 1
	}
	per := (total + n - 1) / n
	cols := make([][]string, 0, n)
	var col []string
	h := 0
	for _, b := range blocks {
		bh := lipgloss.Height(b) + 1
		if len(col) > 0 && h+bh/2 > per && len(cols) < n-1 {
			cols = append(cols, col)
			col, h = nil, 0
		}
		col = append(col, b)
		h += bh
	}
	return append(cols, col)
}

// splice draws box over lines, centred.
func splice(lines []string, b []string, width int) {
	if len(b) == 0 {
		return
	}
	bw := ansi.StringWidth(b[0])
	x := max(0, (width-bw)/2)
	y := max(0, (len(lines)-len(b))/2)
	for i, l := range b {
		if y+i >= len(lines) {
			break
		}
		row := lines[y+i]
		left := ansi.Truncate(row, x, "")
		right := ansi.TruncateLeft(row, x+bw, "")
		lines[y+i] = left + sgrReset + l + sgrReset + right
	}
}
