// model.go is the root of the bubbletea program: it owns the panes (one per
// worker, in roster order), the focus, zoom and page, the mode keys are in
// (normal, typing into a pane, search, copy), the open dialog or panel
// (help, event log, every pane's matches), and the event log's lines.
// Update only routes: engine events and snapshots to the panes, keys to
// input.go, mouse to the pane under it, sizes to sizes.go, the results of
// work done off the UI goroutine (history, searches, diffs) to their
// files; each pane draws itself (pane.go).
//
// Data model: the engine is read through Snapshot (rows) and Handle (each
// worker's attempt and its Screen) whenever an event, a frame or the clock
// arrives; nothing here waits on the engine. Manual controls (retry,
// cancel, stop, merge) run in commands so a slow state write never freezes
// the screen. Asynchronous results carry the worker and attempt they were made
// for and are dropped when they no longer apply (docs/design.md §An attempt's life).
package tui

import (
	"image/color"
	"time"

	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// Options are what the UI is given besides the engine.
type Options struct {
	Events   Events       // the engine's event queue; nil: no event log
	Activity *vt.Activity // the run's: wakes the UI on new output; nil: redraw on the clock only
	Stop     func() error // stops every worker gracefully; called once, on quit
	Sizes    *PaneSizes   // receives each worker's pane size, for attempts yet to open
	Now      func() time.Time
	// Attached marks a UI a rostra server draws for an attached client:
	// d detaches, and q offers to stop the run or to detach (attach.go).
	Attached bool
	Theme    string // auto (the default), dark or light (theme.go)
	NoColor  bool   // draw rostra's parts without colour (NO_COLOR)
	// Width and Height, when known, are the terminal's size before the
	// first WindowSizeMsg: the first frame is then the panes, not a
	// placeholder a frame's time earlier (an attaching client's).
	Width, Height int
	// Unwatched, when set, is called on a goroutine of its own each time
	// the UI stops redrawing each second because nobody used it for a
	// minute (attended.go): rostra gives its frames' garbage back then.
	Unwatched func()
}

type inputMode int

const (
	modeNormal inputMode = iota
	modeInput            // keys go to the focused pane's child
	modeSearch           // keys edit the search query
	modeCopy             // keys move copy mode's cursor and selection
)

type overlayKind int

const (
	overlayNone overlayKind = iota
	overlayHelp
	overlayEvents
	overlayFind // the matches in every pane (findall.go)
)

// frameInterval caps redraws while output streams in (30 per second): on
// two cores, drawing faster takes CPU from the pty readers and the
// emulators (BenchmarkPaneThroughput). Output after a quiet spell is drawn
// at once, so typing echoes without delay, and so is a key's echo while
// another pane streams (echo.go).
const frameInterval = 34 * time.Millisecond

// RendererFPS is the frame rate a program drawing this UI gives
// bubbletea's renderer (tea.WithFPS): twice the output's, so that output
// alone never uses up the renderer's credit of frames and a key's echo, or
// a key that changes the UI, is drawn at once. Output is still drawn at
// most once a frameInterval, by the UI itself.
const RendererFPS = 60

// resizeDebounce is how long the layout must hold still before ptys are
// resized: a window dragged wider resizes every child once, not fifty times.
const resizeDebounce = 120 * time.Millisecond

// eventLogCap bounds the event log panel.
const eventLogCap = 2000

// Model is the UI.
type Model struct {
	eng  Engine
	opts Options
	plan *runfile.Plan
	st   statedir.TeamState

	panes []*pane
	byID  map[string]*pane

	width, height int
	focus         int
	zoom          bool
	page          int
	tileCache     tiling // tiling.go

	th          *theme
	background  color.Color // the outer terminal's background, once it answers
	keys        keyMap
	paneHints   paneHints // the keys a pane's border names, from keys
	mode        inputMode
	overlay     overlayKind
	panel       viewport.Model // the open panel's lines (dialog.go)
	panelBox    []string       // the open panel as drawn; nil: draw it again
	confirm     *confirmDialog
	queueBox    *queueDialog    // the Q dialog (queue.go), or nil
	searchInput textinput.Model // the query being typed after / or f
	searchScope searchScope     // what the prompt searches
	searchRegex bool            // the prompt takes a regular expression
	query       *vt.Query       // the last query searched
	copy        *copyMode       // copy mode, or nil
	drag        *dragState      // the left button held down in a pane, or nil
	finds       *findList       // the last search of every pane
	findSeq     int             // tags searches of every pane; an older answer is dropped

	evlog eventLog // the event log panel's lines (eventlog.go)

	note        string // a one-off message in the status bar, cleared by the next key
	noteLogged  string // the last long note added to the event log
	stopping    bool
	interrupted bool
	quit        bool
	resizeSeq   int
	lastFrame   time.Time
	redraw      bool     // the last step may have changed the view (view.go)
	held        tea.View // the view View gave last
	heldOK      bool
	listening   bool      // a waitWake is out (echo.go)
	frameArmed  bool      // a frameMsg is on its way (frameWhenDue)
	echo        echoWait  // the key whose echo is watched for (echo.go)
	echoWatch   bool      // its watcher is still to start
	frameBytes  int       // the size of the last frame Render made (view.go)
	clockAt     time.Time // when the armed clock tick fires; zero: none
	lastInput   time.Time // the human's last key, click, paste or resize (attended.go)
	watched     bool      // lastInput was under attendedFor ago at the last step

	wake         <-chan struct{} // this program's wake-ups from Activity
	echoWake     <-chan struct{} // the echo watcher's (echo.go)
	unlistenEcho func()
	unlisten     func()
	closed       chan struct{} // closed by Close: the program has ended
	detached     bool          // the human detached (attach.go)
	blurred      bool          // the outer terminal lost the focus (tea.BlurMsg)
	alerts       alerts        // what alerts this UI's terminal (notify.go)
}

// Messages.
type (
	eventMsg     struct{ ev statedir.Event }
	eventsEndMsg struct{}
	wakeMsg      struct{}
	frameMsg     struct{}
	clockMsg     time.Time
	resizeMsg    struct{ seq int }
	stoppedMsg   struct{ err error }
	controlMsg   struct{ note string }
	historyMsg   struct {
		worker  string
		attempt int
		term    *vt.Terminal
		err     error
	}
	interruptMsg struct{ reason string }
)

// Interrupt is the message cmd/rostra sends when rostra gets SIGINT, SIGTERM
// or SIGHUP: the UI stops every worker and quits without asking.
func Interrupt(reason string) tea.Msg { return interruptMsg{reason: reason} }

// New builds the UI over eng.
func New(eng Engine, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Model{
		eng: eng, opts: opts, plan: eng.Plan(), byID: map[string]*pane{},
		keys: keyMapFor(opts.Attached), panel: newPanel(), searchInput: newSearchInput(),
		closed: make(chan struct{}), width: opts.Width, height: opts.Height,
		lastInput: opts.Now(),
	}
	if opts.Activity != nil {
		m.wake, m.unlisten = opts.Activity.Listen()
		m.echoWake, m.unlistenEcho = opts.Activity.Listen()
	}
	m.evlog.loaded = opts.Events == nil || m.plan.StateDir == ""
	m.paneHints = m.keys.paneHints()
	m.setTheme(themeName(opts.Theme, opts.NoColor, false, true))
	for i := range m.plan.Workers {
		p := newPane(&m.plan.Workers[i])
		m.panes = append(m.panes, p)
		m.byID[p.spec.ID] = p
	}
	m.refresh()
	return m
}

// Interrupted reports whether the UI quit (or was stopped) while workers
// still ran: rostra exits 130.
func (m *Model) Interrupted() bool { return m.interrupted }

// Init starts the event reader and the output watcher, and asks the outer
// terminal for its background colour (the auto theme, and the colours
// children ask for); the clock is armed by Update only while something on
// screen changes with time.
//
// A UI that starts with its size (an attached client's, from its hello)
// claims the ptys' sizes here, on its first step: bubbletea delivers that
// same size again as a WindowSizeMsg from a goroutine of its own, at any
// time later, and a claim then would take the ptys from a client used in
// between.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.claimSizes(), m.readEventHistory(), m.nextEvent(), m.listen(), tea.RequestBackgroundColor, m.askColors(), tea.RequestTerminalVersion)
}

func (m *Model) nextEvent() tea.Cmd {
	if m.opts.Events == nil {
		return nil
	}
	ev := m.opts.Events
	return func() tea.Msg {
		e, ok := ev.Next()
		if !ok {
			return eventsEndMsg{}
		}
		return eventMsg{ev: e}
	}
}

func (m *Model) waitWake() tea.Cmd {
	if m.wake == nil {
		return nil
	}
	wake, closed := m.wake, m.closed
	return func() tea.Msg {
		select {
		case <-wake:
		case <-closed:
			return nil
		}
		return wakeMsg{}
	}
}

// schedule arms the clock for nextTick, unless a tick armed before comes
// no later. Nothing armed is the idle UI: no timer wakes it.
func (m *Model) schedule() tea.Cmd {
	now := m.opts.Now()
	next := m.nextTick(now)
	if next.IsZero() || (m.clockAt.After(now) && !next.Before(m.clockAt)) {
		return nil
	}
	m.clockAt = next
	return tea.Tick(next.Sub(now), func(t time.Time) tea.Msg { return clockMsg(t) })
}

// nextTick is the next time the screen changes with time alone, zero when
// it does not: the elapsed time in the title of a visible running attempt
// (each second on the focused pane of a watched UI, attended.go, each
// minute elsewhere and after an hour), how long a visible agent has been idle, a running pane reaching
// attention_after (the status bar counts it on every page), and the
// "quiet" time of a visible pane past it.
func (m *Model) nextTick(now time.Time) time.Time {
	var next time.Time
	soonest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	vis := make([]bool, len(m.panes))
	if m.width > 0 && m.height > 0 {
		for _, v := range m.visible() {
			vis[v.idx] = true
		}
	}
	after := m.plan.AttentionAfter
	for i, p := range m.panes {
		fine := m.fineClock(i, now)
		if d := p.shown(); vis[i] && d != nil && d.EndedAt == nil && !d.StartedAt.IsZero() {
			soonest(nextChange(d.StartedAt, now, fine))
		}
		if d := p.agentRow(); vis[i] && d != nil && d.AgentState == agentInput && d.AgentStateSince != nil {
			soonest(nextChange(*d.AgentStateSince, now, fine))
		}
		if d := p.cur(); after > 0 && p.worker.Status == statedir.StatusRunning && d != nil && d.Surface != "" && !p.lastChange.IsZero() {
			if at := p.lastChange.Add(after); now.Before(at) {
				soonest(at)
			} else if vis[i] {
				soonest(nextChange(p.lastChange, now, fine))
			}
		}
	}
	return next
}

// nextChange is when elapsed(t - since) next reads differently after now
// (a millisecond late, so the tick never lands just short of it); when
// not fine, when elapsedCoarse does, put off to the next coarseGrid of
// the clock: the minutes of panes that started a few seconds apart then
// change in one frame, not in one each.
func nextChange(since, now time.Time, fine bool) time.Time {
	e := now.Sub(since)
	step := time.Second
	if e >= time.Hour || !fine {
		step = time.Minute
	}
	if e < 0 {
		return since.Add(time.Millisecond)
	}
	at := since.Add(e.Truncate(step) + step + time.Millisecond)
	if step == time.Minute {
		if grid := at.Truncate(coarseGrid); grid.Before(at) {
			at = grid.Add(coarseGrid)
		}
	}
	return at
}

// coarseGrid is how late a title that reads to the minute may change: at
// most this much after its minute has turned.
const coarseGrid = 10 * time.Second

// Update routes a message, then arms the clock for the next time the
// screen would change with time alone.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.redraw = true // view.go
	m.noteInput(msg)
	m.noteWatched()
	cmd := m.update(msg)
	m.logLongNote()
	if m.quit {
		return m, cmd
	}
	return m, tea.Batch(cmd, m.schedule())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		// A resize is the human using this UI: it claims the ptys' sizes.
		// The same size again is not (Init claimed for the first one).
		resized := msg.Width != m.width || msg.Height != m.height
		m.width, m.height = msg.Width, msg.Height
		m.fillPanel(false)
		m.sizeQueueArea()
		if resized && m.opts.Sizes != nil {
			m.opts.Sizes.claim(m)
		}
		return m.layoutChanged()
	case tea.BackgroundColorMsg:
		m.background = msg.Color
		m.setTheme(themeName(m.opts.Theme, m.opts.NoColor, true, msg.IsDark()))
		m.learnColor(11, msg.Color)
		return nil
	case tea.ForegroundColorMsg:
		m.learnColor(10, msg.Color)
		return nil
	case uv.UnknownOscEvent:
		m.learnPalette(string(msg))
		return nil
	case tea.KeyPressMsg:
		return tea.Batch(m.claimSizes(), m.onKey(msg))
	case typedMsg:
		// Filter typed the key (input.go); the frame follows.
		return m.startEchoWatch()
	case tea.PasteMsg:
		return tea.Batch(m.claimSizes(), m.onPaste(msg.Content))
	case tea.MouseMsg:
		return tea.Batch(m.claimSizes(), m.onMouse(msg))
	case tea.FocusMsg:
		m.blurred = false
		m.sendFocus(m.focused(), true)
		return nil
	case tea.BlurMsg:
		m.blurred = true
		m.sendFocus(m.focused(), false)
		return nil
	case detachMsg:
		return m.detach()
	case tea.EnvMsg:
		m.alerts.env = msg
		return nil
	case tea.TerminalVersionMsg:
		m.alerts.version = msg.Name
		return nil
	case notifyMsg:
		return m.onNotify(msg)
	case takeSizesMsg:
		if m.opts.Sizes != nil && m.opts.Sizes.vacant() {
			return m.claimSizes()
		}
		return nil
	case eventMsg:
		m.logEvent(msg.ev)
		m.refresh()
		return tea.Batch(m.nextEvent(), m.afterRefresh())
	case eventsEndMsg:
		return nil
	case eventHistoryMsg:
		m.onEventHistory(msg)
		return nil
	case wakeMsg:
		// Output arrived: draw at most once per frameInterval, a key's
		// echo at once (echo.go).
		m.listening = false
		return m.frameWhenDue()
	case frameMsg:
		// A key's echo may have drawn a frame since this one was armed.
		m.frameArmed = false
		return m.frameWhenDue()
	case echoWatchMsg:
		m.redraw = false
		return m.startEchoWatch()
	case echoedMsg:
		return m.onEchoed(msg)
	case clockMsg:
		m.clockAt = time.Time{}
		m.refresh()
		return m.afterRefresh()
	case resizeMsg:
		if msg.seq == m.resizeSeq {
			return tea.Batch(m.applySizes(true), m.refitHistory())
		}
		return nil
	case historyMsg:
		m.onHistory(msg)
		return nil
	case findAllMsg:
		m.onFindAll(msg)
		return nil
	case diffMsg:
		m.onDiff(msg)
		return nil
	case copiedMsg:
		m.note = msg.note
		return nil
	case controlMsg:
		m.note = msg.note
		m.refresh()
		return nil
	case interruptMsg:
		if m.stopping {
			return nil
		}
		m.note = msg.reason + ": stopping every worker"
		if m.running() > 0 {
			m.interrupted = true
		}
		return m.stop()
	case stoppedMsg:
		m.quit = true
		m.refresh()
		return tea.Quit
	}
	return nil
}

// frame picks up new output and re-arms the output watcher.
// frameWhenDue draws a frame when the last is a frameInterval old, else
// draws nothing new (view.go) and arms a frameMsg for then, unless one is
// armed: a frame an echo drew early (echo.go) leaves its tick armed, and
// a second tick each time would keep one more chain of ticks alive.
func (m *Model) frameWhenDue() tea.Cmd {
	wait := frameInterval - m.opts.Now().Sub(m.lastFrame)
	if wait <= 0 {
		return m.frame()
	}
	m.redraw = false
	if m.frameArmed {
		return nil
	}
	m.frameArmed = true
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{} })
}

func (m *Model) frame() tea.Cmd {
	m.lastFrame = m.opts.Now()
	m.refresh()
	return tea.Batch(m.listen(), m.afterRefresh())
}

// refresh reads the engine's rows and handles into the panes.
func (m *Model) refresh() {
	m.st = m.eng.Snapshot()
	now := m.opts.Now()
	for _, p := range m.panes {
		p.rows = p.rows[:0]
	}
	for _, wr := range m.st.Workers {
		if p := m.byID[wr.WorkerID]; p != nil {
			p.worker = wr
		}
	}
	for i := range m.st.Dispatches {
		if p := m.byID[m.st.Dispatches[i].WorkerID]; p != nil {
			p.rows = append(p.rows, &m.st.Dispatches[i])
		}
	}
	for _, p := range m.panes {
		h, n := m.eng.Handle(p.spec.ID)
		p.setHandle(h, n, now)
		p.observe(now)
	}
	m.readLinks()
	m.refreshQueues()
	if m.mode == modeInput && !m.focused().typeable() {
		m.mode = modeNormal
		m.note = m.focused().spec.ID + " has ended: keys are no longer sent to it"
	}
}

// afterRefresh sizes attempts that opened since the last look and loads
// the screens of ended attempts the engine holds no handle for.
func (m *Model) afterRefresh() tea.Cmd {
	return tea.Batch(m.resizeNew(), m.loadEnded())
}

func (m *Model) focused() *pane { return m.panes[m.focus] }

// running counts workers the engine is still working on.
func (m *Model) running() int {
	n := 0
	for _, wr := range m.st.Workers {
		if statedir.Unsettled(wr.Status) {
			n++
		}
	}
	return n
}

// stop stops every worker gracefully and quits once they are.
func (m *Model) stop() tea.Cmd {
	if m.stopping {
		return nil
	}
	m.stopping = true
	m.mode = modeNormal
	m.confirm = nil
	stop := m.opts.Stop
	return func() tea.Msg {
		var err error
		if stop != nil {
			err = stop()
		}
		return stoppedMsg{err: err}
	}
}

// setFocus moves the focus to pane i, onto its page.
func (m *Model) setFocus(i int) tea.Cmd {
	if i < 0 || i >= len(m.panes) {
		return nil
	}
	if i != m.focus && m.mode == modeInput {
		m.mode = modeNormal
	}
	if m.copy != nil && m.copy.idx != i {
		m.leaveCopy()
	}
	if i != m.focus && !m.blurred {
		m.sendFocus(m.panes[m.focus], false)
		m.sendFocus(m.panes[i], true)
	}
	m.focus = i
	m.panes[i].touch()
	if m.zoom {
		return m.layoutChanged()
	}
	if pg := m.tiles().pageOf[i]; pg != m.page {
		m.page = pg
		return m.layoutChanged()
	}
	return nil
}
