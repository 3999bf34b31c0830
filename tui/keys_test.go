// keys_test.go checks the xterm byte sequences keys, pastes and mouse events
// become, in each mode the child can set.
package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/panes"
)

func TestEncodeKey(t *testing.T) {
	normal := panes.TermModes{}
	app := panes.TermModes{AppCursor: true, AppKeypad: true}
	kitty := panes.TermModes{KittyKeyboard: 1}
	for _, tc := range []struct {
		name  string
		key   tea.Key
		modes panes.TermModes
		want  string
	}{
		{"letter", tea.Key{Code: 'a', Text: "a"}, normal, "a"},
		{"shifted letter", tea.Key{Code: 'a', ShiftedCode: 'A', Mod: tea.ModShift, Text: "A"}, normal, "A"},
		{"unicode", tea.Key{Code: 'é', Text: "é"}, normal, "é"},
		{"up", tea.Key{Code: tea.KeyUp}, normal, "\x1b[A"},
		{"up, application cursor", tea.Key{Code: tea.KeyUp}, app, "\x1bOA"},
		{"left, application cursor", tea.Key{Code: tea.KeyLeft}, app, "\x1bOD"},
		{"ctrl+right", tea.Key{Code: tea.KeyRight, Mod: tea.ModCtrl}, app, "\x1b[1;5C"},
		{"shift+up", tea.Key{Code: tea.KeyUp, Mod: tea.ModShift}, normal, "\x1b[1;2A"},
		{"home", tea.Key{Code: tea.KeyHome}, normal, "\x1b[H"},
		{"end, application cursor", tea.Key{Code: tea.KeyEnd}, app, "\x1bOF"},
		{"pgup", tea.Key{Code: tea.KeyPgUp}, normal, "\x1b[5~"},
		{"delete", tea.Key{Code: tea.KeyDelete}, normal, "\x1b[3~"},
		{"alt+delete", tea.Key{Code: tea.KeyDelete, Mod: tea.ModAlt}, normal, "\x1b[3;3~"},
		{"f1", tea.Key{Code: tea.KeyF1}, normal, "\x1bOP"},
		{"shift+f1", tea.Key{Code: tea.KeyF1, Mod: tea.ModShift}, normal, "\x1b[1;2P"},
		{"f5", tea.Key{Code: tea.KeyF5}, normal, "\x1b[15~"},
		{"f12", tea.Key{Code: tea.KeyF12}, normal, "\x1b[24~"},
		{"ctrl+c", tea.Key{Code: 'c', Mod: tea.ModCtrl}, normal, "\x03"},
		{"ctrl+a", tea.Key{Code: 'a', Mod: tea.ModCtrl}, normal, "\x01"},
		{"ctrl+space", tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}, normal, "\x00"},
		{"ctrl+\\", tea.Key{Code: '\\', Mod: tea.ModCtrl}, normal, "\x1c"},
		{"ctrl+alt+c", tea.Key{Code: 'c', Mod: tea.ModCtrl | tea.ModAlt}, normal, "\x1b\x03"},
		{"alt+x", tea.Key{Code: 'x', Mod: tea.ModAlt}, normal, "\x1bx"},
		{"alt+X", tea.Key{Code: 'x', Mod: tea.ModAlt | tea.ModShift, Text: "X"}, normal, "\x1bX"},
		{"enter", tea.Key{Code: tea.KeyEnter}, normal, "\r"},
		{"shift+enter, legacy", tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, normal, "\r"},
		{"alt+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModAlt}, normal, "\x1b\r"},
		{"tab", tea.Key{Code: tea.KeyTab}, normal, "\t"},
		{"shift+tab", tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}, normal, "\x1b[Z"},
		{"backspace", tea.Key{Code: tea.KeyBackspace}, normal, "\x7f"},
		{"ctrl+backspace", tea.Key{Code: tea.KeyBackspace, Mod: tea.ModCtrl}, normal, "\x08"},
		{"esc", tea.Key{Code: tea.KeyEscape}, normal, "\x1b"},
		{"space", tea.Key{Code: tea.KeySpace, Text: " "}, normal, " "},
		{"keypad 5", tea.Key{Code: tea.KeyKp5}, normal, "5"},
		{"keypad 5, application keypad", tea.Key{Code: tea.KeyKp5}, app, "\x1bOu"},
		{"keypad enter, application keypad", tea.Key{Code: tea.KeyKpEnter}, app, "\x1bOM"},
		{"shift+enter, kitty", tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, kitty, "\x1b[13;2u"},
		{"enter, kitty", tea.Key{Code: tea.KeyEnter}, kitty, "\r"},
		{"ctrl+i, kitty", tea.Key{Code: 'i', Mod: tea.ModCtrl}, kitty, "\x1b[105;5u"},
		{"esc, kitty", tea.Key{Code: tea.KeyEscape}, kitty, "\x1b[27u"},
		{"a, kitty", tea.Key{Code: 'a', Text: "a"}, kitty, "a"},
		{"up, kitty", tea.Key{Code: tea.KeyUp}, kitty, "\x1b[A"},
		{"lone shift", tea.Key{Code: tea.KeyLeftShift, Mod: tea.ModShift}, normal, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(encodeKey(tc.key, tc.modes)))
		})
	}
}

func TestEncodeKeyFollowsTheChildsModes(t *testing.T) {
	term := panes.NewTerm(80, 24, panes.TermOptions{})
	_, _ = term.Write([]byte("\x1b[?1h\x1b=")) // DECCKM, DECKPAM: what vim and less send
	assert.Equal(t, "\x1bOB", string(encodeKey(tea.Key{Code: tea.KeyDown}, term.Modes())))
	_, _ = term.Write([]byte("\x1b[>1u")) // kitty keyboard: disambiguate
	assert.Equal(t, "\x1b[13;2u", string(encodeKey(tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, term.Modes())))
	_, _ = term.Write([]byte("\x1b[<u\x1b[?1l"))
	assert.Equal(t, "\x1b[B", string(encodeKey(tea.Key{Code: tea.KeyDown}, term.Modes())))
	assert.Equal(t, "\r", string(encodeKey(tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, term.Modes())))
}

func TestEncodePaste(t *testing.T) {
	assert.Equal(t, "a\rb\rc", string(encodePaste("a\nb\r\nc", panes.TermModes{})))
	assert.Equal(t, "\x1b[200~a\rb\x1b[201~", string(encodePaste("a\nb", panes.TermModes{BracketedPaste: true})))
	assert.Equal(t, "\x1b[200~rm -rf x\x1b[201~", string(encodePaste("rm -rf \x1b[201~x", panes.TermModes{BracketedPaste: true})),
		"a paste cannot end the bracket itself")
}

func TestEncodeMouse(t *testing.T) {
	left := tea.Mouse{Button: tea.MouseLeft}
	assert.Nil(t, encodeMouse(mousePress, left, 3, 4, panes.TermModes{}), "no reports unless asked")
	assert.Equal(t, "\x1b[<0;4;5M", string(encodeMouse(mousePress, left, 3, 4, panes.TermModes{Mouse: 1000, MouseSGR: true})))
	assert.Equal(t, "\x1b[<0;4;5m", string(encodeMouse(mouseRelease, left, 3, 4, panes.TermModes{Mouse: 1000, MouseSGR: true})))
	assert.Equal(t, "\x1b[<64;1;1M", string(encodeMouse(mouseWheel, tea.Mouse{Button: tea.MouseWheelUp}, 0, 0, panes.TermModes{Mouse: 1000, MouseSGR: true})))
	assert.Equal(t, "\x1b[M !\"", string(encodeMouse(mousePress, left, 0, 1, panes.TermModes{Mouse: 1000})))
	assert.Equal(t, "\x1b[M#!\"", string(encodeMouse(mouseRelease, left, 0, 1, panes.TermModes{Mouse: 1000})))
	assert.Nil(t, encodeMouse(mouseMotion, left, 0, 1, panes.TermModes{Mouse: 1000}), "1000 reports no motion")
	assert.Equal(t, "\x1b[<32;2;2M", string(encodeMouse(mouseMotion, left, 1, 1, panes.TermModes{Mouse: 1002, MouseSGR: true})))
	assert.Nil(t, encodeMouse(mouseMotion, tea.Mouse{Button: tea.MouseNone}, 1, 1, panes.TermModes{Mouse: 1002, MouseSGR: true}), "1002 reports drags only")
	assert.Equal(t, "\x1b[<35;2;2M", string(encodeMouse(mouseMotion, tea.Mouse{Button: tea.MouseNone}, 1, 1, panes.TermModes{Mouse: 1003, MouseSGR: true})))
}
