// eventlog.go holds the event log panel's lines (e): the run's whole log,
// read back from the state dir's events.jsonl when the UI starts (a client
// attaching late, a resumed run), then the engine's events as they come.
// The file is read off the UI goroutine and without the engine: it is the
// engine's append-only record (docs/state.md), readable by anyone.
//
// Data model: events holds one line per event, oldest first, at most
// eventLogCap. The subscription starts before the file is read, so an
// event may come both ways: until the file's events arrive, live events
// are kept (early) and, once they do, those the file holds already are
// dropped, the others follow the file's. (The engine appends to the file
// off its loop: an event emitted just before the subscription began and
// not yet written when the file is read would be missed; the window is
// the disk writer's lag at the moment of attaching.)
package tui

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// eventHistoryMsg is events.jsonl as read when the UI started.
type eventHistoryMsg struct {
	events []statedir.Event
	err    error
}

// eventLog is the event log's state in the model.
type eventLog struct {
	lines  []string
	loaded bool             // the file's events have arrived
	early  []statedir.Event // live events that came before them
}

// readEventHistory reads the run's events.jsonl (New marks a UI with no
// event queue loaded: it has no log to show).
func (m *Model) readEventHistory() tea.Cmd {
	if m.evlog.loaded {
		return nil
	}
	path := filepath.Join(m.plan.StateDir, statedir.EventsFile)
	return func() tea.Msg {
		evs, err := statedir.ReadEvents(path)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil // a run that has logged nothing yet
		}
		return eventHistoryMsg{events: evs, err: err}
	}
}

// onEventHistory puts the file's events before the live ones.
func (m *Model) onEventHistory(msg eventHistoryMsg) {
	seen := make(map[string]bool, len(msg.events))
	lines := make([]string, 0, len(msg.events)+len(m.evlog.early))
	for _, ev := range msg.events {
		seen[eventKey(ev)] = true
		lines = append(lines, formatEvent(ev, m.plan))
	}
	if msg.err != nil {
		lines = append(lines, "cannot read the rest of the log: "+printable.String(msg.err.Error()))
	}
	for _, ev := range m.evlog.early {
		if !seen[eventKey(ev)] {
			lines = append(lines, formatEvent(ev, m.plan))
		}
	}
	if n := len(lines) - eventLogCap; n > 0 {
		// The panel keeps the newest; the file keeps them all.
		lines = append([]string{strconv.Itoa(n+1) + " earlier event(s) are in " + printable.String(filepath.Join(m.plan.StateDir, statedir.EventsFile))}, lines[n+1:]...)
	}
	m.evlog = eventLog{lines: lines, loaded: true}
	if m.overlay == overlayEvents {
		m.fillPanel(false)
	}
}

// eventKey identifies an event read back from the file with the same
// event heard live: every field, as the file holds them.
func eventKey(ev statedir.Event) string {
	b, _ := json.Marshal(ev)
	return string(b)
}

// logEvent adds a live event to the event log (and to its panel when open).
func (m *Model) logEvent(ev statedir.Event) {
	if !m.evlog.loaded {
		m.evlog.early = append(m.evlog.early, ev)
	}
	m.evlog.lines = capEvents(append(m.evlog.lines, formatEvent(ev, m.plan)))
	if m.overlay == overlayEvents {
		m.fillPanel(false)
	}
}

func capEvents(lines []string) []string {
	if len(lines) > eventLogCap {
		return append(lines[:0:0], lines[len(lines)-eventLogCap:]...)
	}
	return lines
}

// formatEvent is one event as a line of the panel: its time, then what
// happened, worded as in the headless log, outside text escaped (a
// worker's exit reason, a file name).
func formatEvent(ev statedir.Event, plan *runfile.Plan) string {
	role := ""
	if w, ok := plan.Worker(ev.WorkerID); ok {
		role = w.Role
	}
	return ev.TS.Local().Format(time.TimeOnly) + "  " + printable.String(ev.Describe(role, plan.StateDir))
}

// eventIndent is the width of an event line's time and the gap after it:
// a long event's next lines start under its text.
const eventIndent = len("15:04:05  ")

// eventLines is the log wrapped to w cells: a long event goes on over
// several lines, indented under its text, never cut.
func eventLines(events []string, w int) []string {
	lines := make([]string, 0, len(events))
	for _, e := range events {
		if ansi.StringWidth(e) <= w || w <= eventIndent+8 {
			lines = append(lines, fitText(e, w))
			continue
		}
		first := wrapText(e, w)
		lines = append(lines, first[0])
		rest := strings.TrimLeft(strings.Join(first[1:], " "), " ")
		pad := strings.Repeat(" ", eventIndent)
		for _, l := range wrapText(rest, w-eventIndent) {
			lines = append(lines, pad+l)
		}
	}
	return lines
}

// logLongNote adds a status message too long for the status bar to the
// event log, once: its own lines above the bar show at most noteMaxLines,
// the log holds it whole.
func (m *Model) logLongNote() {
	if m.note == m.noteLogged || !m.noteOnItsLine() {
		return
	}
	m.noteLogged = m.note
	m.evlog.lines = capEvents(append(m.evlog.lines, m.opts.Now().Local().Format(time.TimeOnly)+"  "+printable.String(m.note)))
	if m.overlay == overlayEvents {
		m.fillPanel(false)
	}
}
