// state.go holds the structs rostra saves (docs/state.md): team-state.json with
// its roster and dispatch rows, the lines of events.jsonl and each attempt's
// status.json. They carry string enums and no UI fields; the JSON keys are a
// contract that scripts read.
package statedir

import (
	"fmt"
	"time"

	"github.com/rostra-dev/rostra/runfile"
)

// Statuses of roster and dispatch rows.
const (
	StatusPending   = "pending"   // not dispatched yet
	StatusRunning   = "running"   // an attempt is open
	StatusRetrying  = "retrying"  // waiting out retry_backoff before the next attempt
	StatusCompleted = "completed" // completion satisfied
	StatusError     = "error"
	StatusTimeout   = "timeout"
	StatusCancelled = "cancelled"
)

// Unsettled reports whether a worker of this status is not done yet: not
// dispatched, an attempt open, or a retry pending. A run finishes when no
// worker is unsettled.
func Unsettled(status string) bool {
	return status == StatusPending || status == StatusRunning || status == StatusRetrying
}

// Run statuses in team-state.json.
const (
	RunRunning     = "running"
	RunFinished    = "finished"
	RunInterrupted = "interrupted" // rostra stopped (quit or signal) before every worker finished
)

// TeamState is team-state.json.
type TeamState struct {
	Version   int    `json:"version"`
	Run       string `json:"run"`
	RunFile   string `json:"runFile"`
	Workspace string `json:"workspace"`
	StateDir  string `json:"stateDir"`
	Status    string `json:"status"`
	Pid       int    `json:"pid"` // the rostra that drives (or drove) the run
	// PidStart tells that rostra apart from a later process given the same
	// pid: ProcessStart's "<start ticks>@<boot id>".
	PidStart   string        `json:"pidStart,omitempty"`
	StartedAt  time.Time     `json:"startedAt"`
	EndedAt    *time.Time    `json:"endedAt,omitempty"`
	Workers    []WorkerRow   `json:"workers"`
	Dispatches []DispatchRow `json:"dispatches"`
	// GitFiles digests, for a run with isolated workers, the shared
	// repository's config and its hooks/ and info/ files as the run found
	// them: `rostra merge` refuses when they changed (docs/isolation.md).
	GitFiles map[string]string `json:"gitFiles,omitempty"`
	// GitFilesAtEnd digests the same files as the run's end found them,
	// once its workers were gone: merge judges the run's window, start
	// to end, and leaves what changed afterwards to the user.
	GitFilesAtEnd map[string]string `json:"gitFilesAtEnd,omitempty"`
}

// WorkerRow is a roster row: the state of one worker across its attempts.
type WorkerRow struct {
	WorkerID   string `json:"workerId"`
	Role       string `json:"role"`
	Provider   string `json:"provider"`
	Status     string `json:"status"`
	ResultPath string `json:"resultPath"`
	Attempts   int    `json:"attempts"`
	Reason     string `json:"reason"`
	// Command is the command template the run resolved for this worker; a
	// resumed run uses it rather than re-reading a changed run file.
	Command []string `json:"command"`
	// Isolation is IsolationWorktree for a worker in a worktree of its
	// own; the fields after it are set only then.
	Isolation string `json:"isolation,omitempty"`
	// Worktree is the worker's git worktree, "" once it was removed at the
	// end of the run (merged or empty); Branch is checked out there.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// BaseCommit is the commit the branch was made from: the workspace's
	// HEAD when the run started. A resumed run keeps it.
	BaseCommit string `json:"baseCommit,omitempty"`
	// DiffStat is what the worktree holds beyond the base commit, committed
	// or not, as last measured.
	DiffStat DiffStat `json:"diffStat,omitzero"`
	// WorktreeOutcome says, once the run has ended, what became of the
	// worktree: WorktreeKept, WorktreeRemovedMerged or WorktreeRemovedEmpty.
	WorktreeOutcome string `json:"worktreeOutcome,omitempty"`
	// Host is the host the worker runs on (runfile.HostSpec's name); ""
	// for this machine. A remote row is the remote part's row, copied.
	Host string `json:"host,omitempty"`
}

// DiffStat is a diff's size: `+12 −3, 4 files`.
type DiffStat struct {
	Files     int `json:"files"`
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
}

// String is the diff-stat as a pane title shows it: "+12 −3, 4 files".
func (s DiffStat) String() string {
	files := "files"
	if s.Files == 1 {
		files = "file"
	}
	return fmt.Sprintf("+%d −%d, %d %s", s.Additions, s.Deletions, s.Files, files)
}

// What became of an isolated worker's worktree when the run ended.
const (
	WorktreeKept          = "kept"           // its branch holds work not merged into the workspace
	WorktreeRemovedMerged = "removed-merged" // its branch is merged into the workspace's HEAD
	WorktreeRemovedEmpty  = "removed-empty"  // its branch holds nothing beyond the base commit
)

// DispatchRow is one attempt.
type DispatchRow struct {
	DispatchID     string              `json:"dispatchId"`
	WorkerID       string              `json:"workerId"`
	Attempt        int                 `json:"attempt"`
	Surface        runfile.SurfaceKind `json:"surface"`
	DegradedFrom   runfile.SurfaceKind `json:"degradedFrom"`
	DegradedReason string              `json:"degradedReason"`
	Status         string              `json:"status"`
	Reason         string              `json:"reason"`
	// FailureClass says, for an attempt that settled error, timeout or
	// cancelled, which kind of failure its Reason describes (Failure*).
	FailureClass string `json:"failureClass,omitempty"`
	ExitCode     *int   `json:"exitCode"`
	Timeout      bool   `json:"timeout"`
	Pid          int    `json:"pid"`
	// Containment is how the surface held the attempt's processes together
	// (Containment* below); "" for an attempt no surface opened.
	Containment       string     `json:"containment"`
	StartedAt         time.Time  `json:"startedAt"`
	EndedAt           *time.Time `json:"endedAt"`
	CompletionPaths   []string   `json:"completionPaths"`
	ResultAliases     []string   `json:"resultAliases"`
	StatusSidecarPath string     `json:"statusSidecarPath"`
	OutputLogPath     string     `json:"outputLogPath"`
	// OutputLogLostBytes counts the attempt's output that did not reach
	// output.log (a full disk): the log ends early by that much.
	OutputLogLostBytes int64    `json:"outputLogLostBytes,omitempty"`
	WritePolicy        []string `json:"writePolicy"`
	WritePolicyDigest  string   `json:"writePolicyDigest"`
	Manual             bool     `json:"manual"`
	// Isolation is where the attempt ran: IsolationNone (the shared
	// workspace) or IsolationWorktree, with the worktree, its branch and
	// the run's base commit.
	Isolation  string `json:"isolation,omitempty"`
	Worktree   string `json:"worktree,omitempty"`
	Branch     string `json:"branch,omitempty"`
	BaseCommit string `json:"baseCommit,omitempty"`
	// WorkCommit is the commit on Branch that holds what the attempt left
	// in its worktree; "" while it runs, and when it left nothing.
	WorkCommit string `json:"workCommit,omitempty"`
	// Sandbox is what the attempt ran with: runfile.SandboxWrites or
	// SandboxNone (docs/sandbox.md); SandboxDegradedReason is why one
	// planned with writes ran without (sandbox_fallback: none).
	Sandbox               string `json:"sandbox,omitempty"`
	SandboxDegradedReason string `json:"sandboxDegradedReason,omitempty"`
	// Agent is the agent CLI the attempt runs (docs/agents.md), "" for a
	// plain command, which has no agent state. AgentState is what the
	// agent is doing (agents.State: starting, working,
	// waiting-permission, waiting-input, exited), since when, from which
	// source (hook, notification, screen, bell, quiet, process) and on
	// what evidence (the hook's tool and argument, the screen line).
	Agent              string     `json:"agent,omitempty"`
	AgentState         string     `json:"agentState,omitempty"`
	AgentStateSince    *time.Time `json:"agentStateSince,omitempty"`
	AgentStateSource   string     `json:"agentStateSource,omitempty"`
	AgentStateEvidence string     `json:"agentStateEvidence,omitempty"`
	// AgentSession is the agent CLI's own conversation id, and
	// AgentSessionSource how rostra learnt it (Session* below), as soon
	// as it is known (docs/agents.md §Sessions).
	AgentSession       string `json:"agentSession,omitempty"`
	AgentSessionSource string `json:"agentSessionSource,omitempty"`
	// ResumedFrom is set on an attempt that continues the conversation of
	// one a crash cut off (docs/state.md §Resumed attempts); NotResumed
	// says why an attempt after such a crash started fresh instead.
	ResumedFrom *ResumedFrom `json:"resumedFrom,omitempty"`
	NotResumed  string       `json:"notResumed,omitempty"`
	// StopAsked is set when a human asked the attempt to end while it
	// ran (StopAsked*): a crash before it ended never resumes it.
	StopAsked string `json:"stopAsked,omitempty"`
}

// ResumedFrom names the attempt a resumed one continues, and its session.
type ResumedFrom struct {
	Attempt int    `json:"attempt"`
	Session string `json:"session"`
}

// How an attempt's agent session was learnt (DispatchRow.AgentSessionSource).
const (
	SessionGiven = "given" // rostra gave the CLI the id at start (--session-id)
	SessionHook  = "hook"  // a hook's payload carried it (session_id)
	SessionFiles = "files" // found in the CLI's own session files
)

// What a human asked of a running attempt (DispatchRow.StopAsked).
const (
	StopAskedRetry  = "retry"
	StopAskedCancel = "cancel"
)

// Containments a surface reports for an attempt (Handle.Containment): how
// sure rostra is that no process of the attempt outlives it.
const (
	// ContainmentCgroup: the attempt has a cgroup v2 of its own, emptied
	// with cgroup.kill; nothing escapes it, even when rostra is SIGKILLed.
	ContainmentCgroup = "cgroup"
	// ContainmentPIDNamespace: the attempt runs in a PID namespace of its
	// own whose init dies with rostra, taking every process inside with it.
	ContainmentPIDNamespace = "pid-namespace"
	// ContainmentTracking: processes are followed by group, session,
	// attempt token and ancestry (panes/process_linux.go says what escapes).
	ContainmentTracking = "tracking"
)

// Failure classes of a settled attempt (DispatchRow.FailureClass). Each is
// set where the reason is made, so readers (the report, the UI) never parse
// the reason's prose.
const (
	FailureTimeout        = "timeout"        // wall clock or idle timeout
	FailureNoResult       = "noResult"       // exited with the provider's no_result_exit_code
	FailureExitCode       = "exitCode"       // ended abnormally (code or signal) without its outputs
	FailureMissingOutputs = "missingOutputs" // ended without its completion files
	FailureWritePolicy    = "writePolicy"    // the write audit failed it
	FailureRepository     = "repository"     // it changed the shared repository outside its branch (docs/isolation.md)
	FailureCancelled      = "cancelled"      // a human, a manual retry, or rostra quitting
	FailureInterrupted    = "interrupted"    // the rostra that drove it died
	FailureNotStarted     = "notStarted"     // no process was started (no surface, bad attempt folder, ...)
	FailureOther          = "other"          // a row written without a class
)

// StatusSidecar is an attempt's status.json, written when it settles.
type StatusSidecar struct {
	ExitCode  *int                `json:"exitCode"`
	Signal    string              `json:"signal"`
	Timeout   bool                `json:"timeout"`
	Failure   string              `json:"failure"`
	Surface   runfile.SurfaceKind `json:"surface"`
	StartedAt time.Time           `json:"startedAt"`
	EndedAt   time.Time           `json:"endedAt"`
}

// Event types in events.jsonl.
const (
	EventRunStarted             = "run-started"
	EventWorkerDispatched       = "worker-dispatched"
	EventWorkerDegraded         = "worker-degraded"
	EventWorkerCompleted        = "worker-completed"
	EventWorkerFailed           = "worker-failed"
	EventWorkerTimeout          = "worker-timeout"
	EventWorkerRetry            = "worker-retry"
	EventWorkerCancelled        = "worker-cancelled"
	EventWorkerRosterNotUpdated = "worker-roster-not-updated"
	EventWorkerPromptDelivered  = "worker-prompt-delivered"
	EventWorkerWatchFailed      = "worker-watch-failed" // on-files: no file-system events, polling instead
	EventWorktreeBase           = "worktree-base"       // isolated workers branch from this commit
	EventWorkspaceDirty         = "workspace-dirty"     // uncommitted changes the worktrees do not have
	EventWorktreeArchived       = "worktree-archived"   // an earlier run's unmerged branch renamed aside
	EventWorktreeCommitted      = "worktree-committed"  // an attempt's work committed on its branch
	EventWorktreeFailed         = "worktree-failed"     // a git step on a worktree failed
	EventRepositoryChanged      = "repository-changed"  // an isolated attempt changed the shared repository: put back, kept in quarantine
	EventWorktreeRemoved        = "worktree-removed"    // at the run's end: merged or empty
	EventWorktreeKept           = "worktree-kept"       // at the run's end: unmerged work
	EventRunFinished            = "run-finished"
	EventRunInterrupted         = "run-interrupted"
	EventStateWriteFailed       = "state-write-failed"
	EventAgentState             = "agent-state"             // an attempt's agent state changed (AgentState, AgentStateSource, Reason: the evidence)
	EventAgentHookIgnored       = "agent-hook-ignored"      // a hook of an attempt that is not current (Reason says why)
	EventAgentHooksUnavailable  = "agent-hooks-unavailable" // an attempt's agent could not be given rostra's hooks (Reason says why)
	EventNotified               = "notified"                // the human was told of a worker (Notify, AgentState, Reason, Clients, Via, Quiet)
	EventNotifyFailed           = "notify-failed"           // notify.command could not be run or failed (Reason says how)
	EventPromptQueued           = "prompt-queued"           // a prompt was queued for a worker (PromptID, Prompt, Queued: the queue's length after)
	EventPromptSent             = "prompt-sent"             // a queued prompt was typed into the attempt's agent, waiting-input (Delivery: how)
	EventPromptRemoved          = "prompt-removed"          // a queued prompt was taken off the queue unsent (Reason: rm or clear)
	EventAgentSession           = "agent-session"           // an attempt's agent session became known (Session; Reason: how)
	EventAttemptResumed         = "attempt-resumed"         // an attempt continues a crashed one's conversation (Session; Reason names the attempt)
	EventAttemptNotResumed      = "attempt-not-resumed"     // an attempt after a crash starts fresh (Reason says why)
)

// Event is one line of events.jsonl, and what subscribers receive.
type Event struct {
	TS       time.Time           `json:"ts"`
	Type     string              `json:"type"`
	WorkerID string              `json:"workerId,omitempty"`
	Attempt  int                 `json:"attempt,omitempty"`
	Surface  runfile.SurfaceKind `json:"surface,omitempty"`
	From     runfile.SurfaceKind `json:"from,omitempty"`
	To       runfile.SurfaceKind `json:"to,omitempty"`
	Status   string              `json:"status,omitempty"`
	Reason   string              `json:"reason,omitempty"`
	// FailureClass is the settled attempt's class (a worker-failed,
	// -timeout or -cancelled event), as on its dispatch row.
	FailureClass string `json:"failureClass,omitempty"`
	ExitCode     *int   `json:"exitCode,omitempty"`
	Pid          int    `json:"pid,omitempty"`
	Manual       bool   `json:"manual,omitempty"`
	Delay        string `json:"delay,omitempty"`    // worker-retry: the backoff waited
	Delivery     string `json:"delivery,omitempty"` // worker-prompt-delivered: how
	Commit       string `json:"commit,omitempty"`   // worktree events: the commit
	Branch       string `json:"branch,omitempty"`   // worktree events: the branch
	// AgentState and AgentStateSource: an agent-state event's new state
	// and where it came from (its evidence is Reason); Hook names the
	// hook event of an agent-hook-ignored one.
	AgentState       string `json:"agentState,omitempty"`
	AgentStateSource string `json:"agentStateSource,omitempty"`
	Hook             string `json:"hook,omitempty"`
	// Notify, Clients, Via and Quiet: a notified event's kind, how many
	// attached clients were alerted, by which sequence each ("osc9,
	// bell"), and how many were not because the human types into that
	// worker's pane there (docs/agents.md §Notifications).
	Notify  string `json:"notify,omitempty"`
	Clients *int   `json:"clients,omitempty"`
	Via     string `json:"via,omitempty"`
	Quiet   int    `json:"quiet,omitempty"`
	// PromptID, Prompt and Queued: a prompt-… event's prompt (its number
	// in the worker's queue, its text cut to 200 bytes) and how many
	// prompts are queued after it (docs/state.md §queue/<worker>.json).
	PromptID int    `json:"promptId,omitempty"`
	Prompt   string `json:"prompt,omitempty"`
	Queued   int    `json:"queued,omitempty"`
	// Client: an ssh-session event's client (uiclient.go).
	Client *UIClient `json:"client,omitempty"`
	// Session is the agent session of an agent-session or
	// attempt-resumed event.
	Session string `json:"session,omitempty"`
}
