// attachmany.go wires `rostra attach RUN RUN...`: one UI here over many
// runs, on this machine and on others
// (docs/remote.md §Many runs in one UI). Unlike the attach of one run,
// whose UI is drawn in its server, this UI is drawn here, over
// server.Multi: each run a view connection to its server (its socket, or
// ssh to its bridge) that says what changed.
//
// Exit codes: a detach (d, q then d) exits 0 and every run goes on; the
// leave dialog's stop asks every run to stop and exits 0 once each has
// been asked; a run that cannot be reached at the start exits 2.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/tui"
)

// attachMany attaches to every run of refs in one UI.
func attachMany(refs []string, stdout, stderr io.Writer) int {
	var runs []server.RunAddr
	var shown []string
	for _, ref := range refs {
		r, err := resolveRun(ref)
		if err != nil {
			fmt.Fprintf(stderr, "rostra attach: %v\n", err)
			return 2
		}
		ra := server.RunAddr{Ref: r.stateDir}
		if r.remote {
			a, err := parseSSHAddr(ref)
			if err != nil {
				fmt.Fprintf(stderr, "rostra attach: %v\n", err)
				return 2
			}
			ra.Host = a.host
			if remoteInstall {
				// Once, here: the links dial again after a drop.
				if err := installOn(a); err != nil {
					fmt.Fprintf(stderr, "rostra attach: %v\n", err)
					return 2
				}
			}
		}
		runs = append(runs, ra)
		shown = append(shown, r.cmd("attach"))
	}
	if !isTerminal(stdout) || !isTerminal(os.Stdin) {
		fmt.Fprintf(stderr, "rostra attach: stdin and stdout must be a terminal (rostra status, logs and send work without one)\n")
		return 2
	}
	// Links dial again while the UI has the terminal: ssh must not ask.
	remoteInteractive, remoteInstall = false, false
	// The outer tmux's passthrough, for the notifications' sequence, is
	// asked while the links are dialled.
	environ := make(chan []string, 1)
	go func() { environ <- notifyEnviron(os.Environ()) }()
	multi, err := server.OpenMulti(runs)
	if err != nil {
		fmt.Fprintf(stderr, "rostra attach: %v\n", err)
		return 2
	}
	defer multi.Close()
	theme, noColor, colourOpts, err := uiColours(&runfile.Plan{Theme: multi.Plan().Theme}, stdout, os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "rostra attach: %v\n", err)
		return 2
	}
	width, height := terminalSize(stdout)
	m := tui.New(multi, tui.Options{Events: multi, Activity: multi.Activity(), Stop: multi.Stop, Attached: true,
		Theme: theme, NoColor: noColor, Width: width, Height: height})
	defer m.Close()
	p := tea.NewProgram(m, append(colourOpts, tea.WithOutput(stdout), tea.WithoutSignalHandler(), tea.WithFPS(tui.RendererFPS),
		tea.WithRenderOnChange(), tea.WithEnvironment(<-environ), tea.WithFilter(m.Filter))...)
	// Each run decides its notifications; this terminal is alerted of
	// them (docs/agents.md §Notifications).
	multi.SetAnnouncer(directAnnouncer(p))

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	var gotSignal atomic.Value
	go func() {
		for sig := range sigs {
			// A signal detaches: the runs go on.
			gotSignal.CompareAndSwap(nil, sig)
			p.Send(tui.Detach())
		}
	}()
	_, runErr := p.Run()
	if runErr != nil {
		fmt.Fprintf(stderr, "rostra attach: the terminal UI failed: %v; the runs go on\n", runErr)
		return 1
	}
	switch {
	case gotSignal.Load() != nil:
		fmt.Fprintf(stderr, "rostra: detached from %d runs (got %s); they go on\n", len(runs), server.SignalName(gotSignal.Load().(os.Signal)))
		return signalExitCode(gotSignal.Load().(os.Signal))
	case m.Detached():
		fmt.Fprintf(stderr, "rostra: detached from %d runs; they go on. rostra attach %s comes back\n", len(runs), strings.Join(quoteAll(refs), " "))
	case m.Interrupted():
		fmt.Fprintf(stderr, "rostra: asked every run to stop: %s\n", strings.Join(shown, "; "))
	}
	return 0
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}
