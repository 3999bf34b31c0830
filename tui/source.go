// source.go holds what the UI reads and drives, as small interfaces so the
// model can be tested with fixed terminals and snapshots and no process:
// the Engine (plan, snapshots, manual controls, each worker's attempt
// handle), the attempt handles' optional abilities (a screen, keys, a size),
// and Screen, the emulator wrapper cmd/rostra gives every UI-run attempt so
// the UI learns of new output and bells without polling.
//
// Data model: one Activity per run; every Screen it makes pokes it, and it
// wakes every program listening to it (one per attached client in a rostra
// server), each on a channel of its own (capacity 1: any number of writes
// between two frames coalesce into one wake-up). The pty reader only does
// non-blocking sends, so it never waits on a UI. Each Screen counts its own
// bells.
package tui

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
)

// Engine is the part of *engine.Engine the UI uses.
type Engine interface {
	Plan() *engine.Plan
	Snapshot() engine.TeamState
	Handle(worker string) (engine.Handle, int)
	Retry(worker string) error
	Cancel(worker string) error
	// Diff and Merge review an isolated worker's branch (git runs in the
	// engine, not in the UI).
	Diff(worker string, color bool) ([]byte, engine.DiffInfo, error)
	// Merge's pin is the commit the person reviewed ("" for none): the
	// merge is refused when the branch moved since.
	Merge(worker, pin string) (engine.MergeResult, error)
}

// Events is the engine's event queue (*engine.Subscription).
type Events interface {
	Next() (engine.Event, bool)
}

// The abilities the UI looks for on an attempt handle. The pane surface's
// handle has all three; the wrapper's has no keys worth sending (its child
// reads no terminal), so the UI only types into handles on the pane surface.
type (
	screenHandle interface{ Screen() vt.Screen }
	keyHandle    interface{ Write([]byte) (int, error) }
	resizeHandle interface{ Resize(cols, rows int) error }
)

// Activity tells the UIs that some pane has new output. It also holds the
// colours the panes' children are told when they ask (vt.Colors): the
// outer terminal's, as a UI learns them (colors.go).
type Activity struct {
	mu      sync.Mutex                      // serialises listen and unlisten
	waiters atomic.Pointer[[]chan struct{}] // read without a lock by poke
	colors  *vt.Colors
}

// NewActivity returns an Activity with no listener.
func NewActivity() *Activity {
	a := &Activity{colors: vt.NewColors()}
	a.waiters.Store(&[]chan struct{}{})
	return a
}

// listen returns a new wake channel and the function that stops it.
func (a *Activity) listen() (<-chan struct{}, func()) {
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

func (a *Activity) poke() {
	for _, c := range *a.waiters.Load() {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// NewScreen is a panes.PTYOptions/WrapperOptions NewScreen: an emulator that
// answers the child's queries through reply, counts bells and wakes the UI.
func (a *Activity) NewScreen(cols, rows int, reply func([]byte)) vt.Screen {
	s := &Screen{act: a}
	s.Terminal = vt.New(cols, rows, vt.Options{OnReply: reply, OnBell: func() { s.bells.Add(1) }, Colors: a.colors})
	return s
}

// Screen is a pane's emulator as the UI sees it.
type Screen struct {
	*vt.Terminal
	act   *Activity
	bells atomic.Int64
}

// Write feeds the emulator, then wakes the UI (never blocking).
func (s *Screen) Write(p []byte) (int, error) {
	n, err := s.Terminal.Write(p)
	if s.act != nil {
		s.act.poke()
	}
	return n, err
}

// Bells counts BEL characters the child has written.
func (s *Screen) Bells() int64 { return s.bells.Load() }

// TerminalOf is the emulator behind an attempt's handle, nil when it has
// none (a rostra server reads a worker's screen and modes through it).
func TerminalOf(h engine.Handle) *vt.Terminal {
	t, _ := emulatorOf(h)
	return t
}

// emulatorOf finds the emulator behind a handle, if it has one, and its
// bell count when the UI made it.
func emulatorOf(h engine.Handle) (*vt.Terminal, func() int64) {
	sh, ok := h.(screenHandle)
	if !ok {
		return nil, nil
	}
	switch s := sh.Screen().(type) {
	case *Screen:
		return s.Terminal, s.Bells
	case *vt.Terminal:
		return s, nil
	}
	return nil, nil
}
