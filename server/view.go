// view.go serves a client in ModeView: `rostra attach RUN...` draws many
// runs in one UI of its own, so instead of a UI drawn here it is given
// the run as data (docs/remote.md §Many runs in one UI). The first View
// holds the plan, the state and every worker's screen whole; each later
// one what changed since: the state when it moved, the engine's events,
// and for each worker whose screen moved the rows that differ (after the
// lines that scrolled off its top). At most FPS Views a second, each
// taken against what was last sent, so a slow link gets fewer and larger
// Views, never a queue. Requests come the other way: input and resize
// get no answer; retry, cancel and stop a Reply, in order, between Views.
//
// Data model: sentPane is what the client was last told of a worker's
// screen (its emulator, generation, size, rows as ANSI, cursor, modes,
// bells); a View is the difference between that and the screen now.
package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/tui"
)

// View is one FrameView: what changed in the run since the last View.
type View struct {
	Plan   *runfile.Plan       `json:"plan,omitempty"` // the first View's
	State  *statedir.TeamState `json:"state,omitempty"`
	Events []statedir.Event    `json:"events,omitempty"`
	Panes  []PaneView          `json:"panes,omitempty"`
	// Notices are the run's notifications since the last View, for the
	// client to alert its terminal of (viewnotify.go).
	Notices []Notice `json:"notices,omitempty"`
}

// PaneView is what changed on one worker's screen. A client applies
// Scrolled first (that many lines go off the top into the scrollback),
// then Lines, then the cursor and modes.
type PaneView struct {
	Worker  string `json:"worker"`
	Attempt int    `json:"attempt"`
	Cols    int    `json:"cols"`
	Rows    int    `json:"rows"`
	// Full: Lines holds every row, and the client draws the screen anew
	// (a new attempt, a new size, the alternate screen entered or left).
	Full     bool `json:"full,omitempty"`
	Scrolled int  `json:"scrolled,omitempty"`
	// Off are the Scrolled lines that went into the scrollback, oldest
	// first, each as it was when it went; "" for one still as the
	// client's row of that number has it.
	Off     []string       `json:"off,omitempty"`
	Lines   map[int]string `json:"lines,omitempty"` // row → the row in ANSI, Cols cells or fewer then EL (trimRows)
	CursorX int            `json:"cx"`
	CursorY int            `json:"cy"`
	Cursor  bool           `json:"cursor"`
	Modes   vt.Modes       `json:"modes"`
	Bells   int64          `json:"bells,omitempty"` // rung since the last View
}

type sentPane struct {
	term       *vt.Terminal
	attempt    int
	gen        uint64
	cols, rows int
	sb         int
	lines      []string
	cx, cy     int
	cursor     bool
	modes      vt.Modes
	bells      int64
}

// viewIdle is how often a View is taken with nothing having woken the
// loop: the elapsed times in the state move without an event.
const viewIdle = time.Second

// viewEchoWindow is how long after a key Views go out on every change,
// not at most FPS a second: the key's echo is drawn at once.
const viewEchoWindow = 100 * time.Millisecond

// viewWriteWait bounds one View's write: a client that takes no bytes for
// that long (its link cut, unnoticed by TCP) is let go, and dials again.
const viewWriteWait = 30 * time.Second

func (s *Server) view(c net.Conn, fr *FrameReader) {
	var wmu sync.Mutex
	write := func(t FrameType, v any) error {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(viewWriteWait))
		return WriteJSON(c, t, v)
	}
	if err := write(FrameWelcome, s.welcome()); err != nil {
		return
	}
	sub := s.eng.Subscribe()
	defer sub.Close()
	kick := make(chan struct{}, 1)
	poke := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	var emu sync.Mutex
	var events []statedir.Event
	go func() {
		for {
			ev, ok := sub.Next()
			if !ok {
				return
			}
			emu.Lock()
			events = append(events, ev)
			emu.Unlock()
			poke()
		}
	}()
	takeNotices, leave := s.viewNotes.join(poke)
	defer leave()
	var wake <-chan struct{}
	if s.cfg.Activity != nil {
		w, stop := s.cfg.Activity.Listen()
		defer stop()
		wake = w
	}
	var typedAt atomic.Int64 // when the client last typed (UnixNano)
	typed := func() { typedAt.Store(time.Now().UnixNano()) }
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		s.viewRequests(fr, write, typed)
	}()

	plan := s.eng.Plan()
	sent := map[string]*sentPane{}
	var lastState []byte
	var lastSent time.Time
	interval := time.Second / time.Duration(s.cfg.FPS)
	idle := time.NewTicker(viewIdle)
	defer idle.Stop()
	final := false // the run is over: one last View says how it ended
	for first := true; ; first = false {
		var v View
		if first {
			v.Plan = plan
		}
		st := s.eng.Snapshot()
		if b, _ := json.Marshal(st); !bytes.Equal(b, lastState) {
			v.State, lastState = &st, b
		}
		emu.Lock()
		v.Events, events = events, nil
		emu.Unlock()
		v.Notices = takeNotices()
		for i := range plan.Workers {
			if pv, ok := s.paneView(plan.Workers[i].ID, sent); ok {
				v.Panes = append(v.Panes, pv)
			}
		}
		// An empty View at least every viewIdle tells the client the
		// link is up: a cut link is silence, not an error.
		if first || v.State != nil || len(v.Events) > 0 || len(v.Panes) > 0 || len(v.Notices) > 0 || time.Since(lastSent) >= viewIdle {
			for _, part := range splitView(v, viewFrameBudget) {
				if err := write(FrameView, part); err != nil {
					return
				}
			}
			lastSent = time.Now()
		}
		if final {
			return
		}
		// Wait for a change, then keep to FPS: output after a quiet
		// spell goes at once, so a key's echo is not held back.
		select {
		case <-wake:
		case <-kick:
		case <-idle.C:
		case <-gone:
			return
		case <-s.over:
			final = true
			continue
		}
		// Right after a key the pane's echo goes as soon as it is there,
		// not in the next frame's turn.
		echoing := time.Since(time.Unix(0, typedAt.Load())) < viewEchoWindow
		if d := interval - time.Since(lastSent); d > 0 && !echoing {
			pause := time.NewTimer(d)
			select {
			case <-pause.C:
			case <-gone:
				pause.Stop()
				return
			case <-s.over:
				pause.Stop()
				final = true
			}
		}
	}
}

// viewRequests reads a view client's requests until it goes.
func (s *Server) viewRequests(fr *FrameReader, write func(FrameType, any) error, typed func()) {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(s.log, "rostra server: a view client: %v\n", err)
			}
			return
		}
		var req Request
		if f.Type != FrameRequest {
			err = fmt.Errorf("%w: a view client may not send a %s frame", ErrFrame, f.Type)
		} else {
			err = DecodeJSON(f.Payload, &req)
		}
		if err != nil {
			fmt.Fprintf(s.log, "rostra server: dropped a view client: %v\n", err)
			_ = write(FrameBye, Bye{Reason: ByeDropped, Code: 2, Message: err.Error()})
			return
		}
		switch req.Op {
		case OpInput:
			typed()
			h, _ := s.eng.Handle(req.Worker)
			if w, ok := h.(interface{ Write([]byte) (int, error) }); ok && h != nil {
				_, _ = w.Write(req.Data)
			}
			continue
		case OpNotified:
			s.viewNotes.answer(req.Notice, tui.NotifyReply{Via: req.Text, Quiet: req.Quiet})
			continue
		case OpResize:
			h, _ := s.eng.Handle(req.Worker)
			if r, ok := h.(interface{ Resize(cols, rows int) error }); ok && h != nil && req.Cols > 0 && req.Rows > 0 {
				_ = r.Resize(clampSize(req.Cols), clampSize(req.Rows))
			}
			continue
		}
		var rep Reply
		switch req.Op {
		case OpRetry, OpCancel, OpStatus, OpInfo:
			rep = s.answer(req)
		case OpStop:
			s.Stop("stopped from a client attached to many runs")
			rep = Reply{Note: "stopping every worker"}
		default:
			rep = Reply{Code: 2, Error: fmt.Sprintf("a view client may not send %q", req.Op)}
		}
		if write(FrameReply, rep) != nil {
			return
		}
	}
}

// paneView is what changed on worker's screen since sent[worker], and
// records it as sent; false when nothing did (or the worker has no
// screen here: the client keeps the one it has).
func (s *Server) paneView(worker string, sent map[string]*sentPane) (PaneView, bool) {
	h, attempt := s.eng.Handle(worker)
	t := tui.TerminalOf(h)
	if t == nil {
		return PaneView{}, false
	}
	sp := sent[worker]
	full := sp == nil || sp.term != t
	if full {
		sp = &sentPane{term: t}
		sent[worker] = sp
	}
	gen, bells, modes := t.Generation(), t.Bells(), t.Modes()
	cx, cy, cursor := t.Cursor()
	if !full && gen == sp.gen && bells == sp.bells && modes == sp.modes && cx == sp.cx && cy == sp.cy && cursor == sp.cursor {
		return PaneView{}, false
	}
	cols, rows := t.Size()
	sb := t.ScrollbackLen()
	lines := trimRows(t.Window(sb, true))
	rows = len(lines)
	pv := PaneView{Worker: worker, Attempt: attempt, Cols: cols, Rows: rows,
		CursorX: cx, CursorY: cy, Cursor: cursor, Modes: modes, Bells: bells - sp.bells}
	if !full && (cols != sp.cols || rows != sp.rows || modes.AltScreen != sp.modes.AltScreen || sb < sp.sb) {
		full = true
	}
	if k := sb - sp.sb; !full && k > maxOffLines {
		full = true
	} else if !full && k > 0 {
		// The client scrolls its rows off as the run's went, each line
		// as it was when it went: a row the client has right already is
		// sent as "".
		pv.Scrolled = k
		pv.Off = offLines(t, sp.sb, k)
		for i := range min(k, len(sp.lines)) {
			if pv.Off[i] == sp.lines[i] {
				pv.Off[i] = ""
			}
		}
		if k < rows {
			sp.lines = append(sp.lines[k:], make([]string, k)...)
		} else {
			clear(sp.lines)
		}
	}
	pv.Full = full
	pv.Lines = map[int]string{}
	for i, l := range lines {
		if full || sp.lines[i] != l {
			pv.Lines[i] = l
		}
	}
	if full {
		pv.Bells = 0
	}
	*sp = sentPane{term: t, attempt: attempt, gen: gen, cols: cols, rows: rows, sb: sb, lines: lines,
		cx: cx, cy: cy, cursor: cursor, modes: modes, bells: bells}
	return pv, true
}

// trimRows cuts each line's blank cells at its end, when they have the
// default style, for an EL (erase to the end of the row): a pane's rows
// are mostly blank, and a View of every row padded to its width weighs
// several times what it holds (the first View of 16 panes: 124 kB, most
// of it spaces), which the first frame of an attach over a slow link
// waits for.
func trimRows(lines []string) []string {
	for i, l := range lines {
		lines[i] = trimLine(l)
	}
	return lines
}

// trimmedMin is the fewest blank cells worth an EL (3 bytes) instead.
const trimmedMin = 4

func trimLine(l string) string {
	k := len(l)
	for k > 0 && l[k-1] == ' ' {
		k--
	}
	if len(l)-k < trimmedMin {
		return l
	}
	// The style at the cut must be the default: no escape before it, or
	// the last one a reset (an open hyperlink or a colour would show in
	// those blanks).
	if e := strings.LastIndexByte(l[:k], 0x1b); e >= 0 && !strings.HasPrefix(l[e:k], "\x1b[m") {
		return l
	}
	return l[:k] + "\x1b[K"
}

// maxOffLines bounds the lines a View carries for the scrollback: a
// screen that scrolled by more since the last is sent whole instead.
const maxOffLines = 1000

// offLines is n lines of t from absolute line top, in ANSI.
func offLines(t *vt.Terminal, top, n int) []string {
	_, rows := t.Size()
	var out []string
	for len(out) < n {
		w := trimRows(t.Window(top+len(out), true))
		out = append(out, w[:min(len(w), n-len(out), rows)]...)
		if len(w) == 0 {
			break
		}
	}
	return out
}

// viewFrameBudget is the most a View's panes may weigh in one frame,
// under MaxFrame with room for its JSON around them.
const viewFrameBudget = MaxFrame / 2

// splitView cuts v into Views that each fit a frame: the plan, state and
// events first, then the panes, a pane whose rows weigh more than budget
// in parts of its rows (the size, scroll and Full with the first). A
// client applies them in turn to the same end as v.
func splitView(v View, budget int) []View {
	size := 0
	for _, pv := range v.Panes {
		size += paneWeight(pv)
	}
	if size <= budget {
		return []View{v}
	}
	out := []View{{Plan: v.Plan, State: v.State, Events: v.Events, Notices: v.Notices}}
	var cur View
	curSize := 0
	flush := func() {
		if len(cur.Panes) > 0 {
			out = append(out, cur)
		}
		cur, curSize = View{}, 0
	}
	for _, pv := range v.Panes {
		for _, part := range splitPane(pv, budget) {
			w := paneWeight(part)
			if curSize+w > budget {
				flush()
			}
			cur.Panes = append(cur.Panes, part)
			curSize += w
		}
	}
	flush()
	return out
}

// splitPane cuts pv's rows into parts of at most budget bytes each.
func splitPane(pv PaneView, budget int) []PaneView {
	if paneWeight(pv) <= budget {
		return []PaneView{pv}
	}
	first := pv
	first.Lines = map[int]string{}
	if paneWeight(first) > budget {
		// The lines scrolled off weigh too much: the client scrolls its
		// own rows off instead (its scrollback misses those lines).
		first.Off = nil
	}
	parts := []PaneView{first}
	size := paneWeight(first)
	rows := make([]int, 0, len(pv.Lines))
	for r := range pv.Lines {
		rows = append(rows, r)
	}
	slices.Sort(rows)
	for _, r := range rows {
		l := pv.Lines[r]
		if size+jsonLen(l)+16 > budget && len(parts[len(parts)-1].Lines) > 0 {
			next := pv
			next.Full, next.Scrolled, next.Off, next.Bells, next.Lines = false, 0, nil, 0, map[int]string{}
			parts = append(parts, next)
			size = 0
		}
		parts[len(parts)-1].Lines[r] = l
		size += jsonLen(l) + 16
	}
	return parts
}

// paneWeight is at least what pv weighs as JSON.
func paneWeight(pv PaneView) int {
	n := 256 + jsonLen(pv.Modes.Title)
	for _, l := range pv.Off {
		n += jsonLen(l) + 8
	}
	for _, l := range pv.Lines {
		n += jsonLen(l) + 16
	}
	return n
}

// jsonLen is at least s's length as a JSON string: control characters
// and <, >, & take 6 bytes (\u001b), " and \ two.
func jsonLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		case c == '"' || c == '\\':
			n++
		}
	}
	return n
}
