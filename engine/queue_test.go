// queue_test.go checks queue.go over fake surfaces and a fake clock: a
// worker's queued prompts are typed one per turn of its agent, in order,
// only while it waits for input; the queue is saved in the state dir and
// found there again; rm and clear edit it; a plain command has none.
package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// TypeLine records the line, as a pane that took it would.
func (h *fakeHandle) TypeLine(text string, beforeEnter func()) (string, error) {
	if h.typing != nil {
		h.typing <- text
	}
	if h.typeGate != nil {
		select {
		case <-h.typeGate:
		case <-h.done:
			return "", os.ErrClosed
		}
	}
	if h.exited() {
		return "", os.ErrClosed
	}
	if beforeEnter != nil {
		beforeEnter()
	}
	if h.afterEnter != nil {
		h.afterEnter()
	}
	h.mu.Lock()
	h.typed = append(h.typed, text)
	h.mu.Unlock()
	return "paste", nil
}

func (h *fakeHandle) lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.typed...)
}

func claudeWorker(id string) runfile.WorkerSpec {
	return runfile.WorkerSpec{ID: id, Agent: "claude", Command: []string{"claude", "{prompt}"}}
}

// status is the agent's OSC 7501 program status, as its pane would report it.
func status(h *harness, fh *fakeHandle, state string) {
	h.clock.Advance(time.Second)
	kind := ""
	if state == "blocked" {
		kind = "permission"
	}
	fh.spec.OnProgramStatus(state, kind, "")
	h.sync()
}

// statusNow is status while a line is being typed, which a sync would
// wait for: it waits for the loop to have taken the status only.
func statusNow(h *harness, fh *fakeHandle, state string) {
	fh.spec.OnProgramStatus(state, "", "")
	h.eng.do(func() {})
}

func queueOnDisk(t *testing.T, h *harness, worker string) []string {
	t.Helper()
	h.sync()
	q, err := statedir.ReadQueue(h.plan.StateDir, worker)
	require.NoError(t, err)
	var texts []string
	for _, p := range q.Prompts {
		texts = append(texts, p.Text)
	}
	return texts
}

func TestQueuedPromptsAreTypedOnePerTurnInOrder(t *testing.T) {
	h := startHarness(t, testPlan(t, claudeWorker("a")))
	fh := h.opened(h.pane)
	status(h, fh, "working")

	p1, n, err := h.eng.QueuePrompt("a", "first\nwith a second line")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, p1.ID)
	_, n, err = h.eng.QueuePrompt("a", "second")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, []string{"first\nwith a second line", "second"}, queueOnDisk(t, h, "a"), "saved before QueuePrompt returns")
	assert.Len(t, h.eng.Queue("a"), 2)
	assert.Empty(t, fh.lines(), "nothing is typed while the agent works")

	status(h, fh, "blocked")
	assert.Empty(t, fh.lines(), "nothing is typed while the agent waits for a permission")
	status(h, fh, "working")
	assert.Empty(t, fh.lines())

	status(h, fh, "idle")
	assert.Equal(t, []string{"first\nwith a second line"}, fh.lines(), "the first, when the agent waits for input")
	sent := h.event(statedir.EventPromptSent)
	assert.Equal(t, 1, sent.PromptID)
	assert.Equal(t, 1, sent.Attempt)
	assert.Equal(t, "paste", sent.Delivery)
	assert.Equal(t, 1, sent.Queued)
	assert.Equal(t, []string{"second"}, queueOnDisk(t, h, "a"))

	status(h, fh, "done") // the same wait, told again: the same turn
	assert.Len(t, fh.lines(), 1, "one prompt per turn")
	h.eng.Hook("a", 1, "Stop", nil)
	h.sync()
	assert.Len(t, fh.lines(), 1)

	status(h, fh, "working")
	status(h, fh, "blocked")
	assert.Len(t, fh.lines(), 1)
	status(h, fh, "working")
	status(h, fh, "idle")
	assert.Equal(t, []string{"first\nwith a second line", "second"}, fh.lines())
	assert.Equal(t, 2, h.event(statedir.EventPromptSent).PromptID)
	assert.Empty(t, queueOnDisk(t, h, "a"))
	assert.Empty(t, h.eng.Queue("a"))

	status(h, fh, "working")
	status(h, fh, "idle")
	assert.Len(t, fh.lines(), 2, "an empty queue types nothing")

	events, err := statedir.ReadEvents(filepath.Join(h.plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	var kinds []string
	for _, ev := range events {
		switch ev.Type {
		case statedir.EventPromptQueued, statedir.EventPromptSent:
			kinds = append(kinds, ev.Type+" "+ev.Describe("", ""))
		}
	}
	assert.Equal(t, []string{
		"prompt-queued a prompt 1 queued (1 queued)",
		"prompt-queued a prompt 2 queued (2 queued)",
		"prompt-sent a#1 prompt 1 typed (paste; 1 queued)",
		"prompt-sent a#1 prompt 2 typed (paste; 0 queued)",
	}, kinds)
}

func TestAPromptQueuedWhileTheAgentWaitsIsTypedAtOnce(t *testing.T) {
	h := startHarness(t, testPlan(t, claudeWorker("a")))
	fh := h.opened(h.pane)
	status(h, fh, "idle")
	_, _, err := h.eng.QueuePrompt("a", "now")
	require.NoError(t, err)
	h.sync()
	assert.Equal(t, []string{"now"}, fh.lines())
}

func TestAQueueIsNotTypedBeforeTheNextTurnWhileAPromptIsTyped(t *testing.T) {
	h := startHarnessWith(t, testPlan(t, claudeWorker("a")), func(pane, _ *fakeSurface) {
		pane.setup = func(fh *fakeHandle) {
			fh.typeGate = make(chan struct{})
			fh.typing = make(chan string, 4)
		}
	})
	fh := h.opened(h.pane)
	_, _, err := h.eng.QueuePrompt("a", "one")
	require.NoError(t, err)
	_, _, err = h.eng.QueuePrompt("a", "two")
	require.NoError(t, err)
	statusNow(h, fh, "idle")
	assert.Equal(t, "one", <-fh.typing)
	// The pasted text redraws the screen: a working and a wait again
	// while it is still being typed are not the agent's turn.
	statusNow(h, fh, "working")
	statusNow(h, fh, "idle")
	_, _, err = h.eng.RemoveQueued("a", 1)
	assert.ErrorContains(t, err, "is being typed")
	n, left, err := h.eng.ClearQueue("a")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, left, "clear keeps the prompt being typed")
	_, _, err = h.eng.QueuePrompt("a", "three")
	require.NoError(t, err)
	close(fh.typeGate)
	h.sync()
	assert.Equal(t, []string{"one"}, fh.lines())
	assert.Equal(t, []string{"three"}, queueOnDisk(t, h, "a"))
	select {
	case l := <-fh.typing:
		t.Fatalf("%q typed in the same turn", l)
	default:
	}
	status(h, fh, "working")
	status(h, fh, "idle")
	assert.Equal(t, []string{"one", "three"}, fh.lines())
}

func TestRemoveAndClearTheQueue(t *testing.T) {
	h := startHarness(t, testPlan(t, claudeWorker("a")))
	fh := h.opened(h.pane)
	status(h, fh, "working")
	for _, s := range []string{"p1", "p2", "p3", "p4"} {
		_, _, err := h.eng.QueuePrompt("a", s)
		require.NoError(t, err)
	}
	p, left, err := h.eng.RemoveQueued("a", 2)
	require.NoError(t, err)
	assert.Equal(t, "p2", p.Text)
	assert.Equal(t, 3, left)
	assert.Equal(t, []string{"p1", "p3", "p4"}, queueOnDisk(t, h, "a"))
	_, _, err = h.eng.RemoveQueued("a", 2)
	assert.True(t, errors.Is(err, ErrNotQueued))
	assert.EqualError(t, err, "no such queued prompt: a has no queued prompt 2 (queued: 1, 3, 4)")
	ev := h.event(statedir.EventPromptRemoved)
	assert.Equal(t, 2, ev.PromptID)

	n, _, err := h.eng.ClearQueue("a")
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Empty(t, queueOnDisk(t, h, "a"))
	p, _, err = h.eng.QueuePrompt("a", "p5")
	require.NoError(t, err)
	assert.Equal(t, 5, p.ID, "a prompt's number is never reused")
	status(h, fh, "idle")
	assert.Equal(t, []string{"p5"}, fh.lines())
}

func TestAQueueIsFoundAgainInTheStateDir(t *testing.T) {
	plan := testPlan(t, claudeWorker("a"))
	q := statedir.PromptQueue{WorkerID: "a", NextID: 8, Prompts: []statedir.QueuedPrompt{{ID: 6, Text: "left from before", QueuedAt: t0}, {ID: 7, Text: "and this", QueuedAt: t0}}}
	data, err := statedir.EncodeQueue(q)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(plan.StateDir, statedir.QueueDir), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, statedir.QueueFile("a")), data, 0o600))

	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	require.Len(t, h.eng.Queue("a"), 2)
	status(h, fh, "working")
	status(h, fh, "idle")
	assert.Equal(t, []string{"left from before"}, fh.lines())
	p, _, err := h.eng.QueuePrompt("a", "new")
	require.NoError(t, err)
	assert.Equal(t, 8, p.ID)
}

func TestADamagedQueueFileStopsTheStartWithItsName(t *testing.T) {
	plan := testPlan(t, claudeWorker("a"))
	require.NoError(t, os.MkdirAll(filepath.Join(plan.StateDir, statedir.QueueDir), 0o700))
	path := filepath.Join(plan.StateDir, statedir.QueueFile("a"))
	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o600))
	eng := New(plan, Options{Surfaces: map[runfile.SurfaceKind]Surface{runfile.SurfacePane: newFakeSurface(runfile.SurfacePane)}, Clock: NewFakeClock(t0)})
	err := eng.Start()
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "move it aside")
}

func TestAPlainCommandHasNoQueue(t *testing.T) {
	h := startHarness(t, testPlan(t, runfile.WorkerSpec{ID: "sh"}))
	h.opened(h.pane)
	_, _, err := h.eng.QueuePrompt("sh", "hello")
	require.ErrorIs(t, err, ErrNoAgentState)
	assert.Contains(t, err.Error(), "rostra send (without --queue)")
	_, _, err = h.eng.QueuePrompt("nobody", "hello")
	require.ErrorIs(t, err, ErrUnknownWorker)
	_, _, err = h.eng.QueuePrompt("sh", " \n")
	require.Error(t, err)
	_, err = os.Stat(filepath.Join(h.plan.StateDir, statedir.QueueDir))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
}

func TestAQueuedPromptWaitsForTheNextAttemptWhenItsAttemptEnds(t *testing.T) {
	h := startHarness(t, testPlan(t, claudeWorker("a")))
	fh := h.opened(h.pane)
	status(h, fh, "working")
	_, _, err := h.eng.QueuePrompt("a", "later")
	require.NoError(t, err)
	fh.finish(1)
	h.event(statedir.EventWorkerFailed)
	h.advance(time.Minute)
	fh2 := h.opened(h.pane)
	assert.Empty(t, fh.lines())
	status(h, fh2, "idle")
	assert.Equal(t, []string{"later"}, fh2.lines())
}

func TestAQuickAgentThatAnswersBeforeTheTypingEndsGetsTheNextPrompt(t *testing.T) {
	var fh *fakeHandle
	h := startHarnessWith(t, testPlan(t, claudeWorker("a")), func(pane, _ *fakeSurface) {
		pane.setup = func(h *fakeHandle) {
			// The agent reads the line, works and waits again before
			// TypeLine has even returned.
			h.afterEnter = func() {
				h.spec.OnProgramStatus("working", "", "")
				h.spec.OnProgramStatus("idle", "", "")
			}
		}
	})
	fh = h.opened(h.pane)
	status(h, fh, "working")
	for _, p := range []string{"one", "two", "three"} {
		_, _, err := h.eng.QueuePrompt("a", p)
		require.NoError(t, err)
	}
	status(h, fh, "idle")
	require.Eventually(t, func() bool { h.sync(); return len(fh.lines()) == 3 }, 5*time.Second, 10*time.Millisecond, "typed: %v", fh.lines())
	assert.Equal(t, []string{"one", "two", "three"}, fh.lines())
	assert.Empty(t, queueOnDisk(t, h, "a"))
}

// TestAQueueIsWrittenAgainWhenTheStateDirIsMadeAgain: an rm -rf of the
// state dir (docs/state.md) takes the queue files with it; the engine
// holds the queue and writes it again.
func TestAQueueIsWrittenAgainWhenTheStateDirIsMadeAgain(t *testing.T) {
	plan := testPlan(t, claudeWorker("a"))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	status(h, fh, "working")
	_, _, err := h.eng.QueuePrompt("a", "still wanted")
	require.NoError(t, err)
	h.sync()
	done := make(chan struct{})
	h.eng.disk.barrier([]chan struct{}{done})
	<-done
	require.NoError(t, os.RemoveAll(plan.StateDir))
	h.event(EventStateDirRecreated)
	require.Eventually(t, func() bool {
		q, err := statedir.ReadQueue(plan.StateDir, "a")
		return err == nil && len(q.Prompts) == 1 && q.Prompts[0].Text == "still wanted"
	}, 5*time.Second, 10*time.Millisecond)
	status(h, fh, "idle")
	assert.Equal(t, []string{"still wanted"}, fh.lines())
	assert.Empty(t, queueOnDisk(t, h, "a"))
}
