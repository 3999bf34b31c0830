// render.go holds the read side of Terminal: windows into the absolute
// line space (scrollback lines 0..n-1, then the active screen's rows) as
// plain text or ANSI with minimal SGR changes, and whole-screen dumps for
// `rostra replay`. (Copy mode's cell-by-cell reading and search are in
// copy.go and find.go.) Every reader holds the read lock only.
package vt

import (
	"sync"
	"unicode/utf8"
)

// LineCount is scrollback lines + rows: the absolute line space, 0 being the
// oldest scrollback line.
func (t *Terminal) LineCount() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.sb.len() + t.rows
}

// ScrollbackLen is the number of lines in scrollback.
func (t *Terminal) ScrollbackLen() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.sb.len()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// Window returns exactly rows lines starting at absolute line top (clamped),
// each exactly cols cells wide, padded with spaces. With ansi, styles are
// given with minimal SGR changes and each line ends in the default style.
func (t *Terminal) Window(top int, ansi bool) []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	total := t.sb.len() + t.rows
	top = max(0, min(top, total-t.rows))
	bp := bufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	var offs [4097]int
	ends := offs[:0]
	for i := range t.rows {
		buf = t.appendLine(buf, top+i, ansi, true)
		ends = append(ends, len(buf))
	}
	all := string(buf)
	*bp = buf
	bufPool.Put(bp)
	out := make([]string, t.rows)
	start := 0
	for i, e := range ends {
		out[i] = all[start:e]
		start = e
	}
	return out
}

// Text returns the screen (with scrollback above it when asked) as plain
// text, one line per row, trailing spaces trimmed.
func (t *Terminal) Text(scrollback bool) string { return t.dump(scrollback, false) }

// ANSI is Text with colours and attributes.
func (t *Terminal) ANSI(scrollback bool) string { return t.dump(scrollback, true) }

func (t *Terminal) dump(scrollback, ansi bool) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	first := t.sb.len()
	if scrollback {
		first = 0
	}
	var buf []byte
	for i := first; i < t.sb.len()+t.rows; i++ {
		buf = t.appendLine(buf, i, ansi, false)
		buf = append(buf, '\n')
	}
	return string(buf)
}

// appendLine renders absolute line i. pad (Window): exactly cols cells, a
// wide character whose right half was erased drawn as a blank; otherwise
// (Text, ANSI) the cells as tmux keeps them, trailing blanks trimmed (in
// plain text, all trailing spaces).
func (t *Terminal) appendLine(buf []byte, i int, ansi, pad bool) []byte {
	start := len(buf)
	if i < t.sb.len() {
		buf = t.appendScrollbackLine(buf, t.sb.get(i), ansi, pad)
	} else {
		buf = t.appendCells(buf, t.scr.lines[i-t.sb.len()].cells, ansi, pad)
	}
	if !pad && !ansi {
		n := len(buf)
		for n > start && buf[n-1] == ' ' {
			n--
		}
		buf = buf[:n]
	}
	return buf
}

func (t *Terminal) appendCells(buf []byte, cells []gridCell, ansi, pad bool) []byte {
	n := len(cells)
	if !pad {
		n = trimmedLen(cells)
	}
	var cur cellStyle
	curID := uint32(0)
	styles := t.styles.list
	for i := 0; i < n; {
		c := cells[i]
		if ansi && c.s != curID {
			var st cellStyle
			if int(c.s) < len(styles) {
				st = styles[c.s]
			}
			buf = appendSGR(buf, cur, st)
			cur, curID = st, c.s
		}
		if c.r >= 0 && c.r < 0x80 {
			// A run of ASCII (or blank) cells in one style.
			j := i + 1
			for j < n && cells[j].r >= 0 && cells[j].r < 0x80 && (!ansi || cells[j].s == curID) {
				j++
			}
			buf = appendASCIICells(buf, cells[i:j])
			i = j
			continue
		}
		switch {
		case c.r == wideCont:
			if pad && (i == 0 || cells[i-1].r <= 0 || cells[i-1].r < 0x80 || cellWidth(&t.clusters, cells[i-1].r) != 2) {
				// The right half of a character no longer there (a row
				// that was cut by a resize and written since).
				buf = append(buf, ' ')
			}
		case pad && (i+1 >= len(cells) || cells[i+1].r != wideCont) && cellWidth(&t.clusters, c.r) == 2:
			// A wide character whose right half was erased: drawing it
			// would push the rest of the row right by one.
			buf = append(buf, ' ')
		case c.r >= clusterBase:
			buf = append(buf, t.clusters.text(c.r)...)
		default:
			buf = utf8.AppendRune(buf, c.r)
		}
		i++
	}
	if ansi && cur != (cellStyle{}) {
		buf = append(buf, "\x1b[m"...)
	}
	return buf
}

func (t *Terminal) appendScrollbackLine(buf []byte, s string, ansi, pad bool) []byte {
	rd := readLine(s)
	var cur cellStyle
	x := 0
	cols := t.cols
runs:
	for {
		st, seg, ok := rd.next()
		if !ok {
			break
		}
		if ansi {
			buf = appendSGR(buf, cur, st)
			cur = st
		}
		// Fast path: ASCII that fits.
		if isASCII(seg) && (!pad || x+len(seg) <= cols) {
			buf = append(buf, seg...)
			x += len(seg)
			continue
		}
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			if r == orphanContMark {
				// A right half alone: nothing in text, a blank in a window.
				if pad && x < cols {
					buf = append(buf, ' ')
					x++
				}
				continue
			}
			w := runeWidth(r)
			if m, n := utf8.DecodeRune(seg); m == orphanHeadMark {
				// A left half alone: tmux prints the character; a window
				// draws the one cell it has as a blank.
				seg = seg[n:]
				if pad {
					if x >= cols {
						break runs
					}
					buf = append(buf, ' ')
					x++
					continue
				}
			}
			if pad && x+w > cols {
				break runs // a line wider than a narrowed pane
			}
			buf = utf8.AppendRune(buf, r)
			x += w
		}
	}
	if ansi && cur != (cellStyle{}) {
		buf = append(buf, "\x1b[m"...)
	}
	if pad {
		for ; x < cols; x++ {
			buf = append(buf, ' ')
		}
	}
	return buf
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
