// describe.go words an event the way a person reads it in a log, for the
// headless output and the UI's event log alike. A degradation reads exactly
// as SPEC §4.1's headless line.
package engine

import (
	"fmt"
	"strings"
)

// Describe is ev as one line of text, without its time:
// "claude-implementer#1 failed: exited with code 2". role is the worker's
// role (for the DEGRADED line), stateDir the run's state dir.
func (ev Event) Describe(role, stateDir string) string {
	id := ev.WorkerID
	if ev.Attempt > 0 {
		id = DispatchID(ev.WorkerID, ev.Attempt)
	}
	var msg string
	switch ev.Type {
	case EventWorkerDegraded:
		return fmt.Sprintf("DEGRADED %s: %s -> %s (%s)", role, ev.From, ev.To, ev.Reason)
	case EventRunStarted:
		return "run started, state in " + stateDir
	case EventWorkerDispatched:
		msg = fmt.Sprintf("%s started on %s", id, ev.Surface)
		switch {
		case ev.Pid > 0 && ev.Manual:
			msg += fmt.Sprintf(" (pid %d, manual)", ev.Pid)
		case ev.Pid > 0:
			msg += fmt.Sprintf(" (pid %d)", ev.Pid)
		case ev.Manual:
			msg += " (manual)"
		}
		return msg
	case EventWorkerRetry:
		if ev.Manual {
			return ev.WorkerID + " retried by hand"
		}
		return ev.WorkerID + " will retry: " + ev.Reason
	case EventWorkerRosterNotUpdated:
		return id + " " + ev.Reason
	case EventWorkerPromptDelivered:
		return fmt.Sprintf("%s prompt delivered (%s)", id, ev.Delivery)
	case EventRunFinished:
		return "run finished: " + ev.Reason
	case EventRunInterrupted:
		return "run interrupted: " + ev.Reason
	case EventWorkerCompleted:
		msg = id + " completed"
	case EventWorkerFailed:
		msg = id + " failed"
	case EventWorkerTimeout:
		msg = id + " timed out"
	case EventWorkerCancelled:
		msg = id + " cancelled"
	case EventWorkerWatchFailed:
		msg = id + " cannot watch its completion files"
	case EventWorktreeBase:
		return "worktrees: " + ev.Reason
	case EventWorkspaceDirty:
		return "warning: " + ev.Reason
	case EventWorktreeArchived:
		return "worktrees: " + ev.Reason
	case EventWorktreeCommitted:
		msg = fmt.Sprintf("%s work committed on %s as %s", id, ev.Branch, shortCommit(ev.Commit))
	case EventWorktreeFailed:
		msg = id + " worktree"
	case EventWorktreeRemoved:
		msg = id + " worktree removed"
	case EventWorktreeKept:
		msg = id + " worktree kept"
	default:
		msg = strings.TrimSpace(ev.Type + " " + id)
	}
	if ev.Reason != "" {
		msg += ": " + ev.Reason
	}
	return msg
}
