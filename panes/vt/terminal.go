// terminal.go holds Terminal, the terminal emulator behind every pty pane: the public
// API, locking, and the byte loop that feeds x/ansi's DEC parser.
//
// Data model: a Terminal owns two screens (main and, while it is up, alternate),
// each a slice of rows of compact cells (rune + index into the Terminal's style
// table), a cursor with tmux-style pending wrap (x == cols means "the next
// printable wraps first"), the modes the UI reads, and a scrollback ring of
// lines encoded compactly (scrollRing). One goroutine writes; any number
// read under an RWMutex. Callbacks (bell, title) fire after the lock is
// released so they may call back into the Terminal; replies go through a queue
// drained by their own goroutine so Write never blocks on the child.
//
// A pane feeds its own Terminal (panes makes it, with the run's Activity):
// the UI only reads it — its cells, modes and generation, and Bells, the
// BELs counted as they are fed — and is woken through the Activity after
// each Write, so no UI code sits between the child's output and its screen.
package vt

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	ansiparser "github.com/charmbracelet/x/ansi/parser"
)

// Screen is where a process surface copies a child's output for display and
// which it resizes with the pty: the pane's own Terminal, or a sink a test
// puts in its place. It must be safe for use by two goroutines: the
// surface's feeder writes, and a UI may read it to draw.
type Screen interface {
	Write([]byte) (int, error)
	Resize(cols, rows int)
}

// Options configures a Terminal.
type Options struct {
	Scrollback int          // lines kept; 0 means 10000
	OnBell     func()       // called on BEL (from the writer goroutine; must not block long)
	OnTitle    func(string) // OSC 0/2
	// OnNotify is called with each desktop notification the child asks
	// for (OSC 9, OSC 777 notify, OSC 99), OnAgentState with each state
	// it reports of itself (OSC 7501); both after Write releases the lock.
	OnNotify     func(Notification)
	OnAgentState func(AgentState)
	OnReply      func([]byte) // DSR/CPR/DA1/DA2 replies to send back to the child; never blocks Write
	// Colors answers the child's OSC 10/11/12/4 colour queries; nil means
	// the Activity's, else the defaults (DefaultForeground,
	// DefaultBackground).
	Colors *Colors
	// Activity is the run this terminal belongs to (activity.go): each
	// Write wakes the UIs listening to it. nil: nobody is woken.
	Activity *Activity
}

// Modes is the mode state the UI needs to forward keys and mouse events.
type Modes struct {
	AppCursor, AppKeypad, BracketedPaste, AltScreen, AutoWrap, SyncOutput bool
	FocusEvents                                                           bool // 1004: send CSI I / CSI O
	Mouse                                                                 int  // 0 off, 1000, 1002 or 1003
	MouseSGR                                                              bool // 1006
	ModifyOtherKeys                                                       int  // xterm's CSI > 4 ; n m: 0, 1 or 2
	KittyKeyboard                                                         int  // flags pushed with CSI > n u (0 = off)
	Title                                                                 string
}

const defaultScrollback = 10000

// savedCursor is what DECSC saves and DECRC restores.
type savedCursor struct {
	x, y     int
	pen      cellStyle
	origin   bool
	charsets [2]bool // G0/G1 is DEC special graphics
	shift    int
	valid    bool
}

// screenGrid is one grid of rows.
//
// lines may be a window into arr, whose spare room past the window lets a
// scroll of the whole screen move the window by n rows instead of moving
// every row header (O(n), not O(rows) per line): when the room runs out the
// window is copied to the start of other, and the two swap. Code that
// replaces lines with a new slice needs to do nothing else: the next
// whole-screen scroll sees lines is not a window into arr and starts over.
type screenGrid struct {
	lines      []gridLine
	arr, other []gridLine
}

// scrollWindow drops the top n rows of lines (the caller reuses their
// cells) and extends lines by n rows at the bottom, whose headers the
// caller must then set.
func (s *screenGrid) scrollWindow(n int) {
	rows := len(s.lines)
	if len(s.arr) != 2*rows || cap(s.lines) == 0 || &s.lines[:cap(s.lines)][cap(s.lines)-1] != &s.arr[len(s.arr)-1] {
		s.arr = make([]gridLine, 2*rows)
		s.other = make([]gridLine, 2*rows)
		copy(s.arr, s.lines)
		s.lines = s.arr[:rows]
	}
	if cap(s.lines) < rows+n {
		copy(s.other, s.lines)
		clear(s.arr) // the rows now live in other
		s.arr, s.other = s.other, s.arr
		s.lines = s.arr[:rows]
	}
	s.lines = s.lines[n : rows+n]
}

// gridLine is one row of cells; wrapped means the text continues on the next
// row (a soft wrap), which Text joins are not affected by but reflow uses.
//
// used is one past the last cell ever written since the row was last
// blanked whole (tmux's cellused): a full clear of the screen moves rows
// down to the last used one into scrollback.
type gridLine struct {
	cells   []gridCell
	used    int
	wrapped bool
}

// Terminal is a terminal emulator fed with a child's output.
type Terminal struct {
	mu    sync.RWMutex
	gen   atomic.Uint64
	bells atomic.Int64 // BELs fed so far (Bells)
	opts  Options

	parser *ansi.Parser

	cols, rows int
	mainCols   int // width of the main screen's rows (lags behind cols while the alternate screen is up)
	main, alt  *screenGrid
	scr        *screenGrid // active screen
	sb         scrollRing
	// sbScrolled counts the newest scrollback lines that scrolled there
	// (rather than being pushed by a clear): growing the pane pulls only
	// those back, as tmux's hscrolled.
	sbScrolled int
	// reflowScrolled is sbScrolled while a reflow adjusts it.
	reflowScrolled int

	x, y          int // cursor; x == cols is the pending-wrap column
	top, bot      int // scroll region, inclusive
	pen           cellStyle
	penID         uint32 // style-table index of pen
	penBgID       uint32 // style-table index of pen's background only (erase)
	penDirty      bool
	deletingLines bool // scrollUpLines is doing DL (beside penDirty: no padding of its own)
	styles        styleTable
	clusters      clusterTable
	lastRune      rune   // for REP
	utf8Pend      []byte // an incomplete UTF-8 sequence at the end of a Write
	osc           []byte // the OSC string being collected (feedOSC)
	oscBEL        bool   // it ended with BEL: a reply ends the same way
	dcsEsc        bool   // skipDCS saw ESC: '\\' ends the string
	csiIgnore     bool   // inside a malformed control sequence, up to its final byte
	csiDigits     uint8  // significant digits of the parameter x/ansi is collecting
	csiLong       bool   // one of its parameters had too many for x/ansi's int (voided)
	tabs          []bool
	charsets      [2]bool
	shift         int // 0 = G0, 1 = G1
	kittyStack    []int
	saved         savedCursor // DECSC
	altSavedMain  savedCursor // 1049 cursor save
	altSavedPen   cellStyle   // the pen when the alternate screen came up
	changed       bool
	pendingBells  int
	pendingTitles []string
	pendingNotes  []Notification
	pendingStates []AgentState
	kittyNotes    []*kittyNote // OSC 99 chunks being collected (notify.go)

	origin, autoWrap, cursorVisible, insert bool
	appCursor, appKeypad, bracketedPaste    bool
	syncOutput, mouseSGR, focusEvents       bool
	mouse, modifyOtherKeys                  int
	title                                   string

	replies replyQueue

	csiParams [ansiparser.MaxParamsSize]ansi.Param

	// Scratch buffers reused by every scroll, so steady output does not
	// allocate beyond the scrollback line itself.
	scratchLines []gridLine
	encText      []byte
	encHdr       []byte
	encRuns      []encRun
}

// maxCols is the widest a Terminal gets.
const maxCols = 4096

// New returns an empty terminal of the given size.
func New(cols, rows int, opts Options) *Terminal {
	cols, rows = clampSize(cols, rows)
	if opts.Scrollback <= 0 {
		opts.Scrollback = defaultScrollback
	}
	if opts.Colors == nil && opts.Activity != nil {
		opts.Colors = opts.Activity.Colors
	}
	if opts.Colors == nil {
		opts.Colors = defaultColors
	}
	t := &Terminal{opts: opts, cols: cols, rows: rows}
	t.sb.max = opts.Scrollback
	t.styles.init()
	t.replies.onReply = opts.OnReply
	// Made as ansi.NewParser makes it, but for its 64 KB data buffer, made
	// and dropped at once: a run's start made 37 % of its garbage there,
	// enough for a collection whose bookkeeping stayed resident
	// (docs/performance.md §Memory of a quiet pane). OSC and DCS strings
	// never reach the parser (feedOSC, skipDCS); the SOS, PM and APC
	// strings it collects are dropped unread, so its buffer holds one byte
	// (the rest is dropped, the parse goes on): a bounded buffer keeps a 1
	// MB string from growing memory, and a 4 KiB one was half of an empty
	// pane's heap.
	t.parser = new(ansi.Parser)
	t.parser.SetParamsSize(ansiparser.MaxParamsSize)
	t.parser.SetDataSize(1)
	t.parser.SetHandler(ansi.Handler{
		Print:     t.handlePrint,
		Execute:   t.handleExecute,
		HandleCsi: t.handleCsi,
		HandleEsc: t.handleEsc,
		// Other strings are dropped; they still end a REP run, as in tmux.
		HandleApc: func([]byte) { t.lastRune = 0 },
		HandlePm:  func([]byte) { t.lastRune = 0 },
		HandleSos: func([]byte) { t.lastRune = 0 },
	})
	t.resetState()
	return t
}

func clampSize(cols, rows int) (int, int) {
	if cols < 1 {
		cols = 1
	}
	if rows < 1 {
		rows = 1
	}
	if cols > maxCols {
		cols = maxCols
	}
	if rows > 4096 {
		rows = 4096
	}
	return cols, rows
}

// resetState is RIS: everything but the scrollback back to power-on.
func (t *Terminal) resetState() {
	t.main = t.newScreen()
	t.mainCols = t.cols
	t.alt = nil
	t.scr = t.main
	t.x, t.y = 0, 0
	t.top, t.bot = 0, t.rows-1
	t.pen = cellStyle{}
	t.penDirty = true
	t.styles.reset()
	t.clusters.reset()
	t.updatePen()
	t.resetTabs()
	t.charsets = [2]bool{}
	t.shift = 0
	t.kittyStack = t.kittyStack[:0]
	t.kittyNotes = nil // a reset forgets unfinished notifications (notify.go)
	t.origin, t.insert = false, false
	t.autoWrap, t.cursorVisible = true, true
	t.appCursor, t.appKeypad, t.bracketedPaste = false, false, false
	t.syncOutput, t.mouseSGR, t.focusEvents = false, false, false
	t.mouse, t.modifyOtherKeys = 0, 0
	t.lastRune = 0
	t.saved = savedCursor{}
	t.altSavedMain = savedCursor{}
	t.altSavedPen = cellStyle{}
	t.changed = true
}

func (t *Terminal) newScreen() *screenGrid {
	s := &screenGrid{lines: make([]gridLine, t.rows)}
	for i := range s.lines {
		s.lines[i].cells = blankCellsOf(t.cols)
	}
	return s
}

func (t *Terminal) resetTabs() {
	t.tabs = make([]bool, t.cols)
	for i := 8; i < t.cols; i += 8 {
		t.tabs[i] = true
	}
}

// Write feeds the child's output into the emulator. It never blocks on
// replies and never fails.
func (t *Terminal) Write(p []byte) (n int, err error) {
	// The lock is taken per slice, not per Write: a chunk of full-screen
	// operations (a run of DECALN or ED 2, each a few bytes that touch
	// every cell) would otherwise keep every reader, the UI's frame
	// included, waiting for the whole chunk.
	for len(p) > writeSlice {
		t.mu.Lock()
		t.feed(p[:writeSlice])
		changed := t.changed
		t.changed = false
		t.mu.Unlock()
		if changed {
			t.gen.Add(1)
		}
		p = p[writeSlice:]
		n += writeSlice
	}
	t.mu.Lock()
	t.feed(p)
	changed := t.changed
	t.changed = false
	bells := t.pendingBells
	t.pendingBells = 0
	var titles []string
	if len(t.pendingTitles) > 0 {
		titles = t.pendingTitles
		t.pendingTitles = nil
	}
	notes, states := t.pendingNotes, t.pendingStates
	t.pendingNotes, t.pendingStates = nil, nil
	t.mu.Unlock()
	if changed {
		t.gen.Add(1)
	}
	if bells > 0 {
		t.bells.Add(int64(bells))
	}
	if t.opts.OnBell != nil {
		for range bells {
			t.opts.OnBell()
		}
	}
	if t.opts.OnTitle != nil {
		for _, s := range titles {
			t.opts.OnTitle(s)
		}
	}
	if t.opts.OnNotify != nil {
		for _, note := range notes {
			t.opts.OnNotify(note)
		}
	}
	if t.opts.OnAgentState != nil {
		for _, s := range states {
			t.opts.OnAgentState(s)
		}
	}
	if t.opts.Activity != nil {
		t.opts.Activity.poke()
	}
	return n + len(p), nil
}

// Bells counts the BEL characters the child has written (a UI marks the
// pane as wanting attention when it grows).
func (t *Terminal) Bells() int64 { return t.bells.Load() }

// writeSlice bounds the input fed under one hold of the lock: 1 KiB of the
// costliest controls (DECALN on 200×60) takes about 5 ms on an idle core.
const writeSlice = 1024

// feed is the byte loop. In the ground state runs of printable ASCII and
// whole UTF-8 characters bypass the parser (it would call back once per
// byte); everything else goes through x/ansi's state machine.
func (t *Terminal) feed(p []byte) {
	i := 0
	if len(t.utf8Pend) > 0 {
		i = t.finishPendingUTF8(p)
	}
	for i < len(p) {
		b := p[i]
		if t.parser.State() != ansiparser.GroundState || t.csiIgnore {
			i += t.feedSequence(p[i:])
			continue
		}
		switch {
		case b >= 0x20 && b < 0x7f:
			j := i + printableLen(p[i:])
			t.printASCII(p[i:j])
			i = j
			continue
		case b >= 0x80:
			i += t.feedHighByte(p[i:])
			continue
		case b == '\r' || b == '\n' || b == '\t' || b == '\b':
			// The parser would only call Execute for these, one callback
			// chain per byte; every line ends with two.
			t.handleExecute(b)
			i++
			continue
		case b == 0x1b:
			t.csiDigits, t.csiLong = 0, false
			if n := t.fastCSI(p[i:]); n > 0 {
				i += n
				continue
			}
		}
		t.parser.Advance(b)
		i++
	}
}

// printableLen is the length of the run of printable ASCII (0x20-0x7e)
// that p starts with, found eight bytes at a time: in each lane of a word,
// a byte below 0x20 borrows out of b-0x20, one of 0x80 or more has its top
// bit, and 0x7f carries into it in b+1; lanes below the first bad byte
// neither borrow nor carry, so the lowest top bit set is that byte's.
func printableLen(p []byte) int {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	n := 0
	for ; len(p)-n >= 8; n += 8 {
		w := binary.LittleEndian.Uint64(p[n:])
		if bad := ((w - 0x20*ones) | w | (w + ones)) & tops; bad != 0 {
			return n + bits.TrailingZeros64(bad)/8
		}
	}
	for n < len(p) && p[n] >= 0x20 && p[n] < 0x7f {
		n++
	}
	return n
}

// feedSequence feeds bytes inside an escape sequence, control sequence or
// string, and returns how many of p it took. It hands x/ansi only what its
// table reads as tmux does, and does the rest itself:
//   - In UTF-8 mode no byte >= 0x80 is a C1 control: inside an SOS, PM or
//     APC string it is data (which Terminal drops), inside a sequence it is
//     ignored. x/ansi would end a string at 0x9C (a UTF-8 continuation
//     byte: the "✳" of claude's title) and leave a sequence at 0x80-0x9F.
//   - OSC strings are collected here (feedOSC), DCS strings skipped
//     (skipDCS): x/ansi ends those at the 0x9C of a "✳" or "“".
//   - A C0 control inside an escape or control sequence is executed
//     without telling the parser, which would overwrite the sequence's
//     prefix and intermediate with it ("ESC [ BEL D" became CHA).
//   - A parameter byte after an intermediate, or a private marker after a
//     parameter, makes tmux ignore the sequence up to its final byte;
//     x/ansi would dispatch it, or print its tail.
func (t *Terminal) feedSequence(p []byte) int {
	b := p[0]
	st := t.parser.State()
	switch {
	case st == ansiparser.OscStringState:
		return t.feedOSC(p)
	case st == ansiparser.DcsStringState:
		return t.skipDCS(p)
	case st == ansiparser.DcsEntryState && (b == 0x1b || b >= 0x08 && b <= 0x0d):
		// x/ansi takes these for the start of the DCS string; tmux
		// ignores the control and lets ESC begin a new sequence.
		if b == 0x1b {
			t.parser.Reset()
			t.parser.Advance(b)
		}
		return 1
	case b == 0x18 || b == 0x1a || b == 0x1b:
		// Anywhere: CAN and SUB end the sequence, ESC begins another.
		t.csiIgnore = false
		t.csiDigits, t.csiLong = 0, false
	case t.csiIgnore:
		switch {
		case b < 0x20:
			t.handleExecute(b)
		case b >= 0x40 && b <= 0x7e:
			t.csiIgnore = false
			t.lastRune = 0
		}
		return 1
	case b >= 0x80:
		return 1
	case b < 0x20 && (st >= ansiparser.CsiEntryState && st <= ansiparser.CsiParamState ||
		st == ansiparser.EscapeState || st == ansiparser.EscapeIntermediateState):
		t.handleExecute(b)
		return 1
	case st == ansiparser.CsiParamState && b >= 0x3c && b <= 0x3f,
		st == ansiparser.CsiIntermediateState && b >= 0x30 && b <= 0x3f:
		t.parser.Reset()
		t.csiIgnore = true
		return 1
	case st == ansiparser.CsiEntryState || st == ansiparser.CsiParamState:
		t.countCSIDigit(b)
	}
	t.parser.Advance(b)
	return 1
}

// countCSIDigit follows the digits of the parameter x/ansi collects, which
// it keeps in an int that wraps and masks to 31 bits: a parameter of ten
// significant digits or more could come out at or under maxParam and be
// done, where fastCSI, which stops counting past maxParam, voids the
// sequence. Marked csiLong, handleCsi voids it too, so a sequence does the
// same whether it came in one write or split across two.
func (t *Terminal) countCSIDigit(b byte) {
	switch {
	case b == ';' || b == ':':
		t.csiDigits = 0
	case b >= '1' && b <= '9', b == '0' && t.csiDigits > 0:
		if t.csiDigits++; t.csiDigits >= 10 {
			t.csiLong = true
		}
	}
}

// maxOSC bounds an OSC string: titles and hyperlinks are short, and a 1 MB
// string must not grow memory (its tail is dropped, the parse goes on).
const maxOSC = 4096

// feedOSC collects an OSC string itself, the way tmux does in UTF-8 mode:
// every byte from 0x20 up is data (0x9C included), other C0 controls are
// ignored, and BEL, CAN, SUB or ESC end it (ESC also begins the next
// sequence, so ESC \ is ST). It returns how many bytes of p it took.
func (t *Terminal) feedOSC(p []byte) int {
	for i, b := range p {
		switch {
		case b == 0x07 || b == 0x18 || b == 0x1a || b == 0x1b:
			t.oscBEL = b == 0x07
			t.dispatchOSC()
			t.parser.Reset()
			if b == 0x1b {
				t.parser.Advance(b)
			}
			return i + 1
		case b < 0x20:
		case len(t.osc) < maxOSC:
			t.osc = append(t.osc, b)
		}
	}
	return len(p)
}

// skipDCS drops a DCS string the way tmux reads one: only ESC \\ ends it;
// CAN, SUB and ESC followed by anything else are data (tmux passes a DCS
// through whole). Terminal answers no DCS request, as tmux 3.3a answers
// none. It returns how many bytes of p it took.
func (t *Terminal) skipDCS(p []byte) int {
	for i, b := range p {
		if t.dcsEsc {
			t.dcsEsc = false
			if b == '\\' {
				t.parser.Reset()
				t.lastRune = 0
				return i + 1
			}
			continue
		}
		t.dcsEsc = b == 0x1b
	}
	return len(p)
}

// dispatchOSC hands the collected string to handleOsc with its number, the
// leading digits before ";" (-1 when there are none), as x/ansi would.
func (t *Terminal) dispatchOSC() {
	cmd, i := -1, 0
	for ; i < len(t.osc) && t.osc[i] >= '0' && t.osc[i] <= '9' && i < 9; i++ {
		cmd = max(cmd, 0)*10 + int(t.osc[i]-'0')
	}
	t.handleOsc(cmd, t.osc)
	t.osc = t.osc[:0]
}

// maxParam: a sequence with a larger parameter is ignored whole, as
// tmux ignores one whose parameter does not parse as an int.
const maxParam = 65535

// fastCSI parses a whole, well-formed CSI sequence at the start of p
// (ESC [ prefix? params intermediates? final) and dispatches it, returning
// its length; 0 sends the caller to the parser (a split sequence, a control
// inside it, anything unusual). Logs carry an SGR every few words, and the
// parser's per-byte callbacks dominated their profile. Parameters are
// packed exactly as x/ansi's parser packs them.
func (t *Terminal) fastCSI(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	if n := t.memoSGR(p); n > 0 {
		return n
	}
	j := 2
	var prefix, inter byte
	if c := p[j]; c >= '<' && c <= '?' {
		prefix = c
		j++
	}
	params := t.csiParams[:0]
	cur, have := 0, false
	for ; j < len(p); j++ {
		c := p[j]
		switch {
		case c >= '0' && c <= '9':
			if cur <= maxParam {
				cur = cur*10 + int(c-'0')
			}
			have = true
			continue
		case c == ';' || c == ':':
			v := ansi.Param(ansiparser.MissingParam)
			if have {
				v = ansi.Param(cur)
			}
			if c == ':' {
				v |= ansiparser.HasMoreFlag
			}
			if len(params) < cap(params) {
				params = append(params, v)
			}
			cur, have = 0, false
			// The parser records a parameter after a separator even when it
			// is empty: remember that one follows.
			continue
		}
		break
	}
	// The last parameter, if the section was not empty.
	if j > 2+b2i(prefix != 0) {
		v := ansi.Param(ansiparser.MissingParam)
		if have {
			v = ansi.Param(cur)
		}
		if len(params) < cap(params) {
			params = append(params, v)
		}
	}
	for j < len(p) && p[j] >= 0x20 && p[j] <= 0x2f {
		inter = p[j]
		j++
	}
	if j >= len(p) || p[j] < 0x40 || p[j] > 0x7e {
		return 0
	}
	cmd := ansi.Cmd(int(p[j]) | int(prefix)<<ansiparser.PrefixShift | int(inter)<<ansiparser.IntermedShift)
	if p[j] == 'm' && prefix == 0 && inter == 0 {
		t.fastSGR(p[2:j], cmd, params)
	} else {
		t.handleCsi(cmd, params)
	}
	return j + 1
}

// feedHighByte handles a byte >= 0x80 in the ground state the way tmux does:
// a whole UTF-8 character prints, an invalid byte is dropped (C1 controls are
// not recognised in UTF-8 mode), an incomplete character at the end of the
// buffer waits for the next Write.
func (t *Terminal) feedHighByte(p []byte) int {
	if !utf8.FullRune(p) {
		t.utf8Pend = append(t.utf8Pend[:0], p...)
		return len(p)
	}
	r, size := utf8.DecodeRune(p)
	if r == utf8.RuneError && size <= 1 {
		return 1
	}
	t.printRune(r)
	return size
}

// finishPendingUTF8 completes a character split across writes and returns
// how many bytes of p it consumed.
func (t *Terminal) finishPendingUTF8(p []byte) int {
	var buf [utf8.UTFMax * 2]byte
	n := copy(buf[:], t.utf8Pend)
	take := copy(buf[n:utf8.UTFMax], p)
	b := buf[:n+take]
	t.utf8Pend = t.utf8Pend[:0]
	if !utf8.FullRune(b) {
		// Still incomplete: p was tiny.
		t.utf8Pend = append(t.utf8Pend, b...)
		return len(p)
	}
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		// The lead byte was bad: drop it and let the loop see what followed
		// it in p from the start (the pending bytes were all >= 0x80 and
		// are dropped too, as tmux does).
		return 0
	}
	t.printRune(r)
	return size - n
}

func (t *Terminal) handlePrint(r rune) {
	if r < 0x80 {
		t.printASCII([]byte{byte(r)})
		return
	}
	t.printRune(r)
}

// Resize changes the screen size, keeping content: rows that no longer fit
// above the cursor go into scrollback, growing pulls them back, columns are
// cut or padded.
func (t *Terminal) Resize(cols, rows int) {
	cols, rows = clampSize(cols, rows)
	t.mu.Lock()
	if cols != t.cols || rows != t.rows {
		t.resize(cols, rows)
		t.changed = false
		t.mu.Unlock()
		t.gen.Add(1)
		return
	}
	t.mu.Unlock()
}

// Size returns the screen size.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.cols, t.rows
}

// Generation bumps on every visible change; the UI redraws a pane only when
// it moved.
func (t *Terminal) Generation() uint64 { return t.gen.Load() }

// Cursor returns the cursor cell and whether the child wants it shown.
func (t *Terminal) Cursor() (x, y int, visible bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	x = t.x
	if x >= t.cols {
		x = t.cols - 1
	}
	return x, t.y, t.cursorVisible
}

// Modes returns the mode state.
func (t *Terminal) Modes() Modes {
	t.mu.RLock()
	defer t.mu.RUnlock()
	m := Modes{
		AppCursor:       t.appCursor,
		AppKeypad:       t.appKeypad,
		BracketedPaste:  t.bracketedPaste,
		AltScreen:       t.scr == t.alt,
		AutoWrap:        t.autoWrap,
		SyncOutput:      t.syncOutput,
		FocusEvents:     t.focusEvents,
		Mouse:           t.mouse,
		MouseSGR:        t.mouseSGR,
		ModifyOtherKeys: t.modifyOtherKeys,
		Title:           t.title,
	}
	if n := len(t.kittyStack); n > 0 {
		m.KittyKeyboard = t.kittyStack[n-1]
	}
	return m
}

// replyQueue hands replies to OnReply from its own goroutine, in order,
// so a child that is not reading its input can never stall Write.
type replyQueue struct {
	mu      sync.Mutex
	queue   [][]byte
	running bool
	onReply func([]byte)
	idle    *sync.Cond
}

func (q *replyQueue) push(b []byte) {
	if q.onReply == nil {
		return
	}
	q.mu.Lock()
	q.queue = append(q.queue, b)
	if !q.running {
		q.running = true
		go q.drain()
	}
	q.mu.Unlock()
}

func (q *replyQueue) drain() {
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.running = false
			if q.idle != nil {
				q.idle.Broadcast()
			}
			q.mu.Unlock()
			return
		}
		b := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.mu.Unlock()
		q.onReply(b)
	}
}

// FlushReplies waits until every reply queued so far has been handed to
// OnReply. Tests and `rostra replay` use it; the pty reader never needs to.
func (t *Terminal) FlushReplies() {
	q := &t.replies
	q.mu.Lock()
	if q.idle == nil {
		q.idle = sync.NewCond(&q.mu)
	}
	for q.running {
		q.idle.Wait()
	}
	q.mu.Unlock()
}
