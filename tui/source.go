// source.go holds what the UI reads and drives, as small interfaces so the
// model can be tested with fixed terminals and snapshots and no process:
// the Engine (plan, snapshots, manual controls, each worker's attempt
// handle), the attempt handles' optional abilities (a screen, keys, a size),
// and Screen, the emulator wrapper cmd/rostra gives every UI-run attempt so
// the UI learns of new output and bells without polling.
//
// Data model: one Activity per program; every Screen it makes shares its
// wake channel (capacity 1: any number of writes between two frames coalesce
// into one wake-up) and counts its own bells. The pty reader only does a
// non-blocking send, so it never waits on the UI.
package tui

import (
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

// Activity tells the UI that some pane has new output.
type Activity struct {
	wake chan struct{}
}

// NewActivity returns an Activity with nothing pending.
func NewActivity() *Activity { return &Activity{wake: make(chan struct{}, 1)} }

func (a *Activity) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// NewScreen is a panes.PTYOptions/WrapperOptions NewScreen: an emulator that
// answers the child's queries through reply, counts bells and wakes the UI.
func (a *Activity) NewScreen(cols, rows int, reply func([]byte)) vt.Screen {
	s := &Screen{act: a}
	s.Terminal = vt.New(cols, rows, vt.Options{OnReply: reply, OnBell: func() { s.bells.Add(1) }})
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

// emulatorOf finds the Term behind a handle, if it has one.
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
