// writer.go holds keyWriter, which types keys and pastes into a pane's
// child without ever blocking the UI: a pty write blocks while the child's
// input queue is full (a child that reads nothing, or one that takes a
// 2 MB paste slowly), so the UI only appends to a bounded buffer, and one
// goroutine per attempt writes it to the child in chunks, ending with the
// attempt. Keys for rostra never wait behind bytes for a child.
package tui

import (
	"sync"

	"github.com/rostra-dev/rostra/engine"
)

// keyPending bounds the bytes waiting for a child that does not read: a
// paste of a few megabytes fits, an endless stream of keys to a stuck
// child is dropped (and the UI says so) rather than kept.
const keyPending = 16 << 20

// keyChunk is the most written to the child at once.
const keyChunk = 4096

type keyWriter struct {
	w keyHandle

	mu      sync.Mutex
	pending []byte
	ready   chan struct{} // has a value while pending is not empty
}

func newKeyWriter(h engine.Handle, w keyHandle) *keyWriter {
	kw := &keyWriter{w: w, ready: make(chan struct{}, 1)}
	go kw.run(h.Done())
	return kw
}

func (kw *keyWriter) run(done <-chan struct{}) {
	var chunk []byte
	for {
		select {
		case <-kw.ready:
		case <-done:
			return
		}
		for {
			kw.mu.Lock()
			n := min(len(kw.pending), keyChunk)
			chunk = append(chunk[:0], kw.pending[:n]...)
			kw.pending = kw.pending[n:]
			if len(kw.pending) == 0 {
				kw.pending = nil // let a big paste's buffer go
			}
			kw.mu.Unlock()
			if n == 0 {
				break
			}
			if _, err := kw.w.Write(chunk); err != nil {
				return // the attempt is over: its pty is closed
			}
		}
	}
}

// send queues b; it reports false when the child has not taken keyPending
// bytes already queued, and b was dropped.
func (kw *keyWriter) send(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	kw.mu.Lock()
	if len(kw.pending)+len(b) > keyPending {
		kw.mu.Unlock()
		return false
	}
	kw.pending = append(kw.pending, b...)
	kw.mu.Unlock()
	select {
	case kw.ready <- struct{}{}:
	default:
	}
	return true
}
