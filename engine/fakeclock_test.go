// fakeclock_test.go holds FakeClock, the Clock the engine's tests drive by
// hand: time moves only when a test says so, and due callbacks run in time
// order in the goroutine that moves it.
package engine

import (
	"sort"
	"sync"
	"time"
)

// FakeClock moves only when told to. Callbacks due run in time order, in
// the goroutine that calls Advance.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	seq    int
}

type fakeTimer struct {
	c       *FakeClock
	due     time.Time
	seq     int
	f       func()
	stopped bool
}

// NewFakeClock starts a fake clock at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{c: c, due: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	for i, o := range t.c.timers {
		if o == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			return was
		}
	}
	return false
}

// Advance moves the clock forward by d, running every callback that falls
// due, in order.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.Slice(c.timers, func(i, j int) bool {
			if c.timers[i].due.Equal(c.timers[j].due) {
				return c.timers[i].seq < c.timers[j].seq
			}
			return c.timers[i].due.Before(c.timers[j].due)
		})
		if len(c.timers) == 0 || c.timers[0].due.After(end) {
			c.now = end
			c.mu.Unlock()
			return
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		t.stopped = true
		if t.due.After(c.now) {
			c.now = t.due
		}
		c.mu.Unlock()
		t.f()
	}
}

// Set jumps the wall time to t without running timers early: pending timers
// keep their remaining durations, so a clock stepped backwards neither
// stretches nor skips a backoff.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	shift := t.Sub(c.now)
	for _, tm := range c.timers {
		tm.due = tm.due.Add(shift)
	}
	c.now = t
}

// Pending counts the timers that have not fired or been stopped.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// NextDue is when the earliest pending timer falls due.
func (c *FakeClock) NextDue() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next time.Time
	for _, t := range c.timers {
		if next.IsZero() || t.due.Before(next) {
			next = t.due
		}
	}
	return next, !next.IsZero()
}
