// copy.go holds the cell-accurate read side copy mode needs: Snapshot (a
// frozen copy of a Terminal that later output cannot move, as tmux's copy
// mode clones the pane's screen on entry), Row (one line of the absolute
// line space read cell by cell, so a cursor and a selection can land on
// cells, not bytes), and Copy, the text of a selection as tmux's vi copy
// mode copies it: wide characters whole, wrapped rows joined into one line,
// trailing spaces dropped.
//
// Positions are absolute (Pos.Line 0 is the oldest scrollback line, as in
// Window) and columns are cells.
package vt

import (
	"slices"
	"unicode/utf8"
)

// Pos is a cell of the absolute line space.
type Pos struct{ Line, Col int }

// Before reports whether p comes before q in reading order.
func (p Pos) Before(q Pos) bool {
	return p.Line < q.Line || (p.Line == q.Line && p.Col < q.Col)
}

// SelectionKind is how a selection covers the cells between its ends.
type SelectionKind int

const (
	SelectChars SelectionKind = iota // from one cell to another, in reading order (vi v)
	SelectLines                      // whole lines, wrapped rows included (vi V)
	SelectBlock                      // a rectangle of columns (vi Ctrl-v)
)

// Snapshot returns a copy of the terminal that no later output changes:
// the screen, the scrollback (its lines are immutable strings, shared), the
// cursor and the tables cells refer to. It answers no queries; writing to it
// is allowed but pointless.
func (t *Terminal) Snapshot() *Terminal {
	t.mu.RLock()
	defer t.mu.RUnlock()
	s := New(t.cols, t.rows, Options{Scrollback: t.opts.Scrollback})
	s.cols, s.rows, s.mainCols = t.cols, t.rows, t.mainCols
	s.main = cloneGrid(t.main)
	s.alt = cloneGrid(t.alt)
	s.scr = s.main
	if t.scr == t.alt {
		s.scr = s.alt
	}
	s.sb = t.sb
	s.sb.lines = slices.Clone(t.sb.lines)
	s.sbScrolled = t.sbScrolled
	s.styles = t.styles.clone()
	s.clusters.list = slices.Clone(t.clusters.list)
	s.clusters.index = nil
	for i, c := range s.clusters.list {
		if s.clusters.index == nil {
			s.clusters.index = make(map[string]rune, len(s.clusters.list))
		}
		s.clusters.index[c] = clusterBase + rune(i)
	}
	s.x, s.y, s.cursorVisible = t.x, t.y, t.cursorVisible
	s.appCursor, s.appKeypad, s.bracketedPaste = t.appCursor, t.appKeypad, t.bracketedPaste
	s.autoWrap, s.syncOutput, s.mouse, s.mouseSGR, s.title = t.autoWrap, t.syncOutput, t.mouse, t.mouseSGR, t.title
	s.tabs = slices.Clone(t.tabs)
	s.gen.Store(t.gen.Load())
	return s
}

func cloneGrid(g *screenGrid) *screenGrid {
	if g == nil {
		return nil
	}
	c := &screenGrid{lines: make([]gridLine, len(g.lines))}
	for i, l := range g.lines {
		if l.shared() {
			c.lines[i] = l
			continue
		}
		cells := slices.Clone(l.cells[:cap(l.cells)])
		c.lines[i] = gridLine{cells: cells[:len(l.cells)], used: l.used, wrapped: l.wrapped}
	}
	return c
}

// Row is one line read cell by cell. It is reused: ReadRow overwrites it.
type Row struct {
	text  []byte
	start []int // cell x is text[start[x]:start[x+1]]
	// Wrapped says the line continues on the next one (a soft wrap).
	Wrapped bool
	used    int // a wrapped row's length: the cells written (tmux's cellsize)
}

// Cols is the number of cells in the row (the terminal's width).
func (r *Row) Cols() int { return max(0, len(r.start)-1) }

// Cell is the text of cell x: "" for the right half of a wide character
// (tmux's padding cell), " " for a blank.
func (r *Row) Cell(x int) string {
	if x < 0 || x >= r.Cols() {
		return ""
	}
	return string(r.text[r.start[x]:r.start[x+1]])
}

// Padding reports whether cell x is the right half of a wide character.
func (r *Row) Padding(x int) bool {
	return x >= 0 && x < r.Cols() && r.start[x] == r.start[x+1]
}

// Len is the row's length: the cells up to the last one that is not a
// plain space (tmux's grid_line_length), where vi's $ goes.
func (r *Row) Len() int {
	n := r.Cols()
	for n > 0 && r.start[n]-r.start[n-1] == 1 && r.text[r.start[n-1]] == ' ' {
		n--
	}
	return n
}

// copyLen is how much of the row tmux copies: a row that wraps onto the
// next is copied up to the cells written in it, blanks included; any other
// up to Len.
func (r *Row) copyLen() int {
	if r.Wrapped {
		return min(r.Cols(), r.used)
	}
	return r.Len()
}

// Text is the row's characters up to Len.
func (r *Row) Text() string { return string(r.text[:r.start[r.Len()]]) }

// ReadRow reads absolute line i (clamped into range) into r.
func (t *Terminal) ReadRow(i int, r *Row) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	t.readRow(i, r)
}

// readRow is ReadRow under the caller's read lock.
func (t *Terminal) readRow(i int, r *Row) {
	total := t.sb.len() + t.rows
	i = max(0, min(i, total-1))
	r.text, r.start = r.text[:0], r.start[:0]
	r.used = t.wrappedLen(i)
	if i < t.sb.len() {
		t.readScrollbackRow(t.sb.get(i), r)
	} else {
		l := &t.scr.lines[i-t.sb.len()]
		r.Wrapped = l.wrapped
		cells := l.cells[:min(len(l.cells), t.cols)]
		for _, c := range cells {
			r.start = append(r.start, len(r.text))
			switch {
			case c.r == wideCont:
			case c.r <= 0:
				r.text = append(r.text, ' ')
			case c.r >= clusterBase:
				r.text = append(r.text, t.clusters.text(c.r)...)
			default:
				r.text = utf8.AppendRune(r.text, c.r)
			}
		}
	}
	for len(r.start) < t.cols {
		r.start = append(r.start, len(r.text))
		r.text = append(r.text, ' ')
	}
	r.start = append(r.start, len(r.text))
}

// wrappedLen is how many cells of row i tmux copies when the row wraps:
// the cells written, or the whole row when the next one starts with a wide
// character (one that did not fit leaves the rest of its row blank, and
// tmux copies those blanks). 0 for a row that does not wrap.
//
// Terminal does not keep tmux's count of allocated cells, so when the wide
// character at the start of the next row has since been overwritten, the
// blanks are not copied where tmux would copy them.
func (t *Terminal) wrappedLen(i int) int {
	var used int
	if i < t.sb.len() {
		s := t.sb.get(i)
		if len(s) == 0 || s[0]&1 == 0 {
			return 0
		}
		used = readLine(s).used
	} else {
		l := &t.scr.lines[i-t.sb.len()]
		if !l.wrapped {
			return 0
		}
		used = l.used
	}
	if i+1 < t.sb.len()+t.rows && t.startsWide(i+1) {
		used = t.cols
	}
	return min(used, t.cols)
}

// startsWide reports whether row i begins with a two-column character.
func (t *Terminal) startsWide(i int) bool {
	if i < t.sb.len() {
		rd := readLine(t.sb.get(i))
		_, seg, ok := rd.next()
		if !ok || len(seg) == 0 {
			return false
		}
		c, _ := utf8.DecodeRune(seg)
		return runeWidth(c) == 2
	}
	l := &t.scr.lines[i-t.sb.len()]
	return len(l.cells) > 1 && l.cells[0].r > 0 && l.cells[1].r == wideCont
}

// readScrollbackRow decodes an encoded scrollback line into cells, the
// way appendScrollbackLine draws it: a character too wide for what is
// left of a narrowed pane ends the row.
func (t *Terminal) readScrollbackRow(s string, r *Row) {
	rd := readLine(s)
	r.Wrapped = rd.wraps
	x := 0
	for {
		_, seg, ok := rd.next()
		if !ok {
			return
		}
		for len(seg) > 0 {
			c, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			switch {
			case c == orphanContMark:
				if x < t.cols {
					r.start = append(r.start, len(r.text))
					x++
				}
				continue
			case c == orphanHeadMark:
				// The character before is a left half alone: one cell.
				if n := len(r.start); n > 0 && x > 0 && r.start[n-1] == len(r.text) {
					r.start = r.start[:n-1]
					x--
				}
				continue
			}
			w := runeWidth(c)
			if w == 0 {
				if x > 0 {
					// A combining mark joins the character before it.
					r.text = utf8.AppendRune(r.text, c)
				}
				continue
			}
			if x+w > t.cols {
				return
			}
			r.start = append(r.start, len(r.text))
			r.text = utf8.AppendRune(r.text, c)
			x++
			if w == 2 {
				r.start = append(r.start, len(r.text))
				x++
			}
		}
	}
}

// Copy is the text of the selection between anchor (where it began) and
// cursor, both cells included, as tmux's copy mode with vi keys copies it
// (window_copy_get_selection): each line up to its last character that is
// not a space, wrapped rows joined without a newline, the right half of a
// wide character never on its own, and a final newline only when the
// selection runs past the end of its last line (always for SelectLines).
func (t *Terminal) Copy(anchor, cursor Pos, kind SelectionKind) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	total := t.sb.len() + t.rows
	clamp := func(p Pos) Pos {
		return Pos{max(0, min(p.Line, total-1)), max(0, min(p.Col, t.cols))}
	}
	anchor, cursor = clamp(anchor), clamp(cursor)
	s, e := anchor, cursor
	if e.Before(s) {
		s, e = e, s
	}
	var row Row
	if kind == SelectLines {
		// tmux's select-line: the anchor's whole (wrapped) line, and the
		// cursor's row up to its end or from its start.
		if cursor.Line < anchor.Line {
			s = Pos{cursor.Line, 0}
			e.Line = t.logicalEnd(anchor.Line, &row)
		} else {
			s = Pos{t.logicalStart(anchor.Line, &row), 0}
			e.Line = max(cursor.Line, t.logicalEnd(anchor.Line, &row))
		}
		t.readRow(e.Line, &row)
		e.Col = row.Len()
	}
	t.readRow(e.Line, &row)
	eyLast := row.Len()
	ex := min(e.Col, eyLast)

	var firstsx, restsx, lastex, restex int
	if kind == SelectBlock {
		lo, hi := min(anchor.Col, cursor.Col), max(anchor.Col, cursor.Col)
		firstsx, restsx, lastex, restex = lo, lo, hi+1, hi+1
	} else {
		firstsx, restsx, lastex, restex = s.Col, 0, ex+1, t.cols
	}
	var buf []byte
	for i := s.Line; i <= e.Line; i++ {
		sx, ex := restsx, restex
		if i == s.Line {
			sx = firstsx
		}
		if i == e.Line {
			ex = lastex
		}
		t.readRow(i, &row)
		buf = copyLine(buf, &row, sx, ex)
	}
	if len(buf) == 0 {
		return ""
	}
	if lastex <= eyLast {
		t.readRow(e.Line, &row)
		if !row.Wrapped || lastex != eyLast {
			buf = buf[:len(buf)-1]
		}
	}
	return string(buf)
}

// copyLine is tmux's window_copy_copy_line: cells sx up to ex of the row,
// cut at its length, then a newline unless the row wraps onto the next
// and the copy reached its end.
func copyLine(buf []byte, r *Row, sx, ex int) []byte {
	xx := r.copyLen()
	ex, sx = min(ex, xx), min(sx, xx)
	for x := sx; x < ex; x++ {
		buf = append(buf, r.text[r.start[x]:r.start[x+1]]...)
	}
	if !r.Wrapped || ex != xx {
		buf = append(buf, '\n')
	}
	return buf
}

// logicalStart is the first row of the wrapped line that row i is part of.
func (t *Terminal) logicalStart(i int, row *Row) int {
	for i > 0 {
		t.readRow(i-1, row)
		if !row.Wrapped {
			break
		}
		i--
	}
	return i
}

// logicalEnd is the last row of the wrapped line that row i is part of.
func (t *Terminal) logicalEnd(i int, row *Row) int {
	total := t.sb.len() + t.rows
	for i < total-1 {
		t.readRow(i, row)
		if !row.Wrapped {
			break
		}
		i++
	}
	return i
}

// LineBounds is the first and last row of the wrapped line row i is part
// of: where vi's 0 and $ go in tmux, which follow wrapped rows.
func (t *Terminal) LineBounds(i int) (first, last int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var row Row
	i = max(0, min(i, t.sb.len()+t.rows-1))
	return t.logicalStart(i, &row), t.logicalEnd(i, &row)
}
