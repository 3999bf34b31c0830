// input.go handles the keyboard and the mouse. Keys go through the key map
// (keymap.go) of the mode the UI is in: in normal mode they drive the UI
// (focus, zoom, scroll, search, retry, cancel, panels), and the methods
// here are what they do; in input mode every key but Ctrl-] goes to the
// focused pane's child, encoded as an xterm would (vt.EncodeKey), by one
// path (typesInto, typeKey) that the program's Filter takes before Update
// so that a key draws no frame unless it changes the screen; in search
// mode a bubbles textinput edits the query; copy mode has keys of its own
// (copymode.go). The mouse focuses the pane it clicks, selects by dragging
// inside it (copymode.go), scrolls the one under it, and is forwarded to a
// child that asked for mouse reports while it has the keyboard.
package tui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	if m.typesInto(k) {
		m.typeKey(tea.Key(k))
		return m.startEchoWatch()
	}
	if m.stopping {
		return nil
	}
	if m.confirm != nil {
		cmd, _ := m.dispatch(m.confirmKeys(), k)
		return cmd
	}
	if m.queueBox != nil {
		return m.queueKey(k)
	}
	switch m.mode {
	case modeInput:
		cmd, _ := m.dispatch(m.keys.typing, k) // the keys rostra keeps while typing
		return cmd
	case modeSearch:
		if cmd, ok := m.dispatch(m.keys.search, k); ok {
			return cmd
		}
		var cmd tea.Cmd
		m.searchInput, cmd = m.searchInput.Update(k)
		return cmd
	case modeCopy:
		m.note = ""
		if cmd, ok := m.dispatch(m.keys.copy, k); ok {
			return cmd
		}
		m.note = "copy mode: " + keyHints(m.keys.copy, "select", "copy", "leave")
		return nil
	}
	switch m.overlay {
	case overlayNone:
	case overlayFind:
		if cmd, ok := m.dispatch(m.keys.find, k); ok {
			return cmd
		}
	default:
		if cmd, ok := m.dispatch(m.keys.panel, k); ok {
			return cmd
		}
	}
	m.note = ""
	cmd, _ := m.dispatch(m.keys.flat, k)
	return cmd
}

// What the normal keys do (keymap.go binds them).

func (m *Model) focusNext() tea.Cmd { return m.setFocus((m.focus + 1) % len(m.panes)) }
func (m *Model) focusPrev() tea.Cmd {
	return m.setFocus((m.focus + len(m.panes) - 1) % len(m.panes))
}
func (m *Model) focusRight() tea.Cmd { return m.setFocus(min(m.focus+1, len(m.panes)-1)) }
func (m *Model) focusLeft() tea.Cmd  { return m.setFocus(max(m.focus-1, 0)) }

func (m *Model) toggleZoom() tea.Cmd {
	m.zoom = !m.zoom
	return m.layoutChanged()
}

func (m *Model) nextPage() tea.Cmd {
	if m.page < m.pages()-1 && !m.zoom {
		return m.setFocus(m.tiles().first[m.page+1])
	}
	return nil
}

func (m *Model) prevPage() tea.Cmd {
	if m.page > 0 && !m.zoom {
		return m.setFocus(m.tiles().first[m.page-1])
	}
	return nil
}

func (m *Model) startTyping() tea.Cmd {
	p := m.focused()
	if !p.typeable() {
		m.note = m.whyNotTypeable(p)
		return nil
	}
	p.touch()
	p.goLive()
	m.mode = modeInput
	m.overlay = overlayNone // the keys go to the pane: it must be in sight
	return nil
}

func (m *Model) stopTyping() tea.Cmd {
	m.mode = modeNormal
	return nil
}

func (m *Model) lineUp() tea.Cmd   { m.focused().scrollBy(-1, 0); return nil }
func (m *Model) lineDown() tea.Cmd { m.focused().scrollBy(1, 0); return nil }
func (m *Model) pageUp() tea.Cmd   { m.focused().scrollBy(-m.pageRows(), 0); return nil }
func (m *Model) pageDown() tea.Cmd { m.focused().scrollBy(m.pageRows(), 0); return nil }
func (m *Model) oldest() tea.Cmd   { m.focused().scrollBy(-1<<30, 0); return nil }

func (m *Model) backToLive() tea.Cmd {
	m.focused().goLive()
	m.overlay = overlayNone
	return nil
}

func (m *Model) retryFocused() tea.Cmd  { return m.askRetry(m.focused()) }
func (m *Model) cancelFocused() tea.Cmd { return m.askCancel(m.focused()) }

func (m *Model) earlierAttempt() tea.Cmd { return m.stepHistory(-1) }
func (m *Model) laterAttempt() tea.Cmd   { return m.stepHistory(1) }

func (m *Model) toggleEvents() tea.Cmd { m.togglePanel(overlayEvents); return nil }
func (m *Model) toggleHelp() tea.Cmd   { m.togglePanel(overlayHelp); return nil }

func (m *Model) pageRows() int {
	for _, v := range m.visible() {
		if v.idx == m.focus {
			return max(1, v.r.h-3)
		}
	}
	return 10
}

func (m *Model) whyNotTypeable(p *pane) string {
	d := p.cur()
	switch {
	case d == nil || p.handle == nil:
		return p.spec.ID + " has no running attempt to type into"
	case d.Surface == runfile.SurfaceWrapper:
		return p.spec.ID + " runs on a WRAPPER (pipes, no terminal): it cannot be typed into"
	case d.EndedAt != nil:
		return p.spec.ID + " attempt " + strconv.Itoa(d.Attempt) + " has ended: " + keyOf(m.keys.flat, "retry") + " starts a new one"
	}
	return p.spec.ID + " cannot take keys"
}

// Typed keys take one path from the key map to the child: typesInto says
// whether a key is the child's, typeKey sends it. Filter, the program's
// message filter (tea.WithFilter), takes that path before Update, so a key
// that changes nothing on screen draws no frame: a paste into a terminal
// without bracketed paste arrives as one key per character, and drawn a
// frame each, 200 KB of them took 15–20 s before the Ctrl-] typed after
// them was read. A key that does change the screen (the pane was scrolled
// back or flagged, its keys were dropped, it cannot take keys) goes on to
// Update as typedMsg, for its frame. Update reaches the same path through
// onKey for the keys Filter leaves to it: those of a UI that must first
// claim the ptys' sizes (sizes.go), and every key in the tests.

// typedMsg is a key Filter typed into a pane that changed the screen:
// Update has nothing left to do but draw it.
type typedMsg struct{}

// Filter sends a typed key to the focused pane's child before Update.
func (m *Model) Filter(_ tea.Model, msg tea.Msg) tea.Msg {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || !m.typesInto(k) {
		return msg
	}
	if m.opts.Sizes != nil && !m.opts.Sizes.owns(m) {
		return msg // the key claims the ptys' sizes first (Update, sizes.go)
	}
	changed := m.typeKey(tea.Key(k))
	switch {
	case changed:
		return typedMsg{}
	case m.echoWatch:
		return echoWatchMsg{} // Update starts its watcher (echo.go)
	}
	return nil
}

// typesInto reports whether k goes to the focused pane's child: the UI is
// typing, with no question open and not stopping, and k is none of the
// keys the key map keeps for rostra while typing (keymap.go).
func (m *Model) typesInto(k tea.KeyPressMsg) bool {
	if m.mode != modeInput || m.confirm != nil || m.stopping {
		return false
	}
	for _, a := range m.keys.typing {
		if key.Matches(k, a.Binding) {
			return false
		}
	}
	return true
}

// typeKey sends k to the focused pane's child, encoded as its modes ask,
// and brings the pane back to its live screen. It reports whether the
// screen changed: the pane was not live or had rung its bell, the child's
// input is full and the key was dropped (the note says so), or the pane
// cannot take keys any more (typing stops, the note says why).
func (m *Model) typeKey(k tea.Key) (changed bool) {
	p := m.focused()
	kw := p.writer()
	if kw == nil || p.term == nil {
		m.mode = modeNormal
		m.note = m.whyNotTypeable(p)
		return true
	}
	changed = !p.live() || p.bell
	p.goLive()
	p.touch()
	if p.link != "" {
		m.note = p.spec.ID + ": " + p.link + ": " + linkKeysNote // multirun.go
		return true
	}
	m.alerts.typed(p.spec.ID, m.opts.Now())
	if b := vt.EncodeKey(uv.Key(k), p.term.Modes()); b != nil {
		if !kw.send(b) {
			m.note = p.spec.ID + " is not reading its input: keys dropped"
			return true
		}
		if m.awaitEcho(p) { // echo.go
			m.echoWatch = true
		}
	}
	return changed
}

// sendFocus tells p's child that it gained or lost the focus (CSI I, CSI
// O), if it asked with mode 1004: its pane became or stopped being the
// focused one, or the outer terminal did.
func (m *Model) sendFocus(p *pane, in bool) {
	if p.term == nil || !p.term.Modes().FocusEvents || !p.typeable() {
		return
	}
	if kw := p.writer(); kw != nil {
		if in {
			kw.send([]byte(ansi.Focus))
		} else {
			kw.send([]byte(ansi.Blur))
		}
	}
}

// suspend stops rostra as Ctrl-Z stops a program in a shell: the terminal
// is given back first, and taken again with every mode and a full frame
// when the shell's fg resumes it. An attached UI's server asks its client
// to do the same (server/session.go).
func (m *Model) suspend() tea.Cmd { return tea.Suspend }

func (m *Model) onPaste(text string) tea.Cmd {
	switch {
	case m.queueBox != nil:
		return m.queuePaste(text)
	case m.mode == modeSearch:
		var cmd tea.Cmd
		m.searchInput, cmd = m.searchInput.Update(tea.PasteMsg{Content: text})
		return cmd
	case m.mode == modeInput:
		p := m.focused()
		if kw := p.writer(); kw != nil && p.term != nil {
			m.alerts.typed(p.spec.ID, m.opts.Now())
			if !kw.send(vt.EncodePaste(text, p.term.Modes())) {
				m.note = p.spec.ID + " is not reading its input: paste dropped"
			}
		}
	}
	return nil
}

// newSearchInput is the prompt / opens in the status bar (the theme
// styles it). Ctrl-V does not read the system clipboard: a terminal's
// paste arrives as a paste.
func newSearchInput() textinput.Model {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.KeyMap.Paste.SetEnabled(false)
	ti.KeyMap.AcceptSuggestion.SetEnabled(false)
	ti.KeyMap.NextSuggestion.SetEnabled(false)
	ti.KeyMap.PrevSuggestion.SetEnabled(false)
	return ti
}

// nextAttention focuses the next pane that needs the human, in
// attentionOrder (agentstate.go): the one after the focused pane when it
// is one of them, else the first.
func (m *Model) nextAttention() tea.Cmd {
	order := m.attentionOrder(m.opts.Now())
	if len(order) == 0 {
		m.note = "no pane needs attention"
		return nil
	}
	next := order[0]
	if at := slices.Index(order, m.focus); at >= 0 {
		next = order[(at+1)%len(order)]
	}
	return m.setFocus(next)
}

// stepHistory shows the previous or next attempt of the focused worker.
func (m *Model) stepHistory(dir int) tea.Cmd {
	p := m.focused()
	cur := 0
	if d := p.cur(); d != nil {
		cur = d.Attempt
	}
	p.diff.on = false
	if cur <= 1 && p.view == 0 {
		m.note = p.spec.ID + " has no earlier attempt"
		return nil
	}
	v := p.view
	if v == 0 {
		v = cur
	}
	v += dir
	switch {
	case v < 1:
		m.note = "attempt 1 is the first"
		return nil
	case v >= cur:
		p.goLive()
		return nil
	}
	p.view, p.top = v, -1
	return m.loadHistory(m.focus, v)
}

// Manual controls.

func (m *Model) askRetry(p *pane) tea.Cmd {
	id := p.spec.ID
	if m.stopping {
		return nil
	}
	if p.worker.Status == statedir.StatusRunning {
		n := p.attempt
		m.confirm = &confirmDialog{
			title: "Retry " + id + "?",
			lines: []string{
				fmt.Sprintf("Its running attempt %d is cancelled first (SIGTERM, then SIGKILL after", n),
				"stop_grace); a new, manual attempt starts once it has stopped.",
			},
			yes: func() tea.Cmd { return m.control("retry", id) },
		}
		return nil
	}
	return m.control("retry", id)
}

func (m *Model) askCancel(p *pane) tea.Cmd {
	id := p.spec.ID
	switch p.worker.Status {
	case statedir.StatusRunning:
		m.confirm = &confirmDialog{
			title: "Cancel " + id + "?",
			lines: []string{
				fmt.Sprintf("Attempt %d is stopped (SIGTERM, then SIGKILL after stop_grace) and", p.attempt),
				"recorded as cancelled; it is not retried automatically (" + keyOf(m.keys.flat, "retry") + " retries it).",
			},
			yes: func() tea.Cmd { return m.control("cancel", id) },
		}
		return nil
	case statedir.StatusRetrying:
		return m.control("cancel", id)
	}
	m.note = id + " has nothing to cancel (" + p.worker.Status + ")"
	return nil
}

func (m *Model) askQuit() tea.Cmd {
	if m.opts.Attached {
		return m.askLeave()
	}
	n := m.running()
	if n == 0 {
		return m.stop()
	}
	m.confirm = &confirmDialog{
		title: "Quit rostra?",
		lines: []string{
			fmt.Sprintf("%d worker(s) are still running. They are stopped gracefully (SIGTERM,", n),
			"then SIGKILL after stop_grace) and the state files are completed;",
			"rostra run --resume continues the run later.",
		},
		yes: func() tea.Cmd {
			// Workers may have finished while the question was open.
			m.refresh()
			m.interrupted = m.running() > 0
			return m.stop()
		},
	}
	return nil
}

// control runs a manual retry or cancel off the UI goroutine.
func (m *Model) control(action, worker string) tea.Cmd {
	eng := m.eng
	m.note = action + " " + worker + "…"
	return func() tea.Msg {
		var err error
		switch action {
		case "retry":
			err = eng.Retry(worker)
		case "cancel":
			err = eng.Cancel(worker)
		}
		switch {
		case errors.Is(err, engine.ErrNotRunning):
			return controlMsg{note: worker + " has nothing to cancel"}
		case err != nil:
			return controlMsg{note: err.Error()}
		case action == "retry":
			return controlMsg{note: worker + ": manual attempt requested"}
		}
		return controlMsg{note: worker + ": cancelled"}
	}
}

func (m *Model) confirmYes() tea.Cmd {
	c := m.confirm
	m.confirm = nil
	return c.yes()
}

func (m *Model) confirmNo() tea.Cmd {
	m.confirm = nil
	return nil
}

// Mouse.

func (m *Model) onMouse(msg tea.MouseMsg) tea.Cmd {
	ev := msg.Mouse()
	var hit *placed
	for _, v := range m.visible() {
		if v.r.contains(ev.X, ev.Y) {
			v := v
			hit = &v
			break
		}
	}
	if m.confirm != nil || m.stopping {
		return nil
	}
	if m.drag != nil {
		// A drag goes on, and ends, wherever the pointer is.
		switch msg.(type) {
		case tea.MouseMotionMsg:
			m.dragTo(ev.X, ev.Y)
			return nil
		case tea.MouseReleaseMsg:
			return m.dragEnd()
		}
	}
	if hit == nil {
		return nil
	}
	p := m.panes[hit.idx]
	in := hit.r.inner()
	if n := len(p.notices(in.w)); n > 0 {
		in.y += n
		in.h -= n
	}
	// A child that asked for mouse reports gets them while it has the keyboard.
	if m.mode == modeInput && hit.idx == m.focus && p.term != nil && in.contains(ev.X, ev.Y) {
		kind := vt.MousePress
		switch msg.(type) {
		case tea.MouseReleaseMsg:
			kind = vt.MouseRelease
		case tea.MouseMotionMsg:
			kind = vt.MouseMotion
		case tea.MouseWheelMsg:
			kind = vt.MouseWheel
		}
		if b := vt.EncodeMouse(kind, uv.Mouse(ev), ev.X-in.x, ev.Y-in.y, p.term.Modes()); b != nil {
			if kw := p.writer(); kw != nil {
				kw.send(b)
			}
			return nil
		}
	}
	switch msg.(type) {
	case tea.MouseClickMsg:
		if ev.Button == tea.MouseLeft {
			cmd := m.setFocus(hit.idx)
			if in.contains(ev.X, ev.Y) && m.mode != modeInput {
				m.dragStart(hit.idx, ev.X, ev.Y)
			}
			return cmd
		}
	case tea.MouseWheelMsg:
		n := 3
		if ev.Button == tea.MouseWheelUp {
			n = -3
		} else if ev.Button != tea.MouseWheelDown {
			return nil
		}
		if cm := m.copyOn(hit.idx); cm != nil {
			cm.scroll(n, m.copyRows(hit.idx))
		} else {
			p.scrollBy(n, 0)
		}
	}
	return nil
}
