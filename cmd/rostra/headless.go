// headless.go prints the engine's events one line each, for a run without
// the UI. A degradation prints exactly the line SPEC §4.1 fixes:
// `DEGRADED <role>: <from> -> <to> (<reason>)`.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/rostra-dev/rostra/engine"
)

type eventPrinter struct {
	w      io.Writer
	plan   *engine.Plan
	roles  map[string]string
	failed bool // a write failed (stdout closed): print no more
}

func newEventPrinter(plan *engine.Plan, w io.Writer) *eventPrinter {
	roles := map[string]string{}
	for _, wk := range plan.Workers {
		roles[wk.ID] = wk.Role
	}
	return &eventPrinter{w: w, plan: plan, roles: roles}
}

// print writes ev's line. The first failed write is returned; after it
// nothing more is written, since a closed stdout stays closed.
func (p *eventPrinter) print(ev engine.Event) error {
	if p.failed {
		return nil
	}
	if line := formatEvent(ev, p.roles[ev.WorkerID], p.plan.StateDir); line != "" {
		if _, err := fmt.Fprintln(p.w, line); err != nil {
			p.failed = true
			return err
		}
	}
	return nil
}

// formatEvent is one event as a line of the headless log: its time, then
// what happened; a degradation is the bare DEGRADED line.
func formatEvent(ev engine.Event, role, stateDir string) string {
	line := ev.Describe(role, stateDir)
	if ev.Type == engine.EventWorkerDegraded {
		return line
	}
	return ev.TS.Local().Format(time.TimeOnly) + "  " + line
}
