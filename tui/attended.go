package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// attendedFor is how long after the human's last key, click, paste or
// resize the UI counts as watched: while it is, the focused pane's elapsed
// time ticks each second; after it, every title ticks once a minute, so an
// unwatched UI is woken once a minute at most
// (docs/performance.md §A pane's output).
const attendedFor = time.Minute

// noteInput records that the human used the UI: msg is a key, a paste, a
// click or a resize.
func (m *Model) noteInput(msg tea.Msg) {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.MouseMsg, tea.WindowSizeMsg, tea.FocusMsg:
		m.lastInput = m.opts.Now()
	}
}

// fineClock reports whether pane i's times read to the second at now: the
// focused pane of a UI used in the last attendedFor.
func (m *Model) fineClock(i int, now time.Time) bool {
	return i == m.focus && !m.lastInput.IsZero() && now.Sub(m.lastInput) < attendedFor
}
