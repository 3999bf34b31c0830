package main

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/statedir"
)

// chanEvents is an eventSource fed by the test: an unbuffered send
// returns once the reader took the event, so every event before it has
// been handled.
type chanEvents chan statedir.Event

func (c chanEvents) Next() (statedir.Event, bool) {
	ev, ok := <-c
	return ev, ok
}

// trimClock keeps the callbacks armed; the test fires them.
type trimClock struct {
	mu     sync.Mutex
	timers []*trimTimer
}

type trimTimer struct {
	f       func()
	stopped bool
}

func (t *trimTimer) Stop() bool { s := !t.stopped; t.stopped = true; return s }

func (c *trimClock) Now() time.Time { return time.Time{} }

func (c *trimClock) AfterFunc(_ time.Duration, f func()) engine.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &trimTimer{f: f}
	c.timers = append(c.timers, t)
	return t
}

// live is the callbacks armed and not stopped.
func (c *trimClock) live() []*trimTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var l []*trimTimer
	for _, t := range c.timers {
		if !t.stopped {
			l = append(l, t)
		}
	}
	return l
}

// TestTrimAfterBursts: a burst of attempt starts arms one trim, after its
// last start; other events never arm one
// (docs/performance.md §Memory of a quiet pane).
func TestTrimAfterBursts(t *testing.T) {
	src := make(chanEvents)
	clock := &trimClock{}
	trims := 0
	done := trimAfterBursts(src, clock, time.Second, func() { trims++ })
	src <- statedir.Event{Type: statedir.EventAgentState}
	src <- statedir.Event{Type: statedir.EventRunStarted}
	assert.Empty(t, clock.timers, "no attempt started or ended: nothing armed")
	for range 16 {
		src <- statedir.Event{Type: statedir.EventWorkerDispatched}
	}
	src <- statedir.Event{Type: statedir.EventAgentState} // the burst handled
	assert.Len(t, clock.timers, 16)
	live := clock.live()
	require.Len(t, live, 1, "each start puts the trim off: one is armed")
	live[0].f()
	assert.Equal(t, 1, trims)

	src <- statedir.Event{Type: statedir.EventWorkerCompleted}
	src <- statedir.Event{Type: statedir.EventAgentState}
	require.Len(t, clock.timers, 17, "an attempt's end arms another")
	require.Len(t, clock.live(), 1)
	close(src)
	<-done
	assert.Empty(t, clock.live(), "the end of the events stops the armed trim")
}
