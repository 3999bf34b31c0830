//go:build linux

package panes

// replies.go writes the emulator's answers to the child's queries (a
// cursor position, a device attribute) into the pty. A quiet pane asks
// nothing, so no goroutine waits for its replies: a writer is started when
// one is queued and ends when the queue is empty (docs/performance.md
// §Memory of a quiet pane).

import "sync"

// replyQueue is how many replies wait for the child before more are
// dropped.
const replyQueue = 64

// replyWriter queues replies for a pty's master and writes them in order,
// one writer goroutine at a time, none while nothing is queued.
type replyWriter struct {
	mu      sync.Mutex
	queue   [][]byte
	writing bool // a writer goroutine runs
	closed  bool // the attempt is over: replies are dropped
}

// push queues a copy of b and starts a writer when none runs; it never
// blocks. helpers counts the writer; write is the master's Write.
func (r *replyWriter) push(b []byte, helpers *sync.WaitGroup, write func([]byte) (int, error)) {
	if len(b) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || len(r.queue) >= replyQueue {
		// The child reads none of its replies; dropping one is better than
		// stalling the drain (and so the child's own output).
		return
	}
	r.queue = append(r.queue, append([]byte(nil), b...))
	if !r.writing {
		r.writing = true
		helpers.Add(1) // before close: Wait runs after it (process.wait)
		go r.run(helpers, write)
	}
}

// run writes queued replies until the queue is empty, the attempt is over
// or a write fails.
func (r *replyWriter) run(helpers *sync.WaitGroup, write func([]byte) (int, error)) {
	defer helpers.Done()
	for {
		r.mu.Lock()
		if r.closed || len(r.queue) == 0 {
			r.writing = false
			r.queue = nil
			r.mu.Unlock()
			return
		}
		b := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		r.mu.Unlock()
		if _, err := write(b); err != nil {
			r.close()
			return
		}
	}
}

// close drops what is queued and every later reply; a write under way
// ends when the master is closed.
func (r *replyWriter) close() {
	r.mu.Lock()
	r.closed = true
	r.queue = nil
	r.writing = false
	r.mu.Unlock()
}
