// writer.go holds keyWriter, which types keys into a pane's child without
// ever blocking the UI: a pty write blocks while the child's input queue is
// full (a child that reads nothing), so writes go through a bounded queue
// drained by one goroutine per attempt, which ends with the attempt.
package tui

import "github.com/rostra-dev/rostra/engine"

const keyQueue = 256

type keyWriter struct {
	w keyHandle
	q chan []byte
}

func newKeyWriter(h engine.Handle, w keyHandle) *keyWriter {
	kw := &keyWriter{w: w, q: make(chan []byte, keyQueue)}
	go kw.run(h.Done())
	return kw
}

func (kw *keyWriter) run(done <-chan struct{}) {
	for {
		select {
		case b := <-kw.q:
			if _, err := kw.w.Write(b); err != nil {
				return // the attempt is over: its pty is closed
			}
		case <-done:
			return
		}
	}
}

// send queues b; it reports false when the queue is full (the child has
// not read its input for keyQueue writes) and the keys were dropped.
func (kw *keyWriter) send(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	select {
	case kw.q <- b:
		return true
	default:
		return false
	}
}
