// key.go turns keys and pastes (as ultraviolet, and so bubbletea, reports
// them) into the bytes an xterm would send the child, honouring the modes the
// child set: application cursor keys and keypad (DECCKM, DECKPAM), bracketed
// paste (2004), xterm's modifyOtherKeys (CSI > 4 ; 1|2 m) and the kitty
// keyboard protocol (flags 1 disambiguate, 2 event types, 4 alternate keys),
// so Shift+Enter and Ctrl+I reach the child as themselves. Modifiers use
// xterm's parameter: 1 + shift + 2·alt + 4·ctrl + 8·meta; Alt on a key
// without its own sequence is an ESC prefix (xterm's metaSendsEscape).
//
// A child that asked for neither modifyOtherKeys nor the kitty protocol
// gets Shift+Enter as ESC CR, the Alt+Enter form the agent CLIs document as
// "newline without submitting": a bare CR would submit a half-typed prompt.
package vt

import (
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// xtermMod is xterm's modifier parameter (1 = none).
func xtermMod(m uv.KeyMod) int {
	n := 1
	if m&uv.ModShift != 0 {
		n++
	}
	if m&uv.ModAlt != 0 {
		n += 2
	}
	if m&uv.ModCtrl != 0 {
		n += 4
	}
	if m&uv.ModMeta != 0 {
		n += 8
	}
	return n
}

const keyMods = uv.ModShift | uv.ModAlt | uv.ModCtrl | uv.ModMeta

// cursorKeys end in a letter: CSI X, SS3 X in application mode, CSI 1;m X
// with modifiers.
var cursorKeys = map[rune]byte{
	uv.KeyUp: 'A', uv.KeyDown: 'B', uv.KeyRight: 'C', uv.KeyLeft: 'D',
	uv.KeyHome: 'H', uv.KeyEnd: 'F', uv.KeyBegin: 'E',
}

// tildeKeys are CSI n ~ (CSI n;m ~ with modifiers).
var tildeKeys = map[rune]int{
	uv.KeyInsert: 2, uv.KeyDelete: 3, uv.KeyPgUp: 5, uv.KeyPgDown: 6,
	uv.KeyF5: 15, uv.KeyF6: 17, uv.KeyF7: 18, uv.KeyF8: 19, uv.KeyF9: 20,
	uv.KeyF10: 21, uv.KeyF11: 23, uv.KeyF12: 24,
}

// ss3Keys are F1–F4: SS3 P..S, CSI 1;m P..S with modifiers.
var ss3Keys = map[rune]byte{uv.KeyF1: 'P', uv.KeyF2: 'Q', uv.KeyF3: 'R', uv.KeyF4: 'S'}

// keypadKeys: the character in numeric mode, SS3 <app> in application mode.
var keypadKeys = map[rune][2]string{
	uv.KeyKp0: {"0", "p"}, uv.KeyKp1: {"1", "q"}, uv.KeyKp2: {"2", "r"},
	uv.KeyKp3: {"3", "s"}, uv.KeyKp4: {"4", "t"}, uv.KeyKp5: {"5", "u"},
	uv.KeyKp6: {"6", "v"}, uv.KeyKp7: {"7", "w"}, uv.KeyKp8: {"8", "x"},
	uv.KeyKp9: {"9", "y"}, uv.KeyKpEnter: {"\r", "M"}, uv.KeyKpEqual: {"=", "X"},
	uv.KeyKpMultiply: {"*", "j"}, uv.KeyKpPlus: {"+", "k"}, uv.KeyKpComma: {",", "l"},
	uv.KeyKpMinus: {"-", "m"}, uv.KeyKpDecimal: {".", "n"}, uv.KeyKpDivide: {"/", "o"},
}

// EncodeKey is the byte sequence for k, or nil for a key a terminal does
// not send (a lone modifier, media keys).
func EncodeKey(k uv.Key, m Modes) []byte {
	mod := k.Mod & keyMods
	if m.KittyKeyboard&kittyDisambiguate != 0 {
		if b := kittyKey(k, mod, m.KittyKeyboard); b != nil {
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
	if m.ModifyOtherKeys > 0 {
		if b := modifyOtherKey(k, mod, m.ModifyOtherKeys); b != nil {
			return b
		}
	}
	var prefix []byte
	if mod&uv.ModAlt != 0 {
		prefix = []byte{0x1b}
		mod &^= uv.ModAlt
	}
	var body []byte
	switch k.Code {
	case uv.KeyEnter:
		body = []byte{'\r'}
		if mod&uv.ModShift != 0 && m.ModifyOtherKeys == 0 && m.KittyKeyboard == 0 {
			return []byte("\x1b\r") // the agent CLIs' newline; see the top of the file
		}
	case uv.KeyTab:
		if mod&uv.ModShift != 0 {
			body = []byte("\x1b[Z")
		} else {
			body = []byte{'\t'}
		}
	case uv.KeyBackspace:
		if mod&uv.ModCtrl != 0 {
			body = []byte{0x08}
		} else {
			body = []byte{0x7f}
		}
	case uv.KeyEscape:
		body = []byte{0x1b}
	case uv.KeySpace:
		if mod&uv.ModCtrl != 0 {
			body = []byte{0}
		} else {
			body = []byte{' '}
		}
	default:
		if mod&uv.ModCtrl != 0 {
			if c, ok := ctrlByte(k.Code); ok {
				body = []byte{c}
				break
			}
		}
		// A key without a C0 form types itself, Ctrl or not (Ctrl+1 is
		// "1" on an xterm).
		if k.Text != "" {
			body = []byte(k.Text)
		} else if k.Code >= 0x20 && k.Code < uv.KeyExtended && k.Code != 0x7f {
			body = []byte(string(shiftedRune(k, mod)))
		}
	}
	if body == nil {
		return nil
	}
	return append(prefix, body...)
}

// shiftedRune is the character a text key types with mod held: the
// shifted one when Shift is down.
func shiftedRune(k uv.Key, mod uv.KeyMod) rune {
	if mod&uv.ModShift == 0 {
		return k.Code
	}
	if k.ShiftedCode != 0 {
		return k.ShiftedCode
	}
	if r := []rune(k.Text); len(r) == 1 {
		return r[0]
	}
	if k.Code >= 'a' && k.Code <= 'z' {
		return k.Code - 'a' + 'A'
	}
	return k.Code
}

// modifyOtherKey is xterm's modifyOtherKeys encoding, CSI 27 ; mod ; code ~
// (xterm's input.c ModifyOtherKeys with metaSendsEscape), or nil when xterm
// sends the key as usual at that level. code is the character the key types
// (with Shift: "A", "!"), or 13, 9, 27, 127 for Enter, Tab, Esc, Backspace.
//
// Level 1 leaves keys with a well-known meaning alone: Ctrl+letter, Shift
// with a printable key, Backspace, Shift+Tab (CSI Z), Ctrl with a key whose
// Ctrl form is a C0 control (Ctrl+Space, Ctrl+/), and Alt, which stays an
// ESC prefix. Level 2 modifies every modified key but Shift with a
// non-letter printable key, Shift+Tab and Ctrl+Backspace.
func modifyOtherKey(k uv.Key, mod uv.KeyMod, level int) []byte {
	if mod == 0 {
		return nil
	}
	if level == 1 && mod&uv.ModAlt != 0 {
		return nil
	}
	code := rune(-1)
	switch k.Code {
	case uv.KeyEnter:
		code = 13
	case uv.KeyTab:
		if mod != uv.ModShift {
			code = 9
		}
	case uv.KeyBackspace:
		if level == 2 && mod&^uv.ModCtrl != 0 {
			code = 127
		}
	case uv.KeyEscape:
		if level == 2 || mod != uv.ModCtrl && mod != uv.ModShift {
			code = 27
		}
	default:
		if k.Code < 0x20 || k.Code >= uv.KeyExtended || k.Code == 0x7f {
			return nil
		}
		r := shiftedRune(k, mod)
		controlInput := r >= 0x40 && r <= 0x7f // letters and @[\]^_`{|}~
		_, alias := ctrlByte(k.Code)           // Ctrl+it is a C0 control
		switch {
		case level == 2:
			if controlInput || mod != uv.ModShift || r == ' ' {
				code = r
			}
		case controlInput:
			if mod != uv.ModCtrl && mod != uv.ModShift {
				code = r
			}
		case mod&uv.ModCtrl != 0 && !alias:
			code = r
		}
	}
	if code < 0 {
		return nil
	}
	return []byte("\x1b[27;" + strconv.Itoa(xtermMod(mod)) + ";" + strconv.Itoa(int(code)) + "~")
}

// ctrlByte is the C0 control Ctrl+<key> produces on an xterm.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= 'A' && r <= 'Z':
		return byte(r - 'A' + 1), true
	case r == '@' || r == '2' || r == ' ':
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

// The kitty keyboard protocol's flags that change what a key press sends.
const (
	kittyDisambiguate = 1
	kittyEventTypes   = 2
	kittyAlternates   = 4
)

// kittyKey encodes, under the kitty protocol's "disambiguate" flag, the keys
// legacy encoding makes ambiguous: Enter/Tab/Backspace with modifiers, Esc,
// and Ctrl or Alt with a text key, as CSI code[:shifted[:base]] ; mods[:event] u.
// Event types (flag 2) mark a repeat ":2" (releases are not forwarded);
// alternate keys (flag 4) add the shifted key and the PC-101 base key. Other
// keys fall through to legacy (nil), as kitty sends them.
func kittyKey(k uv.Key, mod uv.KeyMod, flags int) []byte {
	code := rune(-1)
	text := false
	switch k.Code {
	case uv.KeyEscape:
		code = 27
	case uv.KeyEnter:
		if mod != 0 {
			code = 13
		}
	case uv.KeyTab:
		if mod != 0 {
			code = 9
		}
	case uv.KeyBackspace:
		if mod != 0 {
			code = 127
		}
	default:
		if mod&(uv.ModCtrl|uv.ModAlt) != 0 && k.Code < uv.KeyExtended && k.Code >= 0x20 {
			code, text = k.Code, true
		}
	}
	if code < 0 {
		return nil
	}
	s := "\x1b[" + strconv.Itoa(int(code))
	if flags&kittyAlternates != 0 && text {
		shifted, base := rune(0), rune(0)
		if mod&uv.ModShift != 0 {
			if r := shiftedRune(k, mod); r != code {
				shifted = r
			}
		}
		if k.BaseCode != 0 && k.BaseCode != code {
			base = k.BaseCode
		}
		if shifted != 0 || base != 0 {
			s += ":"
			if shifted != 0 {
				s += strconv.Itoa(int(shifted))
			}
			if base != 0 {
				s += ":" + strconv.Itoa(int(base))
			}
		}
	}
	repeat := flags&kittyEventTypes != 0 && k.IsRepeat
	if mod != 0 || repeat {
		s += ";" + strconv.Itoa(xtermMod(mod))
	}
	if repeat {
		s += ":2"
	}
	return []byte(s + "u")
}

// EncodePaste wraps text in bracketed-paste markers when the child asked for
// them. Newlines become CR, as a terminal sends them, and an end marker
// inside the text is removed so a paste cannot end itself early.
func EncodePaste(text string, m Modes) []byte {
	text = strings.ReplaceAll(text, "\r\n", "\r")
	text = strings.ReplaceAll(text, "\n", "\r")
	if !m.BracketedPaste {
		return []byte(text)
	}
	text = strings.ReplaceAll(text, ansi.BracketedPasteEnd, "")
	return []byte(ansi.BracketedPasteStart + text + ansi.BracketedPasteEnd)
}
