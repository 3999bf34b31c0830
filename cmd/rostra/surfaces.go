// surfaces.go hands the engine its two surfaces: it adapts the panes
// processes (pty and wrapper) to engine.Surface and engine.Handle, so the
// engine needs no pty library and panes needs no engine. Each attempt's
// screen is its own emulator, made by panes; a UI run only hands panes
// the run's vt.Activity, and the UI reads the screens through the handles.
package main

import (
	"errors"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
)

// surfaces are the engine's surfaces of a headless run: every attempt
// still has its own emulator (panes makes it), so agents that ask for the
// cursor position get an answer.
func surfaces(open panes.PTYOpener) map[runfile.SurfaceKind]engine.Surface {
	return surfacesWith(open, nil)
}

// surfacesWith is surfaces for a run a UI draws: every attempt's emulator
// belongs to act, so its output wakes the UIs listening and its child is
// told the outer terminal's colours.
func surfacesWith(open panes.PTYOpener, act *vt.Activity) map[runfile.SurfaceKind]engine.Surface {
	return map[runfile.SurfaceKind]engine.Surface{
		runfile.SurfacePane:    paneSurface{opts: panes.PTYOptions{Open: open, Activity: act}},
		runfile.SurfaceWrapper: wrapperSurface{opts: panes.WrapperOptions{Activity: act}},
	}
}

type paneSurface struct{ opts panes.PTYOptions }

func (s paneSurface) Open(l engine.LaunchSpec) (engine.Handle, error) {
	p, err := panes.StartPTY(toLaunch(l), s.opts)
	if err != nil {
		return nil, openError(err)
	}
	return ptyHandle{p}, nil
}

type wrapperSurface struct{ opts panes.WrapperOptions }

func (s wrapperSurface) Open(l engine.LaunchSpec) (engine.Handle, error) {
	p, err := panes.StartWrapper(toLaunch(l), s.opts)
	if err != nil {
		return nil, openError(err)
	}
	return wrapperHandle{p}, nil
}

// The handles are the panes processes with Exit converted; the UI reaches
// Write, Resize and Screen through them.
type ptyHandle struct{ *panes.PTYProcess }

// A pane types a `delivery: type` prompt itself and says how.
var _ engine.PromptDelivered = ptyHandle{}

// The engine is told of an attempt's end without a goroutine waiting on it.
var (
	_ engine.DoneNotifier = ptyHandle{}
	_ engine.DoneNotifier = wrapperHandle{}
)

func (h ptyHandle) Exit() engine.ExitStatus { return toExit(h.PTYProcess.Exit()) }
func (h ptyHandle) Containment() string     { return string(h.PTYProcess.Containment()) }

type wrapperHandle struct{ *panes.WrapperProcess }

func (h wrapperHandle) Exit() engine.ExitStatus { return toExit(h.WrapperProcess.Exit()) }
func (h wrapperHandle) Containment() string     { return string(h.WrapperProcess.Containment()) }

// openError is a start's error as the engine reads it: a sandbox that
// could not be made is an *engine.SandboxFailed.
func openError(err error) error {
	var se *panes.SandboxError
	if errors.As(err, &se) {
		return &engine.SandboxFailed{Err: err}
	}
	return err
}

// checkSandbox refuses, at validation, a plan with a worker that must be
// sandboxed on a kernel that cannot sandbox (docs/runfile.md, "Sandbox").
func checkSandbox(plan *runfile.Plan) error {
	return plan.CheckSandbox(func() error {
		_, err := panes.LandlockABI()
		return err
	})
}

func toLaunch(l engine.LaunchSpec) panes.Launch {
	var sb *panes.Sandbox
	if l.Sandbox != nil {
		sb = &panes.Sandbox{Writable: l.Sandbox.Writable, WritableFiles: l.Sandbox.WritableFiles, TempDir: l.Sandbox.TempDir}
	}
	return panes.Launch{
		Sandbox:        sb,
		Argv:           l.Argv,
		Dir:            l.Dir,
		Env:            l.Env,
		EnvSet:         l.EnvSet,
		OutputLog:      l.OutputLog,
		Log:            l.Output,
		Stdin:          l.Stdin,
		TypePrompt:     l.TypePrompt,
		TypeQuiet:      l.TypeQuiet,
		TypeAwaitAgent: l.TypeAwaitAgent,
		PromptFile:     l.PromptFile,
		StopGrace:      l.StopGrace,
		Cols:           l.Cols,
		Rows:           l.Rows,
		OnNotify:       onNotify(l.OnNotification),
		OnAgentState:   onAgentState(l.OnProgramStatus),
		OnTitle:        l.OnTitle,
	}
}

// A pane's screen is matched against its agent's screen rules.
var _ engine.AgentScreen = ptyHandle{}

// ScreenRows are the visible rows of the pane's screen, as text.
func (h ptyHandle) ScreenRows() []string {
	t, ok := h.Screen().(*vt.Terminal)
	if !ok {
		return nil
	}
	return strings.Split(strings.TrimRight(t.Text(false), "\n"), "\n")
}

// Bells counts the bells the pane's child rang.
func (h ptyHandle) Bells() int64 {
	if t, ok := h.Screen().(*vt.Terminal); ok {
		return t.Bells()
	}
	return 0
}

// onNotify and onAgentState hand the engine, as plain strings, what a
// pane's emulator parsed (docs/agents.md); nil when the engine listens
// to none.
func onNotify(f func(title, body string)) func(vt.Notification) {
	if f == nil {
		return nil
	}
	return func(n vt.Notification) { f(n.Title, n.Body) }
}

func onAgentState(f func(state, kind, msg string)) func(vt.AgentState) {
	if f == nil {
		return nil
	}
	return func(s vt.AgentState) { f(s.State, s.Kind, s.Msg) }
}

// toExit names a signal the way people write it (SIGKILL), not the way
// Go prints it ("killed").
func toExit(e panes.Exit) engine.ExitStatus {
	st := engine.ExitStatus{Code: e.Code, Signal: e.Signal}
	if e.Signal == "" {
		return st
	}
	for s := syscall.Signal(1); s < 65; s++ {
		if s.String() == e.Signal {
			if name := unix.SignalName(s); name != "" {
				st.Signal = name
			}
			break
		}
	}
	return st
}

// A pane types a worker's queued prompts (docs/agents.md §A queue of prompts).
var _ engine.LineTyper = ptyHandle{}
