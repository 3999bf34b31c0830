// multi.go is the client's side of ModeView: Multi, the engine a UI over
// many runs draws (`rostra attach RUN...`,
// docs/remote.md §Many runs in one UI). Each run is a link: one view connection to its server (its
// socket, or a transport such as ssh to its bridge), kept up. A link
// mirrors its run: the plan, the latest state, and for each worker an
// emulator here that its PaneViews are painted into, so the UI reads
// screens, searches and copies as it does a local run's. Keys, sizes,
// retry and cancel go back over the link of the pane's own run.
//
// A link that goes silent (no View for linkSilence: the server sends one
// at least every second) or drops is lost: its panes keep their screens
// and say so in their titles, and the link dials again with backoff
// (linkBackoff doubling to linkBackoffMax) while the other runs go on.
// The server's first View on the new connection repaints every screen.
// A link whose server has gone (the run finished and its server ended,
// or it was stopped) is over: its panes stay, saying so.
//
// Data model: Multi's plan is the runs' plans joined, each worker's ID
// prefixed by its run's name ("build-box:api/claude-impl"); index maps a
// prefixed ID to its link and its own ID. A link's fields are guarded by
// its mu, written by its reader goroutine, read by the UI through Multi.
package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/tui"
	"github.com/rostra-dev/rostra/workspace"
)

// How a link watches its connection and dials again.
const (
	linkSilence    = 3 * time.Second // no View for this long: the link is lost
	linkDialWait   = 5 * time.Second // a dial's hello and first View, at most
	linkBackoff    = 500 * time.Millisecond
	linkBackoffMax = 5 * time.Second
	linkReplyWait  = 10 * time.Second // a retry's or cancel's answer, at most
)

// RunAddr names one run of a Multi: Ref is its state dir or address (as
// dialStream takes it), Host the machine's name for the titles ("" on
// this machine). Dial, when set, makes the connection instead (a host's
// own transport to its bridge, docs/remote.md §One roster over many hosts).
type RunAddr struct {
	Ref  string
	Host string
	Dial func() (Stream, error)
	// OnView, OnLost and OnOver, when set, are told of the link on its
	// own goroutine (they must not block): each View once applied, with
	// the state it brought (nil: unchanged); the link lost, with why;
	// the link over for good, with why. So a run's rows are pushed to
	// whoever mirrors them, not asked for (hosts/part.go).
	OnView func(st *statedir.TeamState)
	OnLost func(err error)
	OnOver func(why string)
}

// Multi is many runs as one engine for the UI (tui.Engine and
// tui.Events), with their groups and their links' states.
type Multi struct {
	links []*link
	plan  *runfile.Plan
	index map[string]workerAt
	act   *vt.Activity

	announce atomic.Pointer[engine.Announcer] // the UI's, for the runs' notices (viewnotify.go)

	evmu   sync.Mutex
	evcond *sync.Cond
	events []statedir.Event
	closed bool
}

type workerAt struct {
	l  *link
	id string
}

// OpenMulti connects to every run (at once; the first error names its
// run) and returns them joined, their links kept up until Close.
func OpenMulti(runs []RunAddr) (*Multi, error) {
	m := &Multi{act: vt.NewActivity(), index: map[string]workerAt{}}
	m.evcond = sync.NewCond(&m.evmu)
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		l := &link{m: m, addr: r, panes: map[string]*mirror{}}
		m.links = append(m.links, l)
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, fr, v, err := l.dial()
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", r.Ref, err)
				return
			}
			l.c, l.fr = c, fr
			l.plan = v.Plan
			l.apply(v)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, l := range m.links {
			if l.c != nil {
				_ = l.c.Close()
			}
		}
		return nil, err
	}
	m.join()
	for _, l := range m.links {
		go l.run()
	}
	return m, nil
}

// join builds the plan of every run, its workers in the runs' order,
// each prefixed by its run's name (made unique with #2, #3…).
func (m *Multi) join() {
	p := &runfile.Plan{Version: 1, StateDir: ""}
	seen := map[string]int{}
	var names []string
	for _, l := range m.links {
		name := l.plan.Name
		if l.addr.Host != "" {
			name = l.addr.Host + ":" + name
		}
		if seen[name]++; seen[name] > 1 {
			name += "#" + strconv.Itoa(seen[name])
		}
		l.prefix = name
		names = append(names, name)
		if p.AttentionAfter == 0 {
			p.AttentionAfter = l.plan.AttentionAfter
		}
		if p.Theme == "" {
			p.Theme = l.plan.Theme
		}
		p.PanesMax += l.plan.PanesMax
		for _, w := range l.plan.Workers {
			id := w.ID
			w.ID = name + "/" + id
			p.Workers = append(p.Workers, w)
			m.index[w.ID] = workerAt{l: l, id: id}
		}
	}
	p.Name = strings.Join(names, " · ")
	m.plan = p
}

// Activity wakes the UI on every mirrored screen's change and on every
// link's.
func (m *Multi) Activity() *vt.Activity { return m.act }

// Close ends every link.
func (m *Multi) Close() {
	m.evmu.Lock()
	m.closed = true
	m.evcond.Broadcast()
	m.evmu.Unlock()
	var wg sync.WaitGroup
	for _, l := range m.links {
		l.mu.Lock()
		l.closing = true
		c := l.c
		l.mu.Unlock()
		if c != nil {
			wg.Add(1)
			go func() { defer wg.Done(); _ = c.Close() }()
		}
	}
	wg.Wait()
}

// SetAnnouncer makes a the way the runs' notifications reach the UI
// (docs/agents.md §Notifications): each run's server decides, a alerts
// this terminal, and what it did goes back to that run.
func (m *Multi) SetAnnouncer(a engine.Announcer) { m.announce.Store(&a) }

// notices announces a run's notices to the UI, each answered to its
// run, off the link's reader.
func (l *link) notices(ns []Notice) {
	if len(ns) == 0 {
		return
	}
	a := l.m.announce.Load()
	if l.prefix == "" {
		a = nil // the first View, before the runs are joined: answered, not shown
	}
	run := ""
	if l.plan != nil {
		run = l.plan.Name
	}
	go func() {
		for _, nt := range ns {
			var d engine.Delivery
			if a != nil && *a != nil {
				d = (*a)(nt.notification(run, l.prefix))
			}
			_, _ = l.request(Request{Op: OpNotified, Notice: nt.ID, Text: strings.Join(d.Via, ", "), Quiet: d.Quiet > 0})
		}
	}()
}

// Plan is the joined plan.
func (m *Multi) Plan() *runfile.Plan { return m.plan }

// Groups are the runs in order, each with its workers' prefixed IDs.
func (m *Multi) Groups() []tui.RunGroup {
	var gs []tui.RunGroup
	for _, l := range m.links {
		g := tui.RunGroup{Name: l.prefix}
		for _, w := range l.plan.Workers {
			g.Workers = append(g.Workers, l.prefix+"/"+w.ID)
		}
		gs = append(gs, g)
	}
	return gs
}

// Snapshot is every run's latest state, joined: the worker IDs prefixed,
// the run finished only once each one is.
func (m *Multi) Snapshot() statedir.TeamState {
	out := statedir.TeamState{Run: m.plan.Name, StateDir: strconv.Itoa(len(m.links)) + " runs", Status: statedir.RunFinished}
	for _, l := range m.links {
		l.mu.Lock()
		st := l.st
		l.mu.Unlock()
		if st.Status != statedir.RunFinished {
			out.Status = st.Status
		}
		if out.StartedAt.IsZero() || (!st.StartedAt.IsZero() && st.StartedAt.Before(out.StartedAt)) {
			out.StartedAt = st.StartedAt
		}
		for _, w := range st.Workers {
			w.WorkerID = l.prefix + "/" + w.WorkerID
			out.Workers = append(out.Workers, w)
		}
		for _, d := range st.Dispatches {
			d.WorkerID = l.prefix + "/" + d.WorkerID
			// Its log is on the run's machine: the screen is the mirror's.
			d.OutputLogPath = ""
			out.Dispatches = append(out.Dispatches, d)
		}
	}
	return out
}

// Handle is the mirror of the worker's latest attempt.
func (m *Multi) Handle(worker string) (engine.Handle, int) {
	at, ok := m.index[worker]
	if !ok {
		return nil, 0
	}
	at.l.mu.Lock()
	defer at.l.mu.Unlock()
	mi := at.l.panes[at.id]
	if mi == nil {
		return nil, 0
	}
	return mi.h, mi.attempt
}

// Retry asks the worker's run for a manual attempt.
func (m *Multi) Retry(worker string) error { return m.ask(worker, OpRetry) }

// Cancel asks the worker's run to cancel its attempt.
func (m *Multi) Cancel(worker string) error { return m.ask(worker, OpCancel) }

func (m *Multi) ask(worker, op string) error {
	at, ok := m.index[worker]
	if !ok {
		return fmt.Errorf("no worker %q", worker)
	}
	rep, err := at.l.request(Request{Op: op, Worker: at.id})
	if err != nil {
		return err
	}
	if rep.Code != 0 {
		return errors.New(rep.Error)
	}
	return nil
}

// Diff is not drawn over a link: git runs on the run's machine.
func (m *Multi) Diff(worker string, color bool) ([]byte, workspace.DiffInfo, error) {
	return nil, workspace.DiffInfo{}, m.notHere(worker, "diff")
}

// Merge is not done over a link, for the same reason.
func (m *Multi) Merge(worker, pin string) (workspace.MergeResult, error) {
	return workspace.MergeResult{}, m.notHere(worker, "merge")
}

func (m *Multi) notHere(worker, what string) error {
	at := m.index[worker]
	ref := ""
	if at.l != nil {
		ref = " --run " + at.l.addr.Ref
	}
	return fmt.Errorf("%s is not shown in a UI over many runs: rostra %s%s %s", what, what, ref, at.id)
}

// Stop stops every run (the leave dialog's s) and returns once each has
// been asked.
func (m *Multi) Stop() error {
	var errs []error
	for _, l := range m.links {
		if _, err := l.request(Request{Op: OpStop}); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.prefix, err))
		}
	}
	return errors.Join(errs...)
}

// LinkNote is what the worker's pane says of its run's link: "" while it
// is up.
func (m *Multi) LinkNote(worker string) string {
	at, ok := m.index[worker]
	if !ok {
		return ""
	}
	return at.l.note()
}

// Next is the next event of any run (tui.Events), false once closed.
func (m *Multi) Next() (statedir.Event, bool) {
	m.evmu.Lock()
	defer m.evmu.Unlock()
	for len(m.events) == 0 && !m.closed {
		m.evcond.Wait()
	}
	if m.closed {
		return statedir.Event{}, false
	}
	ev := m.events[0]
	m.events = m.events[1:]
	return ev, true
}

func (m *Multi) push(prefix string, evs []statedir.Event) {
	if len(evs) == 0 {
		return
	}
	m.evmu.Lock()
	for _, ev := range evs {
		if ev.WorkerID != "" {
			ev.WorkerID = prefix + "/" + ev.WorkerID
		}
		m.events = append(m.events, ev)
	}
	m.evcond.Broadcast()
	m.evmu.Unlock()
}

// link is one run's view connection.
type link struct {
	m      *Multi
	addr   RunAddr
	prefix string
	plan   *runfile.Plan // the first connection's; later ones' must match

	mu      sync.Mutex
	c       Stream
	fr      *FrameReader
	wmu     sync.Mutex   // one request written at a time
	replies []chan Reply // the requests awaiting an answer, in order
	st      statedir.TeamState
	panes   map[string]*mirror
	closing bool
	lostAt  time.Time // zero: up
	retryAt time.Time // the next dial; zero while one is under way
	over    string    // why the link is over for good; "": it is not
}

// mirror is one worker's latest attempt, as its PaneViews painted it.
type mirror struct {
	attempt int
	term    *vt.Terminal
	h       *mirrorHandle
}

func (l *link) dial() (Stream, *FrameReader, View, error) {
	dial := l.addr.Dial
	if dial == nil {
		dial = func() (Stream, error) { return dialStream(l.addr.Ref) }
	}
	c, err := dial()
	if err != nil {
		return nil, nil, View{}, err
	}
	fail := func(err error) (Stream, *FrameReader, View, error) {
		go c.Close()
		return nil, nil, View{}, err
	}
	_ = c.SetDeadline(time.Now().Add(linkDialWait))
	fr := NewFrameReader(bufio.NewReaderSize(c, 64<<10))
	bye, err := hello(c, fr, Hello{Rostra: ProtocolVersion, Mode: ModeView})
	switch {
	case err != nil:
		return fail(err)
	case bye != nil && strings.Contains(bye.Message, `unknown mode "`+ModeView+`"`):
		// A server of this protocol from before views.
		return fail(fmt.Errorf("%w: %s: its rostra is older than this one and cannot show its run among others; use the same rostra version on both machines (or rostra attach that run alone)", ErrRefused, bye.Message))
	case bye != nil:
		return fail(fmt.Errorf("%w: %s", ErrRefused, bye.Message))
	}
	f, err := fr.ReadFrame()
	if err != nil {
		return fail(fmt.Errorf("read the run's first view: %w", connErr(err)))
	}
	var v View
	if f.Type != FrameView {
		return fail(fmt.Errorf("%w: the server answered a view's hello with a %s frame", ErrFrame, f.Type))
	}
	if err := DecodeJSON(f.Payload, &v); err != nil {
		return fail(err)
	}
	if v.Plan == nil {
		return fail(fmt.Errorf("%w: the run's first view has no plan", ErrFrame))
	}
	_ = c.SetDeadline(time.Time{})
	return c, fr, v, nil
}

// run reads Views until the link is closed or over, dialling again each
// time it is lost.
func (l *link) run() {
	for {
		err := l.read()
		l.mu.Lock()
		closing := l.closing
		finished := l.st.Status == statedir.RunFinished
		l.failReplies()
		c := l.c
		l.c = nil
		l.mu.Unlock()
		if c != nil {
			go c.Close()
		}
		if closing {
			return
		}
		if errors.Is(err, errServerGone) && finished {
			l.setOver("the run finished; its server has ended")
			return
		}
		if f := l.addr.OnLost; f != nil {
			f(err)
		}
		if !l.redial() {
			return
		}
	}
}

// errServerGone is a connection the server closed.
var errServerGone = errors.New("the server closed the connection")

// read applies Views until the connection fails or falls silent.
func (l *link) read() error {
	l.mu.Lock()
	c, fr := l.c, l.fr
	l.mu.Unlock()
	for {
		_ = c.SetReadDeadline(time.Now().Add(linkSilence))
		f, err := fr.ReadFrame()
		if err != nil {
			if isEOF(err) {
				return errServerGone
			}
			return err
		}
		switch f.Type {
		case FrameView:
			var v View
			if err := DecodeJSON(f.Payload, &v); err != nil {
				return err
			}
			l.apply(v)
		case FrameReply:
			var rep Reply
			if err := DecodeJSON(f.Payload, &rep); err != nil {
				return err
			}
			l.mu.Lock()
			if len(l.replies) > 0 {
				l.replies[0] <- rep
				l.replies = l.replies[1:]
			}
			l.mu.Unlock()
		case FrameBye:
			var bye Bye
			_ = DecodeJSON(f.Payload, &bye)
			return fmt.Errorf("%w: %s", errServerGone, bye.Message)
		default:
			return fmt.Errorf("%w: a %s frame on a view connection", ErrFrame, f.Type)
		}
	}
}

// redial dials with backoff until it connects (true) or the link is
// closed or over (false). Its panes count down to each try.
func (l *link) redial() bool {
	l.mu.Lock()
	l.lostAt = time.Now()
	l.mu.Unlock()
	wait := linkBackoff
	for {
		l.mu.Lock()
		l.retryAt = time.Now().Add(wait)
		l.mu.Unlock()
		l.m.act.Wake()
		for until := time.Now().Add(wait); time.Now().Before(until); {
			time.Sleep(min(time.Until(until), 250*time.Millisecond))
			if l.isClosing() {
				return false
			}
			l.m.act.Wake() // the countdown
		}
		l.mu.Lock()
		l.retryAt = time.Time{}
		l.mu.Unlock()
		l.m.act.Wake()
		c, fr, v, err := l.dial()
		if l.isClosing() {
			if c != nil {
				go c.Close()
			}
			return false
		}
		if err == nil {
			l.mu.Lock()
			l.c, l.fr, l.lostAt = c, fr, time.Time{}
			l.mu.Unlock()
			l.apply(v)
			return true
		}
		if errors.Is(err, ErrNoServer) {
			l.setOver("no server: " + err.Error())
			return false
		}
		wait = min(2*wait, linkBackoffMax)
	}
}

func (l *link) isClosing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closing
}

func (l *link) setOver(why string) {
	l.mu.Lock()
	l.over, l.lostAt = why, time.Time{}
	l.mu.Unlock()
	l.m.act.Wake()
	if f := l.addr.OnOver; f != nil {
		f(why)
	}
}

// note is what the link's panes say of it.
func (l *link) note() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.over != "":
		return l.over
	case l.lostAt.IsZero():
		return ""
	case l.retryAt.IsZero():
		return "link lost · reconnecting…"
	}
	secs := int((time.Until(l.retryAt) + time.Second - 1) / time.Second)
	return "link lost · reconnecting (" + strconv.Itoa(max(1, secs)) + " s)"
}

// failReplies answers every request in flight with nothing: the
// connection it went on is gone. Call with mu held.
func (l *link) failReplies() {
	for _, r := range l.replies {
		close(r)
	}
	l.replies = nil
}

// request sends req; with an answer expected (not input, not resize) it
// waits for the Reply.
func (l *link) request(req Request) (Reply, error) {
	quiet := req.Op == OpInput || req.Op == OpResize || req.Op == OpNotified
	// wmu keeps the replies awaited in the order the requests went out;
	// mu is not held while writing, so a stalled link never stalls the UI.
	l.wmu.Lock()
	l.mu.Lock()
	c := l.c
	if c == nil || !l.lostAt.IsZero() {
		why := l.over
		l.mu.Unlock()
		l.wmu.Unlock()
		if why == "" {
			why = "the link is lost; reconnecting"
		}
		return Reply{}, fmt.Errorf("%s: %s", l.prefix, why)
	}
	var ch chan Reply
	if !quiet {
		ch = make(chan Reply, 1)
		l.replies = append(l.replies, ch)
	}
	l.mu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(linkSilence))
	err := WriteJSON(c, FrameRequest, req)
	l.wmu.Unlock()
	if err != nil || quiet {
		return Reply{}, err
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return Reply{}, fmt.Errorf("%s: the link was lost before %s was answered", l.prefix, req.Op)
		}
		return rep, nil
	case <-time.After(linkReplyWait):
		return Reply{}, fmt.Errorf("%s: no answer to %s in %s", l.prefix, req.Op, linkReplyWait)
	}
}

// apply paints a View into the link's mirrors.
func (l *link) apply(v View) {
	l.m.push(l.prefix, v.Events)
	l.notices(v.Notices)
	l.mu.Lock()
	if v.State != nil {
		l.st = *v.State
	}
	var paint []func()
	for _, pv := range v.Panes {
		mi := l.panes[pv.Worker]
		if mi == nil || mi.attempt != pv.Attempt {
			if mi != nil {
				mi.h.end()
			}
			t := vt.New(max(1, pv.Cols), max(1, pv.Rows), vt.Options{Activity: l.m.act})
			mi = &mirror{attempt: pv.Attempt, term: t}
			mi.h = &mirrorHandle{l: l, worker: pv.Worker, term: t, done: make(chan struct{})}
			l.panes[pv.Worker] = mi
			pv.Full = true
		}
		t := mi.term
		paint = append(paint, func() { _, _ = t.Write(paneSeq(t, pv)) })
	}
	// An ended attempt takes no more keys: its handle is done.
	for _, d := range l.st.Dispatches {
		if mi := l.panes[d.WorkerID]; mi != nil && mi.attempt == d.Attempt && d.EndedAt != nil {
			mi.h.end()
		}
	}
	l.mu.Unlock()
	for _, p := range paint {
		p()
	}
	l.m.act.Wake()
	if f := l.addr.OnView; f != nil {
		f(v.State)
	}
}

// paneSeq is what paints pv into t: the terminal sequences that scroll,
// write the changed rows, and set the cursor and modes as the run's
// emulator has them.
func paneSeq(t *vt.Terminal, pv PaneView) []byte {
	var b strings.Builder
	if pv.Full {
		if c, r := t.Size(); c != pv.Cols || r != pv.Rows {
			t.Resize(max(1, pv.Cols), max(1, pv.Rows))
		}
		if pv.Modes.AltScreen != t.Modes().AltScreen {
			b.WriteString(setMode(1049, pv.Modes.AltScreen))
		}
		// Lines holds every row: nothing is cleared, which would put
		// the screen in the scrollback.
	}
	if pv.Scrolled > 0 {
		bottom := "\x1b[0m\x1b[" + strconv.Itoa(pv.Rows) + ";1H\n"
		for i := range pv.Scrolled {
			if i < len(pv.Off) && pv.Off[i] != "" {
				b.WriteString("\x1b[1;1H\x1b[0m" + pv.Off[i])
			}
			b.WriteString(bottom)
		}
	}
	for row, line := range pv.Lines {
		b.WriteString("\x1b[" + strconv.Itoa(row+1) + ";1H\x1b[0m" + line)
	}
	b.WriteString(strings.Repeat("\a", int(min(pv.Bells, 8))))
	b.WriteString(modesSeq(pv.Modes))
	b.WriteString("\x1b[" + strconv.Itoa(pv.CursorY+1) + ";" + strconv.Itoa(pv.CursorX+1) + "H")
	b.WriteString(setMode(25, pv.Cursor))
	return []byte(b.String())
}

func setMode(n int, on bool) string {
	if on {
		return "\x1b[?" + strconv.Itoa(n) + "h"
	}
	return "\x1b[?" + strconv.Itoa(n) + "l"
}

// modesSeq sets the modes the UI encodes keys and mouse by (and the
// title) as the run's emulator has them.
func modesSeq(md vt.Modes) string {
	var b strings.Builder
	b.WriteString(setMode(1, md.AppCursor))
	if md.AppKeypad {
		b.WriteString("\x1b=")
	} else {
		b.WriteString("\x1b>")
	}
	b.WriteString(setMode(2004, md.BracketedPaste))
	b.WriteString(setMode(1004, md.FocusEvents))
	b.WriteString(setMode(1000, false) + setMode(1002, false) + setMode(1003, false))
	if md.Mouse != 0 {
		b.WriteString(setMode(md.Mouse, true))
	}
	b.WriteString(setMode(1006, md.MouseSGR))
	b.WriteString("\x1b[>4;" + strconv.Itoa(md.ModifyOtherKeys) + "m")
	b.WriteString("\x1b[=" + strconv.Itoa(md.KittyKeyboard) + ";1u")
	b.WriteString("\x1b]2;" + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, md.Title) + "\x07")
	return b.String()
}

// mirrorHandle is a mirrored attempt as the UI holds it (engine.Handle
// with a screen, keys and a size): keys and sizes go over the link.
type mirrorHandle struct {
	l      *link
	worker string
	term   *vt.Terminal
	once   sync.Once
	done   chan struct{}
}

func (h *mirrorHandle) end() { h.once.Do(func() { close(h.done) }) }

func (h *mirrorHandle) Screen() vt.Screen { return h.term }

// Write sends keys to the worker's pty there; while the link is lost
// they are dropped (the pane says so), not an end of the attempt.
func (h *mirrorHandle) Write(p []byte) (int, error) {
	_, _ = h.l.request(Request{Op: OpInput, Worker: h.worker, Data: append([]byte(nil), p...)})
	return len(p), nil
}

// Resize asks the run to size the worker's pty; the mirror follows when
// the run's emulator has.
func (h *mirrorHandle) Resize(cols, rows int) error {
	_, err := h.l.request(Request{Op: OpResize, Worker: h.worker, Cols: cols, Rows: rows})
	return err
}

func (h *mirrorHandle) Pid() int                { return 0 }
func (h *mirrorHandle) Done() <-chan struct{}   { return h.done }
func (h *mirrorHandle) Exit() engine.ExitStatus { return engine.ExitStatus{} }
func (h *mirrorHandle) Signal(syscall.Signal) error {
	return errors.New("a mirrored attempt is signalled in its run")
}
func (h *mirrorHandle) OutputBytes() int64  { return 0 }
func (h *mirrorHandle) NotifyOutput(func()) {}
func (h *mirrorHandle) Lingering() bool     { return false }
func (h *mirrorHandle) Containment() string { return "" }
func (h *mirrorHandle) Close() error        { return nil }

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
