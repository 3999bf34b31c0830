// key_test.go checks the xterm byte sequences keys, pastes and mouse events
// become, in each mode the child can set.
package vt

import (
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/stretchr/testify/assert"
)

func TestEncodeKey(t *testing.T) {
	normal := Modes{}
	app := Modes{AppCursor: true, AppKeypad: true}
	kitty := Modes{KittyKeyboard: 1}
	for _, tc := range []struct {
		name  string
		key   uv.Key
		modes Modes
		want  string
	}{
		{"letter", uv.Key{Code: 'a', Text: "a"}, normal, "a"},
		{"shifted letter", uv.Key{Code: 'a', ShiftedCode: 'A', Mod: uv.ModShift, Text: "A"}, normal, "A"},
		{"unicode", uv.Key{Code: 'é', Text: "é"}, normal, "é"},
		{"up", uv.Key{Code: uv.KeyUp}, normal, "\x1b[A"},
		{"up, application cursor", uv.Key{Code: uv.KeyUp}, app, "\x1bOA"},
		{"left, application cursor", uv.Key{Code: uv.KeyLeft}, app, "\x1bOD"},
		{"ctrl+right", uv.Key{Code: uv.KeyRight, Mod: uv.ModCtrl}, app, "\x1b[1;5C"},
		{"shift+up", uv.Key{Code: uv.KeyUp, Mod: uv.ModShift}, normal, "\x1b[1;2A"},
		{"home", uv.Key{Code: uv.KeyHome}, normal, "\x1b[H"},
		{"end, application cursor", uv.Key{Code: uv.KeyEnd}, app, "\x1bOF"},
		{"pgup", uv.Key{Code: uv.KeyPgUp}, normal, "\x1b[5~"},
		{"delete", uv.Key{Code: uv.KeyDelete}, normal, "\x1b[3~"},
		{"alt+delete", uv.Key{Code: uv.KeyDelete, Mod: uv.ModAlt}, normal, "\x1b[3;3~"},
		{"f1", uv.Key{Code: uv.KeyF1}, normal, "\x1bOP"},
		{"shift+f1", uv.Key{Code: uv.KeyF1, Mod: uv.ModShift}, normal, "\x1b[1;2P"},
		{"f5", uv.Key{Code: uv.KeyF5}, normal, "\x1b[15~"},
		{"f12", uv.Key{Code: uv.KeyF12}, normal, "\x1b[24~"},
		{"ctrl+c", uv.Key{Code: 'c', Mod: uv.ModCtrl}, normal, "\x03"},
		{"ctrl+a", uv.Key{Code: 'a', Mod: uv.ModCtrl}, normal, "\x01"},
		{"ctrl+space", uv.Key{Code: uv.KeySpace, Mod: uv.ModCtrl}, normal, "\x00"},
		{"ctrl+\\", uv.Key{Code: '\\', Mod: uv.ModCtrl}, normal, "\x1c"},
		{"ctrl+alt+c", uv.Key{Code: 'c', Mod: uv.ModCtrl | uv.ModAlt}, normal, "\x1b\x03"},
		{"alt+x", uv.Key{Code: 'x', Mod: uv.ModAlt}, normal, "\x1bx"},
		{"alt+X", uv.Key{Code: 'x', Mod: uv.ModAlt | uv.ModShift, Text: "X"}, normal, "\x1bX"},
		{"enter", uv.Key{Code: uv.KeyEnter}, normal, "\r"},
		{"shift+enter, legacy: the agent CLIs' newline", uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, normal, "\x1b\r"},
		{"alt+enter", uv.Key{Code: uv.KeyEnter, Mod: uv.ModAlt}, normal, "\x1b\r"},
		{"tab", uv.Key{Code: uv.KeyTab}, normal, "\t"},
		{"shift+tab", uv.Key{Code: uv.KeyTab, Mod: uv.ModShift}, normal, "\x1b[Z"},
		{"backspace", uv.Key{Code: uv.KeyBackspace}, normal, "\x7f"},
		{"ctrl+backspace", uv.Key{Code: uv.KeyBackspace, Mod: uv.ModCtrl}, normal, "\x08"},
		{"esc", uv.Key{Code: uv.KeyEscape}, normal, "\x1b"},
		{"space", uv.Key{Code: uv.KeySpace, Text: " "}, normal, " "},
		{"keypad 5", uv.Key{Code: uv.KeyKp5}, normal, "5"},
		{"keypad 5, application keypad", uv.Key{Code: uv.KeyKp5}, app, "\x1bOu"},
		{"keypad enter, application keypad", uv.Key{Code: uv.KeyKpEnter}, app, "\x1bOM"},
		{"shift+enter, kitty", uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, kitty, "\x1b[13;2u"},
		{"enter, kitty", uv.Key{Code: uv.KeyEnter}, kitty, "\r"},
		{"ctrl+i, kitty", uv.Key{Code: 'i', Mod: uv.ModCtrl}, kitty, "\x1b[105;5u"},
		{"esc, kitty", uv.Key{Code: uv.KeyEscape}, kitty, "\x1b[27u"},
		{"a, kitty", uv.Key{Code: 'a', Text: "a"}, kitty, "a"},
		{"up, kitty", uv.Key{Code: uv.KeyUp}, kitty, "\x1b[A"},
		{"lone shift", uv.Key{Code: uv.KeyLeftShift, Mod: uv.ModShift}, normal, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(EncodeKey(tc.key, tc.modes)))
		})
	}
}

func TestEncodeKeyFollowsTheChildsModes(t *testing.T) {
	term := New(80, 24, Options{})
	_, _ = term.Write([]byte("\x1b[?1h\x1b=")) // DECCKM, DECKPAM: what vim and less send
	assert.Equal(t, "\x1bOB", string(EncodeKey(uv.Key{Code: uv.KeyDown}, term.Modes())))
	_, _ = term.Write([]byte("\x1b[>1u")) // kitty keyboard: disambiguate
	assert.Equal(t, "\x1b[13;2u", string(EncodeKey(uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, term.Modes())))
	_, _ = term.Write([]byte("\x1b[<u\x1b[?1l"))
	assert.Equal(t, "\x1b[B", string(EncodeKey(uv.Key{Code: uv.KeyDown}, term.Modes())))
	assert.Equal(t, "\x1b\r", string(EncodeKey(uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, term.Modes())))
	_, _ = term.Write([]byte("\x1b[>4;2m")) // xterm's modifyOtherKeys
	assert.Equal(t, "\x1b[27;2;13~", string(EncodeKey(uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, term.Modes())))
}

func TestEncodePaste(t *testing.T) {
	assert.Equal(t, "a\rb\rc", string(EncodePaste("a\nb\r\nc", Modes{})))
	assert.Equal(t, "\x1b[200~a\rb\x1b[201~", string(EncodePaste("a\nb", Modes{BracketedPaste: true})))
	assert.Equal(t, "\x1b[200~rm -rf x\x1b[201~", string(EncodePaste("rm -rf \x1b[201~x", Modes{BracketedPaste: true})),
		"a paste cannot end the bracket itself")
}

func TestEncodeMouse(t *testing.T) {
	left := uv.Mouse{Button: uv.MouseLeft}
	assert.Nil(t, EncodeMouse(MousePress, left, 3, 4, Modes{}), "no reports unless asked")
	assert.Equal(t, "\x1b[<0;4;5M", string(EncodeMouse(MousePress, left, 3, 4, Modes{Mouse: 1000, MouseSGR: true})))
	assert.Equal(t, "\x1b[<0;4;5m", string(EncodeMouse(MouseRelease, left, 3, 4, Modes{Mouse: 1000, MouseSGR: true})))
	assert.Equal(t, "\x1b[<64;1;1M", string(EncodeMouse(MouseWheel, uv.Mouse{Button: uv.MouseWheelUp}, 0, 0, Modes{Mouse: 1000, MouseSGR: true})))
	assert.Equal(t, "\x1b[M !\"", string(EncodeMouse(MousePress, left, 0, 1, Modes{Mouse: 1000})))
	assert.Equal(t, "\x1b[M#!\"", string(EncodeMouse(MouseRelease, left, 0, 1, Modes{Mouse: 1000})))
	assert.Nil(t, EncodeMouse(MouseMotion, left, 0, 1, Modes{Mouse: 1000}), "1000 reports no motion")
	assert.Equal(t, "\x1b[<32;2;2M", string(EncodeMouse(MouseMotion, left, 1, 1, Modes{Mouse: 1002, MouseSGR: true})))
	assert.Nil(t, EncodeMouse(MouseMotion, uv.Mouse{Button: uv.MouseNone}, 1, 1, Modes{Mouse: 1002, MouseSGR: true}), "1002 reports drags only")
	assert.Equal(t, "\x1b[<35;2;2M", string(EncodeMouse(MouseMotion, uv.Mouse{Button: uv.MouseNone}, 1, 1, Modes{Mouse: 1003, MouseSGR: true})))
}
