// input.go holds what a session's program reads as its terminal input: the
// payloads of the client's Input frames, queued in order, with a pause for
// a suspend. Paused, a read ends as the end of input does, which is how
// the program's input reader stops at once when the session releases the
// terminal (bubbletea's ReleaseTerminal), and RestoreTerminal starts a new
// reader that finds what the client sent meanwhile still queued. An
// io.Pipe's read cannot be stopped (the release waits 500 ms for it, and
// the stale reader then takes the first key typed after the resume), and
// an os.Pipe's epoll reader is closed by a killed program while it still
// waits (a data race in bubbletea's shutdown).
package server

import (
	"io"
	"sync"
)

// inputQueueLimit bounds what a client may queue ahead of its program, as
// a pipe's capacity would: a writer waits while the queue is full.
const inputQueueLimit = 64 << 10

type clientInput struct {
	mu     sync.Mutex
	cond   *sync.Cond // signalled on write, read, pause, resume and close
	queued []byte
	paused bool
	closed bool
	// reading counts the reads waiting or copying now: none once a pause
	// has ended the program's input reader (suspend_test.go checks it is
	// so when the terminal is given back).
	reading int
}

func newClientInput() *clientInput {
	in := &clientInput{}
	in.cond = sync.NewCond(&in.mu)
	return in
}

// Read returns queued input, waiting for some; io.EOF while paused or
// once closed.
func (in *clientInput) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.reading++
	defer func() { in.reading-- }()
	for !in.paused && !in.closed && len(in.queued) == 0 {
		in.cond.Wait()
	}
	if in.paused || in.closed {
		return 0, io.EOF
	}
	n := copy(p, in.queued)
	in.queued = in.queued[n:]
	in.cond.Broadcast()
	return n, nil
}

// Write queues p, waiting while the queue is full. It fails once closed.
func (in *clientInput) Write(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.queued) >= inputQueueLimit && !in.closed {
		in.cond.Wait()
	}
	if in.closed {
		return 0, io.ErrClosedPipe
	}
	in.queued = append(in.queued, p...)
	in.cond.Broadcast()
	return len(p), nil
}

// readers is how many reads are in progress.
func (in *clientInput) readers() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.reading
}

// pause makes every read end (io.EOF) until resume, keeping the queue.
func (in *clientInput) pause() { in.set(&in.paused, true) }

func (in *clientInput) resume() { in.set(&in.paused, false) }

// Close ends every read and write, now and later.
func (in *clientInput) Close() error {
	in.set(&in.closed, true)
	return nil
}

func (in *clientInput) set(flag *bool, v bool) {
	in.mu.Lock()
	*flag = v
	in.cond.Broadcast()
	in.mu.Unlock()
}
