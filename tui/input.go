// input.go handles the keyboard and the mouse: in normal mode keys drive the
// UI (focus, zoom, scroll, search, retry, cancel, dialogs); in input mode
// every key but Ctrl-] goes to the focused pane's child, encoded as an xterm
// would (keys.go); in search mode keys edit the query. The mouse focuses the
// pane it clicks, scrolls the one under it, and is forwarded to a child that
// asked for mouse reports while it has the keyboard.
package tui

import (
	"errors"
	"fmt"
	"strconv"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
)

func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if m.stopping {
		return nil
	}
	if m.confirm != nil {
		return m.onConfirmKey(key)
	}
	switch m.mode {
	case modeInput:
		return m.onInputKey(tea.Key(k))
	case modeSearch:
		return m.onSearchKey(tea.Key(k))
	}
	if m.overlay != overlayNone {
		if cmd, ok := m.onOverlayKey(key); ok {
			return cmd
		}
	}
	m.note = ""
	p := m.focused()
	switch key {
	case "q", "ctrl+c":
		return m.askQuit()
	case "tab":
		return m.setFocus((m.focus + 1) % len(m.panes))
	case "shift+tab":
		return m.setFocus((m.focus + len(m.panes) - 1) % len(m.panes))
	case "right", "l":
		return m.setFocus(min(m.focus+1, len(m.panes)-1))
	case "left", "h":
		return m.setFocus(max(m.focus-1, 0))
	case "z":
		m.zoom = !m.zoom
		return m.layoutChanged()
	case "]":
		if m.page < m.pages()-1 && !m.zoom {
			return m.setFocus((m.page + 1) * m.grid().perPage())
		}
	case "[":
		if m.page > 0 && !m.zoom {
			return m.setFocus((m.page - 1) * m.grid().perPage())
		}
	case "i", "enter":
		if !p.typeable() {
			m.note = m.whyNotTypeable(p)
			return nil
		}
		p.touch()
		p.goLive()
		m.mode = modeInput
		m.overlay = overlayNone // the keys go to the pane: it must be in sight
	case "pgup", "shift+up", "ctrl+b":
		p.scrollBy(-m.pageRows(), 0)
	case "pgdown", "shift+down", "ctrl+f":
		p.scrollBy(m.pageRows(), 0)
	case "up", "k":
		p.scrollBy(-1, 0)
	case "down", "j":
		p.scrollBy(1, 0)
	case "home", "g":
		p.scrollBy(-1<<30, 0)
	case "G", "esc", "end":
		p.goLive()
		m.overlay = overlayNone
	case "/":
		if p.viewTerm() == nil {
			m.note = "nothing to search in " + p.spec.ID + " yet"
			return nil
		}
		m.mode = modeSearch
		m.query = ""
	case "n":
		m.find(false)
	case "N":
		m.find(true)
	case "r":
		return m.askRetry(p)
	case "x":
		return m.askCancel(p)
	case "e":
		m.toggleOverlay(overlayEvents)
	case "?":
		m.toggleOverlay(overlayHelp)
	case "a":
		return m.nextAttention()
	case "<", ",":
		return m.stepHistory(-1)
	case ">", ".":
		return m.stepHistory(1)
	}
	return nil
}

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
	case d.Surface == engine.SurfaceWrapper:
		return p.spec.ID + " runs on a WRAPPER (pipes, no terminal): it cannot be typed into"
	case d.EndedAt != nil:
		return p.spec.ID + " attempt " + strconv.Itoa(d.Attempt) + " has ended: r starts a new one"
	}
	return p.spec.ID + " cannot take keys"
}

// onInputKey forwards a key to the child; Ctrl-] gives the keyboard back.
func (m *Model) onInputKey(k tea.Key) tea.Cmd {
	if k.Code == ']' && k.Mod&(tea.ModShift|tea.ModAlt|tea.ModCtrl|tea.ModMeta) == tea.ModCtrl {
		m.mode = modeNormal
		return nil
	}
	p := m.focused()
	kw := p.writer()
	if kw == nil || p.term == nil {
		m.mode = modeNormal
		m.note = m.whyNotTypeable(p)
		return nil
	}
	p.goLive()
	p.touch()
	if b := vt.EncodeKey(uv.Key(k), p.term.Modes()); b != nil && !kw.send(b) {
		m.note = p.spec.ID + " is not reading its input: keys dropped"
	}
	return nil
}

func (m *Model) onPaste(text string) tea.Cmd {
	switch {
	case m.mode == modeSearch:
		m.query += text
	case m.mode == modeInput:
		p := m.focused()
		if kw := p.writer(); kw != nil && p.term != nil {
			if !kw.send(vt.EncodePaste(text, p.term.Modes())) {
				m.note = p.spec.ID + " is not reading its input: paste dropped"
			}
		}
	}
	return nil
}

func (m *Model) onSearchKey(k tea.Key) tea.Cmd {
	switch {
	case k.Code == tea.KeyEscape:
		m.mode = modeNormal
	case k.Code == tea.KeyEnter:
		m.mode = modeNormal
		if m.query != "" {
			m.search = m.query
			p := m.focused()
			p.match = -1
			m.find(false)
		}
	case k.Code == tea.KeyBackspace:
		if r := []rune(m.query); len(r) > 0 {
			m.query = string(r[:len(r)-1])
		}
	case k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0:
		m.query += k.Text
	}
	return nil
}

// find moves the focused pane to the next match of the last query: older
// lines first (n), newer ones with N, as less does for a search backwards.
func (m *Model) find(newer bool) {
	p := m.focused()
	t := p.viewTerm()
	if m.search == "" || t == nil {
		m.note = "no search yet: / starts one"
		return
	}
	from := p.match
	if from < 0 {
		from = t.LineCount()
		if newer {
			from = -1
		}
	}
	line, ok := t.Find(m.search, from, newer)
	if !ok {
		m.note = fmt.Sprintf("%q not found in %s", m.search, p.spec.ID)
		return
	}
	p.match = line
	_, rows := t.Size()
	ih := rows
	for _, v := range m.visible() {
		if v.idx == m.focus {
			ih = v.r.h - 2
		}
	}
	top := max(0, line-ih/2)
	if bottom := t.LineCount() - rows; top >= bottom {
		top = bottom
	}
	p.top = top
	m.note = fmt.Sprintf("%q: line %d of %d · n older · N newer · G live", m.search, line+1, t.LineCount())
}

func (m *Model) toggleOverlay(o overlayKind) {
	if m.overlay == o {
		m.overlay = overlayNone
		return
	}
	m.overlay = o
	m.eventScroll = 0
}

// onOverlayKey handles keys an open panel uses; ok=false passes the key on.
func (m *Model) onOverlayKey(key string) (tea.Cmd, bool) {
	switch key {
	case "esc":
		m.overlay = overlayNone
		return nil, true
	}
	if m.overlay != overlayEvents {
		return nil, false
	}
	switch key {
	case "up", "k":
		m.eventScroll = min(m.eventScroll+1, max(0, len(m.events)-1))
	case "down", "j":
		m.eventScroll = max(0, m.eventScroll-1)
	case "pgup":
		m.eventScroll = min(m.eventScroll+10, max(0, len(m.events)-1))
	case "pgdown":
		m.eventScroll = max(0, m.eventScroll-10)
	default:
		return nil, false
	}
	return nil, true
}

// nextAttention focuses the next pane that needs the human.
func (m *Model) nextAttention() tea.Cmd {
	now := m.opts.Now()
	for d := 1; d <= len(m.panes); d++ {
		i := (m.focus + d) % len(m.panes)
		if m.panes[i].attention(now, m.plan.AttentionAfter) != "" {
			return m.setFocus(i)
		}
	}
	m.note = "no pane needs attention"
	return nil
}

// stepHistory shows the previous or next attempt of the focused worker.
func (m *Model) stepHistory(dir int) tea.Cmd {
	p := m.focused()
	cur := 0
	if d := p.cur(); d != nil {
		cur = d.Attempt
	}
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
	p.view, p.top, p.match = v, -1, -1
	return m.loadHistory(m.focus, v)
}

// Manual controls.

func (m *Model) askRetry(p *pane) tea.Cmd {
	id := p.spec.ID
	if m.stopping {
		return nil
	}
	if p.worker.Status == engine.StatusRunning {
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
	case engine.StatusRunning:
		m.confirm = &confirmDialog{
			title: "Cancel " + id + "?",
			lines: []string{
				fmt.Sprintf("Attempt %d is stopped (SIGTERM, then SIGKILL after stop_grace) and", p.attempt),
				"recorded as cancelled; it is not retried automatically (r retries it).",
			},
			yes: func() tea.Cmd { return m.control("cancel", id) },
		}
		return nil
	case engine.StatusRetrying:
		return m.control("cancel", id)
	}
	m.note = id + " has nothing to cancel (" + p.worker.Status + ")"
	return nil
}

func (m *Model) askQuit() tea.Cmd {
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

func (m *Model) onConfirmKey(key string) tea.Cmd {
	c := m.confirm
	switch key {
	case "y", "Y", "enter":
		m.confirm = nil
		return c.yes()
	case "n", "N", "esc", "q", "ctrl+c":
		m.confirm = nil
	}
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
	if hit == nil || m.confirm != nil || m.stopping {
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
			return m.setFocus(hit.idx)
		}
	case tea.MouseWheelMsg:
		switch ev.Button {
		case tea.MouseWheelUp:
			p.scrollBy(-3, 0)
		case tea.MouseWheelDown:
			p.scrollBy(3, 0)
		}
	}
	return nil
}
