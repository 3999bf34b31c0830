// outbox.go holds the bounded queue between a client's bubbletea program
// and its socket. The program writes frames into it and never waits: one
// goroutine per client copies the queue to the socket. A client that stops
// reading (stopped, suspended by its laptop, behind a slow link) lets its
// queue grow to the limit; the outbox then discards the program's output
// for it, and once the client has read everything queued, it is given a
// whole frame (caughtUp), as tmux does for a client whose terminal cannot
// keep up. Neither the panes nor the other clients ever wait on it, and
// what one client holds in the server is bounded.
//
// Data model: pending holds whole encoded frames, in order; writing swaps it
// with an empty buffer under the lock, so a write to the socket never holds
// the lock. behind is set when Output was discarded, and cleared when the
// queue is empty again. closed is set once: by Close, or by a failed write.
package server

import (
	"bytes"
	"io"
	"net"
	"sync"
	"time"
)

// DefaultOutputLimit is how many bytes may wait for one client before its
// output is discarded until it catches up: about a hundred full repaints
// of a 200×50 screen in colour, several seconds of a pane flooding in the
// view.
const DefaultOutputLimit = 8 << 20

type outbox struct {
	conn  net.Conn
	limit int

	mu      sync.Mutex
	pending []byte
	spare   []byte
	closing bool  // Close was called: flush what is pending, then stop
	err     error // why the outbox stopped taking frames
	behind  bool  // Output was discarded: the client's screen is not what the program drew
	wake    chan struct{}
	done    chan struct{} // closed when the writer goroutine has returned
	// caughtUp is called (on the writer goroutine, without the lock) when a
	// client that was behind has read everything queued: it needs a whole
	// frame.
	caughtUp func()
}

func newOutbox(conn net.Conn, limit int, caughtUp func()) *outbox {
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	o := &outbox{conn: conn, limit: limit, wake: make(chan struct{}, 1), done: make(chan struct{}), caughtUp: caughtUp}
	go o.run()
	return o
}

// Write queues p as an Output frame: the bubbletea program's output.
func (o *outbox) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), MaxFrame-1)
		if err := o.frame(FrameOutput, p[:n]); err != nil {
			return 0, err
		}
		p = p[n:]
	}
	return total, nil
}

// frame queues one frame; it fails once the outbox is closed. Output over
// the limit, and all Output after it until the client has caught up, is
// discarded; the few other frames (a Suspend, the Bye) are always queued.
func (o *outbox) frame(t FrameType, payload []byte) error {
	o.mu.Lock()
	if o.err != nil || o.closing {
		err := o.err
		o.mu.Unlock()
		if err == nil {
			err = net.ErrClosed
		}
		return err
	}
	if t == FrameOutput && (o.behind || len(o.pending)+len(payload)+5 > o.limit) {
		o.behind = true
		o.mu.Unlock()
		return nil
	}
	o.pending = AppendFrame(o.pending, t, payload)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return nil
}

func (o *outbox) run() {
	defer close(o.done)
	for {
		o.mu.Lock()
		for len(o.pending) == 0 {
			if o.err != nil || o.closing {
				o.mu.Unlock()
				return
			}
			o.mu.Unlock()
			<-o.wake
			o.mu.Lock()
		}
		buf := o.pending
		o.pending = o.spare[:0]
		o.mu.Unlock()
		if _, err := o.conn.Write(buf); err != nil {
			o.mu.Lock()
			if o.err == nil {
				o.err = err
			}
			o.pending = nil
			o.mu.Unlock()
			return
		}
		o.mu.Lock()
		o.spare = buf[:0]
		if cap(buf) > 1<<20 || cap(buf) > 2*len(buf)+16<<10 {
			// A burst's buffer, or a whole repaint's, is not kept for
			// an idle client's small frames (docs/performance.md §Memory of a quiet pane).
			o.spare = nil
		}
		caughtUp := o.behind && len(o.pending) == 0 && !o.closing
		if caughtUp {
			o.behind = false
		}
		o.mu.Unlock()
		if caughtUp && o.caughtUp != nil {
			o.caughtUp()
		}
	}
}

// Behind reports whether output for the client is being discarded until it
// catches up.
func (o *outbox) Behind() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.behind
}

// Close queues last (a Bye, or nil), lets the writer flush for up to wait,
// and closes the connection.
func (o *outbox) Close(lastType FrameType, last []byte, wait time.Duration) error {
	o.mu.Lock()
	if o.err == nil && !o.closing && lastType != 0 {
		o.pending = AppendFrame(o.pending, lastType, last)
	}
	o.closing = true
	err := o.err
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	_ = o.conn.SetWriteDeadline(time.Now().Add(wait))
	<-o.done
	_ = o.conn.Close()
	return err
}

// Err is why the outbox stopped, nil while it runs or after a clean Close.
func (o *outbox) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// onlcr is the output post-processing of a terminal's line discipline
// (termios OPOST|ONLCR): every NL becomes CR NL. bubbletea assumes it when
// its input is not a terminal (it moves down a line with "\n" and expects
// column 0, as over wish's emulated pty), while the client's terminal is in
// raw mode and would not do it; so the server does, byte for byte as the
// kernel would.
type onlcr struct{ w io.Writer }

func (o onlcr) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') < 0 {
		return o.w.Write(p)
	}
	n := len(p)
	mapped := make([]byte, 0, n+n/16)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			mapped = append(mapped, p...)
			break
		}
		mapped = append(mapped, p[:i]...)
		mapped = append(mapped, '\r', '\n')
		p = p[i+1:]
	}
	if _, err := o.w.Write(mapped); err != nil {
		return 0, err
	}
	return n, nil
}
