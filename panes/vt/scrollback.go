// scrollback.go holds the scrollback: a ring of lines capped by count,
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
package vt

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
	"unsafe"
)

type scrollRing struct {
	lines   []string
	head, n int
	max     int
	// block is where new lines are carved from: one allocation per
	// sbBlock bytes of lines, not one per line (the allocator's size
	// classes and per-object cost were a good part of a line's price). A
	// block is freed once every line in it has left the ring.
	block []byte
}

// sbBlock is the size of a scrollback allocation block.
const sbBlock = 16 << 10

// alloc returns n bytes for a line, never written again once filled.
func (r *scrollRing) alloc(n int) []byte {
	if cap(r.block)-len(r.block) < n {
		r.block = make([]byte, 0, max(sbBlock, n))
	}
	start := len(r.block)
	r.block = r.block[:start+n]
	return r.block[start : start+n : start+n]
}

func (r *scrollRing) len() int { return r.n }

func (r *scrollRing) push(s string) {
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
func (r *scrollRing) get(i int) string {
	return r.lines[(r.head+i)%len(r.lines)]
}

func (r *scrollRing) popNewest() string {
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
func (r *scrollRing) unwrapNewest() { r.setNewestWrapped(false) }

// newestWrapped reports the soft-wrap flag of the newest line.
func (r *scrollRing) newestWrapped() bool {
	if r.n == 0 {
		return false
	}
	s := r.lines[(r.head+r.n-1)%len(r.lines)]
	return len(s) > 0 && s[0]&1 != 0
}

func (r *scrollRing) setNewestWrapped(on bool) {
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

func (r *scrollRing) clear() {
	r.lines, r.head, r.n, r.block = nil, 0, 0, nil
}

// Style mask bits in the encoding.
const (
	encAttrs = 1 << 6
	encUL    = 1 << 7
)

func appendStyle(b []byte, s cellStyle) []byte {
	var mask byte
	mask |= colorTag(s.fg)
	mask |= colorTag(s.bg) << 2
	mask |= colorTag(s.ulColor) << 4
	if s.attrs != 0 {
		mask |= encAttrs
	}
	if s.ul != 0 {
		mask |= encUL
	}
	b = append(b, mask)
	if s.attrs != 0 {
		b = append(b, byte(s.attrs), byte(s.attrs>>8))
	}
	if s.ul != 0 {
		b = append(b, s.ul)
	}
	for _, c := range [3]color{s.fg, s.bg, s.ulColor} {
		switch c & colorKind {
		case colorIndexed:
			b = append(b, byte(c))
		case colorRGB:
			b = append(b, byte(c>>16), byte(c>>8), byte(c))
		}
	}
	return b
}

func colorTag(c color) byte {
	switch c & colorKind {
	case colorIndexed:
		return 1
	case colorRGB:
		return 2
	}
	return 0
}

// readStyle decodes a style at b, returning it and the bytes used.
func readStyle(b []byte) (cellStyle, int) {
	var s cellStyle
	if len(b) == 0 {
		return s, 0
	}
	mask := b[0]
	i := 1
	if mask&encAttrs != 0 && i+2 <= len(b) {
		s.attrs = uint16(b[i]) | uint16(b[i+1])<<8
		i += 2
	}
	if mask&encUL != 0 && i < len(b) {
		s.ul = b[i]
		i++
	}
	for k := range 3 {
		var c color
		switch mask >> (2 * k) & 3 {
		case 1:
			if i < len(b) {
				c = colorIndexed | color(b[i])
				i++
			}
		case 2:
			if i+3 <= len(b) {
				c = colorRGB | color(b[i])<<16 | color(b[i+1])<<8 | color(b[i+2])
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

// trimmedLen is the number of cells of a row up to its last cell that
// is not a default-style blank.
func trimmedLen(cells []gridCell) int {
	w := cellWords(cells)
	n := len(w)
	// Four cells at a time while all are blanks: the OR of words each 0
	// or wordSpace is one of those two.
	for n >= 4 && (w[n-1]|w[n-2]|w[n-3]|w[n-4])&^wordSpace == 0 {
		n -= 4
	}
	for n > 0 && w[n-1]&^wordSpace == 0 {
		n--
	}
	return n
}

// appendASCIICells appends cells that hold ASCII (or nothing, drawn as a
// space) as their bytes: the fast path of rendering and of encoding a line.
// It sizes dst once, then copies without per-byte growth checks.
func appendASCIICells(dst []byte, cells []gridCell) []byte {
	k := len(dst)
	dst = slices.Grow(dst, len(cells))[:k+len(cells)]
	out := dst[k:]
	for m, c := range cells {
		if c.r == 0 {
			out[m] = ' '
		} else {
			out[m] = byte(c.r)
		}
	}
	return dst
}

// Cells tmux leaves half a wide character in (an overwritten or erased
// other half) keep their place through scrollback with two marker runes,
// Unicode noncharacters no program prints: a left half alone is followed by
// orphanHeadMark, a right half alone is orphanContMark.
const (
	orphanHeadMark rune = 0x10FFFE
	orphanContMark rune = 0x10FFFD
)

// cellsWidth is the columns a row's cells span: a wide character's left
// half counts two, its right half none (tmux's data.width).
func (t *Terminal) cellsWidth(cells []gridCell) int {
	w := 0
	for _, c := range cells {
		switch {
		case c.r == wideCont:
		case c.r < 0x1100:
			w++
		default:
			w += cellWidth(&t.clusters, c.r)
		}
	}
	return w
}

// isWideHead says whether a cell rune is a two-column character.
func isWideHead(ct *clusterTable, r rune) bool {
	return r >= 0x1100 && cellWidth(ct, r) == 2
}

// asciiRun copies the leading cells of w that hold ASCII (or nothing, a
// space) in style s into out (as long as w) and returns how many. Four
// cells at a time while all four qualify: their low bytes packed into one
// word, the zero bytes turned into spaces in one step (a lane of 0-0x7f
// plus 0x7f sets its top bit unless it was 0), one store.
func asciiRun(out []byte, w []uint64, s uint32) int {
	key := cellWord(0, s)
	out = out[:len(w)]
	m := 0
	for ; m+4 <= len(w); m += 4 {
		v := w[m : m+4 : m+4]
		a, b, c, d := v[0]^key, v[1]^key, v[2]^key, v[3]^key
		if (a|b|c|d)&^wordASCII != 0 {
			break
		}
		x := uint32(byte(a>>cellRShift)) | uint32(byte(b>>cellRShift))<<8 |
			uint32(byte(c>>cellRShift))<<16 | uint32(byte(d>>cellRShift))<<24
		x |= ((x+0x7f7f7f7f)&0x80808080 ^ 0x80808080) >> 2
		binary.LittleEndian.PutUint32(out[m:m+4], x)
	}
	for ; m < len(w); m++ {
		d := w[m]
		if (d^key)&^wordASCII != 0 {
			return m
		}
		b := byte(d >> cellRShift)
		if b == 0 { // never written: a space
			b = ' '
		}
		out[m] = b
	}
	return len(w)
}

// encRun is a run of text bytes in one style, while encoding a line.
type encRun struct {
	n int
	s uint32
}

// encodeLine turns a screen row into its scrollback form.
func (t *Terminal) encodeLine(l *gridLine) string {
	// Cells kept beyond the width of a narrowed pane belong to the line.
	cells := l.cells[:cap(l.cells)]
	cells = cells[:trimmedLen(cells)]
	// Room for a byte a cell, which is what an ASCII cell takes; a
	// non-ASCII one makes room again for the rest.
	text := slices.Grow(t.encText[:0], len(cells))
	rs := t.encRuns[:0]
	used := min(l.used, cap(l.cells))
	// The columns the used cells span (what reflow needs): each cell
	// counts one, but for the non-ASCII ones, corrected as they pass.
	width := used
	for i := 0; i < len(cells); {
		c := cells[i]
		start := len(text)
		if uint32(c.r) < 0x80 {
			// ASCII run in one style, found and copied in one pass
			// (a never-written cell is a space).
			k := len(text)
			m := asciiRun(text[k:cap(text)], cellWords(cells[i:]), c.s)
			text = text[:k+m]
			i += m
		} else {
			if i < used {
				switch {
				case c.r == wideCont:
					width--
				case c.r >= 0x1100:
					width += cellWidth(&t.clusters, c.r) - 1
				}
			}
			switch {
			case c.r == wideCont:
				if i == 0 || !isWideHead(&t.clusters, cells[i-1].r) {
					text = utf8.AppendRune(text, orphanContMark)
				}
			case c.r >= clusterBase:
				text = append(text, t.clusters.text(c.r)...)
			default:
				text = utf8.AppendRune(text, c.r)
			}
			if c.r != wideCont && isWideHead(&t.clusters, c.r) &&
				(i+1 >= len(cells) || cells[i+1].r != wideCont) {
				text = utf8.AppendRune(text, orphanHeadMark)
			}
			i++
			text = slices.Grow(text, len(cells)-i)
		}
		if n := len(text) - start; n > 0 {
			if k := len(rs); k > 0 && rs[k-1].s == c.s {
				rs[k-1].n += n
			} else {
				rs = append(rs, encRun{n, c.s})
			}
		}
	}
	b := t.encHdr[:0]
	var flags byte
	if l.wrapped {
		flags = 1
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(used))
	b = binary.AppendUvarint(b, uint64(width))
	b = binary.AppendUvarint(b, uint64(len(rs)))
	for _, r := range rs {
		b = binary.AppendUvarint(b, uint64(r.n))
		// The style's encoding copied whole (16 bytes, two moves, not a
		// call of memmove), then cut to its length.
		e := &t.styles.enc[r.s]
		k := len(b)
		b = slices.Grow(b, len(e.b))[:k+len(e.b)]
		*(*[len(e.b)]byte)(b[k:]) = e.b
		b = b[:k+int(e.b[styleEncLen])]
	}
	out := t.sb.alloc(len(b) + len(text))
	copy(out[copy(out, b):], text)
	t.encText, t.encRuns, t.encHdr = text[:0], rs[:0], b[:0]
	// out is never written again: share it instead of copying.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// lineReader walks an encoded scrollback line run by run.
type lineReader struct {
	hdr   []byte // remaining run headers
	text  []byte // remaining text
	runs  int
	used  int // cells in use
	width int // columns they span
	wraps bool
}

func readLine(s string) lineReader {
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	var r lineReader
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
		_, k = readStyle(b[i:])
		i += k
	}
	r.hdr = b[hdrStart:i]
	r.text = b[i:]
	return r
}

// next returns the next run's style and text; ok is false at the end.
func (r *lineReader) next() (cellStyle, []byte, bool) {
	if r.runs == 0 || len(r.hdr) == 0 {
		return cellStyle{}, nil, false
	}
	r.runs--
	n, k := binary.Uvarint(r.hdr)
	r.hdr = r.hdr[k:]
	st, k := readStyle(r.hdr)
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
func (t *Terminal) decodeLine(s string, cols int) gridLine {
	rd := readLine(s)
	cells := blankCells(make([]gridCell, max(cols, rd.used)), 0)
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
			case orphanHeadMark: // the character before has one cell
				if x > 0 && x-1 < len(cells) && cells[x-1].r == wideCont {
					cells[x-1] = gridCell{}
					x--
				}
				continue
			case orphanContMark:
				for x >= len(cells) {
					cells = append(cells, gridCell{})
				}
				cells[x] = gridCell{wideCont, sid}
				x++
				continue
			}
			w := runeWidth(r)
			if w == 0 {
				if x > 0 {
					px := x - 1
					if cells[px].r == wideCont && px > 0 {
						px--
					}
					if base := cells[px].r; base > 0 {
						cells[px].r = t.clusters.intern(t.clusters.text(base) + string(r))
					}
				}
				continue
			}
			for x+w > len(cells) {
				cells = append(cells, gridCell{})
			}
			cells[x] = gridCell{r, sid}
			if w == 2 {
				cells[x+1] = gridCell{wideCont, sid}
			}
			x += w
		}
	}
	return gridLine{cells: cells[:cols], wrapped: wrapped, used: rd.used}
}
