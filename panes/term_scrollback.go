// term_scrollback.go holds the scrollback: a ring of lines capped by count,
// each line one immutable string so it costs one allocation:
//
//	flags byte (bit 0: soft-wrapped onto the next line)
//	used cells, columns they span (uvarints: what reflow needs, without
//	decoding the line)
//	run count (uvarint), then per run: text bytes (uvarint) and the style
//	the UTF-8 text of the line, trailing default blanks trimmed
//
// A style is stored inline (a mask byte saying which fields follow, then
// attributes and colours), so scrollback does not pin the screen's style
// table and a coloured 120-column log line costs well under 200 bytes.
package panes

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
	"unsafe"
)

type termScrollback struct {
	lines   []string
	head, n int
	max     int
}

func (r *termScrollback) len() int { return r.n }

func (r *termScrollback) push(s string) {
	if r.max <= 0 {
		return
	}
	if len(r.lines) < r.max {
		// Not yet a ring: head == 0 and n == len(lines).
		r.lines = append(r.lines, s)
		r.n++
		return
	}
	if r.n < r.max {
		r.lines[(r.head+r.n)%len(r.lines)] = s
		r.n++
		return
	}
	r.lines[r.head] = s
	r.head = (r.head + 1) % len(r.lines)
}

// get returns line i, 0 being the oldest.
func (r *termScrollback) get(i int) string {
	return r.lines[(r.head+i)%len(r.lines)]
}

func (r *termScrollback) popNewest() string {
	if r.n == 0 {
		return ""
	}
	if len(r.lines) < r.max {
		s := r.lines[r.n-1]
		r.lines[r.n-1] = ""
		r.lines = r.lines[:r.n-1]
		r.n--
		return s
	}
	i := (r.head + r.n - 1) % len(r.lines)
	s := r.lines[i]
	r.lines[i] = ""
	r.n--
	return s
}

// unwrapNewest clears the soft-wrap flag of the newest line.
func (r *termScrollback) unwrapNewest() { r.setNewestWrapped(false) }

// newestWrapped reports the soft-wrap flag of the newest line.
func (r *termScrollback) newestWrapped() bool {
	if r.n == 0 {
		return false
	}
	s := r.lines[(r.head+r.n-1)%len(r.lines)]
	return len(s) > 0 && s[0]&1 != 0
}

func (r *termScrollback) setNewestWrapped(on bool) {
	if r.n == 0 {
		return
	}
	i := (r.head + r.n - 1) % len(r.lines)
	s := r.lines[i]
	if len(s) == 0 || (s[0]&1 != 0) == on {
		return
	}
	b := []byte(s)
	b[0] ^= 1
	r.lines[i] = string(b)
}

func (r *termScrollback) clear() {
	r.lines, r.head, r.n = nil, 0, 0
}

// Style mask bits in the encoding.
const (
	termEncAttrs = 1 << 6
	termEncUL    = 1 << 7
)

func termAppendStyle(b []byte, s termStyle) []byte {
	var mask byte
	mask |= termColorTag(s.fg)
	mask |= termColorTag(s.bg) << 2
	mask |= termColorTag(s.ulColor) << 4
	if s.attrs != 0 {
		mask |= termEncAttrs
	}
	if s.ul != 0 {
		mask |= termEncUL
	}
	b = append(b, mask)
	if s.attrs != 0 {
		b = append(b, byte(s.attrs), byte(s.attrs>>8))
	}
	if s.ul != 0 {
		b = append(b, s.ul)
	}
	for _, c := range [3]termColor{s.fg, s.bg, s.ulColor} {
		switch c & termColorKind {
		case termColorIndexed:
			b = append(b, byte(c))
		case termColorRGB:
			b = append(b, byte(c>>16), byte(c>>8), byte(c))
		}
	}
	return b
}

func termColorTag(c termColor) byte {
	switch c & termColorKind {
	case termColorIndexed:
		return 1
	case termColorRGB:
		return 2
	}
	return 0
}

// termReadStyle decodes a style at b, returning it and the bytes used.
func termReadStyle(b []byte) (termStyle, int) {
	var s termStyle
	if len(b) == 0 {
		return s, 0
	}
	mask := b[0]
	i := 1
	if mask&termEncAttrs != 0 && i+2 <= len(b) {
		s.attrs = uint16(b[i]) | uint16(b[i+1])<<8
		i += 2
	}
	if mask&termEncUL != 0 && i < len(b) {
		s.ul = b[i]
		i++
	}
	for k := range 3 {
		var c termColor
		switch mask >> (2 * k) & 3 {
		case 1:
			if i < len(b) {
				c = termColorIndexed | termColor(b[i])
				i++
			}
		case 2:
			if i+3 <= len(b) {
				c = termColorRGB | termColor(b[i])<<16 | termColor(b[i+1])<<8 | termColor(b[i+2])
				i += 3
			}
		}
		switch k {
		case 0:
			s.fg = c
		case 1:
			s.bg = c
		default:
			s.ulColor = c
		}
	}
	return s, i
}

// termTrimmedLen is the number of cells of a row up to its last cell that
// is not a default-style blank.
func termTrimmedLen(cells []termCell) int {
	n := len(cells)
	for n > 0 {
		c := cells[n-1]
		if (c.r == 0 || c.r == ' ') && c.s == 0 {
			n--
			continue
		}
		break
	}
	return n
}

// Cells tmux leaves half a wide character in (an overwritten or erased
// other half) keep their place through scrollback with two marker runes,
// Unicode noncharacters no program prints: a left half alone is followed by
// termOrphanHeadMark, a right half alone is termOrphanContMark.
const (
	termOrphanHeadMark rune = 0x10FFFE
	termOrphanContMark rune = 0x10FFFD
)

// cellsWidth is the columns a row's cells span: a wide character's left
// half counts two, its right half none (tmux's data.width).
func (t *Term) cellsWidth(cells []termCell) int {
	w := 0
	for _, c := range cells {
		switch {
		case c.r == termWideCont:
		case c.r < 0x1100:
			w++
		default:
			w += termCellWidth(&t.clusters, c.r)
		}
	}
	return w
}

// termIsWideHead says whether a cell rune is a two-column character.
func termIsWideHead(ct *termClusterTable, r rune) bool {
	return r >= 0x1100 && termCellWidth(ct, r) == 2
}

// termEncRun is a run of text bytes in one style, while encoding a line.
type termEncRun struct {
	n int
	s uint32
}

// encodeLine turns a screen row into its scrollback form.
func (t *Term) encodeLine(l *termLine) string {
	// Cells kept beyond the width of a narrowed pane belong to the line.
	cells := l.cells[:cap(l.cells)]
	cells = cells[:termTrimmedLen(cells)]
	text := t.encText[:0]
	rs := t.encRuns[:0]
	asciiCells := 0 // cells of the ASCII runs, for the width below
	for i := 0; i < len(cells); {
		c := cells[i]
		start := len(text)
		if c.r >= 0 && c.r < 0x80 {
			// ASCII run in one style.
			j := i + 1
			for j < len(cells) && cells[j].s == c.s && cells[j].r >= 0 && cells[j].r < 0x80 {
				j++
			}
			asciiCells += j - i
			text = slices.Grow(text, j-i)[:start+j-i]
			dst := text[start:]
			for m, cc := range cells[i:j] {
				if cc.r == 0 {
					dst[m] = ' '
				} else {
					dst[m] = byte(cc.r)
				}
			}
			i = j
		} else {
			switch {
			case c.r == termWideCont:
				if i == 0 || !termIsWideHead(&t.clusters, cells[i-1].r) {
					text = utf8.AppendRune(text, termOrphanContMark)
				}
			case c.r >= termClusterBase:
				text = append(text, t.clusters.text(c.r)...)
			default:
				text = utf8.AppendRune(text, c.r)
			}
			if c.r != termWideCont && termIsWideHead(&t.clusters, c.r) &&
				(i+1 >= len(cells) || cells[i+1].r != termWideCont) {
				text = utf8.AppendRune(text, termOrphanHeadMark)
			}
			i++
		}
		if n := len(text) - start; n > 0 {
			if k := len(rs); k > 0 && rs[k-1].s == c.s {
				rs[k-1].n += n
			} else {
				rs = append(rs, termEncRun{n, c.s})
			}
		}
	}
	b := t.encHdr[:0]
	var flags byte
	if l.wrapped {
		flags = 1
	}
	b = append(b, flags)
	used := min(l.used, len(l.cells[:cap(l.cells)]))
	b = binary.AppendUvarint(b, uint64(used))
	var width int
	switch {
	case asciiCells == len(cells) && used >= len(cells):
		// All ASCII, and the used cells past the trimmed ones are blanks.
		width = used
	default:
		width = t.cellsWidth(l.cells[:cap(l.cells)][:used])
	}
	b = binary.AppendUvarint(b, uint64(width))
	b = binary.AppendUvarint(b, uint64(len(rs)))
	for _, r := range rs {
		b = binary.AppendUvarint(b, uint64(r.n))
		b = termAppendStyle(b, t.styles.list[r.s])
	}
	out := make([]byte, 0, len(b)+len(text))
	out = append(out, b...)
	out = append(out, text...)
	t.encText, t.encRuns, t.encHdr = text[:0], rs[:0], b[:0]
	// out is never written again: share it instead of copying.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// termLineReader walks an encoded scrollback line run by run.
type termLineReader struct {
	hdr    []byte // remaining run headers
	text   []byte // remaining text
	runs   int
	used   int // cells in use
	width  int // columns they span
	wraps  bool
	curLen int
	cur    termStyle
}

func termReadLine(s string) termLineReader {
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	var r termLineReader
	if len(b) == 0 {
		return r
	}
	r.wraps = b[0]&1 != 0
	i := 1
	var v [3]uint64
	for j := range v {
		n, k := binary.Uvarint(b[i:])
		if k <= 0 {
			return r
		}
		v[j] = n
		i += k
	}
	r.used, r.width, r.runs = int(v[0]), int(v[1]), int(v[2])
	// Find where the text starts by skipping the run headers once.
	hdrStart := i
	for range r.runs {
		_, k := binary.Uvarint(b[i:])
		if k <= 0 {
			r.runs = 0
			return r
		}
		i += k
		_, k = termReadStyle(b[i:])
		i += k
	}
	r.hdr = b[hdrStart:i]
	r.text = b[i:]
	return r
}

// next returns the next run's style and text; ok is false at the end.
func (r *termLineReader) next() (termStyle, []byte, bool) {
	if r.runs == 0 || len(r.hdr) == 0 {
		return termStyle{}, nil, false
	}
	r.runs--
	n, k := binary.Uvarint(r.hdr)
	r.hdr = r.hdr[k:]
	st, k := termReadStyle(r.hdr)
	r.hdr = r.hdr[k:]
	if int(n) > len(r.text) {
		n = uint64(len(r.text))
	}
	seg := r.text[:n]
	r.text = r.text[n:]
	return st, seg, true
}

// decodeLine turns a scrollback line back into a screen row of cols cells
// (for rows pulled back by a resize). Text beyond cols is kept past the
// row's width, as a narrowed row keeps it.
func (t *Term) decodeLine(s string, cols int) termLine {
	rd := termReadLine(s)
	cells := termBlankCells(make([]termCell, max(cols, rd.used)), 0)
	wrapped := rd.wraps
	x := 0
	for {
		st, seg, ok := rd.next()
		if !ok {
			break
		}
		sid := t.styles.intern(st)
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			switch r {
			case termOrphanHeadMark: // the character before has one cell
				if x > 0 && x-1 < len(cells) && cells[x-1].r == termWideCont {
					cells[x-1] = termCell{}
					x--
				}
				continue
			case termOrphanContMark:
				for x >= len(cells) {
					cells = append(cells, termCell{})
				}
				cells[x] = termCell{termWideCont, sid}
				x++
				continue
			}
			w := termRuneWidth(r)
			if w == 0 {
				if x > 0 {
					px := x - 1
					if cells[px].r == termWideCont && px > 0 {
						px--
					}
					if base := cells[px].r; base > 0 {
						cells[px].r = t.clusters.intern(t.clusters.text(base) + string(r))
					}
				}
				continue
			}
			for x+w > len(cells) {
				cells = append(cells, termCell{})
			}
			cells[x] = termCell{r, sid}
			if w == 2 {
				cells[x+1] = termCell{termWideCont, sid}
			}
			x += w
		}
	}
	return termLine{cells: cells[:cols], wrapped: wrapped, used: rd.used}
}
