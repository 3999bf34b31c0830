// term_style.go holds cell styles: the termStyle value (colours and
// attributes), the per-Term style table that cells index into (so a cell is
// 8 bytes), the table of grapheme clusters for cells holding more than one
// rune, SGR parsing, and the minimal SGR diff used when rendering.
package panes

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// termColor: 0 is the default colour; termColorIndexed|n is palette entry n
// (0-255); termColorRGB|0xRRGGBB is a truecolor.
type termColor uint32

const (
	termColorIndexed termColor = 1 << 24
	termColorRGB     termColor = 2 << 24
	termColorKind    termColor = 0xff << 24
)

// Attribute bits of termStyle.attrs.
const (
	termAttrBold uint16 = 1 << iota
	termAttrFaint
	termAttrItalic
	termAttrBlink
	termAttrRapidBlink
	termAttrReverse
	termAttrHidden
	termAttrStrike
	termAttrOverline
)

// Underline styles (termStyle.ul), as in SGR 4:n.
const (
	termULNone uint8 = iota
	termULSingle
	termULDouble
	termULCurly
	termULDotted
	termULDashed
)

type termStyle struct {
	fg, bg, ulColor termColor
	attrs           uint16
	ul              uint8
}

// termStyleTable interns styles; index 0 is always the default style.
type termStyleTable struct {
	list  []termStyle
	index map[termStyle]uint32
}

func (st *termStyleTable) init() { st.reset() }

func (st *termStyleTable) reset() {
	st.list = append(st.list[:0], termStyle{})
	if st.index == nil || len(st.index) > 64 {
		st.index = make(map[termStyle]uint32, 8)
	} else {
		clear(st.index)
	}
	st.index[termStyle{}] = 0
}

func (st *termStyleTable) intern(s termStyle) uint32 {
	if id, ok := st.index[s]; ok {
		return id
	}
	id := uint32(len(st.list))
	st.list = append(st.list, s)
	st.index[s] = id
	return id
}

// termStyleCompactAt: past this many styles the table is rebuilt from the
// cells on screen (scrollback keeps its styles inline), so truecolor
// gradients cannot grow it without bound.
const termStyleCompactAt = 8192

// termClusterBase: a cell rune at or above it is an index into the cluster
// table (a base character followed by combining marks).
const termClusterBase rune = 0x200000

// termWideCont marks the right half of a wide character.
const termWideCont rune = -1

type termClusterTable struct {
	list  []string
	index map[string]rune
}

func (ct *termClusterTable) reset() {
	ct.list = ct.list[:0]
	ct.index = nil
}

func (ct *termClusterTable) intern(s string) rune {
	if ct.index == nil {
		ct.index = make(map[string]rune)
	}
	if r, ok := ct.index[s]; ok {
		return r
	}
	r := termClusterBase + rune(len(ct.list))
	ct.list = append(ct.list, s)
	ct.index[s] = r
	return r
}

// text returns the characters a cell rune stands for.
func (ct *termClusterTable) text(r rune) string {
	if r >= termClusterBase {
		i := int(r - termClusterBase)
		if i < len(ct.list) {
			return ct.list[i]
		}
		return " "
	}
	return string(r)
}

// updatePen re-interns the pen after an SGR change.
func (t *Term) updatePen() {
	if !t.penDirty {
		return
	}
	t.penDirty = false
	if len(t.styles.list) >= termStyleCompactAt {
		t.compactTables()
	}
	// A small cache in front of the map: logs switch among a handful of
	// styles, and a map lookup per SGR shows in profiles.
	for i := range t.penCache {
		if e := &t.penCache[i]; e.ok && e.style == t.pen {
			t.penID, t.penBgID = e.id, e.bgID
			return
		}
	}
	t.penID = t.styles.intern(t.pen)
	t.penBgID = t.styles.intern(termStyle{bg: t.pen.bg})
	t.penCache[t.penCacheNext] = termPenCacheEntry{t.pen, t.penID, t.penBgID, true}
	t.penCacheNext = (t.penCacheNext + 1) % len(t.penCache)
}

// termPenCacheEntry remembers the table indices of a recent pen.
type termPenCacheEntry struct {
	style    termStyle
	id, bgID uint32
	ok       bool
}

// compactTables rebuilds the style and cluster tables from the cells of both
// screens, renumbering every cell.
func (t *Term) compactTables() {
	t.penCache = [len(t.penCache)]termPenCacheEntry{}
	oldStyles := t.styles.list
	oldClusters := t.clusters.list
	t.styles.list = nil
	t.styles.reset()
	t.clusters.list = nil
	t.clusters.reset()
	for _, s := range []*termScreen{t.main, t.alt} {
		if s == nil {
			continue
		}
		for li := range s.lines {
			cells := s.lines[li].cells
			for ci := range cells {
				c := &cells[ci]
				if int(c.s) < len(oldStyles) {
					c.s = t.styles.intern(oldStyles[c.s])
				} else {
					c.s = 0
				}
				if c.r >= termClusterBase {
					i := int(c.r - termClusterBase)
					if i < len(oldClusters) {
						c.r = t.clusters.intern(oldClusters[i])
					} else {
						c.r = ' '
					}
				}
			}
		}
	}
	t.penID = t.styles.intern(t.pen)
	t.penBgID = t.styles.intern(termStyle{bg: t.pen.bg})
}

// setSGR applies CSI ... m.
func (t *Term) setSGR(params ansi.Params) {
	t.penDirty = true
	if len(params) == 0 {
		t.pen = termStyle{}
		return
	}
	s := &t.pen
	for i := 0; i < len(params); i++ {
		p := termParam(params[i], 0)
		switch {
		case p == 0:
			*s = termStyle{}
		case p == 1:
			s.attrs |= termAttrBold
		case p == 2:
			s.attrs |= termAttrFaint
		case p == 3:
			s.attrs |= termAttrItalic
		case p == 4:
			s.ul = termULSingle
			if params[i].HasMore() && i+1 < len(params) {
				i++
				n := termParam(params[i], 1)
				if n <= int(termULDashed) {
					s.ul = uint8(n)
				}
				// Skip any further sub-parameters of this one.
				for params[i].HasMore() && i+1 < len(params) {
					i++
				}
			}
		case p == 5:
			s.attrs |= termAttrBlink
		case p == 6:
			s.attrs |= termAttrRapidBlink
		case p == 7:
			s.attrs |= termAttrReverse
		case p == 8:
			s.attrs |= termAttrHidden
		case p == 9:
			s.attrs |= termAttrStrike
		case p == 21:
			s.ul = termULDouble
		case p == 22:
			s.attrs &^= termAttrBold | termAttrFaint
		case p == 23:
			s.attrs &^= termAttrItalic
		case p == 24:
			s.ul = termULNone
		case p == 25:
			s.attrs &^= termAttrBlink | termAttrRapidBlink
		case p == 27:
			s.attrs &^= termAttrReverse
		case p == 28:
			s.attrs &^= termAttrHidden
		case p == 29:
			s.attrs &^= termAttrStrike
		case p >= 30 && p <= 37:
			s.fg = termColorIndexed | termColor(p-30)
		case p == 38, p == 48, p == 58:
			var c termColor
			var ok bool
			c, i, ok = termParseExtColor(params, i)
			if ok {
				switch p {
				case 38:
					s.fg = c
				case 48:
					s.bg = c
				default:
					s.ulColor = c
				}
			}
		case p == 39:
			s.fg = 0
		case p >= 40 && p <= 47:
			s.bg = termColorIndexed | termColor(p-40)
		case p == 49:
			s.bg = 0
		case p == 53:
			s.attrs |= termAttrOverline
		case p == 55:
			s.attrs &^= termAttrOverline
		case p == 59:
			s.ulColor = 0
		case p >= 90 && p <= 97:
			s.fg = termColorIndexed | termColor(p-90+8)
		case p >= 100 && p <= 107:
			s.bg = termColorIndexed | termColor(p-100+8)
		}
	}
}

// termParseExtColor parses 38/48/58 colours at params[i] in both the
// semicolon form (38;5;n, 38;2;r;g;b) and the colon form (38:5:n,
// 38:2::r:g:b, 38:2:r:g:b). It returns the index of the last parameter used.
func termParseExtColor(params ansi.Params, i int) (termColor, int, bool) {
	colon := params[i].HasMore()
	if i+1 >= len(params) {
		return 0, i, false
	}
	kind := termParam(params[i+1], 0)
	if colon {
		// Collect the sub-parameters of this group.
		j := i + 1
		sub := []int{}
		for {
			sub = append(sub, termParam(params[j], 0))
			if !params[j].HasMore() || j+1 >= len(params) {
				break
			}
			j++
		}
		switch kind {
		case 5:
			if len(sub) >= 2 {
				return termColorIndexed | termColor(sub[1]&0xff), j, true
			}
		case 2:
			// 38:2:cs:r:g:b or 38:2:r:g:b
			v := sub[1:]
			if len(v) >= 4 {
				v = v[1:]
			}
			if len(v) >= 3 {
				return termRGB(v[0], v[1], v[2]), j, true
			}
		}
		return 0, j, false
	}
	switch kind {
	case 5:
		if i+2 < len(params) {
			return termColorIndexed | termColor(termParam(params[i+2], 0)&0xff), i + 2, true
		}
		return 0, len(params) - 1, false
	case 2:
		if i+4 < len(params) {
			return termRGB(termParam(params[i+2], 0), termParam(params[i+3], 0), termParam(params[i+4], 0)), i + 4, true
		}
		return 0, len(params) - 1, false
	}
	return 0, i + 1, false
}

func termRGB(r, g, b int) termColor {
	return termColorRGB | termColor((r&0xff)<<16|(g&0xff)<<8|(b&0xff))
}

// termParam reads a parameter, clamped so absurd digit runs cannot overflow
// into negative counts.
func termParam(p ansi.Param, def int) int {
	v := p.Param(def)
	if v < 0 || v > 65535 {
		return 65535
	}
	return v
}

// termAppendSGR appends the shortest SGR sequence that turns style from
// into style to. It returns buf unchanged when they are equal.
func termAppendSGR(buf []byte, from, to termStyle) []byte {
	if from == to {
		return buf
	}
	if to == (termStyle{}) {
		return append(buf, "\x1b[m"...)
	}
	buf = append(buf, "\x1b["...)
	start := len(buf)
	sep := func() {
		if len(buf) > start {
			buf = append(buf, ';')
		}
	}
	removed := from.attrs &^ to.attrs
	if removed != 0 || (from.ul != 0 && to.ul == 0) {
		// Clearing attributes one by one costs more than starting over
		// whenever more than one goes; 0 then everything of `to`.
		if termBitCount(removed)+termBool(from.ul != 0 && to.ul == 0) > 1 {
			buf = append(buf, '0')
			from = termStyle{}
		} else {
			switch {
			case removed&(termAttrBold|termAttrFaint) != 0:
				buf = append(buf, "22"...)
				from.attrs &^= termAttrBold | termAttrFaint
			case removed&termAttrItalic != 0:
				buf = append(buf, "23"...)
			case removed&(termAttrBlink|termAttrRapidBlink) != 0:
				buf = append(buf, "25"...)
				from.attrs &^= termAttrBlink | termAttrRapidBlink
			case removed&termAttrReverse != 0:
				buf = append(buf, "27"...)
			case removed&termAttrHidden != 0:
				buf = append(buf, "28"...)
			case removed&termAttrStrike != 0:
				buf = append(buf, "29"...)
			case removed&termAttrOverline != 0:
				buf = append(buf, "55"...)
			default:
				buf = append(buf, "24"...)
				from.ul = 0
			}
			from.attrs &^= removed
		}
	}
	added := to.attrs &^ from.attrs
	for _, a := range termAttrCodes {
		if added&a.bit != 0 {
			sep()
			buf = append(buf, a.code...)
		}
	}
	if to.ul != from.ul {
		sep()
		switch to.ul {
		case termULNone:
			buf = append(buf, "24"...)
		case termULSingle:
			buf = append(buf, '4')
		case termULDouble:
			buf = append(buf, "4:2"...)
		default:
			buf = append(buf, "4:"...)
			buf = strconv.AppendInt(buf, int64(to.ul), 10)
		}
	}
	if to.fg != from.fg {
		sep()
		buf = termAppendColor(buf, to.fg, 30, 90, "38", "39")
	}
	if to.bg != from.bg {
		sep()
		buf = termAppendColor(buf, to.bg, 40, 100, "48", "49")
	}
	if to.ulColor != from.ulColor {
		sep()
		if to.ulColor == 0 {
			buf = append(buf, "59"...)
		} else {
			buf = termAppendColor(buf, to.ulColor, -1, -1, "58", "59")
		}
	}
	return append(buf, 'm')
}

var termAttrCodes = []struct {
	bit  uint16
	code string
}{
	{termAttrBold, "1"}, {termAttrFaint, "2"}, {termAttrItalic, "3"},
	{termAttrBlink, "5"}, {termAttrRapidBlink, "6"}, {termAttrReverse, "7"},
	{termAttrHidden, "8"}, {termAttrStrike, "9"}, {termAttrOverline, "53"},
}

func termAppendColor(buf []byte, c termColor, base, brightBase int, ext, def string) []byte {
	switch c & termColorKind {
	case 0:
		return append(buf, def...)
	case termColorIndexed:
		n := int(c & 0xff)
		if base >= 0 && n < 8 {
			return strconv.AppendInt(buf, int64(base+n), 10)
		}
		if brightBase >= 0 && n < 16 {
			return strconv.AppendInt(buf, int64(brightBase+n-8), 10)
		}
		buf = append(buf, ext...)
		buf = append(buf, ";5;"...)
		return strconv.AppendInt(buf, int64(n), 10)
	default:
		buf = append(buf, ext...)
		buf = append(buf, ";2;"...)
		buf = strconv.AppendInt(buf, int64(c>>16&0xff), 10)
		buf = append(buf, ';')
		buf = strconv.AppendInt(buf, int64(c>>8&0xff), 10)
		buf = append(buf, ';')
		return strconv.AppendInt(buf, int64(c&0xff), 10)
	}
}

func termBitCount(v uint16) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

func termBool(b bool) int {
	if b {
		return 1
	}
	return 0
}
