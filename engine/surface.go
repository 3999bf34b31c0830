// surface.go declares what the engine needs from the places attempts run:
// a Surface that opens an attempt or says why it cannot, and the Handle of a
// started attempt. cmd/rostra hands the engine the panes implementations;
// tests hand it fakes, so no engine rule needs a process.
package engine

import (
	"io"
	"io/fs"
	"syscall"
	"time"
)

// LaunchSpec is everything a surface needs to start one attempt.
type LaunchSpec struct {
	DispatchID string
	Worker     string
	Attempt    int
	Argv       []string
	Dir        string   // absolute working directory
	Env        []string // the complete environment, KEY=value
	// EnvSet names the keys of Env the worker's run-file env sets; a
	// surface's own defaults (a pane's TERM) never override them.
	EnvSet    []string
	OutputLog string // output.log's path, for a surface not given Output
	// Output, when set, is output.log as the engine opened it: the surface
	// writes every byte the child writes to it and closes it once the
	// attempt is over. A surface that fails to start leaves it open (the
	// next surface of the chain is given it).
	Output OutputFile
	// Stdin, when not nil, is written to the child's stdin, which is then
	// closed (prompt delivery `type` on the wrapper surface).
	Stdin []byte
	// TypePrompt, when not nil, is typed into a pane once its output has been
	// quiet for TypeQuiet (prompt delivery `type` on the pane surface).
	TypePrompt []byte
	TypeQuiet  time.Duration
	// TypeAwaitAgent: the typing waits also for the agent's own word that
	// it waits for input (AgentReadier, typeready.go).
	TypeAwaitAgent bool
	// PromptFile is the attempt's prompt.txt, which a pane types in the
	// prompt's place when the child could not take it as keys.
	PromptFile string
	// Cols and Rows size a pane's terminal (the wrapper ignores them).
	Cols, Rows int
	// StopGrace bounds how long the surface waits, after the child exited,
	// for descendants that still hold its output open before it stops them.
	StopGrace time.Duration
	// Sandbox, when not nil, is what the attempt's processes may write
	// (sandbox.go); a surface that cannot apply it fails the Open with a
	// *SandboxFailed.
	Sandbox *SandboxSpec
	// OnProgramStatus and OnNotification, when set, are called by a pane's
	// emulator with each program status the child writes (OSC 7501: its
	// state, kind and decoded message) and each desktop notification it
	// asks for (OSC 9, 777, 99); they must not block (docs/agents.md).
	OnProgramStatus func(state, kind, msg string)
	OnNotification  func(title, body string)
	// OnTitle, when set, is called with each title the child sets (OSC 0/2),
	// which some screen rules read.
	OnTitle func(title string)
}

// OutputFile is an attempt's output.log as the engine opened it: written to
// and closed by the surface, which may read back what it wrote.
type OutputFile interface {
	io.WriteCloser
	io.ReaderAt
	Stat() (fs.FileInfo, error)
}

// Surface opens attempts on one kind of surface. Open's error is the reason
// the surface is unavailable, as a human should read it ("open pty: ...").
type Surface interface {
	Open(LaunchSpec) (Handle, error)
}

// ExitStatus is how an attempt's process ended.
type ExitStatus struct {
	Code int // exit code; -1 when killed by a signal
	// Signal is the signal's name as people write it ("SIGKILL",
	// "SIGTERM") when one killed the process, "" when it exited; a surface
	// that cannot tell which signal says "unknown".
	Signal string
}

// Handle is a started attempt.
type Handle interface {
	Pid() int
	// Done is closed when the process has exited and its output has been
	// read to the end (or cut off after StopGrace when a descendant holds it).
	Done() <-chan struct{}
	// Exit is valid once Done is closed.
	Exit() ExitStatus
	// Signal sends sig to the attempt's whole process group (and to the
	// descendants that left it, where the surface can find them).
	Signal(sig syscall.Signal) error
	// OutputBytes counts the bytes read from the child so far.
	OutputBytes() int64
	// NotifyOutput calls f once, from the surface's reader, when output is
	// read after the call (a later call replaces f). f must not block.
	NotifyOutput(f func())
	// Lingering reports, after Done, whether any process of the attempt is
	// left (a daemonised grandchild, say) that must still be stopped.
	Lingering() bool
	// Containment is how the attempt's processes are held together, one of
	// the Containment* values of statedir/state.go.
	Containment() string
	// Close kills what is left of the attempt (SIGKILL), reaps it and
	// releases the surface's resources; call it after Done. It may wait.
	Close() error
}

// DoneNotifier is what a Handle may also do: call f once, when Done is
// closed (from the goroutine closing it, or at once), so the engine keeps
// no goroutine waiting on each attempt
// (docs/performance.md §Memory of a quiet pane). f does not block.
type DoneNotifier interface {
	OnDone(f func())
}

// PromptDelivered is what a Handle may also do when it types the prompt
// itself (delivery `type` on a pane): the channel receives how the prompt
// went in ("paste", "keys" or "file") once it has, and is closed without a value
// when the attempt ended first. The engine records it as an event.
type PromptDelivered interface {
	PromptDelivered() <-chan string
}
