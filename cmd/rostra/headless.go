// headless.go prints the engine's events one line each, for a run without
// the UI (on stdout) and a run's server (in server.log). A degradation
// prints exactly the line docs/internals.md fixes:
// `DEGRADED <role>: <from> -> <to> (<reason>)`. Each line is printable:
// its control characters escaped (docs/design.md, "Nothing raw reaches a
// terminal").
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// printEvents prints the events of sub to w, one line each, until sub is
// closed; the channel it returns closes once the last line is written.
// The first failed write is handed to failed (nil: dropped) and nothing
// more is written, since a closed stdout stays closed.
func printEvents(plan *runfile.Plan, sub *engine.Subscription, w io.Writer, failed func(error)) <-chan struct{} {
	roles := map[string]string{}
	for _, wk := range plan.Workers {
		roles[wk.ID] = wk.Role
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		broken := false
		for {
			ev, ok := sub.Next()
			if !ok {
				return
			}
			line := formatEvent(ev, roles[ev.WorkerID], plan.StateDir)
			if broken || line == "" {
				continue
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				broken = true
				if failed != nil {
					failed(err)
				}
			}
		}
	}()
	return done
}

// formatEvent is one event as a line of the headless log: its time, then
// what happened; a degradation is the bare DEGRADED line. A reason may
// name a file a worker made, escape sequences and all: they are escaped.
func formatEvent(ev statedir.Event, role, stateDir string) string {
	line := printable.String(ev.Describe(role, stateDir))
	if ev.Type == statedir.EventWorkerDegraded {
		return line
	}
	return ev.TS.Local().Format(time.TimeOnly) + "  " + line
}
