// dialog.go holds what is drawn over the panes: the confirmation dialog
// (retry or cancel a running attempt, quit while workers run), the help
// panel listing every key, and the event log panel. Each is a box of lines
// spliced into the frame at the centre of the screen.
package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/engine"
)

// confirmDialog asks y/n before an action that stops a running attempt.
type confirmDialog struct {
	title string
	lines []string
	yes   func() tea.Cmd
}

// helpLines lists every key (SPEC §6), in the order a newcomer needs them.
var helpLines = []string{
	"Tab / Shift-Tab   focus the next / previous pane (or click it)",
	"← → / h l         focus the pane left / right",
	"z                 zoom the focused pane to the whole screen (again: back)",
	"[ ]               previous / next page, when the panes do not all fit",
	"i or Enter        type into the focused PTY pane; Ctrl-] gives the keys back",
	"PgUp PgDn ↑ ↓     scroll back (the mouse wheel too); g the oldest line",
	"/ n N             search the scrollback; n older, N newer match",
	"Esc or G          back to the live screen",
	"< >               step through the worker's earlier attempts",
	"r                 retry the focused worker (asks if it is running)",
	"x                 cancel the focused worker (asks if it is running)",
	"a                 jump to the next pane that needs attention (⚑)",
	"e                 the event log",
	"?                 this help",
	"q or Ctrl-C       quit (asks while workers run; stops them gracefully)",
	"",
	"⚑ marks a pane whose child rang the bell, has been quiet for",
	"attention_after while running, ended without its outputs, or is out",
	"of retries. DEGRADED says why a worker did not get its planned surface.",
	"rostra takes the mouse: hold Shift while dragging to select text.",
}

// box draws a bordered panel of width w around lines (plain text).
func box(title string, lines []string, w int, footer string) []string {
	iw := max(1, w-4)
	out := []string{paint(sgrOverlay, "╭─"+fitText(" "+title+" ", iw)+strings.Repeat("─", max(0, iw-ansi.StringWidth(fitText(" "+title+" ", iw))))+"─╮")}
	for _, l := range lines {
		out = append(out, paint(sgrOverlay, "│ ")+fit(fitText(l, iw), iw)+paint(sgrOverlay, " │"))
	}
	f := fitText(" "+footer+" ", iw)
	if footer == "" {
		f = ""
	}
	out = append(out, paint(sgrOverlay, "╰─"+f+strings.Repeat("─", max(0, iw-ansi.StringWidth(f)))+"─╯"))
	return out
}

// overlayBox is the open panel or dialog, or nil.
func (m *Model) overlayBox() []string {
	w := min(m.width-2, 96)
	switch {
	case m.confirm != nil:
		lines := append([]string{""}, m.confirm.lines...)
		lines = append(lines, "")
		return box(m.confirm.title, lines, min(m.width-2, 84), "y yes · n no")
	case m.overlay == overlayHelp:
		return box("rostra keys", helpLines, w, "? or Esc closes")
	case m.overlay == overlayEvents:
		h := max(3, min(m.height-4, 30))
		n := h - 2
		end := max(0, len(m.events)-m.eventScroll)
		start := max(0, end-n)
		lines := append([]string(nil), m.events[start:end]...)
		if len(lines) == 0 {
			lines = []string{"no events yet"}
		}
		for len(lines) < n {
			lines = append(lines, "")
		}
		return box("event log", lines, min(m.width-2, 140), "↑↓ PgUp PgDn scroll · e or Esc closes")
	}
	return nil
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

// logEvent adds an event to the event log panel.
func (m *Model) logEvent(ev engine.Event) {
	m.events = append(m.events, formatEvent(ev, m.plan))
	if len(m.events) > eventLogCap {
		m.events = append(m.events[:0:0], m.events[len(m.events)-eventLogCap:]...)
	}
}

// formatEvent is one event as a line of the panel: its time, then what
// happened, worded as in the headless log.
func formatEvent(ev engine.Event, plan *engine.Plan) string {
	role := ""
	if w, ok := plan.Worker(ev.WorkerID); ok {
		role = w.Role
	}
	return ev.TS.Local().Format(time.TimeOnly) + "  " + ev.Describe(role, plan.StateDir)
}
