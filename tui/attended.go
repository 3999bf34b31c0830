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

// noteWatched calls Options.Unwatched once the human has left the UI
// alone for attendedFor: the first step after that (the focused title's
// last tick each second) ends a minute of frames, whose garbage a quiet
// UI would otherwise keep (docs/performance.md §Memory of a quiet pane).
func (m *Model) noteWatched() {
	watched := m.opts.Now().Sub(m.lastInput) < attendedFor
	if m.watched && !watched && m.opts.Unwatched != nil {
		go m.opts.Unwatched()
	}
	m.watched = watched
}

// fineClock reports whether pane i's times read to the second at now: the
// focused pane of a UI used in the last attendedFor.
func (m *Model) fineClock(i int, now time.Time) bool {
	return i == m.focus && !m.lastInput.IsZero() && now.Sub(m.lastInput) < attendedFor
}
