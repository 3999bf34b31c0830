// colours_test.go checks ColoursOnly on each kind of sequence a hostile
// log may hold, whole and split at every byte between two writes.
package printable

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile are the sequences `rostra logs` must never pass to a terminal.
var hostile = map[string]string{
	"OSC 52 clipboard, BEL":      "\x1b]52;c;aGVsbG8=\x07",
	"OSC 52 clipboard, ST":       "\x1b]52;c;aGVsbG8=\x1b\\",
	"OSC 8 hyperlink":            "\x1b]8;;https://evil.example/\x1b\\",
	"DCS tmux passthrough":       "\x1bPtmux;\x1b\x1b]52;c;aGVsbG8=\x07\x1b\\",
	"APC kitty graphics":         "\x1b_Gf=100,a=T;iVBORw0KGgo=\x1b\\",
	"OSC 1337 iTerm2 file":       "\x1b]1337;File=inline=1:aGVsbG8=\x07",
	"DECRQSS":                    "\x1bP$qm\x1b\\",
	"CSI 21t title report":       "\x1b[21t",
	"cursor movement":            "\x1b[2A\x1b[10;5H\x1b[K",
	"OSC 0 title":                "\x1b]0;owned\x07",
	"C1 OSC 52":                  "\x9d52;c;aGVsbG8=\x9c",
	"xterm key modifiers CSI >m": "\x1b[>4;2m",
	"RIS":                        "\x1bc",
	"BEL":                        "\x07",
	"SO to G1":                   "\x0e",
}

func filtered(t *testing.T, chunks ...string) string {
	t.Helper()
	var out bytes.Buffer
	w := ColoursOnly(&out)
	for _, c := range chunks {
		n, err := w.Write([]byte(c))
		require.NoError(t, err)
		require.Equal(t, len(c), n)
	}
	return out.String()
}

func TestColoursOnlyDropsEverySequenceButSGR(t *testing.T) {
	for name, seq := range hostile {
		in := "before " + seq + "\x1b[1;31mred\x1b[0m after\r\n"
		want := "before \x1b[1;31mred\x1b[0m after\r\n"
		assert.Equal(t, want, filtered(t, in), name)
		for i := 1; i < len(in); i++ {
			assert.Equal(t, want, filtered(t, in[:i], in[i:]), "%s split at %d", name, i)
		}
	}
}

func TestColoursOnlyKeepsTextAndColours(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain ✓ héllo\ttab\bx\n", "plain ✓ héllo\ttab\bx\n"},
		{"\x1b[m\x1b[38;5;208mo\x1b[38:2::255:0:0mt\x1b[;1m", "\x1b[m\x1b[38;5;208mo\x1b[38:2::255:0:0mt\x1b[;1m"},
		{"\x9b32mgreen", "\x1b[32mgreen"},
		{"utf-8 c1 \u009b\u0085.", "utf-8 c1 ."},
		{"\xc3A\xe2\x9c", "\ufffd"},
		{"bad \xff utf-8", "bad  utf-8"},
		{"unterminated \x1b]52;c;aGVsbG8=", "unterminated "},
		{"\x1b]0;✳ Claude Code\x07title ✳ kept", "title ✳ kept"},
		{"\x1bPtmux;\x1b\x1b]0;“quoted”\x07\x1b\\after", "after"},
	} {
		assert.Equal(t, tc.want, filtered(t, tc.in), "%q", tc.in)
	}
}

func TestColoursOnlyDropsALargeImageWithoutKeepingIt(t *testing.T) {
	img := "\x1b_Gf=100;" + strings.Repeat("A", 4<<20) + "\x1b\\"
	assert.Equal(t, "ab", filtered(t, "a"+img+"b"))
}

// BenchmarkColoursOnly filters an agent's typical output: coloured text,
// a title, some cursor movement.
func BenchmarkColoursOnly(b *testing.B) {
	chunk := []byte(strings.Repeat("\x1b[1;32m✓\x1b[0m test passed in 0.3s, output ✳ ok\r\n\x1b]0;✳ agent\x07\x1b[2K\x1b[1A", 400))
	w := ColoursOnly(io.Discard)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		_, _ = w.Write(chunk)
	}
}
