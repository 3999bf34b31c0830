// activity.go holds Activity, what the terminals of one run share with the
// UIs that draw them: a wake-up every Write sends to each UI listening (one
// program per attached client in a rostra server), and the colours the
// children are told when they ask (Colors, which a UI fills in from the
// outer terminal, colors.go).
//
// Data model: the listeners are a copy-on-write slice of channels of
// capacity 1, read without a lock by the writer: any number of writes
// between two frames coalesce into one wake-up, and a Write only does
// non-blocking sends, so the pane's feeder never waits on a UI.
package vt

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Activity is the run's: every Terminal made with Options.Activity wakes
// its listeners after each Write and answers colour queries from Colors.
type Activity struct {
	mu      sync.Mutex                      // serialises Listen and its stop
	waiters atomic.Pointer[[]chan struct{}] // read without a lock by poke
	// Colors answers the children's colour queries (OSC 10/11/12/4) for
	// every terminal of the run made without Options.Colors.
	Colors *Colors
}

// NewActivity returns an Activity with no listener and the default colours.
func NewActivity() *Activity {
	a := &Activity{Colors: NewColors()}
	a.waiters.Store(&[]chan struct{}{})
	return a
}

// Listen returns a new wake channel, which gets a value after any
// terminal's Write, and the function that stops it (safe to call twice).
func (a *Activity) Listen() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	a.mu.Lock()
	list := append(slices.Clone(*a.waiters.Load()), c)
	a.waiters.Store(&list)
	a.mu.Unlock()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			a.mu.Lock()
			list := slices.DeleteFunc(slices.Clone(*a.waiters.Load()), func(o chan struct{}) bool { return o == c })
			a.waiters.Store(&list)
			a.mu.Unlock()
		})
	}
}

// poke wakes every listener, never blocking.
func (a *Activity) poke() {
	for _, c := range *a.waiters.Load() {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// Wake wakes every listener as a Write would: for a UI whose screens
// change without a Write (a run's link dropping, its countdown).
func (a *Activity) Wake() { a.poke() }
