// headless.go prints the engine's events one line each, for a run without
// the UI. A degradation prints exactly the line SPEC §4.1 fixes:
// `DEGRADED <role>: <from> -> <to> (<reason>)`.
package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/engine"
)

type eventPrinter struct {
	w     io.Writer
	plan  *engine.Plan
	roles map[string]string
}

func newEventPrinter(plan *engine.Plan, w io.Writer) *eventPrinter {
	roles := map[string]string{}
	for _, wk := range plan.Workers {
		roles[wk.ID] = wk.Role
	}
	return &eventPrinter{w: w, plan: plan, roles: roles}
}

func (p *eventPrinter) print(ev engine.Event) {
	if line := formatEvent(ev, p.roles[ev.WorkerID], p.plan.StateDir); line != "" {
		fmt.Fprintln(p.w, line)
	}
}

// formatEvent is one event as a line a person reads in a log.
func formatEvent(ev engine.Event, role, stateDir string) string {
	if ev.Type == engine.EventWorkerDegraded {
		return fmt.Sprintf("DEGRADED %s: %s -> %s (%s)", role, ev.From, ev.To, ev.Reason)
	}
	at := ev.TS.Local().Format(time.TimeOnly)
	id := ev.WorkerID
	if ev.Attempt > 0 {
		id = engine.DispatchID(ev.WorkerID, ev.Attempt)
	}
	var msg string
	switch ev.Type {
	case engine.EventRunStarted:
		msg = "run started, state in " + stateDir
	case engine.EventWorkerDispatched:
		msg = fmt.Sprintf("%s started on %s (pid %d)", id, ev.Surface, ev.Pid)
		if ev.Manual {
			msg += ", manual"
		}
	case engine.EventWorkerCompleted:
		msg = id + " completed"
	case engine.EventWorkerFailed:
		msg = id + " failed"
	case engine.EventWorkerTimeout:
		msg = id + " timed out"
	case engine.EventWorkerCancelled:
		msg = id + " cancelled"
	case engine.EventWorkerRetry:
		if ev.Manual {
			msg = ev.WorkerID + " retried by hand"
		} else {
			msg = ev.WorkerID + " will retry: " + ev.Reason
		}
		return at + "  " + msg
	case engine.EventWorkerRosterNotUpdated:
		msg = id + " " + ev.Reason
		return at + "  " + msg
	case engine.EventWorkerPromptDelivered:
		msg = fmt.Sprintf("%s prompt delivered (%s)", id, ev.Delivery)
	case engine.EventRunFinished:
		msg = "run finished: " + ev.Reason
		return at + "  " + msg
	case engine.EventRunInterrupted:
		msg = "run interrupted: " + ev.Reason
		return at + "  " + msg
	default:
		msg = strings.TrimSpace(ev.Type + " " + id)
	}
	if ev.Reason != "" {
		msg += ": " + ev.Reason
	}
	return at + "  " + msg
}
