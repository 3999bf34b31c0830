// queue.go keeps each worker's queue of prompts
// (docs/agents.md §A queue of prompts): a person queues a prompt (`rostra
// send --queue`, Q in the UI) and it is typed into the worker's agent the next time the agent waits for
// input, never while it works or waits for a permission; one per turn, in
// order, each followed by Enter.
//
// Data model: a worker of a known agent has a promptQueue, loaded from
// queue/<worker>.json when the engine starts (a resumed run finds it there)
// and saved there by the disk writer after every change, so it survives a
// crash and a resume. Its first prompt is typed (on a goroutine: the write
// blocks while the child does not read) when its live attempt's agent state
// becomes waiting-input, once the attempt's own prompt is in, and no
// queued prompt was typed in that turn yet: a turn ends when the agent
// works and waits again. A prompt leaves the queue once it has been typed,
// so a crash while it is typed types it again after a resume rather than
// losing it. Readers see a copy in the published view.
package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// LineTyper is what a Handle may also do: type text into its child as a
// person pastes it and presses Enter (bracketed when the child enabled
// bracketed paste), returning how ("paste" or "keys"). beforeEnter, when
// not nil, is called (it must not block) just before Enter is written:
// what the child says after it is its answer to the line. It may block
// while the child does not read, and fails once the attempt is over.
type LineTyper interface {
	TypeLine(text string, beforeEnter func()) (how string, err error)
}

// ErrNoAgentState refuses a queued prompt for a worker that runs no known
// agent: rostra cannot tell when it waits for input.
var ErrNoAgentState = errors.New("runs no known agent (its provider's agent: is unset and its command names none), so rostra cannot tell when it waits for input: type into it now with rostra send (without --queue), or i in the UI")

// ErrNotQueued refuses an edit of a prompt the queue does not hold.
var ErrNotQueued = errors.New("no such queued prompt")

// promptQueue is a worker's queue, on the loop.
type promptQueue struct {
	q      statedir.PromptQueue
	typing int  // the ID of the prompt being typed now, 0 when none
	enter  bool // its Enter is being written: the agent's states from now on answer it
}

// queueFeed is what an attempt's feeding of queued prompts waits on.
type queueFeed struct {
	// paneTypes: a pane is to type its own prompt (delivery: type, or a
	// resume command that takes none), so queued prompts wait for it.
	paneTypes bool
	ready     bool // its own prompt is in (typed by the pane, or given in its command)
	fed       bool // a queued prompt was typed this turn: the next waits for the agent to work and wait again
}

// promptCut is how much of a prompt's text its events carry.
const promptCut = 200

// loadQueues reads every worker's queue from the state dir (a resumed run
// finds the prompts it had not typed yet).
func (e *Engine) loadQueues() error {
	e.queueView = map[string][]statedir.QueuedPrompt{}
	for _, w := range e.workers {
		q, err := statedir.ReadQueue(e.plan.StateDir, w.spec.ID)
		if err != nil {
			return err
		}
		w.queue = &promptQueue{q: q}
		if len(q.Prompts) > 0 {
			e.queueView[w.spec.ID] = slices.Clone(q.Prompts)
		}
	}
	return nil
}

// queueChanged saves w's queue (on the disk writer, after the writes
// queued before it) and publishes a copy for readers.
func (e *Engine) queueChanged(w *workerRT) {
	data, err := statedir.EncodeQueue(w.queue.q)
	if err != nil {
		e.failPersist(err)
		return
	}
	rel := statedir.QueueFile(w.spec.ID)
	e.disk.queue(func() error {
		if err := e.sfs.Mkdir(statedir.QueueDir, false); err != nil {
			return err
		}
		return e.sfs.WriteAtomic(rel, data, 0o600)
	}, func(err error) { e.post(func() { e.failPersist(err) }) })
	view := make(map[string][]statedir.QueuedPrompt, len(e.queueView)+1)
	for id, ps := range e.queueView {
		view[id] = ps
	}
	delete(view, w.spec.ID)
	if len(w.queue.q.Prompts) > 0 {
		view[w.spec.ID] = slices.Clone(w.queue.q.Prompts)
	}
	e.queueView = view
}

// saveQueuesAgain writes every queue with prompts once more: the state dir
// was made again (recreate.go) and its queue/ folder with it.
func (e *Engine) saveQueuesAgain() {
	for _, w := range e.workers {
		if w.queue != nil && len(w.queue.q.Prompts) > 0 {
			e.queueChanged(w)
		}
	}
}

// QueuePrompt queues text for worker's agent. It returns the prompt and
// how many are queued with it, once the queue is saved. It does not type:
// the loop does, when the agent next waits for input (now, if it does).
func (e *Engine) QueuePrompt(worker, text string) (statedir.QueuedPrompt, int, error) {
	spec, ok := e.plan.Worker(worker)
	switch {
	case !ok:
		return statedir.QueuedPrompt{}, 0, fmt.Errorf("%w %q", ErrUnknownWorker, worker)
	case agentOf(spec) == "":
		return statedir.QueuedPrompt{}, 0, fmt.Errorf("%s %w", worker, ErrNoAgentState)
	case strings.TrimSpace(text) == "":
		return statedir.QueuedPrompt{}, 0, fmt.Errorf("nothing to queue for %s: the prompt is empty", worker)
	case len(text) > statedir.MaxQueuedPrompt:
		return statedir.QueuedPrompt{}, 0, fmt.Errorf("the prompt for %s is %d bytes, over the %d a queued prompt may have: put it in a file and queue a prompt that names it", worker, len(text), statedir.MaxQueuedPrompt)
	case !utf8.ValidString(text):
		return statedir.QueuedPrompt{}, 0, fmt.Errorf("the prompt for %s is not UTF-8 text", worker)
	}
	var p statedir.QueuedPrompt
	var n int
	err := ErrShuttingDown // unless the loop runs it
	e.do(func() {
		err = nil
		w := e.byID[worker]
		switch {
		case e.shuttingDown:
			err = ErrShuttingDown
			return
		case len(w.queue.q.Prompts) >= statedir.MaxQueued:
			err = fmt.Errorf("%s has %d prompts queued already, the most it may have: remove some first (rostra queue rm, rostra queue clear)", worker, len(w.queue.q.Prompts))
			return
		}
		q := &w.queue.q
		p = statedir.QueuedPrompt{ID: q.NextID, Text: text, QueuedAt: e.clock.Now().UTC()}
		q.NextID++
		q.Prompts = append(q.Prompts, p)
		n = len(q.Prompts)
		e.queueChanged(w)
		e.emit(statedir.Event{Type: statedir.EventPromptQueued, WorkerID: worker, PromptID: p.ID, Prompt: cutPrompt(text), Queued: n})
		e.feedQueue(w)
	})
	return p, n, err
}

// RemoveQueued takes the prompt numbered id off worker's queue, unsent;
// left is how many stay queued.
func (e *Engine) RemoveQueued(worker string, id int) (p statedir.QueuedPrompt, left int, err error) {
	if _, ok := e.plan.Worker(worker); !ok {
		return statedir.QueuedPrompt{}, 0, fmt.Errorf("%w %q", ErrUnknownWorker, worker)
	}
	err = ErrShuttingDown // unless the loop runs it
	e.do(func() {
		err = nil
		pq := e.byID[worker].queue
		i := slices.IndexFunc(pq.q.Prompts, func(p statedir.QueuedPrompt) bool { return p.ID == id })
		switch {
		case i < 0:
			err = fmt.Errorf("%w: %s has no queued prompt %d (%s)", ErrNotQueued, worker, id, queuedIDs(pq.q.Prompts))
			return
		case pq.typing == id:
			err = fmt.Errorf("%s's prompt %d is being typed into its agent now: it can no longer be removed", worker, id)
			return
		}
		p = pq.q.Prompts[i]
		pq.q.Prompts = slices.Delete(pq.q.Prompts, i, i+1)
		left = len(pq.q.Prompts)
		e.queueChanged(e.byID[worker])
		e.emit(statedir.Event{Type: statedir.EventPromptRemoved, WorkerID: worker, PromptID: p.ID, Prompt: cutPrompt(p.Text), Queued: left, Reason: "removed by a human"})
	})
	return p, left, err
}

// ClearQueue takes every prompt off worker's queue, unsent, but the one
// being typed now; it returns how many it removed and how many are left
// (the one being typed, or none).
func (e *Engine) ClearQueue(worker string) (removed, left int, err error) {
	if _, ok := e.plan.Worker(worker); !ok {
		return 0, 0, fmt.Errorf("%w %q", ErrUnknownWorker, worker)
	}
	err = ErrShuttingDown // unless the loop runs it
	e.do(func() {
		err = nil
		w := e.byID[worker]
		pq := w.queue
		var keep []statedir.QueuedPrompt
		for _, p := range pq.q.Prompts {
			if p.ID == pq.typing {
				keep = append(keep, p)
				continue
			}
			removed++
			e.emit(statedir.Event{Type: statedir.EventPromptRemoved, WorkerID: worker, PromptID: p.ID, Prompt: cutPrompt(p.Text), Queued: len(keep), Reason: "the queue was cleared"})
		}
		if removed > 0 {
			pq.q.Prompts = keep
			e.queueChanged(w)
		}
		left = len(pq.q.Prompts)
	})
	return removed, left, err
}

// Queue is worker's queued prompts, the next first. It never waits for the
// engine.
func (e *Engine) Queue(worker string) []statedir.QueuedPrompt {
	v := e.view.Load()
	if v == nil {
		return nil
	}
	return slices.Clone(v.queues[worker])
}

// queuePromptIn is the attempt's own prompt typed in: queued prompts may
// follow it from its next wait for input.
func (e *Engine) queuePromptIn(a *attemptRT) { a.feed.ready = true }

// queueAttemptOpened arms an opened attempt's feeding: an attempt whose
// prompt is not typed by its pane has it in already. A resumed attempt
// whose resume command takes no prompt has it typed (resume.go): queued
// prompts follow it.
func (e *Engine) queueAttemptOpened(a *attemptRT) {
	if _, ok := a.handle.(PromptDelivered); !ok || !a.feed.paneTypes {
		a.feed.ready = true
	}
}

// queueAgentState hears each change of a's agent state: a change away from
// waiting-input after a queued prompt went in ends the turn; a wait for
// input types the next.
func (e *Engine) queueAgentState(a *attemptRT, st agents.State) {
	if st == agents.WaitingInput {
		agentReady(a)
	}
	pq := a.w.queue
	if pq == nil || a.w.cur != a {
		return
	}
	if st != agents.WaitingInput {
		if pq.typing == 0 || pq.enter {
			// The agent works (or asks) on what it was given: its next wait
			// for input is a new turn. A change while the prompt's text is
			// still going in is the typing's own echo, not the agent's turn.
			a.feed.fed = false
		}
		return
	}
	e.feedQueue(a.w)
}

// feedQueue types w's next queued prompt when its live attempt's agent
// waits for input and may be given one.
func (e *Engine) feedQueue(w *workerRT) {
	pq, a := w.queue, w.cur
	if pq == nil || len(pq.q.Prompts) == 0 || pq.typing != 0 || e.shuttingDown {
		return
	}
	if a == nil || a.agent == nil || a.handle == nil || a.exited || a.phase != phaseRunning || !a.feed.ready || a.feed.fed {
		return
	}
	if e.st.Dispatches[a.idx].AgentState != string(agents.WaitingInput) {
		return
	}
	t, ok := a.handle.(LineTyper)
	if !ok {
		return
	}
	p := pq.q.Prompts[0]
	pq.typing = p.ID
	a.feed.fed = true
	e.startBackground()
	go func() {
		how, err := t.TypeLine(p.Text, func() {
			// Posted before Enter is written, so before any state the
			// Enter makes the agent report.
			e.post(func() {
				pq.enter = true
				a.feed.fed = true
			})
		})
		e.post(func() {
			e.promptTyped(a, p, how, err)
			e.endBackground()
		})
	}()
}

// promptTyped takes a typed prompt off its queue. One that could not be
// typed (the attempt ended) stays first, for the worker's next attempt.
func (e *Engine) promptTyped(a *attemptRT, p statedir.QueuedPrompt, how string, err error) {
	w := a.w
	pq := w.queue
	pq.typing, pq.enter = 0, false
	if err != nil {
		a.feed.fed = false
		return
	}
	if i := slices.IndexFunc(pq.q.Prompts, func(q statedir.QueuedPrompt) bool { return q.ID == p.ID }); i >= 0 {
		pq.q.Prompts = slices.Delete(pq.q.Prompts, i, i+1)
	}
	e.queueChanged(w)
	e.emit(statedir.Event{Type: statedir.EventPromptSent, WorkerID: w.spec.ID, Attempt: a.plan.Attempt, PromptID: p.ID,
		Prompt: cutPrompt(p.Text), Delivery: how, Queued: len(pq.q.Prompts)})
	// A quick agent may have worked on it and waited again already.
	e.feedQueue(w)
}

// agentOf is the agent a worker's attempts run, "" for a plain command.
func agentOf(spec *runfile.WorkerSpec) agents.Agent {
	kind, ok := agents.Parse(spec.Agent)
	if !ok {
		return ""
	}
	return kind
}

func cutPrompt(s string) string {
	if len(s) <= promptCut {
		return s
	}
	cut := promptCut
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func queuedIDs(ps []statedir.QueuedPrompt) string {
	if len(ps) == 0 {
		return "its queue is empty"
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = fmt.Sprint(p.ID)
	}
	return "queued: " + strings.Join(ids, ", ")
}
