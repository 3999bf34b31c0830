// subscription.go fans the engine's events out to any number of readers
// (the headless printer, the UI). Each subscriber has its own queue; the
// engine only appends to it, so a slow reader never blocks the engine. A
// reader that falls more than subscriptionCap events behind loses the
// oldest ones and can tell how many from Dropped; the UI re-reads
// Snapshot, so it only loses event-log lines.
package engine

import (
	"github.com/rostra-dev/rostra/statedir"
	"sync"
)

// subscriptionCap is a variable so a test can make a subscriber fall behind quickly.
var subscriptionCap = 4096

// Subscription is one reader's queue of events.
type Subscription struct {
	e       *Engine
	mu      sync.Mutex
	queue   []statedir.Event
	wake    chan struct{}
	closed  bool
	dropped int
}

// Subscribe starts a queue that receives every event emitted from now on.
func (e *Engine) Subscribe() *Subscription {
	s := &Subscription{e: e, wake: make(chan struct{}, 1)}
	e.subsMu.Lock()
	e.subs = append(e.subs, s)
	e.subsMu.Unlock()
	return s
}

func (s *Subscription) push(ev statedir.Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= subscriptionCap {
		s.queue = s.queue[1:]
		s.dropped++
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Next waits for the next event; ok is false once the subscription is
// closed and its queue is empty.
func (s *Subscription) Next() (ev statedir.Event, ok bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev = s.queue[0]
			s.queue = s.queue[1:]
			if len(s.queue) == 0 {
				// A drained queue lets its array go: a quiet run's
				// start would keep each subscriber's array of the
				// start's events (docs/performance.md §Memory of a quiet pane).
				s.queue = nil
			}
			s.mu.Unlock()
			return ev, true
		}
		if s.closed {
			s.mu.Unlock()
			return statedir.Event{}, false
		}
		s.mu.Unlock()
		<-s.wake
	}
}

// Dropped counts the events this subscriber lost by falling behind.
func (s *Subscription) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Close stops the queue; Next returns what is left, then ok=false.
func (s *Subscription) Close() {
	s.e.subsMu.Lock()
	for i, o := range s.e.subs {
		if o == s {
			s.e.subs = append(s.e.subs[:i], s.e.subs[i+1:]...)
			break
		}
	}
	s.e.subsMu.Unlock()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
