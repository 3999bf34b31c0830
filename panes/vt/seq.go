// seq.go holds what Terminal does for each control: C0 controls, ESC,
// CSI and OSC sequences, and the private modes. Semantics follow tmux
// (input.c, screen-write.c) where it differs from xterm, since tmux is the
// oracle the tests compare against.
package vt

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	ansiparser "github.com/charmbracelet/x/ansi/parser"
)

// forgetLastRune: REP repeats only a character printed immediately
// before it; any control or sequence in between cancels it (tmux).
func (t *Terminal) forgetLastRune() { t.lastRune = 0 }

func (t *Terminal) handleExecute(b byte) {
	t.lastRune = 0
	switch b {
	case 0x07:
		t.pendingBells++
	case 0x08:
		t.backspace()
	case 0x09:
		t.tab(1)
	case 0x0a, 0x0b, 0x0c:
		t.explicitLineFeed()
	case 0x0d:
		t.x = 0
		t.changed = true
	case 0x0e:
		t.shift = 1
	case 0x0f:
		t.shift = 0
	}
}

// explicitLineFeed is LF, VT, FF, IND and NEL. (tmux 3.3a leaves the
// row's soft-wrap mark alone here; BS looks at it.)
func (t *Terminal) explicitLineFeed() {
	t.changed = true
	t.lineFeed()
}

// backspace moves left; at column 0 it goes back up a soft-wrapped line.
func (t *Terminal) backspace() {
	t.changed = true
	if t.x == 0 {
		if t.y > 0 && t.scr.lines[t.y-1].wrapped {
			t.y--
			t.x = t.cols - 1
		}
		return
	}
	t.x--
}

func (t *Terminal) tab(n int) {
	t.changed = true
	for ; n > 0; n-- {
		if t.x >= t.cols-1 {
			return
		}
		for {
			t.x++
			if t.x >= t.cols-1 || t.tabs[t.x] {
				break
			}
		}
	}
}

// leavePendingWrap moves the cursor off the pending-wrap column (one past
// the last) onto the last, where CUU, CUD, CUF and CBT count from (CUB
// counts from the pending-wrap column itself, as tmux does).
func (t *Terminal) leavePendingWrap() { t.x = min(t.x, t.cols-1) }

func (t *Terminal) backTab(n int) {
	t.changed = true
	t.leavePendingWrap()
	for ; n > 0 && t.x > 0; n-- {
		for {
			t.x--
			if t.x <= 0 || t.tabs[t.x] {
				break
			}
		}
	}
}

// saveCursor is DECSC (and CSI s): one saved state per terminal, shared by
// both screens, as in tmux.
func (t *Terminal) saveCursor() {
	t.saved = savedCursor{x: t.x, y: t.y, pen: t.pen, origin: t.origin,
		charsets: t.charsets, shift: t.shift, valid: true}
}

// restoreCursor is DECRC: never-saved restores home and the default pen;
// the column is clamped to the last one (no pending wrap).
func (t *Terminal) restoreCursor() {
	s := t.saved
	t.changed = true
	t.x, t.y = min(s.x, t.cols-1), min(s.y, t.rows-1)
	t.pen, t.penDirty = s.pen, true
	t.origin = s.origin
	t.charsets, t.shift = s.charsets, s.shift
}

func (t *Terminal) handleEsc(cmd ansi.Cmd) {
	t.lastRune = 0
	final, inter := cmd.Final(), cmd.Intermediate()
	switch inter {
	case '(', ')':
		g := 0
		if inter == ')' {
			g = 1
		}
		// tmux knows DEC graphics and ASCII; other designations are
		// ignored, not taken for ASCII.
		if final == '0' || final == 'B' {
			t.charsets[g] = final == '0'
		}
		return
	case '#':
		if final == '8' { // DECALN: fill with E
			t.changed = true
			for y := range t.rows {
				cells := t.scr.lines[y].own()
				for x := range cells {
					cells[x] = gridCell{'E', 0}
				}
				t.scr.lines[y].used = t.cols
			}
			t.top, t.bot = 0, t.rows-1
			t.x, t.y = 0, 0
		}
		return
	case 0:
	default:
		return
	}
	switch final {
	case '7':
		t.saveCursor()
	case '8':
		t.restoreCursor()
	case 'D':
		t.explicitLineFeed()
	case 'E':
		t.x = 0
		t.explicitLineFeed()
	case 'M':
		t.reverseIndex()
		t.changed = true
	case 'H':
		if t.x < t.cols {
			t.tabs[t.x] = true
		}
	case 'c':
		t.resetState()
	case '=':
		t.appKeypad = true
	case '>':
		t.appKeypad = false
	}
}

// csiParam returns parameter i, def when missing or zero (cursor motion
// treats 0 as 1).
func csiParam(params ansi.Params, i, def int) int {
	if i >= len(params) {
		return def
	}
	v := param(params[i], def)
	if v == 0 {
		return def
	}
	return v
}

// paramMin is parameter i, def when missing, at least min.
func paramMin(params ansi.Params, i, min, def int) int {
	if i >= len(params) {
		return def
	}
	v := param(params[i], -1)
	if v < 0 {
		return def
	}
	if v < min {
		return min
	}
	return v
}

// handleCsi does one CSI sequence; a parameter over maxParam voids it.
// Sequences with an intermediate byte, those with a private prefix
// (? > < =: private modes, queries, the keyboard protocols) and plain ones
// (the cursor, editing, SGR) each have a function of their own.
func (t *Terminal) handleCsi(cmd ansi.Cmd, params ansi.Params) {
	defer t.forgetLastRune()
	if t.csiLong { // countCSIDigit
		t.csiDigits, t.csiLong = 0, false
		return
	}
	for _, p := range params {
		if v := int(p) & ansiparser.ParamMask; v != ansiparser.MissingParam && v > maxParam {
			return
		}
	}
	final, prefix, inter := cmd.Final(), cmd.Prefix(), cmd.Intermediate()
	switch {
	case inter != 0:
		t.csiIntermediate(inter, final, prefix, params)
	case prefix == 0:
		t.changed = true
		t.csiPlain(final, params)
	default:
		t.csiPrivate(prefix, final, params)
	}
}

// csiIntermediate: DECSCUSR (CSI Ps SP q), DECSTR (CSI ! p) and friends.
func (t *Terminal) csiIntermediate(inter, final, prefix byte, params ansi.Params) {
	switch {
	case inter == '!' && final == 'p':
		t.softReset()
	case inter == '$' && final == 'p' && (prefix == 0 || prefix == '?'):
		// DECRQM: CSI [?] Ps $ p -> CSI [?] Ps ; Pm $ y
		mode := csiParam(params, 0, 0)
		p := ""
		if prefix == '?' {
			p = "?"
		}
		t.reply("\x1b[" + p + strconv.Itoa(mode) + ";" + strconv.Itoa(t.modeState(prefix == '?', mode)) + "$y")
	}
}

// csiPrivate does a CSI sequence with a private prefix.
func (t *Terminal) csiPrivate(prefix, final byte, params ansi.Params) {
	switch prefix {
	case '?':
		t.csiQuestion(final, params)
	case '>':
		t.csiGreater(final, params)
	case '<':
		if final == 'u' {
			t.popKittyFlags(csiParam(params, 0, 1))
		}
	case '=':
		if final == 'u' {
			t.setKittyFlags(csiParam(params, 0, 0), csiParam(params, 1, 1))
		}
	}
}

// popKittyFlags: CSI < n u pops n entries of the kitty keyboard stack.
func (t *Terminal) popKittyFlags(n int) {
	if n > len(t.kittyStack) {
		n = len(t.kittyStack)
	}
	t.kittyStack = t.kittyStack[:len(t.kittyStack)-n]
}

// setKittyFlags: CSI = flags ; mode u sets (1), adds (2) or removes (3)
// flags on the top of the kitty keyboard stack.
func (t *Terminal) setKittyFlags(flags, mode int) {
	if len(t.kittyStack) == 0 {
		t.kittyStack = append(t.kittyStack, 0)
	}
	top := &t.kittyStack[len(t.kittyStack)-1]
	switch mode {
	case 1:
		*top = flags
	case 2:
		*top |= flags
	case 3:
		*top &^= flags
	}
}

// csiQuestion: CSI ? …: DEC private modes, the kitty keyboard query and
// XTQMODKEYS.
func (t *Terminal) csiQuestion(final byte, params ansi.Params) {
	switch final {
	case 'h':
		t.setPrivateModes(params, true)
	case 'l':
		t.setPrivateModes(params, false)
	case 'u':
		flags := 0
		if n := len(t.kittyStack); n > 0 {
			flags = t.kittyStack[n-1]
		}
		t.reply("\x1b[?" + strconv.Itoa(flags) + "u")
	case 'm': // XTQMODKEYS: only modifyOtherKeys is kept
		if csiParam(params, 0, -1) == 4 {
			t.reply("\x1b[>4;" + strconv.Itoa(t.modifyOtherKeys) + "m")
		}
	}
}

// csiGreater: CSI > …: xterm's modifyOtherKeys, XTVERSION, DA2 and the
// kitty keyboard push.
func (t *Terminal) csiGreater(final byte, params ansi.Params) {
	switch final {
	case 'm': // XTMODKEYS: CSI > 4 ; n m sets modifyOtherKeys; no value resets it
		if len(params) > 0 && param(params[0], -1) == 4 {
			if v := paramMin(params, 1, 0, 0); v <= 2 {
				t.modifyOtherKeys = v
			}
		}
	case 'q': // XTVERSION
		if csiParam(params, 0, 0) == 0 {
			t.reply("\x1bP>|" + Program + " " + Version() + "\x1b\\")
		}
	case 'n': // CSI > 4 n disables modifyOtherKeys
		if len(params) > 0 && param(params[0], -1) == 4 {
			t.modifyOtherKeys = 0
		}
	case 'c':
		if csiParam(params, 0, 0) == 0 {
			t.reply("\x1b[>84;0;0c")
		}
	case 'u':
		if len(t.kittyStack) >= 16 {
			t.kittyStack = t.kittyStack[1:]
		}
		t.kittyStack = append(t.kittyStack, csiParam(params, 0, 0))
	}
}

// csiPlain does a CSI sequence without prefix or intermediate.
func (t *Terminal) csiPlain(final byte, params ansi.Params) {
	switch final {
	case '@':
		t.insertCells(csiParam(params, 0, 1))
	case 'A':
		t.cursorUp(csiParam(params, 0, 1))
	case 'B':
		t.cursorDown(csiParam(params, 0, 1))
	case 'C':
		t.cursorRight(csiParam(params, 0, 1))
	case 'D':
		t.cursorLeft(csiParam(params, 0, 1))
	case 'E':
		t.cursorDown(csiParam(params, 0, 1))
		t.x = 0
	case 'F':
		t.cursorUp(csiParam(params, 0, 1))
		t.x = 0
	case 'G', '`':
		t.x = min(csiParam(params, 0, 1)-1, t.cols-1)
	case 'H', 'f':
		t.cursorTo(csiParam(params, 1, 1)-1, csiParam(params, 0, 1)-1)
	case 'J':
		t.eraseDisplay(csiParam(params, 0, 0))
	case 'K':
		t.eraseLine(csiParam(params, 0, 0))
	case 'L':
		t.insertLines(csiParam(params, 0, 1))
	case 'M':
		t.deleteLines(csiParam(params, 0, 1))
	case 'P':
		t.deleteCells(csiParam(params, 0, 1))
	case 'S':
		t.scrollUp(t.top, t.bot, csiParam(params, 0, 1))
	case 'T':
		if len(params) <= 1 {
			t.scrollDown(t.top, t.bot, csiParam(params, 0, 1))
		}
	case 'X':
		if t.x < t.cols { // nothing from the pending-wrap column (tmux)
			t.eraseCells(t.y, t.x, t.x+csiParam(params, 0, 1))
		}
	case 'Z':
		t.backTab(csiParam(params, 0, 1))
	case 'b':
		t.repeatLastRune(csiParam(params, 0, 1))
	case 'c':
		if csiParam(params, 0, 0) == 0 {
			t.reply("\x1b[?1;2c")
		}
	case 'd':
		x := t.x // VPA leaves the column alone, pending wrap included
		t.cursorTo(0, csiParam(params, 0, 1)-1)
		t.x = x
	case 'g':
		t.clearTabStops(csiParam(params, 0, 0))
	case 'h', 'l':
		t.setModes(params, final == 'h')
	case 'm':
		t.setSGR(params)
	case 'n':
		t.deviceStatus(csiParam(params, 0, 0))
	case 'r':
		// Missing means the default, zero means the minimum (tmux's
		// input_get): "CSI 0;0 r" is a one-line region, refused.
		t.setScrollRegion(paramMin(params, 0, 1, 1)-1, paramMin(params, 1, 1, t.rows)-1)
	case 's':
		t.saveCursor()
	case 'u':
		t.restoreCursor()
	}
}

// repeatLastRune is REP. tmux repeats only an ASCII character printed
// right before, and never past the end of the line (HPR, VPR and CHT it
// ignores altogether; so does Terminal, tmux being the reference).
func (t *Terminal) repeatLastRune(n int) {
	if r := t.lastRune; r != 0 && r < 0x80 {
		for range min(n, t.cols-t.x) {
			t.printASCII([]byte{byte(r)})
		}
	}
}

// clearTabStops is TBC: the stop at the cursor (0) or every stop (3).
func (t *Terminal) clearTabStops(mode int) {
	switch mode {
	case 0:
		if t.x < t.cols {
			t.tabs[t.x] = false
		}
	case 3:
		clear(t.tabs)
	}
}

// setModes is SM and RM; of the ANSI modes only insert (4) is kept.
func (t *Terminal) setModes(params ansi.Params, on bool) {
	for i := range params {
		if param(params[i], 0) == 4 {
			t.insert = on
		}
	}
}

// deviceStatus is DSR: the status (5) or the cursor position (6).
func (t *Terminal) deviceStatus(report int) {
	switch report {
	case 5:
		t.reply("\x1b[0n")
	case 6:
		// Absolute, and the pending-wrap column as it is: what tmux
		// answers.
		t.reply("\x1b[" + strconv.Itoa(t.y+1) + ";" + strconv.Itoa(t.x+1) + "R")
	}
}

// setScrollRegion is DECSTBM with 0-based rows; a region under two lines
// is refused.
func (t *Terminal) setScrollRegion(top, bot int) {
	if bot > t.rows-1 {
		bot = t.rows - 1
	}
	if top < bot {
		t.top, t.bot = top, bot
		t.x, t.y = 0, 0 // home, not origin-relative (tmux)
	}
}

// softReset is DECSTR.
func (t *Terminal) softReset() {
	t.cursorVisible, t.origin, t.insert, t.autoWrap = true, false, false, true
	t.appCursor, t.appKeypad = false, false
	t.top, t.bot = 0, t.rows-1
	t.pen, t.penDirty = cellStyle{}, true
	t.charsets, t.shift = [2]bool{}, 0
	t.changed = true
}

// cursorTo moves to (x, y), y relative to the scroll region in origin mode.
func (t *Terminal) cursorTo(x, y int) {
	if t.origin {
		y += t.top
		if y > t.bot {
			y = t.bot
		}
	}
	t.x = max(0, min(x, t.cols-1))
	t.y = max(0, min(y, t.rows-1))
}

func (t *Terminal) cursorUp(n int) {
	t.leavePendingWrap()
	lim := 0
	if t.y >= t.top {
		lim = t.top
	}
	t.y = max(t.y-n, lim)
}

func (t *Terminal) cursorDown(n int) {
	t.leavePendingWrap()
	lim := t.rows - 1
	if t.y <= t.bot {
		lim = t.bot
	}
	t.y = min(t.y+n, lim)
}

func (t *Terminal) cursorRight(n int) {
	t.leavePendingWrap()
	t.x = min(t.x+n, t.cols-1)
}

// cursorLeft counts from the pending-wrap column when there (tmux).
func (t *Terminal) cursorLeft(n int) {
	t.x = max(t.x-n, 0)
}

func (t *Terminal) eraseDisplay(mode int) {
	x := min(t.x, t.cols)
	switch mode {
	case 0:
		if x == 0 && t.y == 0 {
			t.clearScreenIntoScrollback()
			return
		}
		t.eraseCells(t.y, x, t.cols)
		t.eraseLines(t.y+1, t.rows)
	case 1:
		t.eraseLines(0, t.y)
		t.eraseCells(t.y, 0, x+1)
	case 2:
		t.clearScreenIntoScrollback()
	case 3:
		t.sb.clear()
		t.sbScrolled = 0
	}
}

// clearIntoScrollback keeps what a full clear of the main screen is about
// to erase: rows down to the last one in use go to scrollback first, as
// tmux's scroll-on-clear (on by default) does. An agent CLI that clears
// the screen does not lose its earlier output.
func (t *Terminal) clearIntoScrollback() int {
	if t.scr != t.main {
		return 0
	}
	last := 0
	for y := range t.rows {
		if t.main.lines[y].used > 0 {
			last = y + 1
		}
	}
	for y := range last {
		t.sb.push(t.encodeLine(&t.main.lines[y]))
	}
	if last > 0 {
		t.sbScrolled = 0 // tmux resets hscrolled only when it moved rows
	}
	return last
}

// clearScreenIntoScrollback is a full clear: on the main screen the used
// rows go to scrollback first; when all of them went, tmux clears nothing
// after, so the newest scrollback line keeps its soft-wrap mark.
func (t *Terminal) clearScreenIntoScrollback() {
	last := t.clearIntoScrollback()
	wrapped := t.sb.newestWrapped()
	t.eraseLines(0, t.rows)
	if last == t.rows && t.scr == t.main {
		t.sb.setNewestWrapped(wrapped)
	}
}

func (t *Terminal) eraseLine(mode int) {
	x := min(t.x, t.cols)
	switch mode {
	case 0:
		t.eraseCells(t.y, x, t.cols)
	case 1:
		t.eraseCells(t.y, 0, x+1)
	case 2:
		t.eraseCells(t.y, 0, t.cols)
	}
}

// insertLines is IL: inside the scroll region it shifts the region;
// outside it, the rest of the screen, except that inserting as many rows
// as are left does nothing there (tmux's grid_view_insert_lines moves zero
// rows). The cursor stays. The soft-wrap marks it ends are tmux's
// (grid_move_lines and grid_clear_lines, unsigned wrap-around included):
// reflow depends on them.
func (t *Terminal) insertLines(n int) {
	y := t.y
	if y < t.top || y > t.bot {
		if n >= t.rows-y {
			return
		}
		t.scr.lines[y+n-1].wrapped = false
		t.scrollDownLines(y, t.rows-1, n, true)
		t.unwrapRow(y - 1)
		return
	}
	n = min(n, t.bot+1-y)
	moved := t.bot + 1 - y - n
	if moved > 0 {
		t.scr.lines[y+n-1].wrapped = false
	}
	t.scrollDownLines(y, t.bot, n, true)
	if moved > 0 {
		t.unwrapRow(y - 1)
	}
	if n != moved {
		t.unwrapRow(y + moved - 1)
	}
}

// deleteLines is DL, the same way round; deleted rows never go to
// scrollback.
func (t *Terminal) deleteLines(n int) {
	y, bot := t.y, t.bot
	outside := y < t.top || y > t.bot
	if outside {
		bot = t.rows - 1
	}
	n = min(n, bot+1-y)
	moved := bot + 1 - y - n
	if moved > 0 {
		t.unwrapRow(y - 1)
	}
	t.deletingLines = true
	t.scrollUpLines(y, bot, n, false, t.bgID())
	t.deletingLines = false
	if moved > 0 && n >= moved {
		t.unwrapRow(y + n - 1)
	}
	if outside {
		if y+2*n != t.rows {
			t.unwrapRow(t.rows - n - 1)
		}
	} else if n != moved {
		t.unwrapRow(y + moved - 1)
	}
}

func (t *Terminal) setPrivateModes(params ansi.Params, on bool) {
	t.changed = true
	for i := range params {
		switch param(params[i], 0) {
		case 1:
			t.appCursor = on
		case 66:
			t.appKeypad = on
		case 6:
			t.origin = on
			t.cursorTo(0, 0)
		case 3: // DECCOLM: the width stays, the screen clears
			t.cursorTo(0, 0)
			t.eraseDisplay(2)
		case 7:
			t.autoWrap = on
		case 25:
			t.cursorVisible = on
		case 47, 1047:
			t.setAltScreen(on, false)
		case 1049:
			t.setAltScreen(on, true)
		case 1000, 1002, 1003:
			if on {
				t.mouse = param(params[i], 0)
			} else {
				t.mouse = 0
			}
		case 1006:
			t.mouseSGR = on
		case 1004:
			t.focusEvents = on
		case 2004:
			t.bracketedPaste = on
		case 2026:
			t.syncOutput = on
		}
	}
}

// setAltScreen switches to or from the alternate screen. The main screen
// and its scrollback stay as they were while it is up.
func (t *Terminal) setAltScreen(on, saveCursor bool) {
	t.changed = true
	inAlt := t.scr == t.alt && t.alt != nil
	if on {
		if inAlt {
			return
		}
		// tmux saves the pen on every switch, the position only for 1049.
		t.altSavedPen = t.pen
		// It clears the screen rows of its one grid for the alternate
		// screen, which ends the soft wrap of the newest history line.
		t.sb.unwrapNewest()
		if saveCursor {
			t.altSavedMain = savedCursor{x: t.x, y: t.y, valid: true}
		}
		if t.alt == nil || len(t.alt.lines) != t.rows || len(t.alt.lines[0].cells) != t.cols {
			t.alt = t.newScreen()
		} else {
			for i := range t.alt.lines {
				t.alt.lines[i].blank(0)
				t.alt.lines[i].wrapped, t.alt.lines[i].used = false, 0
			}
		}
		t.scr = t.alt
		return
	}
	t.scr = t.main
	// Like tmux, 1049l restores the saved position and pen even when the
	// alternate screen is not up (ncurses programs leave it twice);
	// charsets and origin mode stay. Any switch back ends pending wrap.
	if saveCursor && t.altSavedMain.valid {
		t.x, t.y = t.altSavedMain.x, t.altSavedMain.y
		t.pen, t.penDirty = t.altSavedPen, true
	}
	// A resize while the alternate screen was up reaches the main screen
	// now, with the cursor it comes back with (tmux resizes its saved
	// grid then).
	t.x, t.y = min(t.x, t.mainCols), min(t.y, len(t.main.lines)-1)
	if len(t.main.lines) != t.rows {
		t.y = t.resizeScreenRows(t.main, t.rows, t.y)
	}
	if t.mainCols != t.cols {
		t.reflow(t.cols)
		t.mainCols = t.cols
	}
	t.x, t.y = min(t.x, t.cols-1), min(t.y, t.rows-1)
}

func (t *Terminal) handleOsc(cmd int, data []byte) {
	t.lastRune = 0
	switch cmd {
	case 4:
		t.answerPaletteQueries(data)
	case 10, 11, 12:
		t.answerColorQueries(cmd, data)
	case 9, 99, 777, 7501:
		// notify.go; the number must be followed by ';'.
		if n := len(strconv.Itoa(cmd)); len(data) > n && data[n] == ';' {
			switch cmd {
			case 9:
				t.handleOSC9(data)
			case 99:
				t.handleOSC99(data)
			case 777:
				t.handleOSC777(data)
			case 7501:
				t.handleOSC7501(data)
			}
		}
	case 0, 2:
		// data is "N;title"; tmux keeps the old title when the new one
		// is not valid UTF-8.
		for i, b := range data {
			if b == ';' {
				if !utf8.Valid(data[i+1:]) {
					break
				}
				title := string(data[i+1:])
				t.title = title
				t.pendingTitles = append(t.pendingTitles, title)
				if len(t.pendingTitles) > 8 {
					t.pendingTitles = t.pendingTitles[len(t.pendingTitles)-8:]
				}
				break
			}
		}
	}
	// OSC 8 hyperlinks and everything else are dropped: the text they wrap
	// prints as plain text.
}

// oscEnd is the terminator of an OSC reply: the one the query used, as
// xterm answers.
func (t *Terminal) oscEnd() string {
	if t.oscBEL {
		return "\a"
	}
	return "\x1b\\"
}

// answerColorQueries answers "10;?" (and "10;?;?", which xterm reads as
// 10 then 11) with the default foreground, background and cursor colour
// (the cursor is drawn in the foreground). Setting them is ignored: the
// outer terminal draws the cells.
func (t *Terminal) answerColorQueries(cmd int, data []byte) {
	fields := strings.Split(string(data), ";")[1:]
	for i, f := range fields {
		if f != "?" || cmd+i > 12 {
			continue
		}
		c := t.opts.Colors.Foreground()
		if cmd+i == 11 {
			c = t.opts.Colors.Background()
		}
		t.reply("\x1b]" + strconv.Itoa(cmd+i) + ";" + xrgb(c) + t.oscEnd())
	}
}

// answerPaletteQueries answers "4;n;?" pairs with palette entry n.
func (t *Terminal) answerPaletteQueries(data []byte) {
	fields := strings.Split(string(data), ";")[1:]
	for i := 0; i+1 < len(fields); i += 2 {
		n, err := strconv.Atoi(fields[i])
		if err != nil || n < 0 || n > 255 || fields[i+1] != "?" {
			continue
		}
		t.reply("\x1b]4;" + strconv.Itoa(n) + ";" + xrgb(t.opts.Colors.Indexed(n)) + t.oscEnd())
	}
}

// modeState is DECRQM's answer for a mode: 1 set, 2 reset, 0 a mode the
// emulator does not implement.
func (t *Terminal) modeState(private bool, mode int) int {
	on := func(b bool) int {
		if b {
			return 1
		}
		return 2
	}
	if !private {
		if mode == 4 {
			return on(t.insert)
		}
		return 0
	}
	switch mode {
	case 1:
		return on(t.appCursor)
	case 6:
		return on(t.origin)
	case 7:
		return on(t.autoWrap)
	case 25:
		return on(t.cursorVisible)
	case 47, 1047, 1049:
		return on(t.scr == t.alt)
	case 66:
		return on(t.appKeypad)
	case 1000, 1002, 1003:
		return on(t.mouse == mode)
	case 1004:
		return on(t.focusEvents)
	case 1006:
		return on(t.mouseSGR)
	case 2004:
		return on(t.bracketedPaste)
	case 2026:
		return on(t.syncOutput)
	}
	return 0
}

func (t *Terminal) reply(s string) {
	t.replies.push([]byte(s))
}
