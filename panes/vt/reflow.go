// reflow.go holds reflow: when the width of the main screen changes,
// soft-wrapped lines (scrollback and screen alike) are joined and split
// again at the new width, and the cursor keeps its place in the text. It
// follows tmux's grid_reflow (join, split, move), grid_wrap_position and
// screen_resize_cursor step for step, so a resized pane shows what tmux
// shows. Scrollback lines that need no change are carried over encoded.
package vt

// reflowRow is one row of the grid being reflowed: a scrollback line
// still encoded, or a decoded row.
type reflowRow struct {
	enc     string
	line    gridLine
	decoded bool
	dead    bool
	used    int
	width   int
	wrapped bool
}

// reflowRows decodes row r if it is not yet.
func (t *Terminal) reflowDecode(r *reflowRow) {
	if r.decoded {
		return
	}
	r.line = t.decodeLine(r.enc, 0)
	r.line.cells = r.line.cells[:cap(r.line.cells)]
	r.decoded = true
}

// reflow re-wraps scrollback and the main screen at cols (t.cols is still
// the old width) and places the cursor. The main screen must be active.
func (t *Terminal) reflow(cols int) {
	n := t.sb.len()
	rows := make([]reflowRow, 0, n+t.rows)
	for i := range n {
		s := t.sb.get(i)
		rd := readLine(s)
		rows = append(rows, reflowRow{enc: s, used: rd.used, width: rd.width, wrapped: rd.wraps})
	}
	for i := range t.main.lines {
		l := t.main.lines[i]
		full := l.cells[:cap(l.cells)]
		used := min(l.used, len(full))
		rows = append(rows, reflowRow{
			line:    gridLine{cells: full, used: used, wrapped: l.wrapped},
			decoded: true, used: used, width: t.cellsWidth(full[:used]), wrapped: l.wrapped,
		})
	}

	// The cursor as a position in the unwrapped text (grid_wrap_position).
	cy := n + t.y
	wx, wy := 0, 0
	for yy := 0; yy < cy; yy++ {
		if rows[yy].wrapped {
			wx += rows[yy].used
		} else {
			wx, wy = 0, wy+1
		}
	}
	endOfLine := t.x >= rows[cy].used
	if !endOfLine {
		wx += t.x
	}

	// tmux moves its count of scrolled history lines (hscrolled, what
	// growing the pane pulls back) as rows split and join, comparing it
	// with row numbers; Terminal follows it to the letter.
	t.reflowScrolled = t.sbScrolled
	var out []reflowRow
	for yy := range rows {
		r := &rows[yy]
		if r.dead {
			continue
		}
		switch {
		case r.width == cols:
			out = append(out, *r)
			r.dead = true
		case r.width > cols:
			out = t.reflowSplit(out, rows, cols, yy)
		case r.wrapped:
			out = t.reflowJoin(out, rows, cols, yy, r.width, false)
		default:
			out = append(out, *r)
			r.dead = true
		}
	}
	for len(out) < t.rows {
		out = append(out, reflowRow{decoded: true, line: gridLine{}})
	}
	hsize := len(out) - t.rows

	// Back from the text position to a row and column
	// (grid_unwrap_position), then onto the screen (screen_resize_cursor).
	yy, ay := 0, 0
	for ; yy < len(out)-1; yy++ {
		if ay == wy {
			break
		}
		if !out[yy].wrapped {
			ay++
		}
	}
	if endOfLine {
		for yy < len(out)-1 && out[yy].wrapped {
			yy++
		}
		wx = out[yy].used
	} else {
		for yy < len(out)-1 && out[yy].wrapped {
			if wx < out[yy].used {
				break
			}
			wx -= out[yy].used
			yy++
		}
	}
	if yy >= hsize {
		t.x, t.y = wx, yy-hsize
	} else {
		t.x, t.y = 0, 0
	}

	t.sb.clear()
	for i := range hsize {
		r := &out[i]
		if !r.decoded {
			t.sb.push(r.enc)
			continue
		}
		t.sb.push(t.encodeLine(&r.line))
	}
	t.sbScrolled = max(0, min(t.reflowScrolled, hsize))
	lines := make([]gridLine, t.rows)
	for i := range t.rows {
		r := &out[hsize+i]
		if !r.decoded {
			t.reflowDecode(r)
		}
		if r.line.used == 0 {
			lines[i] = gridLine{cells: blankCellsOf(cols), wrapped: r.wrapped}
			continue
		}
		cells := make([]gridCell, max(cols, r.line.used))
		blankCells(cells, 0)
		copy(cells, r.line.cells[:min(r.line.used, len(r.line.cells))])
		lines[i] = gridLine{cells: cells[:cols], used: r.line.used, wrapped: r.wrapped}
	}
	t.main.lines = lines
	t.x = min(t.x, cols)
}

// reflowSetRow makes r a decoded row holding cells.
func (t *Terminal) reflowSetRow(r *reflowRow, cells []gridCell, wrapped bool) {
	r.decoded = true
	r.enc = ""
	r.line = gridLine{cells: cells, used: len(cells), wrapped: wrapped}
	r.used = len(cells)
	r.width = t.cellsWidth(cells)
	r.wrapped = wrapped
}

// reflowJoin is grid_reflow_join: row yy (already the last output row when
// already) takes as much of the rows it wraps into as fits.
func (t *Terminal) reflowJoin(out, rows []reflowRow, cols, yy, width int, already bool) []reflowRow {
	if !already {
		out = append(out, rows[yy])
		rows[yy].dead = true
	}
	to := &out[len(out)-1]
	t.reflowDecode(to)
	target := append([]gridCell(nil), to.line.cells[:to.used]...)
	wrapped := true
	lines, want := 0, 0
	var from *reflowRow
	for {
		line := yy + 1 + lines
		if line >= len(rows) {
			break
		}
		next := &rows[line]
		if !next.wrapped {
			wrapped = false
		}
		if next.used == 0 {
			if !wrapped {
				break
			}
			lines++
			continue
		}
		t.reflowDecode(next)
		first := next.line.cells[0]
		w := t.cellsWidth([]gridCell{first})
		if width+w > cols {
			break
		}
		width += w
		target = append(target, first)
		from = next
		for want = 1; want < next.used; want++ {
			c := next.line.cells[want]
			w := t.cellsWidth([]gridCell{c})
			if width+w > cols {
				break
			}
			width += w
			target = append(target, c)
		}
		lines++
		if !wrapped || want != next.used || width == cols {
			break
		}
	}
	if lines == 0 {
		return out
	}
	toWrapped := to.wrapped
	// from is nil when every row taken was empty (a row can wrap with
	// nothing on it: a wide character printed in a one-column pane); then
	// nothing is left of them.
	if from != nil && from.used != want {
		// The rest of the last row stays, moved to its start.
		rest := append([]gridCell(nil), from.line.cells[want:from.used]...)
		t.reflowSetRow(from, rest, from.wrapped)
		lines--
	} else if !wrapped {
		toWrapped = false
	}
	t.reflowSetRow(to, target, toWrapped)
	for i := yy + 1; i < yy+1+lines; i++ {
		rows[i].dead = true
	}
	toIdx := len(out) - 1
	if t.reflowScrolled > toIdx+lines {
		t.reflowScrolled -= lines
	} else if t.reflowScrolled > toIdx {
		t.reflowScrolled = toIdx
	}
	return out
}

// reflowSplit is grid_reflow_split: row yy is wider than cols; its first
// `at` cells stay, the rest go to new rows of at most cols columns.
func (t *Terminal) reflowSplit(out, rows []reflowRow, cols, yy int) []reflowRow {
	r := &rows[yy]
	t.reflowDecode(r)
	cells := r.line.cells[:r.used]
	wrappedOrig := r.wrapped
	at, width := 0, 0
	for i, c := range cells {
		w := t.cellsWidth([]gridCell{c})
		if width+w > cols {
			at = i
			break
		}
		width += w
	}
	var first reflowRow
	t.reflowSetRow(&first, append([]gridCell(nil), cells[:at]...), true)
	firstIdx := len(out)
	out = append(out, first)
	var cur []gridCell
	width = 0
	for _, c := range cells[at:] {
		w := t.cellsWidth([]gridCell{c})
		if width+w > cols && len(cur) > 0 {
			var row reflowRow
			t.reflowSetRow(&row, cur, true)
			out = append(out, row)
			cur, width = nil, 0
		}
		width += w
		cur = append(cur, c)
	}
	var last reflowRow
	t.reflowSetRow(&last, cur, wrappedOrig)
	out = append(out, last)
	r.dead = true
	if yy <= t.reflowScrolled {
		t.reflowScrolled += len(out) - firstIdx - 1
	}
	if width < cols && wrappedOrig {
		out = t.reflowJoin(out, rows, cols, yy, width, true)
	}
	return out
}
