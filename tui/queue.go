// queue.go holds the queue-a-prompt dialog (Q, docs/ui.md §Keys): a small
// bubbles textarea over the panes where the human writes the next prompt
// for the focused pane's agent; it is queued in the engine (Enter) and
// typed into the agent the next time it waits for input (docs/agents.md
// §A queue of prompts). A pane's title says how many prompts wait.
//
// Data model: queueDialog is the open dialog (nil when closed): the worker
// it queues for and the textarea's state. The counts in the titles are
// read from the engine's published queues at each refresh.
package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/statedir"
)

// promptQueuer is what the UI needs of an engine that keeps prompt
// queues (*engine.Engine does).
type promptQueuer interface {
	QueuePrompt(worker, text string) (statedir.QueuedPrompt, int, error)
	Queue(worker string) []statedir.QueuedPrompt
}

// queueDialog is the open Q dialog.
type queueDialog struct {
	worker string
	area   textarea.Model
}

// queueAreaRows is how many rows of the prompt the dialog shows.
const queueAreaRows = 5

// openQueue opens the dialog for the focused pane's agent.
func (m *Model) openQueue() tea.Cmd {
	p := m.focused()
	if _, ok := m.eng.(promptQueuer); !ok {
		m.note = "this run keeps no prompt queues"
		return nil
	}
	if p.spec.Agent == "" {
		m.note = printable.String(p.spec.ID) + " runs no known agent, so rostra cannot tell when it waits for input: " + keyOf(m.keys.flat, "type") + " types into it now"
		return nil
	}
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.Placeholder = "typed when the agent next waits for input"
	ta.CharLimit = statedir.MaxQueuedPrompt
	ta.KeyMap.InsertNewline.SetEnabled(false) // Enter queues; the dialog's keys make new lines
	ta.KeyMap.Paste.SetEnabled(false)         // a terminal's paste arrives as a paste
	s := ta.Styles()
	s.Cursor.Blink = false
	ta.SetStyles(s)
	m.queueBox = &queueDialog{worker: p.spec.ID, area: ta}
	m.sizeQueueArea()
	m.overlay = overlayNone
	return m.queueBox.area.Focus()
}

// sizeQueueArea fits the textarea to the dialog's width.
func (m *Model) sizeQueueArea() {
	if m.queueBox == nil {
		return
	}
	m.queueBox.area.SetWidth(max(1, m.queueWidth()-m.th.box.GetHorizontalFrameSize()))
	m.queueBox.area.SetHeight(queueAreaRows)
}

func (m *Model) queueWidth() int { return max(8, min(m.width-2, 84)) }

// queueKey takes a key while the dialog is open: its own keys, else the
// textarea's editing.
func (m *Model) queueKey(k tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := m.dispatch(m.keys.queue, k); ok {
		return cmd
	}
	var cmd tea.Cmd
	m.queueBox.area, cmd = m.queueBox.area.Update(k)
	return cmd
}

func (m *Model) queuePaste(text string) tea.Cmd {
	m.queueBox.area.InsertString(text)
	return nil
}

func (m *Model) queueNewline() tea.Cmd {
	m.queueBox.area.InsertString("\n")
	return nil
}

func (m *Model) queueCancel() tea.Cmd {
	m.queueBox = nil
	return nil
}

// queueSubmit queues what was written, off the UI's goroutine (the engine
// answers once the queue is saved).
func (m *Model) queueSubmit() tea.Cmd {
	d := m.queueBox
	m.queueBox = nil
	text := d.area.Value()
	if strings.TrimSpace(text) == "" {
		m.note = "nothing queued: the prompt was empty"
		return nil
	}
	q := m.eng.(promptQueuer)
	worker := d.worker
	return func() tea.Msg {
		p, n, err := q.QueuePrompt(worker, text)
		if err != nil {
			return controlMsg{note: err.Error()}
		}
		ahead := "typed when its agent next waits for input"
		if n > 1 {
			ahead = fmt.Sprintf("%d ahead of it", n-1)
		}
		return controlMsg{note: fmt.Sprintf("%s: prompt %d queued (%s)", worker, p.ID, ahead)}
	}
}

// queueBoxLines is the open dialog as drawn.
func (m *Model) queueBoxLines() []string {
	d := m.queueBox
	title := "queue a prompt for " + printable.String(d.worker)
	if n := m.byID[d.worker].queued; n > 0 {
		title += fmt.Sprintf(" (%d queued)", n)
	}
	return box(m.th, title, d.area.View(), m.queueWidth(), hintLine(m.keys.queue))
}

// refreshQueues reads how many prompts wait for each pane's agent.
func (m *Model) refreshQueues() {
	q, ok := m.eng.(promptQueuer)
	if !ok {
		return
	}
	for _, p := range m.panes {
		p.queued = len(q.Queue(p.spec.ID))
	}
}
