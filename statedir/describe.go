// describe.go words an event the way a person reads it in a log, for the
// headless output and the UI's event log alike. A degradation reads exactly
// as docs/internals.md's headless line (§Choices rostra makes).
package statedir

import (
	"fmt"
	"strings"

	"github.com/rostra-dev/rostra/runfile"
)

// Describe is ev as one line of text, without its time:
// "claude-implementer#1 failed: exited with code 2". role is the worker's
// role (for the DEGRADED line), stateDir the run's state dir.
func (ev Event) Describe(role, stateDir string) string {
	id := ev.WorkerID
	if ev.Attempt > 0 {
		id = runfile.DispatchID(ev.WorkerID, ev.Attempt)
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
	case EventWorktreeBase, EventWorktreeArchived:
		return "worktrees: " + ev.Reason
	case EventWorkspaceDirty:
		return "warning: " + ev.Reason
	case EventAgentState:
		msg = fmt.Sprintf("%s %s (%s)", id, ev.AgentState, ev.AgentStateSource)
	case EventAgentHookIgnored:
		msg = fmt.Sprintf("%s hook %s ignored", id, ev.Hook)
	case EventAgentHooksUnavailable:
		msg = id + " runs without rostra's hooks"
	case EventNotified:
		msg = fmt.Sprintf("%s notified (%s %s)", id, ev.Notify, ev.AgentState)
		if ev.Clients != nil {
			msg += fmt.Sprintf(" to %d client(s)", *ev.Clients)
		}
		if ev.Via != "" {
			msg += " by " + ev.Via
		}
		if ev.Quiet > 0 {
			msg += fmt.Sprintf(", %d typing into it", ev.Quiet)
		}
	case EventNotifyFailed:
		msg = id + " notify.command failed"
	case EventPromptQueued:
		msg = fmt.Sprintf("%s prompt %d queued (%d queued)", id, ev.PromptID, ev.Queued)
	case EventPromptSent:
		msg = fmt.Sprintf("%s prompt %d typed (%s; %d queued)", id, ev.PromptID, ev.Delivery, ev.Queued)
	case EventPromptRemoved:
		msg = fmt.Sprintf("%s prompt %d removed unsent (%d queued)", id, ev.PromptID, ev.Queued)
	case EventWorktreeCommitted:
		msg = fmt.Sprintf("%s work committed on %s as %s", id, ev.Branch, ShortCommit(ev.Commit))
	default:
		if words, ok := attemptWords[ev.Type]; ok {
			msg = id + " " + words
		} else {
			msg = strings.TrimSpace(ev.Type + " " + id)
		}
	}
	if ev.Reason != "" {
		msg += ": " + ev.Reason
	}
	return msg
}

// attemptWords is what follows the attempt's id in the line of an event
// that says no more than that (and its reason, after a colon).
var attemptWords = map[string]string{
	EventWorkerCompleted:   "completed",
	EventWorkerFailed:      "failed",
	EventWorkerTimeout:     "timed out",
	EventWorkerCancelled:   "cancelled",
	EventWorkerWatchFailed: "cannot watch its completion files",
	EventWorktreeFailed:    "worktree",
	EventRepositoryChanged: "changed the repository",
	EventWorktreeRemoved:   "worktree removed",
	EventWorktreeKept:      "worktree kept",
}

// ShortCommit is a commit as events and reports show it: its first 12 hex digits.
func ShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
