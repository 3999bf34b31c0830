// reconcile.go is what `rostra run --resume` believes when team-state.json
// lags behind the run (docs/state.md §A full disk): a rostra that could not write
// its last state (or died before the batch was saved) left attempts
// `running` whose outcome it had already decided. Before those rows are
// called interrupted, the other records are read, most trusted first:
//
//  1. events.jsonl: a worker-completed, -failed, -timeout or -cancelled
//     line for the attempt is its outcome, exactly as the engine decided it
//     (status, reason, failure class, exit code, time);
//  2. the attempt's completion files: when none of its events survived but
//     its result and paths are in the workspace, the attempt is completed,
//     as settlement would have found it.
//
// Each row settled this way says which record it came from, and the notes
// are returned for the resume to print and log (state-reconciled).
package engine

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// EventStateReconciled is appended when a resume settled rows from
// events.jsonl or completion files.
const EventStateReconciled = "state-reconciled"

// reconcileUnsettled settles st's `running` dispatch rows from events.jsonl
// and the completion files, and returns one note per row it settled.
func reconcileUnsettled(plan *runfile.Plan, st *statedir.TeamState, now time.Time) []string {
	// A corrupt line stops the reading there; what came before still counts.
	events, _ := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
	settledBy := map[string]statedir.Event{}
	for _, ev := range events {
		switch ev.Type {
		case statedir.EventWorkerCompleted, statedir.EventWorkerFailed, statedir.EventWorkerTimeout, statedir.EventWorkerCancelled:
			settledBy[runfile.DispatchID(ev.WorkerID, ev.Attempt)] = ev
		}
	}
	specs := map[string]*runfile.WorkerSpec{}
	for i := range plan.Workers {
		specs[plan.Workers[i].ID] = &plan.Workers[i]
	}
	var notes []string
	for i := range st.Dispatches {
		d := &st.Dispatches[i]
		if d.Status != statedir.StatusRunning {
			continue
		}
		var note string
		if ev, ok := settledBy[d.DispatchID]; ok {
			d.Status, d.Reason, d.FailureClass = ev.Status, ev.Reason, ev.FailureClass
			if ev.ExitCode != nil {
				d.ExitCode = ev.ExitCode
			}
			ended := ev.TS
			d.EndedAt = &ended
			note = fmt.Sprintf("%s settled %s from %s (%s could not record it)", d.DispatchID, ev.Status, statedir.EventsFile, statedir.TeamStateFile)
		} else if spec := specs[d.WorkerID]; spec != nil {
			ap, err := plan.Expand(spec, d.Attempt)
			if err != nil || !ap.ExpectsFiles() || !CheckCompletion(&ap).Satisfied {
				continue
			}
			ended := now.UTC()
			d.Status, d.Reason, d.FailureClass, d.EndedAt = statedir.StatusCompleted, "", "", &ended
			note = fmt.Sprintf("%s settled completed from its completion files (no outcome in %s or %s)", d.DispatchID, statedir.EventsFile, statedir.TeamStateFile)
		} else {
			continue
		}
		d.Reason = joinReason(d.Reason, "on resume: "+note)
		notes = append(notes, note)
		// The roster row follows its worker's last attempt.
		for j := range st.Workers {
			w := &st.Workers[j]
			if w.WorkerID == d.WorkerID && w.Attempts == d.Attempt {
				w.Status, w.Reason = d.Status, d.Reason
				if d.Status == statedir.StatusCompleted {
					rosterRow := runfile.AttemptPlan{Workspace: plan.Workspace, Result: w.ResultPath}
					if spec := specs[d.WorkerID]; spec != nil {
						rosterRow.Workspace = plan.WorkspaceOf(spec)
						if first, err := plan.Expand(spec, 1); err == nil {
							rosterRow.Aliases = first.Aliases
						}
					}
					if err := ResultPresent(&rosterRow); err != nil {
						w.Status, w.Reason = statedir.StatusError, "roster not updated: "+err.Error()
					}
				}
			}
		}
	}
	if len(notes) > 0 {
		if log, err := statedir.OpenEventLog(filepath.Join(plan.StateDir, statedir.EventsFile)); err == nil {
			for _, n := range notes {
				_ = log.Append(statedir.Event{TS: now.UTC(), Type: EventStateReconciled, Reason: n})
			}
			_ = log.Close()
		}
	}
	return notes
}
