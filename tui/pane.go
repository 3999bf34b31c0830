// pane.go holds the pane component: one worker's frame. It keeps the rows
// the engine last reported for the worker, the current attempt's emulator,
// where the human has scrolled or searched to, which attempt is shown
// (attempt history), and what needs attention; it draws itself into a
// rectangle and re-renders its body only when the emulator's generation,
// the scroll position or the size moved.
//
// Data model: rows come from engine snapshots; term is the emulator the
// attempt's surface feeds (panes owns it; the UI only reads it), reached
// through the handle Engine.Handle returns for the worker (it changes when
// a new attempt opens, which resets scrolling). top is -1 while the pane follows the live
// screen, else the absolute line (scrollback included) at its top. view is
// 0 for the current attempt, else the number of an earlier attempt whose
// screen was rebuilt from its output.log into hist.
package tui

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

type pane struct {
	spec   *runfile.WorkerSpec
	worker statedir.WorkerRow
	// rows are this worker's attempts, oldest first: the rows of the
	// Model's snapshot, not copies of them (600 bytes each, kept for as
	// long as the UI runs; docs/performance.md §Memory of a quiet pane).
	rows []*statedir.DispatchRow

	handle  engine.Handle
	attempt int
	term    *vt.Terminal
	keys    *keyWriter
	// sizedTerm is the emulator the UI last sized (sizes.go).
	sizedTerm *vt.Terminal

	top int // -1: live

	view    int // 0: the current attempt; else an earlier attempt shown from its log
	hist    map[int]*vt.Terminal
	histErr map[int]string
	loading map[int]bool

	diff diffView // an isolated worker's diff, shown over its screen (D)

	// link is what the pane's run's link says while it is not up ("link
	// lost · reconnecting (3 s)"), from an engine over many runs
	// (multirun.go); it stands in the title for the flag and the badge.
	link string

	lastGen    uint64
	lastChange time.Time
	bellSeen   int64
	bell       bool
	queued     int // prompts waiting for its agent (queue.go)

	cache bodyCache
}

// bodyCache is the last rendered body and what it was rendered from.
type bodyCache struct {
	term  *vt.Terminal
	gen   uint64
	top   int
	w, h  int
	th    *theme
	lines []string
}

func newPane(spec *runfile.WorkerSpec) *pane {
	return &pane{spec: spec, top: -1, hist: map[int]*vt.Terminal{}, histErr: map[int]string{}, loading: map[int]bool{}}
}

// cur is the row of the attempt the engine runs (or ran last), nil before
// the first dispatch.
func (p *pane) cur() *statedir.DispatchRow {
	if len(p.rows) == 0 {
		return nil
	}
	return p.rows[len(p.rows)-1]
}

// shown is the row of the attempt on screen.
func (p *pane) shown() *statedir.DispatchRow {
	if p.view == 0 {
		return p.cur()
	}
	for _, r := range p.rows {
		if r.Attempt == p.view {
			return r
		}
	}
	return p.cur()
}

// setHandle adopts the engine's current handle for the worker; a new
// attempt starts live, with its own attention clock.
func (p *pane) setHandle(h engine.Handle, attempt int, now time.Time) {
	if h == p.handle && attempt == p.attempt {
		return
	}
	p.handle, p.attempt = h, attempt
	p.term = TerminalOf(h)
	p.keys = nil
	p.top = -1
	p.lastChange = now
	p.bellSeen = 0
	if p.term != nil {
		p.lastGen = p.term.Generation()
	}
}

// live reports whether the pane shows the current attempt's live screen.
func (p *pane) live() bool { return p.view == 0 && !p.diff.on && p.top < 0 }

// typeable reports whether keys can go to the current attempt: a pane
// surface whose process is still running.
func (p *pane) typeable() bool {
	d := p.cur()
	if d == nil || p.handle == nil || d.Surface != runfile.SurfacePane || d.EndedAt != nil {
		return false
	}
	_, ok := p.handle.(keyHandle)
	return ok
}

// writer returns the current attempt's key queue, making it on first use.
func (p *pane) writer() *keyWriter {
	if p.keys == nil && p.typeable() {
		p.keys = newKeyWriter(p.handle, p.handle.(keyHandle))
	}
	return p.keys
}

// observe notes new output and bells since the last look.
func (p *pane) observe(now time.Time) {
	if p.term != nil {
		if g := p.term.Generation(); g != p.lastGen {
			p.lastGen = g
			p.lastChange = now
		}
		if n := p.term.Bells(); n > p.bellSeen {
			p.bellSeen = n
			p.bell = true
		}
	}
}

// attention says why the pane needs the human, or "". An agent's own
// state says it for its pane (agentstate.go): the engine has heard its
// bells and its quiet already.
func (p *pane) attention(now time.Time, after time.Duration) string {
	return p.attentionAt(now, after, true)
}

// attentionAt is attention with the quiet time to the second when fine,
// to the minute when not (a pane out of focus, ticking once a minute).
func (p *pane) attentionAt(now time.Time, after time.Duration, fine bool) string {
	if d := p.agentRow(); d != nil {
		switch d.AgentState {
		case agentPermission:
			return "permission"
		case agentInput:
			return "idle"
		}
		return ""
	}
	if p.bell {
		return "bell"
	}
	switch p.worker.Status {
	case statedir.StatusRunning:
		d := p.cur()
		if after > 0 && d != nil && d.Surface != "" && !p.lastChange.IsZero() && now.Sub(p.lastChange) >= after {
			if !fine {
				return "quiet " + elapsedCoarse(now.Sub(p.lastChange))
			}
			return "quiet " + elapsed(now.Sub(p.lastChange))
		}
	case statedir.StatusError, statedir.StatusTimeout:
		if d := p.cur(); d != nil && (d.FailureClass == statedir.FailureMissingOutputs || d.FailureClass == statedir.FailureNoResult) {
			return "outputs missing"
		}
		if p.worker.Attempts >= p.spec.MaxAttempts {
			return "out of retries"
		}
		return "needs a retry"
	}
	return ""
}

// touch is the human looking at the pane: the bell has been heard.
func (p *pane) touch() { p.bell = false }

// viewTerm is the emulator of the attempt on screen (nil when it has none).
func (p *pane) viewTerm() *vt.Terminal {
	if p.diff.on {
		return p.diff.term
	}
	if p.view != 0 {
		return p.hist[p.view]
	}
	if p.term == nil {
		// An ended attempt the engine has no handle for: its screen as
		// rebuilt from its log, once loaded.
		if d := p.cur(); d != nil {
			return p.hist[d.Attempt]
		}
	}
	return p.term
}

// frameCtx is what a frame needs from the model.
type frameCtx struct {
	focused bool
	fine    bool // times read to the second (attended.go)
	input   bool // keys go to this pane
	now     time.Time
	attn    string
	hints   *paneHints
	th      *theme
	copy    *copyMode // copy mode on this pane, or nil
}

// frame draws the pane into r: exactly r.h lines of exactly r.w cells.
func (p *pane) frame(r rect, c frameCtx) paneFrame {
	d := p.shown()
	status := p.worker.Status
	if p.view != 0 && d != nil {
		status = d.Status
	}
	colour := c.th.frameColour(status, c.focused)
	b := thinBorder
	if c.focused {
		b = heavyBorder
	}
	iw, ih := max(0, r.w-2), max(0, r.h-2)

	// Top border with the title.
	var attn, attnShort string
	attnColour := c.th.attn
	if c.attn != "" {
		attn, attnShort = " ⚑ "+c.attn+" ", " ⚑"
	}
	agentBadge := false
	if long, short, agentColour := p.agentBadge(c.now, c.th, c.fine); long != "" && p.view == 0 {
		// The agent's state, with its evidence, stands for the flag.
		attn, attnShort, attnColour, agentBadge = " "+long, " "+short, agentColour, true
	}
	if p.link != "" {
		attn, attnShort, attnColour, agentBadge = " ⚠ "+p.link+" ", " ⚠", c.th.warn, false
	}
	room := max(0, iw-1)
	attn = fitText(attn, room)
	title, whole := p.title(d, status, c.now, c.fine, room-ansi.StringWidth(attn))
	if agentBadge {
		// The evidence is cut, a few cells at a time, before it goes.
		for w := ansi.StringWidth(attn) - 4; !whole && w > ansi.StringWidth(attnShort)+4; w -= 4 {
			cut := fitText(attn, w)
			if title, whole = p.title(d, status, c.now, c.fine, room-ansi.StringWidth(cut)); whole {
				attn = cut
			}
		}
	}
	if !whole && attn != "" && (p.link == "" || room-ansi.StringWidth(attn) < linkTitleMin) {
		// The flag alone says the pane wants the human (the status bar
		// counts why); the id and the badges need the room.
		attn = fitText(attnShort, room)
		title, _ = p.title(d, status, c.now, c.fine, room-ansi.StringWidth(attn))
	}
	used := 1 + ansi.StringWidth(attn) + ansi.StringWidth(title)
	top := paint(colour, b.tl+b.h) + paint(attnColour, attn) + paint(colour, title+strings.Repeat(b.h, max(0, iw-used))+b.tr)
	if r.w < 2 {
		top = fit(top, r.w)
	}
	f := paneFrame{top: top, body: p.body(d, iw, ih, c), side: paint(colour, b.v)}

	// Bottom border with where the view is.
	label := p.footer(c)
	label = fitText(label, max(0, iw-2))
	f.bottom = paint(colour, b.bl+b.h) + paint(colour, label) + paint(colour, strings.Repeat(b.h, max(0, iw-1-ansi.StringWidth(label)))+b.br)
	f.lines = 1 + len(f.body)
	if r.h >= 2 {
		f.lines++
	}
	f.lines = min(f.lines, r.h)
	return f
}

// paneFrame is a pane's frame as its parts: the top border, the body's
// lines each between two side borders, the bottom border. Render writes
// the parts into the screen's buffer, so a frame makes no string a line
// of its own (each one garbage at the next frame; docs/performance.md
// §Memory of a quiet pane).
type paneFrame struct {
	top, bottom string
	side        string // the border left and right of each body line
	body        []string
	lines       int // how many lines the frame has, at most its rect's height
}

// writeLine writes line i (0 ≤ i < f.lines) of the frame into b.
func (f *paneFrame) writeLine(b *strings.Builder, i int) {
	switch {
	case i == 0:
		b.WriteString(f.top)
	case i <= len(f.body):
		b.WriteString(f.side)
		b.WriteString(f.body[i-1])
		b.WriteString(f.side)
	default:
		b.WriteString(f.bottom)
	}
}

// title is worker id, role, provider, surface, attempt k/max, status and
// elapsed time. When room is short it drops the provider, then the role,
// then shortens the attempt and the elapsed time, then drops the time,
// then cuts the id: the surface badge, the attempt and the status stay in
// sight down to the narrowest panes (whole is false once the id is cut or
// a badge is gone). A role that only repeats the id is
// not shown. Outside text (the id, role and provider come from the run
// file) is shown escaped.
func (p *pane) title(d *statedir.DispatchRow, status string, now time.Time, fine bool, room int) (t string, whole bool) {
	surface := "—"
	k := "0"
	var took, tookShort, manual string
	if d != nil {
		switch d.Surface {
		case runfile.SurfacePane:
			surface = "PTY"
		case runfile.SurfaceWrapper:
			surface = "WRAPPER"
		}
		k = strconv.Itoa(d.Attempt)
		if d.Manual {
			manual = " manual"
		}
		if d.ResumedFrom != nil {
			manual += " ↻ resumed"
		}
		end := now
		if d.EndedAt != nil {
			end = *d.EndedAt
		}
		if !d.StartedAt.IsZero() {
			took = elapsed(end.Sub(d.StartedAt))
			tookShort = elapsedShort(end.Sub(d.StartedAt))
			if !fine && d.EndedAt == nil {
				// Out of focus a running attempt's time ticks each
				// minute (docs/performance.md §A pane's output).
				took = elapsedCoarse(end.Sub(d.StartedAt))
				tookShort = took
			}
		}
	}
	switch {
	case p.diff.on:
		manual += " (diff)"
	case p.view != 0:
		manual += " (history)"
	}
	kmax := k + "/" + strconv.Itoa(p.spec.MaxAttempts)
	id, role, prov := printable.String(p.spec.ID), printable.String(p.spec.Role), printable.String(p.spec.Provider)
	if p.spec.Role == p.spec.ID {
		role = ""
	}
	if p.spec.Host != "" {
		// A worker on another host says which (docs/remote.md §One roster over many hosts).
		id += "@" + printable.String(p.spec.Host)
	}
	status = printable.String(status)
	if p.queued > 0 && p.view == 0 {
		status += " · " + strconv.Itoa(p.queued) + " queued"
	}
	candidates := [][]string{
		{id, role, prov, surface, "attempt " + kmax + manual, status, took},
		{id, role, surface, "attempt " + kmax + manual, status, took},
		{id, surface, "attempt " + kmax + manual, status, took},
		{id, surface, kmax + manual, status, took},
		{id, surface, kmax + manual, status, tookShort},
		{id, surface, kmax + manual, status},
	}
	// An isolated worker's diff-stat goes at the end while the surface and
	// the attempt still fit beside it; past that, it goes first.
	tries := candidates
	if p.worker.Isolation == runfile.IsolationWorktree {
		stat := p.worker.DiffStat.String()
		tries = nil
		for _, c := range candidates[:4] {
			tries = append(tries, append(c[:len(c):len(c)], stat))
		}
		tries = append(tries, candidates...)
	}
	join := func(c []string) string {
		c = slices.DeleteFunc(slices.Clone(c), func(s string) bool { return s == "" })
		return " " + strings.Join(c, " · ") + " "
	}
	for _, c := range tries {
		if t := join(c); ansi.StringWidth(t) <= room {
			return t, true
		}
	}
	// The id is cut (to no fewer than 4 cells and an ellipsis) before the
	// badge and the attempt go.
	rest := " · " + surface + " · " + kmax + manual + " · " + status + " "
	if idRoom := room - ansi.StringWidth(rest) - 1; idRoom >= 5 {
		return " " + fitText(id, idRoom) + rest, false
	}
	for _, c := range [][]string{{id, kmax, status}, {id, status}} {
		if t := join(c); ansi.StringWidth(t) <= room {
			return t, false
		}
	}
	return fitText(join([]string{id, status}), room), false
}

func (p *pane) footer(c frameCtx) string {
	var parts []string
	switch {
	case c.copy != nil:
		// Copy mode's own keys are in the status bar.
		return " " + c.copy.footer() + " "
	case p.diff.on:
		parts = append(parts, "diff: "+c.hints.diff)
	case p.view != 0:
		parts = append(parts, "history: "+c.hints.history)
	}
	if t := p.viewTerm(); t != nil && p.top >= 0 {
		parts = append(parts, "scrollback "+strconv.Itoa(p.top+1)+"/"+strconv.Itoa(t.LineCount())+" · "+c.hints.live)
	}
	if c.input {
		parts = append(parts, "INPUT · "+c.hints.typing)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " │ ") + " "
}

// body is the inside of the frame: notices (DEGRADED, an earlier attempt's
// outcome, why no surface opened) around the emulator's window.
func (p *pane) body(d *statedir.DispatchRow, w, h int, c frameCtx) []string {
	if h <= 0 {
		return nil
	}
	var tail []string
	head := noticesFor(d, w, c.th)
	head = head[:min(len(head), max(0, h-1))]
	if p.diff.on {
		tail = append(tail, paint(c.th.dim, fit(fitText(printable.String(p.diff.caption()), w), w)))
	} else if p.view != 0 && d != nil {
		msg := "attempt " + strconv.Itoa(d.Attempt) + " " + d.Status
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		tail = append(tail, paint(c.th.dim, fit(fitText(printable.String(msg), w), w)))
	}
	room := max(0, h-len(head)-len(tail))
	lines := make([]string, 0, h)
	lines = append(lines, head...)
	t := p.viewTerm()
	switch {
	case c.copy != nil:
		lines = append(lines, c.copy.window(w, room, c.th)...)
	case t != nil:
		lines = append(lines, p.window(t, w, room, c.th)...)
	default:
		msg := printable.Lines(p.placeholder(d))
		var ls []string
		for _, para := range strings.Split(msg, "\n") {
			ls = append(ls, wrapText(para, w)...)
		}
		for i := range room {
			l := ""
			if i < len(ls) {
				l = ls[i]
			}
			lines = append(lines, fit(l, w))
		}
	}
	lines = append(lines, tail...)
	blank := strings.Repeat(" ", w)
	for len(lines) < h {
		lines = append(lines, blank)
	}
	return lines[:h]
}

// notices are the lines above the current attempt's emulator.
func (p *pane) notices(w int) []string { return noticesFor(p.cur(), w, nil) }

// noticesFor is the DEGRADED line of attempt d (at most two lines, so a
// long reason never hides the screen), shown at all times.
// A nil theme gives the lines unpainted (when only their number matters).
func noticesFor(d *statedir.DispatchRow, w int, th *theme) []string {
	if d == nil || (d.DegradedFrom == "" && d.SandboxDegradedReason == "") {
		return nil
	}
	var text []string
	if d.DegradedFrom != "" {
		reason := d.DegradedReason
		if reason == "" {
			reason = "no reason reported"
		}
		text = append(text, "DEGRADED "+string(d.DegradedFrom)+" -> "+string(d.Surface)+": "+reason)
	}
	if d.SandboxDegradedReason != "" {
		// Run without its sandbox (sandbox_fallback: none, docs/sandbox.md).
		text = append(text, "DEGRADED sandbox -> none: "+d.SandboxDegradedReason)
	}
	var out []string
	lines := wrapText(printable.String(strings.Join(text, "; ")), w)
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = fitText(lines[1]+"…", w)
	}
	for _, l := range lines {
		l = fit(l, w)
		if th != nil {
			l = paint(th.warn, l)
		}
		out = append(out, l)
	}
	return out
}

// placeholder is what a pane without a screen says.
func (p *pane) placeholder(d *statedir.DispatchRow) string {
	switch {
	case p.diff.on && p.diff.err != "":
		return "cannot show the diff: " + p.diff.err
	case p.diff.on:
		return "reading the diff of " + p.worker.Branch + "…"
	case p.view != 0:
		if e := p.histErr[p.view]; e != "" {
			return "cannot show attempt " + strconv.Itoa(p.view) + ": " + e
		}
		return "loading attempt " + strconv.Itoa(p.view) + " from its output.log…"
	case d == nil:
		return "waiting to start"
	case d.Surface != "" && d.EndedAt != nil && p.term == nil:
		if e := p.histErr[d.Attempt]; e != "" {
			return "cannot show attempt " + strconv.Itoa(d.Attempt) + ": " + e
		}
		return "loading attempt " + strconv.Itoa(d.Attempt) + " from its output.log…"
	case d.Surface == "" && d.Reason != "":
		// Every surface failed: one line per surface's reason.
		return strings.ReplaceAll(strings.Replace(d.Reason, ": ", ":\n", 1), "; ", "\n")
	case p.worker.Status == statedir.StatusRetrying:
		return "retrying: " + p.worker.Reason
	}
	return ""
}

// window renders the emulator lines the pane shows, cached by generation.
func (p *pane) window(t *vt.Terminal, w, h int, th *theme) []string {
	if h <= 0 {
		return nil
	}
	gen := t.Generation()
	cc := &p.cache
	if cc.term == t && cc.gen == gen && cc.top == p.top && cc.w == w && cc.h == h && cc.th == th && cc.lines != nil {
		return cc.lines
	}
	top := p.top
	if top < 0 {
		top = math.MaxInt32
	}
	src := t.Window(top, true)
	tcols, trows := t.Size()
	start := 0
	if trows > h {
		// The emulator is taller than the pane (a resize is on its way):
		// keep the cursor's row in sight.
		_, cy, _ := t.Cursor()
		if p.top >= 0 {
			cy = 0
		}
		start = max(0, min(cy-h+1, trows-h))
	}
	lines := cc.lines[:0]
	if cap(lines) < h {
		lines = make([]string, 0, h)
	}
	blank := strings.Repeat(" ", w)
	for i := range h {
		j := start + i
		switch {
		case j >= len(src):
			lines = append(lines, blank)
		default:
			l := src[j]
			if tcols != w { // Window gives exactly tcols cells
				l = fit(l, w)
			}
			lines = append(lines, l)
		}
	}
	*cc = bodyCache{term: t, gen: gen, top: p.top, w: w, h: h, th: th, lines: lines}
	return lines
}

// scrollBy moves the view n lines (negative: back in time).
func (p *pane) scrollBy(n, rows int) {
	t := p.viewTerm()
	if t == nil {
		return
	}
	_, trows := t.Size()
	bottom := t.LineCount() - trows
	top := p.top
	if top < 0 {
		top = bottom
	}
	top = max(0, min(top+n, bottom))
	if top >= bottom {
		top = -1
	}
	p.top = top
}

// goLive returns to the live screen of the current attempt.
func (p *pane) goLive() {
	p.top, p.view = -1, 0
	p.diff.on = false
}
