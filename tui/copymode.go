// copymode.go is copy mode, as tmux users know it: c freezes the focused
// pane (a vt.Snapshot, as tmux clones the pane on entry, so output that
// arrives meanwhile moves nothing) and puts a cursor on it; vi keys move it
// through the screen and the scrollback; v selects characters, V whole
// lines, Ctrl-v a block; y or Enter copies the selection to the outer
// terminal's clipboard with OSC 52 (tea.SetClipboard) and leaves; Esc or
// q leaves. The text copied is vt.Copy's: tmux's, wide characters whole,
// wrapped rows joined, trailing spaces dropped. A mouse drag inside a pane
// selects in that pane only and copies on release. Search results (/, n,
// N, and the list of every pane's matches) are looked at in copy mode too:
// search.go keeps the matches, this file draws them.
//
// Data model: copyMode holds the snapshot and positions in its absolute
// line space (0 is the oldest scrollback line): the cursor, the anchor
// where the selection began, and top, the line at the top of the pane.
package tui

import (
	"fmt"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/panes/vt"
)

// copyMode is the state of copy mode on one pane.
type copyMode struct {
	idx  int          // the pane
	term *vt.Terminal // frozen when copy mode began
	view int          // the attempt the pane showed (pane.view)

	cur, anchor vt.Pos
	selecting   bool
	kind        vt.SelectionKind
	top         int // the absolute line at the pane's top row

	found *paneMatches // the search's matches in term, or nil (search.go)

	row vt.Row // scratch
}

// enterCopy starts copy mode on pane i at its live screen (or where it is
// scrolled to), with the cursor where the pane's program left its own.
func (m *Model) enterCopy(i int) *copyMode {
	p := m.panes[i]
	t := p.viewTerm()
	if t == nil {
		m.note = "nothing to copy from in " + p.spec.ID + " yet"
		return nil
	}
	return m.enterCopyOn(i, t.Snapshot())
}

// enterCopyOn starts copy mode on pane i over snap, a snapshot of the
// terminal the pane shows.
func (m *Model) enterCopyOn(i int, snap *vt.Terminal) *copyMode {
	p := m.panes[i]
	cols, rows := snap.Size()
	total := snap.LineCount()
	cm := &copyMode{idx: i, term: snap, view: p.view, top: total - rows}
	if p.top >= 0 {
		cm.top = min(p.top, total-rows)
		cm.cur = vt.Pos{Line: cm.top + rows - 1}
	} else {
		x, y, _ := snap.Cursor()
		cm.cur = vt.Pos{Line: total - rows + y, Col: min(x, cols-1)}
	}
	cm.snap()
	m.copy = cm
	m.mode = modeCopy
	m.overlay = overlayNone
	p.touch()
	return cm
}

// leaveCopy ends copy mode; the pane goes back to where it follows its
// program (or the end of the earlier attempt it shows).
func (m *Model) leaveCopy() {
	if m.copy == nil {
		return
	}
	p := m.panes[m.copy.idx]
	p.top = -1
	m.copy = nil
	if m.mode == modeCopy {
		m.mode = modeNormal
	}
}

// copyRows is how many rows of the terminal pane i shows.
func (m *Model) copyRows(i int) int {
	p := m.panes[i]
	for _, v := range m.visible() {
		if v.idx != i {
			continue
		}
		in := v.r.inner()
		h := in.h - len(p.notices(in.w))
		if p.view != 0 {
			h-- // the earlier attempt's outcome, under the screen
		}
		return max(1, h)
	}
	if t := p.viewTerm(); t != nil {
		_, r := t.Size()
		return r
	}
	return 1
}

// Moving the cursor.

// snap moves the cursor off the right half of a wide character.
func (cm *copyMode) snap() {
	cm.term.ReadRow(cm.cur.Line, &cm.row)
	cols := cm.row.Cols()
	cm.cur.Col = max(0, min(cm.cur.Col, cols-1))
	for cm.cur.Col > 0 && cm.row.Padding(cm.cur.Col) {
		cm.cur.Col--
	}
}

// moveTo puts the cursor at p (clamped) and scrolls it into the h rows
// in sight.
func (cm *copyMode) moveTo(p vt.Pos, h int) {
	total := cm.term.LineCount()
	cm.cur = vt.Pos{Line: max(0, min(p.Line, total-1)), Col: p.Col}
	cm.snap()
	cm.scrollToCursor(h)
}

func (cm *copyMode) scrollToCursor(h int) {
	switch {
	case cm.cur.Line < cm.top:
		cm.top = cm.cur.Line
	case cm.cur.Line >= cm.top+h:
		cm.top = cm.cur.Line - h + 1
	}
	cm.clampTop(h)
}

func (cm *copyMode) clampTop(h int) {
	cm.top = max(0, min(cm.top, cm.term.LineCount()-h))
}

// scroll moves the view n lines, the cursor with it.
func (cm *copyMode) scroll(n, h int) {
	top := cm.top
	cm.top += n
	cm.clampTop(h)
	cm.cur.Line += cm.top - top
	if cm.top == top {
		cm.cur.Line += n // at an end already: the cursor goes the rest of the way
	}
	cm.moveTo(cm.cur, h)
}

func (cm *copyMode) right(h int) {
	cm.term.ReadRow(cm.cur.Line, &cm.row)
	x := cm.cur.Col + 1
	for x < cm.row.Cols() && cm.row.Padding(x) {
		x++
	}
	if x < cm.row.Cols() {
		cm.cur.Col = x
	}
	cm.scrollToCursor(h)
}

// cellClass is what vi's word motions see in a cell: 0 blank, 1 a word
// character, 2 other punctuation.
func cellClass(s string) int {
	r := []rune(s)
	switch {
	case len(r) == 0 || s == " ":
		return 0
	case unicode.IsLetter(r[0]) || unicode.IsDigit(r[0]) || r[0] == '_':
		return 1
	}
	return 2
}

// classAt is the class of the cell at p (cellClass); past the row's last
// cell it is blank, so words end at a line's end.
func (cm *copyMode) classAt(p vt.Pos) int {
	cm.term.ReadRow(p.Line, &cm.row)
	if p.Col >= cm.row.Cols() {
		return 0
	}
	return cellClass(cm.row.Cell(p.Col))
}

// step is the next (or previous) cell position in reading order, skipping
// the right halves of wide characters; ok is false at either end. A row
// that does not wrap ends with a blank, so words end at line ends.
func (cm *copyMode) step(p vt.Pos, back bool) (vt.Pos, bool) {
	total := cm.term.LineCount()
	for {
		cm.term.ReadRow(p.Line, &cm.row)
		if back {
			p.Col--
			if p.Col < 0 {
				if p.Line == 0 {
					return p, false
				}
				p.Line--
				cm.term.ReadRow(p.Line, &cm.row)
				p.Col = cm.row.Cols() - 1
			}
		} else {
			p.Col++
			if p.Col >= cm.row.Cols() {
				if p.Line >= total-1 {
					return p, false
				}
				p.Line++
				p.Col = 0
			}
		}
		cm.term.ReadRow(p.Line, &cm.row)
		if !cm.row.Padding(p.Col) {
			return p, true
		}
	}
}

// wordForward is vi's w (end false: the start of the next word) and e
// (end true: the end of this or the next word).
func (cm *copyMode) wordForward(end bool, h int) {
	p := cm.cur
	ok := true
	if end {
		p, ok = cm.step(p, false)
		for ok && cm.classAt(p) == 0 {
			p, ok = cm.step(p, false)
		}
		if !ok {
			cm.scrollToCursor(h)
			return
		}
		c := cm.classAt(p)
		for {
			q, ok := cm.step(p, false)
			if !ok || cm.classAt(q) != c || q.Line != p.Line && !cm.wraps(p.Line) {
				break
			}
			p = q
		}
		cm.moveTo(p, h)
		return
	}
	c := cm.classAt(p)
	for ok && c != 0 && cm.classAt(p) == c {
		q, more := cm.step(p, false)
		if !more {
			ok = false
			break
		}
		crossed := q.Line != p.Line && !cm.wraps(p.Line)
		p = q
		if crossed {
			break
		}
	}
	for ok && cm.classAt(p) == 0 {
		p, ok = cm.step(p, false)
	}
	if ok {
		cm.moveTo(p, h)
	}
}

// wordBack is vi's b: the start of this or the previous word.
func (cm *copyMode) wordBack(h int) {
	p, ok := cm.step(cm.cur, true)
	for ok && cm.classAt(p) == 0 {
		p, ok = cm.step(p, true)
	}
	if !ok {
		return
	}
	c := cm.classAt(p)
	for {
		q, ok := cm.step(p, true)
		if !ok || cm.classAt(q) != c || q.Line != p.Line && !cm.wraps(q.Line) {
			break
		}
		p = q
	}
	cm.moveTo(p, h)
}

func (cm *copyMode) wraps(line int) bool {
	cm.term.ReadRow(line, &cm.row)
	return cm.row.Wrapped
}

// What the copy-mode keys do (keymap.go binds them).

func (m *Model) copyKeys() (*copyMode, int) {
	cm := m.copy
	return cm, m.copyRows(cm.idx)
}

func (m *Model) copyLeft() tea.Cmd {
	cm, h := m.copyKeys()
	cm.moveTo(vt.Pos{Line: cm.cur.Line, Col: max(0, cm.cur.Col-1)}, h)
	return nil
}
func (m *Model) copyRight() tea.Cmd { cm, h := m.copyKeys(); cm.right(h); return nil }
func (m *Model) copyUp() tea.Cmd {
	cm, h := m.copyKeys()
	cm.moveTo(vt.Pos{Line: cm.cur.Line - 1, Col: cm.cur.Col}, h)
	return nil
}
func (m *Model) copyDown() tea.Cmd {
	cm, h := m.copyKeys()
	cm.moveTo(vt.Pos{Line: cm.cur.Line + 1, Col: cm.cur.Col}, h)
	return nil
}
func (m *Model) copyWord() tea.Cmd     { cm, h := m.copyKeys(); cm.wordForward(false, h); return nil }
func (m *Model) copyWordEnd() tea.Cmd  { cm, h := m.copyKeys(); cm.wordForward(true, h); return nil }
func (m *Model) copyWordBack() tea.Cmd { cm, h := m.copyKeys(); cm.wordBack(h); return nil }

// copyLineStart is vi's 0: the start of the line, wrapped rows followed.
func (m *Model) copyLineStart() tea.Cmd {
	cm, h := m.copyKeys()
	first, _ := cm.term.LineBounds(cm.cur.Line)
	cm.moveTo(vt.Pos{Line: first}, h)
	return nil
}

// copyLineEnd is vi's $: after the last character of the line (a newline
// is copied with it, as in tmux), or on it when the row is full.
func (m *Model) copyLineEnd() tea.Cmd {
	cm, h := m.copyKeys()
	_, last := cm.term.LineBounds(cm.cur.Line)
	cm.term.ReadRow(last, &cm.row)
	cm.moveTo(vt.Pos{Line: last, Col: cm.row.Len()}, h)
	return nil
}

// copyFirstNonBlank is vi's ^.
func (m *Model) copyFirstNonBlank() tea.Cmd {
	cm, h := m.copyKeys()
	cm.term.ReadRow(cm.cur.Line, &cm.row)
	x := 0
	for x < cm.row.Len() && cm.row.Cell(x) == " " {
		x++
	}
	cm.moveTo(vt.Pos{Line: cm.cur.Line, Col: x}, h)
	return nil
}

func (m *Model) copyTop() tea.Cmd { cm, h := m.copyKeys(); cm.moveTo(vt.Pos{}, h); return nil }
func (m *Model) copyBottom() tea.Cmd {
	cm, h := m.copyKeys()
	cm.moveTo(vt.Pos{Line: cm.term.LineCount() - 1}, h)
	return nil
}

// copyViewTop, copyViewMiddle and copyViewBottom are vi's H, M and L.
func (m *Model) copyViewTop() tea.Cmd {
	cm, h := m.copyKeys()
	cm.moveTo(vt.Pos{Line: cm.top, Col: cm.cur.Col}, h)
	return nil
}
func (m *Model) copyViewMiddle() tea.Cmd {
	cm, h := m.copyKeys()
	cm.moveTo(vt.Pos{Line: cm.top + (min(h, cm.term.LineCount())-1)/2, Col: cm.cur.Col}, h)
	return nil
}
func (m *Model) copyViewBottom() tea.Cmd {
	cm, h := m.copyKeys()
	cm.moveTo(vt.Pos{Line: cm.top + min(h, cm.term.LineCount()) - 1, Col: cm.cur.Col}, h)
	return nil
}

func (m *Model) copyHalfUp() tea.Cmd   { cm, h := m.copyKeys(); cm.scroll(-max(1, h/2), h); return nil }
func (m *Model) copyHalfDown() tea.Cmd { cm, h := m.copyKeys(); cm.scroll(max(1, h/2), h); return nil }
func (m *Model) copyPageUp() tea.Cmd   { cm, h := m.copyKeys(); cm.scroll(-h, h); return nil }
func (m *Model) copyPageDown() tea.Cmd { cm, h := m.copyKeys(); cm.scroll(h, h); return nil }

// Selecting.

func (m *Model) selectChars() tea.Cmd { m.copy.startSelection(vt.SelectChars); return nil }
func (m *Model) selectLines() tea.Cmd { m.copy.startSelection(vt.SelectLines); return nil }
func (m *Model) selectBlock() tea.Cmd { m.copy.startSelection(vt.SelectBlock); return nil }

// startSelection begins a selection of kind at the cursor; the key of the
// kind already selecting ends it, another key changes its kind (as in vim).
func (cm *copyMode) startSelection(kind vt.SelectionKind) {
	switch {
	case cm.selecting && cm.kind == kind:
		cm.selecting = false
	case cm.selecting:
		cm.kind = kind
	default:
		cm.selecting, cm.kind, cm.anchor = true, kind, cm.cur
	}
}

// swapEnds is vi's o: the cursor goes to the other end of the selection.
func (m *Model) swapEnds() tea.Cmd {
	cm, h := m.copyKeys()
	if cm.selecting {
		cm.cur, cm.anchor = cm.anchor, cm.cur
		cm.scrollToCursor(h)
	}
	return nil
}

// copySelection copies the selection to the outer terminal's clipboard
// and leaves copy mode.
func (m *Model) copySelection() tea.Cmd {
	cm := m.copy
	if !cm.selecting {
		m.note = "nothing is selected: " + keyOf(m.keys.copy, "select") + " starts a selection, " + keyOf(m.keys.copy, "leave") + " leaves"
		return nil
	}
	text := cm.term.Copy(cm.anchor, cm.cur, cm.kind)
	m.leaveCopy()
	if text == "" {
		m.note = "the selection holds no text: nothing copied"
		return nil
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	note := fmt.Sprintf("copied %d line(s), %d character(s), to the clipboard (OSC 52)", n, len([]rune(text)))
	m.note = ""
	// bubbletea writes a queued sequence (the OSC 52) with the next frame
	// it draws: the note that says it was copied comes after the sequence
	// is queued, so the frame showing the note carries the copy, and the
	// clipboard holds the text as soon as the note is on screen.
	return tea.Sequence(tea.SetClipboard(text), func() tea.Msg { return copiedMsg{note: note} })
}

// copiedMsg follows a copy's OSC 52: the note for the status bar.
type copiedMsg struct{ note string }

func (m *Model) cancelCopy() tea.Cmd { m.leaveCopy(); return nil }

func (m *Model) startCopy() tea.Cmd {
	m.enterCopy(m.focus)
	return nil
}

// Drawing.

// span is a run of cells [from, to) of a row painted with sgr.
type span struct {
	from, to int
	sgr      string
}

// window is the h rows of copy mode's view, w cells wide: the snapshot's
// lines with the search's matches, the selection and the cursor painted
// over them.
func (cm *copyMode) window(w, h int, th *theme) []string {
	cols, rows := cm.term.Size()
	total := cm.term.LineCount()
	cm.scrollToCursor(h)
	first := max(0, min(cm.top, total-rows))
	src := cm.term.Window(first, true)
	out := make([]string, 0, h)
	blank := strings.Repeat(" ", w)
	for i := range h {
		line := cm.top + i
		j := line - first
		if j < 0 || j >= len(src) || line >= total {
			out = append(out, blank)
			continue
		}
		l := src[j]
		if spans := cm.spans(line, cols, th); len(spans) > 0 {
			l = overlay(l, spans, &cm.row)
		}
		if cols != w {
			l = fit(l, w)
		}
		out = append(out, l)
	}
	return out
}

// spans are the painted runs of absolute line `line`, in order, not
// overlapping: matches, then the selection over them, then the cursor.
// cm.row holds the line when it returns.
func (cm *copyMode) spans(line, cols int, th *theme) []span {
	cm.term.ReadRow(line, &cm.row)
	var cells []string // each cell's SGR, when any
	paintCells := func(from, to int, sgr string) {
		from, to = max(0, from), min(cols, to)
		if from >= to {
			return
		}
		if cells == nil {
			cells = make([]string, cols)
		}
		// Whole characters: a run never starts or ends inside one.
		for from > 0 && cm.row.Padding(from) {
			from--
		}
		for to < cols && cm.row.Padding(to) {
			to++
		}
		for x := from; x < to; x++ {
			cells[x] = sgr
		}
	}
	if cm.found != nil {
		cm.found.each(line, func(k int, mt vt.Match) {
			from, to := 0, cols
			if mt.Start.Line == line {
				from = mt.Start.Col
			}
			if mt.End.Line == line {
				to = mt.End.Col
			}
			sgr := th.match
			if k == cm.found.cur {
				sgr = th.matchCur
			}
			paintCells(from, to, sgr)
		})
	}
	if cm.selecting {
		if from, to, ok := cm.selectionOn(line, cols); ok {
			paintCells(from, to, th.selected)
		}
	}
	if line == cm.cur.Line {
		paintCells(cm.cur.Col, cm.cur.Col+1, th.cursor)
	}
	if cells == nil {
		return nil
	}
	var out []span
	for x := 0; x < cols; {
		if cells[x] == "" {
			x++
			continue
		}
		e := x + 1
		for e < cols && cells[e] == cells[x] {
			e++
		}
		out = append(out, span{x, e, cells[x]})
		x = e
	}
	return out
}

// selectionOn is the cells [from, to) of line the selection covers.
func (cm *copyMode) selectionOn(line, cols int) (from, to int, ok bool) {
	s, e := cm.anchor, cm.cur
	if e.Before(s) {
		s, e = e, s
	}
	switch cm.kind {
	case vt.SelectLines:
		// As vt.Copy: the anchor's whole wrapped line, the cursor's row.
		if cm.cur.Line < cm.anchor.Line {
			_, e.Line = cm.term.LineBounds(cm.anchor.Line)
		} else {
			first, last := cm.term.LineBounds(cm.anchor.Line)
			s.Line, e.Line = first, max(e.Line, last)
		}
		return 0, cols, line >= s.Line && line <= e.Line
	case vt.SelectBlock:
		lo, hi := min(cm.anchor.Col, cm.cur.Col), max(cm.anchor.Col, cm.cur.Col)
		return lo, hi + 1, line >= s.Line && line <= e.Line
	}
	switch {
	case line < s.Line || line > e.Line:
		return 0, 0, false
	case s.Line == e.Line:
		return s.Col, e.Col + 1, true
	case line == s.Line:
		return s.Col, cols, true
	case line == e.Line:
		return 0, e.Col + 1, true
	}
	return 0, cols, true
}

// overlay paints spans over an ANSI line of exactly row.Cols() cells: each
// span's characters in its own style, the line's styles around it kept.
func overlay(line string, spans []span, row *vt.Row) string {
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.from > at {
			b.WriteString(ansi.Cut(line, at, s.from))
		}
		b.WriteString(sgrReset)
		var text strings.Builder
		for x := s.from; x < s.to; x++ {
			text.WriteString(row.Cell(x))
		}
		b.WriteString(paint(s.sgr, text.String()))
		at = s.to
	}
	if at < row.Cols() {
		// TruncateLeft keeps the styles set before the cut, so the rest
		// of the line keeps its own.
		b.WriteString(ansi.TruncateLeft(line, at, ""))
	}
	return b.String()
}

// footer is what the pane's bottom border says in copy mode.
func (cm *copyMode) footer() string {
	parts := []string{fmt.Sprintf("COPY %d/%d", cm.cur.Line+1, cm.term.LineCount())}
	if cm.selecting {
		parts = append(parts, [...]string{"characters", "lines", "block"}[cm.kind])
	}
	if cm.found != nil {
		parts = append(parts, cm.found.position())
	}
	return strings.Join(parts, " · ")
}

// Mouse.

// dragState is a left button held down inside a pane.
type dragState struct {
	idx   int
	start vt.Pos
	moved bool
}

// pointer is the cell of pane i's terminal under screen cell (x, y),
// clamped into the pane (a drag never leaves its pane), and how far the
// pointer is above (negative) or below (positive) the rows in sight.
func (m *Model) pointer(i, x, y int) (vt.Pos, int) {
	p := m.panes[i]
	var in rect
	for _, v := range m.visible() {
		if v.idx == i {
			in = v.r.inner()
		}
	}
	in.y += len(p.notices(in.w))
	h := m.copyRows(i)
	row, col := y-in.y, max(0, min(x-in.x, in.w-1))
	beyond := 0
	switch {
	case row < 0:
		beyond, row = row, 0
	case row >= h:
		beyond, row = row-h+1, h-1
	}
	var top int
	if cm := m.copyOn(i); cm != nil {
		top = cm.top
	} else if t := p.viewTerm(); t != nil {
		_, rows := t.Size()
		top = t.LineCount() - rows
		if p.top >= 0 {
			top = p.top
		}
	}
	return vt.Pos{Line: top + row, Col: col}, beyond
}

// dragStart is the left button pressed inside pane i: in copy mode there
// the cursor goes to the cell (and the selection is dropped).
func (m *Model) dragStart(i, x, y int) {
	pos, _ := m.pointer(i, x, y)
	m.drag = &dragState{idx: i, start: pos}
	if cm := m.copyOn(i); cm != nil {
		cm.selecting = false
		cm.moveTo(pos, m.copyRows(i))
	}
}

// dragTo extends the drag's selection to the pointer, scrolling when it
// is above or below the pane. The first move starts copy mode.
func (m *Model) dragTo(x, y int) {
	d := m.drag
	pos, beyond := m.pointer(d.idx, x, y)
	if !d.moved && pos == d.start && beyond == 0 {
		return
	}
	cm := m.copyOn(d.idx)
	if cm == nil {
		if cm = m.enterCopy(d.idx); cm == nil {
			m.drag = nil
			return
		}
	}
	if !d.moved {
		d.moved = true
		cm.moveTo(d.start, m.copyRows(d.idx))
		cm.selecting, cm.kind, cm.anchor = true, vt.SelectChars, cm.cur
	}
	h := m.copyRows(d.idx)
	if beyond != 0 {
		cm.top += max(-3, min(3, beyond))
		cm.clampTop(h)
		pos.Line = cm.top
		if beyond > 0 {
			pos.Line = cm.top + h - 1
		}
	}
	cm.moveTo(pos, h)
}

// dragEnd is the button released: a drag copies its selection and leaves
// copy mode, as in tmux; a click without a move does nothing more.
func (m *Model) dragEnd() tea.Cmd {
	d := m.drag
	m.drag = nil
	if cm := m.copyOn(d.idx); d.moved && cm != nil && cm.selecting {
		return m.copySelection()
	}
	return nil
}
