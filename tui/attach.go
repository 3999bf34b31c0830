// attach.go holds what a UI served to an attached client (Options.Attached,
// `rostra attach`) does beyond the direct UI: d detaches (the program
// quits, the run goes on in the server), and q offers both ways out while
// workers run: stop the run, or detach. With nothing running q just leaves.
// The server asks Detached which it was, and calls Close once the program
// has ended so that output no longer wakes it. TakeSizes hands the ptys'
// layout to this UI when the client that set it has gone (sizes.go).
package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

type (
	detachMsg    struct{}
	takeSizesMsg struct{}
)

// Detach is the message a server sends when the client asks to detach
// (its Detach frame): the program quits and the run goes on.
func Detach() tea.Msg { return detachMsg{} }

// TakeSizes is the message a server sends a UI when the one whose layout
// the ptys followed has gone: the ptys take this UI's layout.
func TakeSizes() tea.Msg { return takeSizesMsg{} }

// Detached reports whether the human detached.
func (m *Model) Detached() bool { return m.detached }

// Close releases what the model holds outside its program: its wake-ups,
// the goroutine waiting for them, and its claim on the ptys' sizes. Call
// it once the program has ended.
func (m *Model) Close() {
	select {
	case <-m.closed:
		return
	default:
	}
	close(m.closed)
	if m.unlisten != nil {
		m.unlisten()
		m.unlistenEcho()
	}
	if m.opts.Sizes != nil {
		m.opts.Sizes.release(m)
	}
}

// detachKey is d (bound only in an attached UI's key map).
func (m *Model) detachKey() tea.Cmd { return m.detach() }

func (m *Model) detach() tea.Cmd {
	if !m.opts.Attached || m.stopping {
		return nil
	}
	m.detached = true
	m.confirm = nil
	return tea.Quit
}

// askLeave is q in an attached UI: with workers running, a dialog offers to
// stop the run or to detach; with none, the client leaves (the server ends
// once the run has finished and no client is attached).
func (m *Model) askLeave() tea.Cmd {
	n := m.running()
	if n == 0 {
		m.quit = true
		return tea.Quit
	}
	m.confirm = &confirmDialog{
		title: "Leave rostra?",
		lines: []string{
			fmt.Sprintf("%d worker(s) are still running.", n),
			keyOf(m.keys.leave, "detach") + "  detach: the workers go on; rostra attach comes back.",
			keyOf(m.keys.leave, "stop the run") + "  stop the run: every worker is stopped gracefully (SIGTERM,",
			"   then SIGKILL after stop_grace), the state files are completed,",
			"   and rostra run --resume continues the run later.",
		},
		acts: m.keys.leave,
	}
	if g, ok := m.eng.(runGroups); ok {
		// Over many runs (multirun.go) the stop is every run's.
		m.confirm.lines[2] = keyOf(m.keys.leave, "stop the run") + fmt.Sprintf("  stop every run (%d): each worker is stopped gracefully (SIGTERM,", len(g.Groups()))
		m.confirm.lines[4] = "   and rostra run --resume continues each run later."
	}
	return nil
}

// leaveStop is s in the leave dialog: stop the run.
func (m *Model) leaveStop() tea.Cmd {
	m.confirm = nil
	// Workers may have finished while the question was open.
	m.refresh()
	m.interrupted = m.running() > 0
	return m.stop()
}
