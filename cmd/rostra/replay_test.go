// replay_test.go checks `rostra replay` end to end on corpus streams and on
// bad input.
package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplayPrintsFinalScreen(t *testing.T) {
	log := filepath.Join(t.TempDir(), "output.log")
	stream := "first\r\n\x1b[31mred\x1b[m text   \r\n"
	for i := range 5 {
		stream += "line " + string(rune('a'+i)) + "\r\n"
	}
	require.NoError(t, os.WriteFile(log, []byte(stream), 0o644))

	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay([]string{"--size", "20x4", log}, &out, &errOut), errOut.String())
	assert.Equal(t, "line c\nline d\nline e\n\n", out.String())

	out.Reset()
	require.Equal(t, 0, runReplay([]string{"--size=20x4", "--scrollback", log}, &out, &errOut))
	assert.Equal(t, "first\nred text\nline a\nline b\nline c\nline d\nline e\n\n", out.String())

	out.Reset()
	require.Equal(t, 0, runReplay([]string{"--size", "20x10", "--ansi", log}, &out, &errOut))
	assert.True(t, strings.HasPrefix(out.String(), "first\n\x1b[31mred\x1b[m text\n"), "%q", out.String())
}

func TestReplayRealProgram(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runReplay([]string{"--size", "80x24", "../../panes/vt/testdata/term/vim-scroll@80x24.bin"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	lines := strings.Split(out.String(), "\n")
	require.Len(t, lines, 25) // 24 rows and the final newline
	assert.Contains(t, out.String(), "line number 42")
}

func TestReplayBadInput(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"a", "b"},
		{"--size", "120", "x.log"},
		{"--size", "0x10", "x.log"},
		{"--size", "axb", "x.log"},
		{"--bogus", "x.log"},
		{filepath.Join(t.TempDir(), "missing.log")},
	} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, runReplay(args, &out, &errOut), "args %q", args)
		assert.NotEmpty(t, errOut.String(), "args %q", args)
		assert.Empty(t, out.String())
	}
}
