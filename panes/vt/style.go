// style.go holds cell styles: the cellStyle value (colours and
// attributes), the per-Terminal style table that cells index into (so a cell is
// 8 bytes), the table of grapheme clusters for cells holding more than one
// rune, SGR parsing, and the minimal SGR diff used when rendering.
package vt

import (
	"slices"
	"strconv"

	"github.com/charmbracelet/x/ansi"
	ansiparser "github.com/charmbracelet/x/ansi/parser"
)

// color: 0 is the default colour; colorIndexed|n is palette entry n
// (0-255); colorRGB|0xRRGGBB is a truecolor.
type color uint32

const (
	colorIndexed color = 1 << 24
	colorRGB     color = 2 << 24
	colorKind    color = 0xff << 24
)

// Attribute bits of cellStyle.attrs.
const (
	attrBold uint16 = 1 << iota
	attrFaint
	attrItalic
	attrBlink
	attrRapidBlink
	attrReverse
	attrHidden
	attrStrike
	attrOverline
)

// Underline styles (cellStyle.ul), as in SGR 4:n.
const (
	uLNone uint8 = iota
	uLSingle
	uLDouble
	uLCurly
	uLDotted
	uLDashed
)

type cellStyle struct {
	fg, bg, ulColor color
	attrs           uint16
	ul              uint8
}

// styleTable interns styles; index 0 is always the default style. enc
// holds each style's scrollback encoding (appendStyle), made once when the
// style is interned rather than for every run of every line scrolled off.
//
// The index is an open-addressed hash table of its own (slots hold id+1, 0
// is empty) rather than a map: an SGR change re-interns the pen, and with
// the many 256-colour and truecolor pens of a coloured log the map's
// generic hashing of the 16-byte key was on top of the profile.
type styleTable struct {
	list  []cellStyle
	enc   []styleEnc
	bg    []uint32 // the id of each style's background-only style, or noStyle before first asked
	slots []uint32
	sgr   *sgrMemo // what SGR sequences do to the pen (sgrmemo.go), nil until one is seen
}

// noStyle marks a bg entry not computed yet.
const noStyle = ^uint32(0)

// styleEnc is a style's scrollback encoding: at most a mask byte, two of
// attributes, one of underline style and three colours of three bytes,
// in b[:b[styleEncLen]]. It is 16 bytes so encodeLine copies it whole in
// two moves and keeps its length.
type styleEnc struct {
	b [16]byte
}

// styleEncLen is where a styleEnc keeps its length.
const styleEncLen = 15

func encodeStyle(s cellStyle) styleEnc {
	var e styleEnc
	e.b[styleEncLen] = uint8(len(appendStyle(e.b[:0:styleEncLen], s)))
	return e
}

func (st *styleTable) init() { st.reset() }

func (st *styleTable) reset() {
	st.list = append(st.list[:0], cellStyle{})
	st.enc = append(st.enc[:0], encodeStyle(cellStyle{}))
	st.bg = append(st.bg[:0], 0)
	st.sgr = nil // its ids are about to be renumbered
	if len(st.slots) != 16 {
		st.slots = make([]uint32, 16)
	} else {
		clear(st.slots)
	}
	st.place(0)
}

// clone is an independent copy of the table.
func (st *styleTable) clone() styleTable {
	return styleTable{
		list:  slices.Clone(st.list),
		enc:   slices.Clone(st.enc),
		bg:    slices.Clone(st.bg),
		slots: slices.Clone(st.slots),
	}
}

// hash mixes every field of a style; the low bits pick the slot. It
// reads the fields through a pointer: a copy of the struct made from its
// fields and read back whole stalls on store forwarding.
func (s *cellStyle) hash() uint64 {
	h := (uint64(s.fg) | uint64(s.bg)<<32) * 0x9e3779b97f4a7c15
	h ^= uint64(s.ulColor) | uint64(s.attrs)<<32 | uint64(s.ul)<<48
	h *= 0xc2b2ae3d27d4eb4f
	return h ^ h>>31
}

// lookup finds the id of style s.
func (st *styleTable) lookup(s *cellStyle) (uint32, bool) {
	mask := uint64(len(st.slots) - 1)
	for i := s.hash() & mask; ; i = (i + 1) & mask {
		v := st.slots[i]
		if v == 0 {
			return 0, false
		}
		if st.list[v-1] == *s {
			return v - 1, true
		}
	}
}

// place puts id into the first free slot of its probe sequence.
func (st *styleTable) place(id uint32) {
	mask := uint64(len(st.slots) - 1)
	for i := st.list[id].hash() & mask; ; i = (i + 1) & mask {
		if st.slots[i] == 0 {
			st.slots[i] = id + 1
			return
		}
	}
}

func (st *styleTable) intern(s cellStyle) uint32 {
	if id, ok := st.lookup(&s); ok {
		return id
	}
	id := uint32(len(st.list))
	st.list = append(st.list, s)
	st.enc = append(st.enc, encodeStyle(s))
	st.bg = append(st.bg, noStyle)
	if 2*len(st.list) > len(st.slots) {
		st.slots = make([]uint32, 2*len(st.slots))
		for k := range st.list {
			st.place(uint32(k))
		}
	} else {
		st.place(id)
	}
	return id
}

// bgOf is the id of style id's background alone: the style erased cells
// take.
func (st *styleTable) bgOf(id uint32) uint32 {
	if b := st.bg[id]; b != noStyle {
		return b
	}
	b := st.intern(cellStyle{bg: st.list[id].bg})
	st.bg[id] = b
	return b
}

// styleCompactAt: past this many styles the table is rebuilt from the
// cells on screen (scrollback keeps its styles inline), so truecolor
// gradients cannot grow it without bound.
const styleCompactAt = 8192

// clusterBase: a cell rune at or above it is an index into the cluster
// table (a base character followed by combining marks).
const clusterBase rune = 0x200000

// wideCont marks the right half of a wide character.
const wideCont rune = -1

type clusterTable struct {
	list  []string
	index map[string]rune
}

func (ct *clusterTable) reset() {
	ct.list = ct.list[:0]
	ct.index = nil
}

func (ct *clusterTable) intern(s string) rune {
	if ct.index == nil {
		ct.index = make(map[string]rune)
	}
	if r, ok := ct.index[s]; ok {
		return r
	}
	r := clusterBase + rune(len(ct.list))
	ct.list = append(ct.list, s)
	ct.index[s] = r
	return r
}

// text returns the characters a cell rune stands for.
func (ct *clusterTable) text(r rune) string {
	if r >= clusterBase {
		i := int(r - clusterBase)
		if i < len(ct.list) {
			return ct.list[i]
		}
		return " "
	}
	return string(r)
}

// updatePen re-interns the pen after an SGR change.
func (t *Terminal) updatePen() {
	if !t.penDirty {
		return
	}
	t.penDirty = false
	if len(t.styles.list) >= styleCompactAt {
		t.compactTables()
	}
	if t.pen == (cellStyle{}) { // SGR 0, the commonest change of all
		t.penID, t.penBgID = 0, 0
		return
	}
	t.penID = t.styles.intern(t.pen)
	t.penBgID = t.styles.bgOf(t.penID)
}

// compactTables rebuilds the style and cluster tables from the cells of both
// screens, renumbering every cell.
func (t *Terminal) compactTables() {
	oldStyles := t.styles.list
	oldClusters := t.clusters.list
	t.styles.list = nil
	t.styles.reset()
	t.clusters.list = nil
	t.clusters.reset()
	for _, s := range []*screenGrid{t.main, t.alt} {
		if s == nil {
			continue
		}
		for li := range s.lines {
			if s.lines[li].shared() {
				continue // blank: nothing to renumber, and not ours to write
			}
			cells := s.lines[li].cells
			for ci := range cells {
				c := &cells[ci]
				if int(c.s) < len(oldStyles) {
					c.s = t.styles.intern(oldStyles[c.s])
				} else {
					c.s = 0
				}
				if c.r >= clusterBase {
					i := int(c.r - clusterBase)
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
	t.penBgID = t.styles.bgOf(t.penID)
}

// setSGR applies CSI ... m with tmux's rules (input_csi_dispatch_sgr): a
// colon group is one unit, and one it does not understand is skipped; in
// the semicolon form 38/48/58 take their arguments from the following
// parameters, an out-of-range 256-colour index means the default colour,
// and an out-of-range truecolor leaves its numbers to be read as SGR codes.
func (t *Terminal) setSGR(params ansi.Params) {
	t.penDirty = true
	if len(params) == 0 {
		t.pen = cellStyle{}
		return
	}
	s := &t.pen
	for i := 0; i < len(params); i++ {
		if params[i].HasMore() {
			j := i
			for j+1 < len(params) && params[j].HasMore() {
				j++
			}
			sGRColonGroup(s, params[i:j+1])
			i = j
			continue
		}
		p := param(params[i], 0)
		switch {
		case p == 38, p == 48, p == 58:
			i++
			switch sGRArg(params, i) {
			case 2:
				r, g, b := sGRArg(params, i+1), sGRArg(params, i+2), sGRArg(params, i+3)
				if setRGB(s, p, r, g, b) {
					i += 3
				}
			case 5:
				set256(s, p, sGRArg(params, i+1))
				i++
			}
		default:
			sGRCode(s, p)
		}
	}
}

// sGRArg is parameter i for an SGR argument, -1 when absent.
func sGRArg(params ansi.Params, i int) int {
	if i >= len(params) {
		return -1
	}
	return param(params[i], -1)
}

func sGRCode(s *cellStyle, p int) {
	switch {
	case p == 0:
		*s = cellStyle{}
	case p == 1:
		s.attrs |= attrBold
	case p == 2:
		s.attrs |= attrFaint
	case p == 3:
		s.attrs |= attrItalic
	case p == 4:
		s.ul = uLSingle
	case p == 5, p == 6:
		s.attrs |= attrBlink
	case p == 7:
		s.attrs |= attrReverse
	case p == 8:
		s.attrs |= attrHidden
	case p == 9:
		s.attrs |= attrStrike
	case p == 21:
		s.ul = uLDouble
	case p == 22:
		s.attrs &^= attrBold | attrFaint
	case p == 23:
		s.attrs &^= attrItalic
	case p == 24:
		s.ul = uLNone
	case p == 25:
		s.attrs &^= attrBlink | attrRapidBlink
	case p == 27:
		s.attrs &^= attrReverse
	case p == 28:
		s.attrs &^= attrHidden
	case p == 29:
		s.attrs &^= attrStrike
	case p >= 30 && p <= 37:
		s.fg = colorIndexed | color(p-30)
	case p == 39:
		s.fg = 0
	case p >= 40 && p <= 47:
		s.bg = colorIndexed | color(p-40)
	case p == 49:
		s.bg = 0
	case p == 53:
		s.attrs |= attrOverline
	case p == 55:
		s.attrs &^= attrOverline
	case p == 59:
		s.ulColor = 0
	case p >= 90 && p <= 97:
		s.fg = colorIndexed | color(p-90+8)
	case p >= 100 && p <= 107:
		s.bg = colorIndexed | color(p-100+8)
	}
}

// sGRColonGroup applies one colon-separated group: 4:n underline
// styles and 38/48/58:2[:cs]:r:g:b or :5:n colours.
func sGRColonGroup(s *cellStyle, group ansi.Params) {
	n := len(group)
	if n >= 8 {
		return
	}
	var v [8]int
	for k := range group {
		v[k] = param(group[k], -1)
	}
	switch v[0] {
	case 4:
		if n == 2 && v[1] >= 0 && v[1] <= int(uLDashed) {
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
				setRGB(s, v[0], v[i], v[i+1], v[i+2])
			}
		case 5:
			if n >= 3 {
				set256(s, v[0], v[2])
			}
		}
	}
}

func setRGB(s *cellStyle, which, r, g, b int) bool {
	if r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255 {
		return false
	}
	setColor(s, which, rGB(r, g, b))
	return true
}

// set256 sets a palette colour; an index out of range is the default
// colour, except for the underline colour, which it leaves as it was.
func set256(s *cellStyle, which, n int) {
	if n < 0 || n > 255 {
		if which != 58 {
			setColor(s, which, 0)
		}
		return
	}
	setColor(s, which, colorIndexed|color(n))
}

// setColor sets the colour SGR code which (38, 48 or 58) introduces.
func setColor(s *cellStyle, which int, c color) {
	switch which {
	case 38:
		s.fg = c
	case 48:
		s.bg = c
	default:
		s.ulColor = c
	}
}

func rGB(r, g, b int) color {
	return colorRGB | color((r&0xff)<<16|(g&0xff)<<8|(b&0xff))
}

// param reads a parameter, clamped so absurd digit runs cannot overflow
// into negative counts.
func param(p ansi.Param, def int) int {
	v := int(p) & ansiparser.ParamMask
	if v == ansiparser.MissingParam {
		return def
	}
	if v > 65535 {
		return 65535
	}
	return v
}

// appendSGR appends the shortest SGR sequence that turns style from
// into style to. It returns buf unchanged when they are equal.
func appendSGR(buf []byte, from, to cellStyle) []byte {
	if from == to {
		return buf
	}
	if to == (cellStyle{}) {
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
		if bitCount(removed)+b2i(from.ul != 0 && to.ul == 0) > 1 {
			buf = append(buf, '0')
			from = cellStyle{}
		} else {
			switch {
			case removed&(attrBold|attrFaint) != 0:
				buf = append(buf, "22"...)
				from.attrs &^= attrBold | attrFaint
			case removed&attrItalic != 0:
				buf = append(buf, "23"...)
			case removed&(attrBlink|attrRapidBlink) != 0:
				buf = append(buf, "25"...)
				from.attrs &^= attrBlink | attrRapidBlink
			case removed&attrReverse != 0:
				buf = append(buf, "27"...)
			case removed&attrHidden != 0:
				buf = append(buf, "28"...)
			case removed&attrStrike != 0:
				buf = append(buf, "29"...)
			case removed&attrOverline != 0:
				buf = append(buf, "55"...)
			default:
				buf = append(buf, "24"...)
				from.ul = 0
			}
			from.attrs &^= removed
		}
	}
	added := to.attrs &^ from.attrs
	for _, a := range attrCodes {
		if added&a.bit != 0 {
			sep()
			buf = append(buf, a.code...)
		}
	}
	if to.ul != from.ul {
		sep()
		switch to.ul {
		case uLNone:
			buf = append(buf, "24"...)
		case uLSingle:
			buf = append(buf, '4')
		case uLDouble:
			buf = append(buf, "4:2"...)
		default:
			buf = append(buf, "4:"...)
			buf = strconv.AppendInt(buf, int64(to.ul), 10)
		}
	}
	if to.fg != from.fg {
		sep()
		buf = appendColor(buf, to.fg, 30, 90, "38", "39")
	}
	if to.bg != from.bg {
		sep()
		buf = appendColor(buf, to.bg, 40, 100, "48", "49")
	}
	if to.ulColor != from.ulColor {
		sep()
		if to.ulColor == 0 {
			buf = append(buf, "59"...)
		} else {
			buf = appendColor(buf, to.ulColor, -1, -1, "58", "59")
		}
	}
	return append(buf, 'm')
}

var attrCodes = []struct {
	bit  uint16
	code string
}{
	{attrBold, "1"}, {attrFaint, "2"}, {attrItalic, "3"},
	{attrBlink, "5"}, {attrRapidBlink, "6"}, {attrReverse, "7"},
	{attrHidden, "8"}, {attrStrike, "9"}, {attrOverline, "53"},
}

func appendColor(buf []byte, c color, base, brightBase int, ext, def string) []byte {
	switch c & colorKind {
	case 0:
		return append(buf, def...)
	case colorIndexed:
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

func bitCount(v uint16) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
