// noforward_test.go checks that a pane interprets what its child writes and
// forwards none of it: after each sequence that would act on the outer
// terminal (a clipboard write, a hyperlink, tmux passthrough, an image, a
// query), what the UI draws a pane from (Window with ANSI) and what replay
// prints (ANSI, Text) hold SGR and text only, and none of its payload.
// See docs/design.md, "Nothing raw reaches a terminal".
package vt

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// onlySGR matches what may follow an ESC in what Terminal renders.
var onlySGR = regexp.MustCompile(`^\x1b\[[0-9;:]*m`)

func TestPaneNeverForwardsAChildsSequences(t *testing.T) {
	for _, tc := range []struct {
		name, seq string
		payload   string // what must not show, as text or otherwise
		shown     string // what the sequence wraps that shows as text
	}{
		{"OSC 52 clipboard write, BEL", "\x1b]52;c;aGk=\x07", "aGk=", ""},
		{"OSC 52 clipboard write, ST", "\x1b]52;c;aGk=\x1b\\", "aGk=", ""},
		// As in tmux, a raw C1 byte is not UTF-8 and begins no sequence:
		// what follows it prints as text, acting on nothing.
		{"OSC 52 clipboard write, C1", "\x9d52;c;aGk=\x9c", "", "52;c;aGk="},
		{"OSC 8 hyperlink", "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\", "evil.example", "link"},
		{"DCS tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\", "aGk=", ""},
		{"DCS passthrough, C1", "\x90tmux;\x1b\x1b]52;c;aGk=\x07\x9c", "aGk=", ""},
		{"APC kitty graphics", "\x1b_Gf=100,a=T;iVBORw0KGgo=\x1b\\", "iVBOR", ""},
		{"APC kitty graphics, C1", "\x9fGf=100,a=T;iVBORw0KGgo=\x9c", "", "Gf=100,a=T;iVBORw0KGgo="},
		{"OSC 52 as UTF-8 C1", "\u009d52;c;aGk=\u009c", "", "52;c;aGk="},
		{"OSC 1337 iTerm2 file", "\x1b]1337;File=inline=1:aGk=\x07", "aGk=", ""},
		{"OSC 1337 iTerm2 file, ST", "\x1b]1337;SetUserVar=x=aGk=\x1b\\", "aGk=", ""},
		{"DECRQSS", "\x1bP$qm\x1b\\", "$q", ""},
		{"XTGETTCAP", "\x1bP+q544e\x1b\\", "544e", ""},
		{"SOS and PM", "\x1bXsos-data\x1b\\\x1b^pm-data\x1b\\", "-data", ""},
		{"CSI 21t title report", "\x1b[21t", "", ""},
		{"OSC 9 notification", "\x1b]9;you are owned\x07", "owned", ""},
		{"OSC 777 notification", "\x1b]777;notify;t;owned\x07", "owned", ""},
		{"OSC 99 kitty notification", "\x1b]99;i=1:d=0;you are\x1b\\\x1b]99;i=1:p=body;owned\x1b\\", "owned", ""},
		{"OSC 99 base64", "\x1b]99;e=1;b3duZWQ=\x1b\\", "b3duZWQ", ""},
		{"OSC 9;4 progress", "\x1b]9;4;1;50\x07", "4;1;50", ""},
		{"OSC 7501 agent state", "\x1b]7501;state=blocked:app=owned:kind=permission\x07", "owned", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var replies []string
			tm := New(60, 4, Options{OnReply: func(b []byte) { replies = append(replies, string(b)) }})
			feedString(t, tm, "\x1b[31mbefore\x1b[0m "+tc.seq+" after\r\n")
			for what, out := range map[string]string{
				"Window":  strings.Join(tm.Window(0, true), "\n"),
				"ANSI":    tm.ANSI(true),
				"Text":    tm.Text(true),
				"Window0": strings.Join(tm.Window(0, false), "\n"),
			} {
				assertNothingForwarded(t, what, out)
				if tc.payload != "" {
					assert.NotContains(t, out, tc.payload, "%s shows the sequence's payload", what)
				}
				assert.Contains(t, out, "before", what)
				assert.Contains(t, out, tc.shown+" after", what)
			}
			assert.Contains(t, strings.Join(tm.Window(0, true), ""), "\x1b[31mbefore", "the colours are kept")
			// A reply goes to the child, never to the outer terminal;
			// even so it never echoes a payload.
			for _, r := range replies {
				if tc.payload != "" {
					assert.NotContains(t, r, tc.payload, "a reply")
				}
			}
		})
	}
}

// assertNothingForwarded fails when out holds a control character other
// than newline, or an ESC that does not begin an SGR sequence.
func assertNothingForwarded(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		switch {
		case r == '\n':
		case r == 0x1b:
			if !onlySGR.MatchString(out[i:]) {
				assert.Failf(t, "a sequence reaches the outer terminal", "%s at %d: %q", what, i, out[i:min(len(out), i+16)])
				return
			}
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			assert.Failf(t, "a control character reaches the outer terminal", "%s at %d: %U in %q", what, i, r, out)
			return
		}
	}
}
