// keys.go turns what bubbletea reports (keys, pastes, mouse events) into the
// bytes an xterm would send the child, honouring the modes the child set:
// application cursor keys and keypad (DECCKM, DECKPAM), bracketed paste
// (2004), mouse reporting (1000/1002/1003, SGR 1006) and the kitty keyboard
// protocol's disambiguation flag (so Shift+Enter and Ctrl+I reach the child
// as themselves). Modifiers use xterm's parameter: 1 + shift + 2·alt +
// 4·ctrl; Alt on a plain key is an ESC prefix.
package tui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/panes"
)

// xtermMod is xterm's modifier parameter (1 = none).
func xtermMod(m tea.KeyMod) int {
	n := 1
	if m&tea.ModShift != 0 {
		n++
	}
	if m&tea.ModAlt != 0 {
		n += 2
	}
	if m&tea.ModCtrl != 0 {
		n += 4
	}
	if m&tea.ModMeta != 0 {
		n += 8
	}
	return n
}

const keyMods = tea.ModShift | tea.ModAlt | tea.ModCtrl | tea.ModMeta

// cursorKeys end in a letter: CSI X, SS3 X in application mode, CSI 1;m X
// with modifiers.
var cursorKeys = map[rune]byte{
	tea.KeyUp: 'A', tea.KeyDown: 'B', tea.KeyRight: 'C', tea.KeyLeft: 'D',
	tea.KeyHome: 'H', tea.KeyEnd: 'F', tea.KeyBegin: 'E',
}

// tildeKeys are CSI n ~ (CSI n;m ~ with modifiers).
var tildeKeys = map[rune]int{
	tea.KeyInsert: 2, tea.KeyDelete: 3, tea.KeyPgUp: 5, tea.KeyPgDown: 6,
	tea.KeyF5: 15, tea.KeyF6: 17, tea.KeyF7: 18, tea.KeyF8: 19, tea.KeyF9: 20,
	tea.KeyF10: 21, tea.KeyF11: 23, tea.KeyF12: 24,
}

// ss3Keys are F1–F4: SS3 P..S, CSI 1;m P..S with modifiers.
var ss3Keys = map[rune]byte{tea.KeyF1: 'P', tea.KeyF2: 'Q', tea.KeyF3: 'R', tea.KeyF4: 'S'}

// keypadKeys: the character in numeric mode, SS3 <app> in application mode.
var keypadKeys = map[rune][2]string{
	tea.KeyKp0: {"0", "p"}, tea.KeyKp1: {"1", "q"}, tea.KeyKp2: {"2", "r"},
	tea.KeyKp3: {"3", "s"}, tea.KeyKp4: {"4", "t"}, tea.KeyKp5: {"5", "u"},
	tea.KeyKp6: {"6", "v"}, tea.KeyKp7: {"7", "w"}, tea.KeyKp8: {"8", "x"},
	tea.KeyKp9: {"9", "y"}, tea.KeyKpEnter: {"\r", "M"}, tea.KeyKpEqual: {"=", "X"},
	tea.KeyKpMultiply: {"*", "j"}, tea.KeyKpPlus: {"+", "k"}, tea.KeyKpComma: {",", "l"},
	tea.KeyKpMinus: {"-", "m"}, tea.KeyKpDecimal: {".", "n"}, tea.KeyKpDivide: {"/", "o"},
}

// encodeKey is the byte sequence for k, or nil for a key a terminal does
// not send (a lone modifier, media keys).
func encodeKey(k tea.Key, m panes.TermModes) []byte {
	mod := k.Mod & keyMods
	if m.KittyKeyboard&1 != 0 {
		if b := kittyKey(k, mod); b != nil {
			return b
		}
	}
	if c, ok := cursorKeys[k.Code]; ok {
		switch {
		case mod != 0:
			return []byte("\x1b[1;" + strconv.Itoa(xtermMod(mod)) + string(c))
		case m.AppCursor:
			return []byte{0x1b, 'O', c}
		default:
			return []byte{0x1b, '[', c}
		}
	}
	if n, ok := tildeKeys[k.Code]; ok {
		if mod != 0 {
			return []byte("\x1b[" + strconv.Itoa(n) + ";" + strconv.Itoa(xtermMod(mod)) + "~")
		}
		return []byte("\x1b[" + strconv.Itoa(n) + "~")
	}
	if c, ok := ss3Keys[k.Code]; ok {
		if mod != 0 {
			return []byte("\x1b[1;" + strconv.Itoa(xtermMod(mod)) + string(c))
		}
		return []byte{0x1b, 'O', c}
	}
	if kp, ok := keypadKeys[k.Code]; ok {
		if m.AppKeypad {
			return []byte("\x1bO" + kp[1])
		}
		return []byte(kp[0])
	}
	var prefix []byte
	if mod&tea.ModAlt != 0 {
		prefix = []byte{0x1b}
		mod &^= tea.ModAlt
	}
	var body []byte
	switch k.Code {
	case tea.KeyEnter:
		body = []byte{'\r'}
	case tea.KeyTab:
		if mod&tea.ModShift != 0 {
			body = []byte("\x1b[Z")
		} else {
			body = []byte{'\t'}
		}
	case tea.KeyBackspace:
		if mod&tea.ModCtrl != 0 {
			body = []byte{0x08}
		} else {
			body = []byte{0x7f}
		}
	case tea.KeyEscape:
		body = []byte{0x1b}
	case tea.KeySpace:
		if mod&tea.ModCtrl != 0 {
			body = []byte{0}
		} else {
			body = []byte{' '}
		}
	default:
		if mod&tea.ModCtrl != 0 {
			if c, ok := ctrlByte(k.Code); ok {
				body = []byte{c}
			}
		} else if k.Text != "" {
			body = []byte(k.Text)
		} else if k.Code >= 0x20 && k.Code < tea.KeyExtended && k.Code != 0x7f {
			body = []byte(string(k.Code))
		}
	}
	if body == nil {
		return nil
	}
	return append(prefix, body...)
}

// ctrlByte is the C0 control Ctrl+<key> produces on an xterm.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= 'A' && r <= 'Z':
		return byte(r - 'A' + 1), true
	case r == '@' || r == '2':
		return 0, true
	case r >= '[' && r <= '_':
		return byte(r - '[' + 0x1b), true
	case r >= '3' && r <= '7':
		return byte(r - '3' + 0x1b), true
	case r == '8' || r == '?':
		return 0x7f, true
	case r == '/':
		return 0x1f, true
	}
	return 0, false
}

// kittyKey encodes, under the kitty protocol's "disambiguate" flag, the keys
// legacy encoding makes ambiguous: Enter/Tab/Backspace with modifiers, Esc,
// and Ctrl or Alt with a text key. Others fall through to legacy (nil).
func kittyKey(k tea.Key, mod tea.KeyMod) []byte {
	code := rune(-1)
	switch k.Code {
	case tea.KeyEscape:
		code = 27
	case tea.KeyEnter:
		if mod != 0 {
			code = 13
		}
	case tea.KeyTab:
		if mod != 0 {
			code = 9
		}
	case tea.KeyBackspace:
		if mod != 0 {
			code = 127
		}
	default:
		if mod&(tea.ModCtrl|tea.ModAlt) != 0 && k.Code < tea.KeyExtended && k.Code >= 0x20 {
			code = k.Code
			if k.BaseCode != 0 {
				code = k.BaseCode
			}
		}
	}
	if code < 0 {
		return nil
	}
	s := "\x1b[" + strconv.Itoa(int(code))
	if mod != 0 {
		s += ";" + strconv.Itoa(xtermMod(mod))
	}
	return []byte(s + "u")
}

// encodePaste wraps text in bracketed-paste markers when the child asked for
// them. Newlines become CR, as a terminal sends them, and an end marker
// inside the text is removed so a paste cannot end itself early.
func encodePaste(text string, m panes.TermModes) []byte {
	text = strings.ReplaceAll(text, "\r\n", "\r")
	text = strings.ReplaceAll(text, "\n", "\r")
	if !m.BracketedPaste {
		return []byte(text)
	}
	text = strings.ReplaceAll(text, "\x1b[201~", "")
	return []byte("\x1b[200~" + text + "\x1b[201~")
}

// mouseEvent kinds for encodeMouse.
const (
	mousePress = iota
	mouseRelease
	mouseMotion
	mouseWheel
)

// encodeMouse reports a mouse event at cell (x, y) of the pane (0-based) the
// way the child asked (SGR 1006 or the X10 byte form), or nil when its mode
// does not want this kind of event.
func encodeMouse(kind int, ev tea.Mouse, x, y int, m panes.TermModes) []byte {
	if m.Mouse == 0 {
		return nil
	}
	var b int
	switch ev.Button {
	case tea.MouseLeft:
		b = 0
	case tea.MouseMiddle:
		b = 1
	case tea.MouseRight:
		b = 2
	case tea.MouseNone:
		b = 3
	case tea.MouseWheelUp:
		b = 64
	case tea.MouseWheelDown:
		b = 65
	case tea.MouseWheelLeft:
		b = 66
	case tea.MouseWheelRight:
		b = 67
	default:
		return nil
	}
	if kind == mouseMotion {
		if m.Mouse == 1000 || (m.Mouse == 1002 && ev.Button == tea.MouseNone) {
			return nil
		}
		b += 32
	}
	if ev.Mod&tea.ModShift != 0 {
		b += 4
	}
	if ev.Mod&tea.ModAlt != 0 {
		b += 8
	}
	if ev.Mod&tea.ModCtrl != 0 {
		b += 16
	}
	if m.MouseSGR {
		final := "M"
		if kind == mouseRelease {
			final = "m"
		}
		return []byte("\x1b[<" + strconv.Itoa(b) + ";" + strconv.Itoa(x+1) + ";" + strconv.Itoa(y+1) + final)
	}
	if kind == mouseRelease {
		b = 3 | (b &^ 3 & 0x1c)
	}
	if x > 222 || y > 222 {
		return nil // X10 cannot say it
	}
	return []byte{0x1b, '[', 'M', byte(32 + b), byte(33 + x), byte(33 + y)}
}
