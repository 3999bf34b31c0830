// loop.go is how the engine's one goroutine, the loop, takes work and how
// everyone else reads its state without waiting for it (docs/design.md §Readers never wait on the engine).
//
// Data model: closures posted from any goroutine go into inbox, an
// unbounded FIFO (a slice under a mutex and a wake channel of capacity 1),
// so they run in the order they were posted however many arrive at once.
// The loop runs them in batches of at most batchMax; after each batch it
// hands the encoded team-state to the disk writer (disk.go) and publishes a
// view: an immutable copy of the rows, the attempt handles and the run's
// error, behind an atomic pointer. Readers (Snapshot, Handle, ExitCode,
// Err) load that pointer and take no lock the loop holds, so a frame never
// waits on a disk walk, a fork or an fsync: those run on other goroutines
// and post their results back.
package engine

import (
	"sync"

	"github.com/rostra-dev/rostra/statedir"
)

// batchMax bounds how many closures run between two saves of the state.
const batchMax = 256

// inbox is the loop's unbounded FIFO of closures.
type inbox struct {
	mu    sync.Mutex
	queue []func()
	wake  chan struct{}
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

func (q *inbox) push(f func()) {
	q.mu.Lock()
	q.queue = append(q.queue, f)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take removes up to n closures from the front.
func (q *inbox) take(n int) []func() {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := min(n, len(q.queue))
	batch := make([]func(), k)
	copy(batch, q.queue)
	clear(q.queue[:k])
	q.queue = q.queue[k:]
	if len(q.queue) == 0 {
		q.queue = nil // let the backing array go after a burst
	}
	return batch
}

// view is what readers see: a copy published after each batch and never
// changed after that.
type view struct {
	st       statedir.TeamState
	handles  map[string]viewHandle
	err      error
	exitCode int
	queues   map[string][]statedir.QueuedPrompt // each worker's queued prompts (queue.go)
}

type viewHandle struct {
	h       Handle
	attempt int
}

// loop runs posted closures until quit is closed.
func (e *Engine) loop() {
	defer close(e.loopDone)
	for {
		select {
		case <-e.in.wake:
		case <-e.quit:
			return
		}
		for {
			batch := e.in.take(batchMax)
			if len(batch) == 0 {
				break
			}
			for _, f := range batch {
				f()
			}
			e.endBatch()
		}
	}
}

// endBatch saves the state a batch changed (on the disk writer) and
// publishes the readers' view.
func (e *Engine) endBatch() {
	waiters := e.afterBatch
	e.afterBatch = nil
	e.publish()
	if e.dirty {
		// The published view is not changed again: the writer encodes it
		// when its turn comes, as readers read it.
		v := e.view.Load()
		e.dirty = false
		e.disk.saveStateOf(func() ([]byte, error) { return encodeTeamState(&v.st) }, waiters)
		waiters = nil
	}
	if len(waiters) > 0 {
		e.disk.barrier(waiters)
	}
	if e.finishNow {
		e.finOnce.Do(func() { close(e.finished) })
	}
	if len(e.unsent) > 0 {
		e.subsMu.Lock()
		for _, s := range e.subs {
			for _, ev := range e.unsent {
				s.push(ev)
			}
		}
		e.subsMu.Unlock()
		clear(e.unsent)
		e.unsent = e.unsent[:0]
	}
}

// publish copies the rows and handles for readers.
func (e *Engine) publish() {
	v := &view{st: e.st, handles: make(map[string]viewHandle, len(e.workers)), err: e.persistErr, queues: e.queueView}
	v.st.Workers = append([]statedir.WorkerRow(nil), e.st.Workers...)
	v.st.Dispatches = append([]statedir.DispatchRow(nil), e.st.Dispatches...)
	for _, w := range e.workers {
		if w.cur != nil && w.cur.handle != nil {
			v.handles[w.spec.ID] = viewHandle{w.cur.handle, w.cur.plan.Attempt}
		}
	}
	for id, h := range e.remoteHandles {
		v.handles[id] = h
	}
	for _, wr := range e.st.Workers {
		if wr.Status != statedir.StatusCompleted {
			v.exitCode = 1
		}
	}
	e.view.Store(v)
}

// post hands f to the loop from any goroutine, the loop's own included. It
// never blocks, and closures run in the order they were posted.
func (e *Engine) post(f func()) { e.in.push(f) }

// do runs f on the loop and waits until the state it changed is saved.
// It must not be called from the loop.
func (e *Engine) do(f func()) {
	done := make(chan struct{})
	e.post(func() { f(); e.afterBatch = append(e.afterBatch, done) })
	select {
	case <-done:
	case <-e.loopDone:
	}
}

// startBackground counts a job the loop handed to another goroutine (an
// attempt being opened, a settlement's workspace walk); the job's result,
// posted back, calls endBackground.
func (e *Engine) startBackground() { e.background++ }

func (e *Engine) endBackground() {
	e.background--
	if e.background == 0 {
		for _, c := range e.idleWaiters {
			close(c)
		}
		e.idleWaiters = nil
	}
	e.maybeFinishShutdown()
}

// quiesce waits until no background job is under way and everything they
// posted has run and been saved: what tests call "the engine has settled".
func (e *Engine) quiesce() {
	for {
		var wait chan struct{}
		e.do(func() {
			if e.background > 0 {
				wait = make(chan struct{})
				e.idleWaiters = append(e.idleWaiters, wait)
			}
		})
		if wait == nil {
			return
		}
		select {
		case <-wait:
		case <-e.loopDone:
			return
		}
	}
}

// Snapshot copies the current state. It never waits for the engine.
func (e *Engine) Snapshot() statedir.TeamState {
	v := e.view.Load()
	if v == nil {
		return statedir.TeamState{}
	}
	st := v.st
	st.Workers = append([]statedir.WorkerRow(nil), v.st.Workers...)
	st.Dispatches = append([]statedir.DispatchRow(nil), v.st.Dispatches...)
	return st
}

// Status is the run's status (statedir.Run*) as Snapshot's, without
// copying the rows: a watcher that asks on every event makes no garbage
// (docs/performance.md §Memory of a quiet pane).
func (e *Engine) Status() string {
	v := e.view.Load()
	if v == nil {
		return ""
	}
	return v.st.Status
}

// Handle is the open (or last) attempt of a worker, for the UI to draw and
// type into; nil while the worker has none (or its attempt is still being
// opened).
func (e *Engine) Handle(worker string) (Handle, int) {
	v := e.view.Load()
	if v == nil {
		return nil, 0
	}
	h, ok := v.handles[worker]
	if !ok {
		return nil, 0
	}
	return h.h, h.attempt
}

// ExitCode is rostra's exit code for the run as it stands (docs/commands.md §Exit codes): 0 when
// every worker completed, 1 otherwise.
func (e *Engine) ExitCode() int {
	v := e.view.Load()
	if v == nil {
		return 1
	}
	return v.exitCode
}

// Err is the first error that kept the engine from saving its state.
func (e *Engine) Err() error {
	v := e.view.Load()
	if v == nil {
		return nil
	}
	return v.err
}
