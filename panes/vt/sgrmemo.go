// sgrmemo.go remembers what an SGR sequence does to the pen: the same few
// sequences ("ESC [ 1 m", "ESC [ 32 m", "ESC [ m") come after the same few
// pens on every line of a coloured log, and parsing, applying and
// interning each again was a fifth of the emulator's instructions
// (docs/performance.md §The emulator's hot path).
package vt

import "github.com/charmbracelet/x/ansi"

// sgrMemoSize is the memo's number of entries (a power of two); it is
// allocated with the first SGR, so a pane that never colours pays nothing.
const sgrMemoSize = 32

// sgrMaxLen is the longest parameter section remembered (it is packed into
// one word): "38;5;208" fits, a truecolor does not.
const sgrMaxLen = 8

// sgrMemo maps (pen before, the sequence's parameter bytes) to the pen
// after, both as style-table ids; the table's reset empties it (ids are
// renumbered).
type sgrMemo [sgrMemoSize]sgrEntry

type sgrEntry struct {
	sig      uint64 // the parameter bytes, packed (sgrSig)
	from, to uint32 // from+1 (0: empty), to
}

// sgrSig packs an SGR's parameter bytes (all in 0x30-0x3f, so a shorter
// section never packs like a longer one) into a word, true when it fits.
func sgrSig(b []byte) (uint64, bool) {
	if len(b) > sgrMaxLen {
		return 0, false
	}
	var sig uint64
	for _, c := range b {
		sig = sig<<8 | uint64(c)
	}
	// "" and "0" both reset the pen, but pack differently: fine, they
	// are two entries. The marker bit keeps "" apart from an empty slot.
	return sig | 1<<63, true
}

func (m *sgrMemo) slot(sig uint64, from uint32) int {
	h := (sig ^ uint64(from)*0x9e3779b97f4a7c15) * 0xc2b2ae3d27d4eb4f
	return int(h >> (64 - 5))
}

// memoSGR does a whole SGR sequence at the start of p (ESC [ already
// checked) that needs no parsing: a reset, or one the memo knows for the
// current pen. It returns the sequence's length, 0 to send it to the
// parser (fastCSI), which is also where the memo learns.
func (t *Terminal) memoSGR(p []byte) int {
	var sig uint64
	j := 2
	for ; j < len(p) && j <= 2+sgrMaxLen; j++ {
		c := p[j]
		if c < '0' || c > ';' { // digits, ':' and ';'
			break
		}
		sig = sig<<8 | uint64(c)
	}
	if j >= len(p) || p[j] != 'm' || j > 2+sgrMaxLen || len(t.styles.list) >= styleCompactAt {
		return 0
	}
	if j == 2 || j == 3 && p[2] == '0' {
		// The commonest SGR of all resets the pen whatever it was:
		// what handleCsi, then updatePen, would do.
		t.changed = true
		t.lastRune = 0
		t.pen, t.penDirty = cellStyle{}, false
		t.penID, t.penBgID = 0, 0
		return j + 1
	}
	m := t.styles.sgr
	if m == nil || t.penDirty {
		return 0
	}
	sig |= 1 << 63
	from := t.penID
	e := &m[m.slot(sig, from)]
	if e.sig != sig || e.from != from+1 {
		return 0
	}
	// What handleCsi and updatePen would do for it.
	t.changed = true
	t.lastRune = 0
	t.penID = e.to
	t.pen = t.styles.list[e.to]
	t.penBgID = t.styles.bg[e.to]
	return j + 1
}

// fastSGR does CSI params m, whose parameter bytes are b, with handleCsi,
// and remembers what it did to the pen when the pen was interned (not
// dirty) and the table is below its compaction point.
func (t *Terminal) fastSGR(b []byte, cmd ansi.Cmd, params ansi.Params) {
	sig, ok := sgrSig(b)
	if !ok || t.penDirty || len(t.styles.list) >= styleCompactAt {
		t.handleCsi(cmd, params)
		return
	}
	m := t.styles.sgr
	if m == nil {
		m = new(sgrMemo)
		t.styles.sgr = m
	}
	from := t.penID
	t.handleCsi(cmd, params)
	if !t.penDirty {
		return // ignored (a parameter out of range): nothing to remember
	}
	t.updatePen()
	if len(t.styles.list) >= styleCompactAt || t.styles.sgr != m {
		return // the table may be compacted at the next change: ids move
	}
	m[m.slot(sig, from)] = sgrEntry{sig, from + 1, t.penID}
}
