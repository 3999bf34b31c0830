// ui.go wires the terminal UI for `rostra run` and `rostra demo`: the
// engine starts over surfaces whose emulators (the panes' own, of one
// vt.Activity) wake the UI, the bubbletea
// program draws it, and on quit (or a stop signal, signals.go) every worker
// is stopped gracefully before rostra exits, so the state files are
// complete. It mirrors runHeadless: exit 0 when every worker completed, 1
// when some did not, 130 when the human quit while workers ran, 128+n when
// signal n stopped it (130 for SIGTERM).
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/tui"
)

// uiFPS is the server's frame rate for what is not drawn by the UI's own
// frames: a client's resizes and a many-runs client's Views (server.Config).
// The UI draws output at most 30 times a second itself, and the renderer
// flushes on change (tea.WithRenderOnChange, our patch in
// third_party/bubbletea) up to tui.RendererFPS: a key's echo is drawn at
// once, and an idle UI is never woken by a frame ticker.
const uiFPS = 30

// isTerminal reports whether w is a terminal (the UI needs one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// terminalSize is w's size in cells; 0, 0 when w is no terminal.
func terminalSize(w io.Writer) (cols, rows int) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		cols, rows, _ = term.GetSize(f.Fd())
	}
	return cols, rows
}

// uiOptions are the engine options of a run a UI draws, in this process
// or in its server: every attempt's emulator wakes the UIs (act), and an
// attempt opens at the size its pane is drawn at (sizes, laid out for a
// cols×rows terminal until a UI says otherwise).
func uiOptions(plan *runfile.Plan, cols, rows int) (opts engine.Options, act *vt.Activity, sizes *tui.PaneSizes) {
	act = vt.NewActivity()
	sizes = tui.NewPaneSizes(plan, cols, rows)
	return engine.Options{Surfaces: surfacesWith(nil, act), PaneSize: sizes.Get}, act, sizes
}

func runUI(plan *runfile.Plan, resume bool, stdout, stderr io.Writer) int {
	theme, noColor, colourOpts, err := uiColours(plan, stdout, os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return 2
	}
	width, height := terminalSize(stdout)
	opts, act, sizes := uiOptions(plan, width, height)
	eng, prep, code := startRun(plan, resume, stderr, opts, act)
	if eng == nil {
		return code
	}
	defer prep.Lock.Release()

	// Shutdown may be asked for by the UI (quit) and again here after it;
	// the engine's Shutdown must run once.
	var stopOnce sync.Once
	var stopErr error
	stop := func() error {
		stopOnce.Do(func() { stopErr = eng.Shutdown() })
		return stopErr
	}

	sub := eng.Subscribe()
	defer sub.Close()
	defer trimMemory(eng)()
	if err := eng.Start(); err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		_ = stop()
		return 1
	}
	m := tui.New(eng, tui.Options{Events: sub, Activity: act, Stop: stop, Sizes: sizes, Theme: theme, NoColor: noColor,
		Unwatched: debug.FreeOSMemory}) // memtrim.go
	// Ctrl-Z (tea.Suspend) and a SIGTSTP from outside both suspend here:
	// the terminal is given back first (alternate screen, mouse and
	// keyboard modes off, cooked mode), rostra stops as a shell's job, and
	// when the shell's fg continues it the terminal is taken again and the
	// whole frame drawn. (Not bubbletea's own suspend: it stops the process
	// with SIGTSTP, which rostra catches.)
	tstp := make(chan os.Signal, 1)
	signal.Notify(tstp, syscall.SIGTSTP)
	defer func() {
		signal.Stop(tstp)
		close(tstp)
	}()
	var p *tea.Program
	filter := func(mod tea.Model, msg tea.Msg) tea.Msg {
		if _, ok := msg.(tea.SuspendMsg); ok {
			if err := p.ReleaseTerminal(); err != nil {
				return nil
			}
			server.StopSelf()
			if err := p.RestoreTerminal(); err != nil {
				return tea.Quit()
			}
			return tea.ClearScreen()
		}
		return m.Filter(mod, msg)
	}
	p = tea.NewProgram(withTestPanicKey(m), append(colourOpts, tea.WithOutput(stdout), tea.WithoutSignalHandler(), tea.WithFPS(tui.RendererFPS), tea.WithRenderOnChange(),
		tea.WithEnvironment(notifyEnviron(os.Environ())), tea.WithFilter(filter))...)
	eng.SetAnnouncer(directAnnouncer(p))
	go func() {
		for range tstp {
			p.Send(tea.Suspend())
		}
	}()

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	var gotSignal atomic.Value // the first stop signal
	go func() {
		for sig := range sigs {
			gotSignal.CompareAndSwap(nil, sig)
			p.Send(tui.Interrupt(sig.String()))
		}
	}()

	// The engine stops the run itself when it cannot save its state: the
	// UI then quits and says why, rather than showing workers that are gone.
	uiDone := make(chan struct{})
	go func() {
		select {
		case <-eng.Stopped():
			reason := "the run stopped"
			if err := eng.Err(); err != nil {
				reason = "the run stopped: " + err.Error()
			}
			p.Send(tui.Interrupt(reason))
		case <-uiDone:
		}
	}()

	_, runErr := p.Run()
	close(uiDone)
	if runErr != nil {
		fmt.Fprintf(stderr, "rostra: the terminal UI failed: %v; stopping every worker\n", runErr)
	}
	err = stop()
	signal.Stop(sigs)
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
	}
	fmt.Fprintf(stderr, "rostra: state in %s\n", plan.StateDir)
	switch {
	case gotSignal.Load() != nil:
		return signalExitCode(gotSignal.Load().(os.Signal))
	case m.Interrupted():
		return 130
	case err != nil || runErr != nil:
		return 1
	}
	return eng.ExitCode()
}
