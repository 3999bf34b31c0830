// term_style.go holds cell styles: the termStyle value (colours and
// attributes), the per-Term style table that cells index into (so a cell is
// 8 bytes), the table of grapheme clusters for cells holding more than one
// rune, SGR parsing, and the minimal SGR diff used when rendering.
package panes

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
	ansiparser "github.com/charmbracelet/x/ansi/parser"
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

// setSGR applies CSI ... m with tmux's rules (input_csi_dispatch_sgr): a
// colon group is one unit, and one it does not understand is skipped; in
// the semicolon form 38/48/58 take their arguments from the following
// parameters, an out-of-range 256-colour index means the default colour,
// and an out-of-range truecolor leaves its numbers to be read as SGR codes.
func (t *Term) setSGR(params ansi.Params) {
	t.penDirty = true
	if len(params) == 0 {
		t.pen = termStyle{}
		return
	}
	s := &t.pen
	for i := 0; i < len(params); i++ {
		if params[i].HasMore() {
			j := i
			for j+1 < len(params) && params[j].HasMore() {
				j++
			}
			termSGRColonGroup(s, params[i:j+1])
			i = j
			continue
		}
		p := termParam(params[i], 0)
		switch {
		case p == 38, p == 48, p == 58:
			i++
			switch termSGRArg(params, i) {
			case 2:
				r, g, b := termSGRArg(params, i+1), termSGRArg(params, i+2), termSGRArg(params, i+3)
				if termSetRGB(s, p, r, g, b) {
					i += 3
				}
			case 5:
				termSet256(s, p, termSGRArg(params, i+1))
				i++
			}
		default:
			termSGRCode(s, p)
		}
	}
}

// termSGRArg is parameter i for an SGR argument, -1 when absent.
func termSGRArg(params ansi.Params, i int) int {
	if i >= len(params) {
		return -1
	}
	return termParam(params[i], -1)
}

func termSGRCode(s *termStyle, p int) {
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
	case p == 5, p == 6:
		s.attrs |= termAttrBlink
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

// termSGRColonGroup applies one colon-separated group: 4:n underline
// styles and 38/48/58:2[:cs]:r:g:b or :5:n colours.
func termSGRColonGroup(s *termStyle, group ansi.Params) {
	n := len(group)
	if n >= 8 {
		return
	}
	var v [8]int
	for k := range group {
		v[k] = termParam(group[k], -1)
	}
	switch v[0] {
	case 4:
		if n == 2 && v[1] >= 0 && v[1] <= int(termULDashed) {
			s.ul = uint8(v[1])
		}
	case 38, 48, 58:
		switch v[1] {
		case 2:
			i := 3
			if n == 5 {
				i = 2
			}
			if n >= 3 && n >= i+3 {
				termSetRGB(s, v[0], v[i], v[i+1], v[i+2])
			}
		case 5:
			if n >= 3 {
				termSet256(s, v[0], v[2])
			}
		}
	}
}

func termSetRGB(s *termStyle, which, r, g, b int) bool {
	if r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255 {
		return false
	}
	c := termRGB(r, g, b)
	switch which {
	case 38:
		s.fg = c
	case 48:
		s.bg = c
	default:
		s.ulColor = c
	}
	return true
}

func termSet256(s *termStyle, which, n int) {
	if n < 0 || n > 255 {
		switch which {
		case 38:
			s.fg = 0
		case 48:
			s.bg = 0
		}
		return
	}
	c := termColorIndexed | termColor(n)
	switch which {
	case 38:
		s.fg = c
	case 48:
		s.bg = c
	default:
		s.ulColor = c
	}
}

func termRGB(r, g, b int) termColor {
	return termColorRGB | termColor((r&0xff)<<16|(g&0xff)<<8|(b&0xff))
}

// termParam reads a parameter, clamped so absurd digit runs cannot overflow
// into negative counts.
func termParam(p ansi.Param, def int) int {
	v := int(p) & ansiparser.ParamMask
	if v == ansiparser.MissingParam {
		return def
	}
	if v > 65535 {
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
