package printable

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain name.txt", "plain name.txt"},
		{"héllo wörld ✓", "héllo wörld ✓"},
		{"a\x1b]52;c;aGk=\x07b", `a\e]52;c;aGk=\x07b`},
		{"x\x1b[31my", `x\e[31my`},
		{"line\nnext\ttab", `line\nnext\ttab`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"csi\u009b2J", `csi\u009b2J`},
		// A right-to-left override shows "evil_txt.exe" as "evil_exe.txt".
		{"evil_\u202etxt.exe", `evil_\u202etxt.exe`},
		{"a\u2066b\u2069c\u202ad\u202c", `a\u2066b\u2069c\u202ad\u202c`},
		// Right-to-left letters and the marks show text as it is.
		{"שלום \u200fمرحبا", "שלום \u200fمرحبا"},
	} {
		assert.Equal(t, tc.want, String(tc.in), "%q", tc.in)
	}
}

func TestLinesKeepsNewlines(t *testing.T) {
	assert.Equal(t, "one\ntwo \\e]8;;x\\e\\", Lines("one\ntwo \x1b]8;;x\x1b\\"))
	assert.Equal(t, `a\rb`, Lines("a\rb"))
}
