// source.go holds what the UI reads and drives, as small interfaces so the
// model can be tested with fixed terminals and snapshots and no process:
// the Engine (plan, snapshots, manual controls, each worker's attempt
// handle) and the attempt handles' optional abilities (a screen, keys, a
// size).
//
// A pane's screen is its own (panes makes a vt.Terminal for every attempt,
// with the run's vt.Activity): the UI reads its cells, modes, generation
// and bell count through the handle, and learns of new output from the
// Activity's wake-ups (Options.Activity), never by sitting in the output's
// path.
package tui

import (
	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// Engine is the part of *engine.Engine the UI uses.
type Engine interface {
	Plan() *runfile.Plan
	Snapshot() statedir.TeamState
	Handle(worker string) (engine.Handle, int)
	Retry(worker string) error
	Cancel(worker string) error
	// Diff and Merge review an isolated worker's branch (git runs in the
	// engine, not in the UI).
	Diff(worker string, color bool) ([]byte, workspace.DiffInfo, error)
	// Merge's pin is the commit the person reviewed ("" for none): the
	// merge is refused when the branch moved since.
	Merge(worker, pin string) (workspace.MergeResult, error)
}

// Events is the engine's event queue (*engine.Subscription).
type Events interface {
	Next() (statedir.Event, bool)
}

// The abilities the UI looks for on an attempt handle. The pane surface's
// handle has all three; the wrapper's has no keys worth sending (its child
// reads no terminal), so the UI only types into handles on the pane surface.
type (
	screenHandle interface{ Screen() vt.Screen }
	keyHandle    interface{ Write([]byte) (int, error) }
	resizeHandle interface{ Resize(cols, rows int) error }
)

// TerminalOf is the emulator behind an attempt's handle, nil when it has
// none (a rostra server reads a worker's screen and modes through it).
func TerminalOf(h engine.Handle) *vt.Terminal {
	sh, ok := h.(screenHandle)
	if !ok {
		return nil
	}
	t, _ := sh.Screen().(*vt.Terminal)
	return t
}
