// grid.go holds the grid operations of Terminal: printing (with autowrap,
// wide characters and combining marks), erasing, inserting and deleting
// cells and lines, scrolling inside the scroll region (lines leaving the top
// of the main screen go to scrollback), and resize.
//
// A cell is a rune and a style-table index. r == 0 is a cell never written
// or erased (drawn as a space); wideCont is the right half of a wide
// character; r >= clusterBase indexes the cluster table.
package vt

import (
	"unsafe"

	"github.com/mattn/go-runewidth"
)

type gridCell struct {
	r rune
	s uint32
}

// blankRow backs every row that was never written: such a row's cells are
// a window onto it, shared by all rows of all Terminals, and a write makes
// the row its own first (own). A quiet pane's screen then costs its row
// headers, not 8 bytes a cell (38 KB at 120×40). Nothing may write into
// it: every write to a row's cells goes through own, blank or a fresh row.
var blankRow [maxCols]gridCell

// blankCellsOf returns a never-written row of cols cells.
func blankCellsOf(cols int) []gridCell { return blankRow[:cols:cols] }

// shared reports whether the row's cells are still blankRow's.
func (l *gridLine) shared() bool {
	return cap(l.cells) > 0 && unsafe.SliceData(l.cells) == &blankRow[0]
}

// own makes the row's cells its own, to be written.
func (l *gridLine) own() []gridCell {
	if l.shared() {
		l.cells = make([]gridCell, len(l.cells))
	}
	return l.cells
}

// blank blanks the whole row in style, including the cells kept beyond
// the width after the pane narrowed; a shared row blanked in the default
// style stays shared.
func (l *gridLine) blank(style uint32) {
	if l.shared() {
		if style == 0 {
			return
		}
		l.own()
	}
	blankLine(l.cells, style)
}

// blankLine blanks a whole row, including the cells kept beyond the
// width after the pane narrowed: the row's old content is gone for good.
func blankLine(cells []gridCell, style uint32) {
	blankCells(cells[:cap(cells)], style)
}

func blankCells(cells []gridCell, style uint32) []gridCell {
	if style == 0 {
		clear(cells) // gridCell{} is a blank in the default style
		return cells
	}
	c := gridCell{0, style}
	for i := range cells {
		cells[i] = c
	}
	return cells
}

// dECGraphics maps 0x5f-0x7e to the DEC special graphics (line drawing)
// characters, as tmux does.
var dECGraphics = [...]rune{
	0x5f: ' ', 0x60: '◆', 0x61: '▒', 0x62: '␉', 0x63: '␌', 0x64: '␍', 0x65: '␊',
	0x66: '°', 0x67: '±', 0x68: '␤', 0x69: '␋', 0x6a: '┘', 0x6b: '┐', 0x6c: '┌',
	0x6d: '└', 0x6e: '┼', 0x6f: '⎺', 0x70: '⎻', 0x71: '─', 0x72: '⎼', 0x73: '⎽',
	0x74: '├', 0x75: '┤', 0x76: '┴', 0x77: '┬', 0x78: '│', 0x79: '≤', 0x7a: '≥',
	0x7b: 'π', 0x7c: '≠', 0x7d: '£', 0x7e: '·',
}

// printASCII prints a run of printable ASCII bytes: the fast path.
func (t *Terminal) printASCII(b []byte) {
	if len(b) == 0 {
		return
	}
	t.changed = true
	if t.penDirty {
		t.updatePen()
	}
	if t.charsets[t.shift] || t.insert || !t.autoWrap {
		for _, c := range b {
			r := rune(c)
			if t.charsets[t.shift] && c >= 0x5f && c <= 0x7e {
				r = dECGraphics[c]
			}
			t.printCell(r, 1)
		}
		t.lastRune = rune(b[len(b)-1])
		return
	}
	t.lastRune = rune(b[len(b)-1])
	style := t.penID
	for len(b) > 0 {
		if t.x >= t.cols {
			t.wrapForPrint()
		}
		line := &t.scr.lines[t.y]
		cells := line.own()
		n := t.cols - t.x
		if n > len(b) {
			n = len(b)
		}
		x := t.x
		// Overwriting half of a wide character blanks the other half (to
		// a default cell, as tmux does);
		// tmux's walk back stops short of column 0, so a wide character
		// there keeps its left half.
		if cells[x].r == wideCont && x > 1 {
			cells[x-1] = gridCell{}
		}
		end := x + n
		line.used = max(line.used, end)
		if end < t.cols && cells[end].r == wideCont {
			cells[end] = gridCell{}
		}
		dst := cells[x:end]
		for i, c := range b[:n] {
			dst[i] = gridCell{rune(c), style}
		}
		b = b[n:]
		t.x = end
	}
}

// bgID is the style erased cells take: the pen's background only.
func (t *Terminal) bgID() uint32 {
	if t.penDirty {
		t.updatePen()
	}
	return t.penBgID
}

// wrapForPrint moves to the start of the next row for a character that
// does not fit (autowrap is on), marking the row soft-wrapped.
func (t *Terminal) wrapForPrint() {
	t.scr.lines[t.y].wrapped = true
	t.x = 0
	t.lineFeedBg(0)
}

// runeWidth is wcwidth(3) as x/ansi computes it: marks and format
// characters are zero width, East Asian wide and emoji are two.
func runeWidth(r rune) int {
	if r < 0x7f {
		if r < 0x20 {
			return 0
		}
		return 1
	}
	if r < 0xa0 {
		return 0
	}
	if r < 0x10000 {
		widthOnce.Do(buildWidthTable)
		return int(widthBMP[r])
	}
	if isZeroWidthHigh(r) {
		return 0
	}
	return widthCond.RuneWidth(r)
}

var widthCond = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// printRune prints one non-ASCII character.
func (t *Terminal) printRune(r rune) {
	t.changed = true
	if t.penDirty {
		t.updatePen()
	}
	t.lastRune = 0 // REP repeats ASCII only
	if r >= 0x80 && r < 0xa0 {
		return // a C1 control encoded as UTF-8 prints nothing (tmux)
	}
	w := runeWidth(r)
	if w == 0 {
		t.combine(r)
		return
	}
	t.printCell(r, w)
}

// printCell puts one character of width w at the cursor the way tmux's
// screen_write_cell does: without autowrap a wide character that does not
// fit is dropped and the cursor sticks on the last column; in insert mode
// the cells make room first (in the default colours); with autowrap a
// character that does not fit wraps.
func (t *Terminal) printCell(r rune, w int) {
	if !t.autoWrap && w > 1 && (w > t.cols || (t.x != t.cols && t.x > t.cols-w)) {
		return
	}
	if t.insert && t.x < t.cols {
		t.insertCellsStyled(w, 0)
	}
	if t.autoWrap && t.x > t.cols-w {
		t.wrapForPrint()
	}
	if t.x > t.cols-w {
		return
	}
	line := &t.scr.lines[t.y]
	cells := line.own()
	x := t.x
	// tmux's screen_write_overwrite: the right half of a wide character
	// loses its left half; then, unless a narrow character replaces a
	// narrow one, right halves left orphaned just after the new character
	// are blanked. (A narrow character over a narrow one leaves an orphan
	// there alone; Window draws it as a blank.)
	old := cells[x].r
	oldCont := old == wideCont
	if oldCont && x > 0 {
		cells[x-1] = gridCell{}
	}
	if w != 1 || oldCont || (old > 0 && cellWidth(&t.clusters, old) == 2) {
		for xx := x + w; xx < t.cols && cells[xx].r == wideCont; xx++ {
			cells[xx] = gridCell{}
		}
	}
	end := x + w
	line.used = max(line.used, end)
	cells[x] = gridCell{r, t.penID}
	if w == 2 {
		cells[x+1] = gridCell{wideCont, t.penID}
	}
	stick := b2i(!t.autoWrap)
	if x <= t.cols-stick-w {
		t.x = x + w
	} else {
		t.x = t.cols - stick
	}
}

// combine joins a zero-width character to the cell before the cursor.
func (t *Terminal) combine(r rune) {
	x := t.x - 1
	if x < 0 {
		return
	}
	if x >= t.cols {
		x = t.cols - 1
	}
	cells := t.scr.lines[t.y].own()
	if cells[x].r == wideCont && x > 0 {
		x--
	}
	base := cells[x].r
	if base == wideCont {
		return
	}
	if base == 0 {
		base = ' ' // an erased cell holds a space in tmux, marks join it
	}
	s := t.clusters.text(base) + string(r)
	if len(s) > 64 {
		return // an endless run of combining marks adds nothing visible
	}
	cells[x].r = t.clusters.intern(s)
}

// lineFeed moves down one row, scrolling the region at its bottom; the
// row entering takes the pen's background.
func (t *Terminal) lineFeed() { t.lineFeedBg(t.bgID()) }

// lineFeedBg is lineFeed with the background of the row entering: a wrap
// scrolls in a default row (tmux passes colour 8 there), LF the pen's.
func (t *Terminal) lineFeedBg(bg uint32) {
	if t.y == t.bot {
		t.scrollUpLines(t.top, t.bot, 1, t.scr == t.main, bg)
	} else if t.y < t.rows-1 {
		t.y++
	}
}

// reverseIndex moves up one row, scrolling the region down at its top.
func (t *Terminal) reverseIndex() {
	if t.y == t.top {
		t.scrollDown(t.top, t.bot, 1)
	} else if t.y > 0 {
		t.y--
	}
}

// scrollUp scrolls rows top..bot up by n, blank rows entering at the bottom
// in the pen's background. On the main screen the rows leaving go to
// scrollback, whatever the region: tmux does the same
// (grid_scroll_history_region), so a status line pinned below a scroll
// region does not cost the history of the area above it.
func (t *Terminal) scrollUp(top, bot, n int) {
	t.scrollUpLines(top, bot, n, t.scr == t.main, t.bgID())
}

func (t *Terminal) scrollUpLines(top, bot, n int, toHistory bool, bg uint32) {
	t.changed = true
	if n > bot-top+1 {
		n = bot - top + 1
	}
	if n <= 0 {
		return
	}
	lines := t.scr.lines
	if !toHistory && !t.deletingLines {
		// Moving rows ends the soft wrap of the row above them
		// (grid_move_lines); scrolling into history does not.
		t.unwrapRow(top - 1)
	}
	for i := 0; i < n; i++ {
		if toHistory {
			t.sb.push(t.encodeLine(&lines[top+i]))
			t.sbScrolled++
		}
	}
	// Rotate the row headers; the cell buffers of the rows leaving are
	// reused for the rows entering.
	leaving := append(t.scratchLines[:0], lines[top:top+n]...)
	if top == 0 && bot == len(lines)-1 && n < len(lines) {
		t.scr.scrollWindow(n)
		lines = t.scr.lines
	} else {
		copy(lines[top:], lines[top+n:bot+1])
	}
	if !toHistory && !t.deletingLines && top+1 >= bot {
		// Scrolling without history moves rows with grid_move_lines,
		// which in a two-row region ends the top row's soft wrap too.
		lines[top].wrapped = false
	}
	for i := range leaving {
		l := leaving[i]
		l.wrapped, l.used = false, 0
		l.blank(bg)
		lines[bot-n+1+i] = l
	}
	t.scratchLines = leaving[:0]
}

// scrollDown scrolls rows top..bot down by n, blank rows entering at top.
func (t *Terminal) scrollDown(top, bot, n int) { t.scrollDownLines(top, bot, n, false) }

// scrollDownLines moves rows top..bot down by n. insert is IL; otherwise
// RI/SD. The soft-wrap marks tmux's grid_move_lines ends differ between
// the two, and reflow depends on them.
func (t *Terminal) scrollDownLines(top, bot, n int, insert bool) {
	t.changed = true
	if n > bot-top+1 {
		n = bot - top + 1
	}
	if n <= 0 {
		return
	}
	lines := t.scr.lines
	if !insert { // IL does its own marks (insertLines)
		lines[top].wrapped = false
		t.unwrapRow(top - 1)
	}
	leaving := append(t.scratchLines[:0], lines[bot-n+1:bot+1]...)
	copy(lines[top+n:bot+1], lines[top:bot-n+1])
	bg := t.bgID()
	for i := range leaving {
		l := leaving[i]
		l.wrapped, l.used = false, 0
		l.blank(bg)
		lines[top+i] = l
	}
	t.scratchLines = leaving[:0]
}

// unwrapRow ends the soft wrap of row y; row -1 is the newest scrollback
// line (tmux's grid is one array, history and screen).
func (t *Terminal) unwrapRow(y int) {
	if y >= 0 {
		t.scr.lines[y].wrapped = false
		return
	}
	if y == -1 && t.scr == t.main {
		t.sb.unwrapNewest()
	}
}

// eraseCells blanks cells [from, to) of row y in the pen's background,
// blanking the outer half of a wide character cut at either edge.
func (t *Terminal) eraseCells(y, from, to int) {
	if from < 0 {
		from = 0
	}
	if to > t.cols {
		to = t.cols
	}
	if from >= to {
		return
	}
	t.changed = true
	// Unlike printing, erasing leaves the other half of a cut wide
	// character alone, as tmux does; rendering draws a wide character
	// missing its right half as a blank.
	line := &t.scr.lines[y]
	if from == 0 && to == t.cols {
		// A whole row cleared is an empty row, and the row above no
		// longer wraps into it (grid_clear_lines).
		line.used, line.wrapped = 0, false
		t.unwrapRow(y - 1)
	}
	bg := t.bgID()
	if bg == 0 && line.shared() {
		return // blank already
	}
	cells := line.own()
	if to == t.cols {
		// Erasing to the end of the row also drops what a narrower pane
		// keeps beyond its width.
		cells = cells[:cap(cells)]
		to = len(cells)
	}
	blankCells(cells[from:to], bg)
}

func (t *Terminal) eraseLines(from, to int) {
	for y := from; y < to; y++ {
		t.eraseCells(y, 0, t.cols)
		t.scr.lines[y].wrapped = false
	}
}

// insertCells shifts the cells from the cursor right by n (ICH), blanks
// entering in the pen's background.
func (t *Terminal) insertCells(n int) { t.insertCellsStyled(n, t.bgID()) }

func (t *Terminal) insertCellsStyled(n int, blank uint32) {
	x := t.x
	if x >= t.cols {
		return
	}
	if n > t.cols-x {
		n = t.cols - x
	}
	t.changed = true
	// Like tmux, no repair of wide characters cut by the shift: Window
	// draws their orphaned halves as blanks.
	line := &t.scr.lines[t.y]
	cells := line.own()
	copy(cells[x+n:], cells[x:t.cols-n])
	blankCells(cells[x:x+n], blank)
	if x+n < t.cols {
		line.used = t.cols
	}
}

// deleteCells removes n cells at the cursor, blanks entering at the end
// (DCH). From the pending-wrap column it does nothing (tmux).
func (t *Terminal) deleteCells(n int) {
	x := t.x
	if x >= t.cols {
		return
	}
	if n > t.cols-x {
		n = t.cols - x
	}
	t.changed = true
	line := &t.scr.lines[t.y]
	cells := line.own()
	copy(cells[x:], cells[x+n:])
	if x+n < t.cols {
		line.used = max(line.used, t.cols-n)
	}
	// The cells freed at the end are cleared as tmux's grid_clear does:
	// all of them from column 0 is a whole-row clear.
	t.eraseCells(t.y, t.cols-n, t.cols)
}

// cellWidth is the width of the character a cell rune stands for.
func cellWidth(ct *clusterTable, r rune) int {
	if r >= clusterBase {
		for _, c := range ct.text(r) {
			return runeWidth(c)
		}
	}
	if r <= 0 {
		return 1
	}
	return runeWidth(r)
}

// resize changes the grid size the way tmux's screen_resize does: the
// height first (rows below the cursor go, then rows from the top into
// scrollback; growing pulls scrolled rows back), then, on the main screen,
// reflow at the new width. The alternate screen is cut or padded instead
// (full-screen programs redraw), and the main screen behind it is resized
// when it comes back.
func (t *Terminal) resize(cols, rows int) {
	oldCols := t.cols
	t.cols, t.rows = cols, rows
	if t.scr == t.main {
		t.y = t.resizeScreenRows(t.main, rows, t.y)
		if t.mainCols != cols {
			t.reflow(cols)
			t.mainCols = cols
		}
		t.alt = nil // blank anyway when it next comes up
	} else {
		for i := range t.alt.lines {
			if t.alt.lines[i].shared() {
				t.alt.lines[i].cells = blankCellsOf(cols)
				continue
			}
			t.alt.lines[i].cells = resizeCells(t.alt.lines[i].cells, oldCols, cols)
			t.alt.lines[i].used = min(t.alt.lines[i].used, cols)
		}
		t.y = t.resizeScreenRows(t.alt, rows, t.y)
	}
	t.x = min(t.x, cols)
	t.saved.x, t.saved.y = min(t.saved.x, cols), min(t.saved.y, rows-1)
	t.top, t.bot = 0, rows-1
	oldTabs := t.tabs
	t.resetTabs()
	copy(t.tabs, oldTabs)
	for i := len(oldTabs); i < cols; i++ {
		t.tabs[i] = i%8 == 0 && i > 0
	}
}

// resizeScreenRows gives screen s the given number of rows, cursor row cy,
// and returns the cursor's new row. Shrinking removes rows below the
// cursor first, then from the top (into scrollback on the main screen);
// growing pulls back rows that scrolled into scrollback (not those a clear
// pushed there), then adds blank rows: tmux's screen_resize_y.
func (t *Terminal) resizeScreenRows(s *screenGrid, rows, cy int) int {
	old := len(s.lines)
	if rows < old {
		drop := 0
		if cy >= rows {
			drop = cy - rows + 1
		}
		for i := 0; i < drop; i++ {
			if s == t.main {
				t.sb.push(t.encodeLine(&s.lines[i]))
				t.sbScrolled++
			}
		}
		s.lines = append(s.lines[:0], s.lines[drop:drop+rows]...)
		cy -= drop
	} else if rows > old {
		add := rows - old
		pulled := 0
		var back []gridLine
		if s == t.main {
			t.sbScrolled = min(t.sbScrolled, t.sb.len())
			for pulled < add && t.sbScrolled > 0 {
				back = append(back, t.decodeLine(t.sb.popNewest(), t.cols))
				t.sbScrolled--
				pulled++
			}
		}
		nl := make([]gridLine, 0, rows)
		for i := len(back) - 1; i >= 0; i-- {
			nl = append(nl, back[i])
		}
		nl = append(nl, s.lines...)
		for len(nl) < rows {
			nl = append(nl, gridLine{cells: blankCellsOf(t.cols)})
		}
		s.lines = nl
		cy += pulled
	}
	return max(0, min(cy, rows-1))
}

// resizeCells changes a row's width without losing columns: a narrower
// row keeps its cells beyond the width (in the slice's capacity), so
// widening again brings them back, as long as nothing erased the row.
func resizeCells(cells []gridCell, oldCols, cols int) []gridCell {
	if cols == oldCols {
		return cells
	}
	if cols < oldCols {
		// A wide character cut at the edge keeps its data; Window draws
		// it as a blank while it does not fit.
		return cells[:cols]
	}
	if cap(cells) >= cols {
		return cells[:cols]
	}
	n := make([]gridCell, cols)
	copy(n, cells[:cap(cells)])
	return n
}
