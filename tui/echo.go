package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// echo.go draws a typed key's echo at once
// (docs/performance.md §A pane's output). Output is drawn at most once a
// frameInterval, so while another pane streams (an agent writing its
// answer) a frame is nearly always due a frame after the last one, and the
// echo of a key typed into the focused pane waited for it: 24 ms median,
// 52 ms p95 beside a pane streaming 50 lines a second, where tmux echoes
// in 0.3 ms. A key starts a watcher, a listener of the run's Activity of
// its own (the UI's own listener is left as it is, so no wake-up is taken
// from it): the watcher ends the moment the pane the key went to has new
// output, and that is drawn at once. One watcher at a time, so a burst of
// keys (a paste into a terminal without bracketed paste) starts one a
// window, not one a key.

// echoWindow is how long a watcher waits for its key's echo: longer than
// a child takes to echo on a loaded machine, short enough that keys typed
// into a pane that floods do not keep the frame rate up.
const echoWindow = 100 * time.Millisecond

// echoWatchMsg asks Update to start the watcher of the key Filter typed.
type echoWatchMsg struct{}

// echoedMsg: the awaited echo came (or its window ended, timedOut).
type echoedMsg struct{ timedOut bool }

// echoWait is the key whose echo is awaited: the pane it went to and that
// pane's screen generation then.
type echoWait struct {
	p   *pane
	gen uint64
}

// awaitEcho notes that a key went to p; it reports whether a watcher must
// be started for it (none runs).
func (m *Model) awaitEcho(p *pane) bool {
	if p.term == nil || m.echoWake == nil || m.echo.p != nil {
		return false
	}
	m.echo = echoWait{p: p, gen: p.term.Generation()}
	return true
}

// startEchoWatch starts the watcher a typed key asked for, if any.
func (m *Model) startEchoWatch() tea.Cmd {
	if !m.echoWatch {
		return nil
	}
	m.echoWatch = false
	return m.watchEcho()
}

// watchEcho waits, on a goroutine of its own, for the awaited key's pane
// to change, within echoWindow.
func (m *Model) watchEcho() tea.Cmd {
	e, wake, closed := m.echo, m.echoWake, m.closed
	if e.p == nil || e.p.term == nil {
		return nil
	}
	term := e.p.term
	return func() tea.Msg {
		t := time.NewTimer(echoWindow)
		defer t.Stop()
		for term.Generation() == e.gen {
			select {
			case <-wake:
			case <-t.C:
				return echoedMsg{timedOut: true}
			case <-closed:
				return nil
			}
		}
		return echoedMsg{}
	}
}

// onEchoed draws the echo at once: a frame due later is drawn now (its
// tick then draws once more, what came since).
func (m *Model) onEchoed(msg echoedMsg) tea.Cmd {
	m.echo = echoWait{}
	if msg.timedOut {
		m.redraw = false
		return nil
	}
	return m.frame()
}

// listen waits for output's next wake-up, unless that is waited for
// already: a frame drawn for an echo and one drawn at its tick must not
// leave two listeners, which would split the wake-ups.
func (m *Model) listen() tea.Cmd {
	if m.listening {
		return nil
	}
	cmd := m.waitWake()
	m.listening = cmd != nil
	return cmd
}
