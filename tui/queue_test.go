// queue_test.go checks the Q dialog (queue.go): it opens on an agent's pane
// only, edits a prompt of several lines (a paste, keys, Alt-Enter), queues
// it with Enter through the engine, closes with Esc without queueing, and
// the pane's title counts what waits.
package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// queueingEngine is the fake engine with prompt queues.
type queueingEngine struct {
	*fakeEngine
	qmu    sync.Mutex
	queues map[string][]statedir.QueuedPrompt
}

func (q *queueingEngine) QueuePrompt(worker, text string) (statedir.QueuedPrompt, int, error) {
	q.qmu.Lock()
	defer q.qmu.Unlock()
	p := statedir.QueuedPrompt{ID: len(q.queues[worker]) + 1, Text: text, QueuedAt: testNow}
	q.queues[worker] = append(q.queues[worker], p)
	return p, len(q.queues[worker]), nil
}

func (q *queueingEngine) Queue(worker string) []statedir.QueuedPrompt {
	q.qmu.Lock()
	defer q.qmu.Unlock()
	return append([]statedir.QueuedPrompt(nil), q.queues[worker]...)
}

func queueModel(t *testing.T, width, height int) (*Model, *queueingEngine) {
	f := fakeRun(t, 2, width, height)
	f.plan.Workers[0].Agent = "claude"
	q := &queueingEngine{fakeEngine: f, queues: map[string][]statedir.QueuedPrompt{}}
	m := New(q, Options{Now: func() time.Time { return testNow }})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	return m, q
}

func TestGoldenQueueDialog(t *testing.T) {
	m, q := queueModel(t, 120, 20)
	press(m, "Q")
	require.NotNil(t, m.queueBox)
	m.Update(tea.PasteMsg{Content: "fix the failing test"})
	press(m, "alt+enter", "t", "h", "e", "n", " ", "r", "u", "n", " ", "i", "t")
	requireGolden(t, m)

	cmd := press(m, "enter")
	assert.Nil(t, m.queueBox, "Enter queues and closes")
	runCmd(t, m, cmd)
	assert.Equal(t, "claude-implementer: prompt 1 queued (typed when its agent next waits for input)", m.note)
	ps := q.Queue("claude-implementer")
	require.Len(t, ps, 1)
	assert.Equal(t, "fix the failing test\nthen run it", ps[0].Text)
	m.refresh()
	top := strings.Split(ansi.Strip(m.Render()), "\n")[0]
	assert.Contains(t, top, "running · 1 queued", "the pane's title counts the queue")
}

func TestQueueDialogCancelsAndRefusesAPlainCommand(t *testing.T) {
	m, q := queueModel(t, 120, 20)
	press(m, "Q", "h", "i", "esc")
	assert.Nil(t, m.queueBox)
	assert.Empty(t, q.Queue("claude-implementer"), "Esc queues nothing")
	press(m, "Q", "enter")
	assert.Equal(t, "nothing queued: the prompt was empty", m.note)

	press(m, "tab", "Q")
	assert.Nil(t, m.queueBox)
	assert.Equal(t, "codex-tester runs no known agent, so rostra cannot tell when it waits for input: i types into it now", m.note)

	plain := newModel(t, fakeRun(t, 1, 80, 16), 80, 16)
	plain.plan.Workers[0].Agent = "claude"
	press(plain, "Q")
	assert.Equal(t, "this run keeps no prompt queues", plain.note)
}
