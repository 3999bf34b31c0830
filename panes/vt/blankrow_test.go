// blankrow_test.go checks the shared blank row (grid.go's blankRow): an
// empty screen's rows share it, a row gets cells of its own on its first
// write and only then, and nothing ever writes into it (TestMain checks
// that after every test of the package, the tmux oracles and the fuzz
// seeds included).
package vt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blankRowDirty says where blankRow was written, "" when it is blank.
func blankRowDirty() string {
	for i, c := range blankRow {
		if c != (gridCell{}) {
			return fmt.Sprintf("blankRow[%d] = %+v: a write reached the shared blank row", i, c)
		}
	}
	return ""
}

// topRows is the text of the screen's first n rows, trailing blanks
// trimmed.
func topRows(tm *Terminal, n int) string {
	w := tm.Window(tm.ScrollbackLen(), false)[:n]
	for i := range w {
		w[i] = strings.TrimRight(w[i], " ")
	}
	return strings.Join(w, "\n")
}

func sharedRows(tm *Terminal) []int {
	var ys []int
	for y := range tm.scr.lines {
		if tm.scr.lines[y].shared() {
			ys = append(ys, y)
		}
	}
	return ys
}

func TestBlankRowSharedUntilWritten(t *testing.T) {
	all := func(n int) []int {
		ys := make([]int, n)
		for i := range ys {
			ys[i] = i
		}
		return ys
	}
	without := func(ys []int, drop ...int) []int {
		var out []int
		for _, y := range ys {
			keep := true
			for _, d := range drop {
				keep = keep && y != d
			}
			if keep {
				out = append(out, y)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		input  string
		shared []int
		screen string // Text of row 0..2
	}{
		{"empty", "", all(5), "\n\n"},
		{"a line", "hi", without(all(5), 0), "hi\n\n"},
		{"two lines", "a\r\nb\r\n\x1b[3;2Hc", without(all(5), 0, 1, 2), "a\nb\n c"},
		{"default erase keeps it", "\x1b[2J\x1b[K\x1b[1J\x1b[3;1H\x1b[2K", all(5), "\n\n"},
		{"coloured erase owns it", "\x1b[44m\x1b[2;1H\x1b[2K", without(all(5), 1), "\n\n"},
		{"coloured clear owns all", "\x1b[44m\x1b[2J", nil, "\n\n"},
		{"insert and delete", "\x1b[2;1H\x1b[3@\x1b[3;1H\x1b[2P", without(all(5), 1, 2), "\n\n"},
		{"scrolling keeps blank rows", "\x1b[5;1H\n\n\n", all(5), "\n\n"},
		{"DECALN owns all", "\x1b#8", nil, "EEEEEEEEEE\nEEEEEEEEEE\nEEEEEEEEEE"},
		{"combining mark on a blank", "\x1b[2;3H\u0301", without(all(5), 1), "\n  \u0301\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := New(10, 5, Options{})
			_, _ = tm.Write([]byte(tt.input))
			assert.Equal(t, tt.shared, sharedRows(tm))
			assert.Equal(t, tt.screen, topRows(tm, 3))
			require.Empty(t, blankRowDirty())
		})
	}
}

func TestBlankRowSurvivesResizes(t *testing.T) {
	tm := New(80, 24, Options{Scrollback: 100})
	_, _ = tm.Write([]byte("top\r\n\x1b[?1049hALT\x1b[5;5H\x1b[2K"))
	for _, size := range [][2]int{{40, 24}, {120, 50}, {20, 10}, {80, 24}} {
		tm.Resize(size[0], size[1])
	}
	_, _ = tm.Write([]byte("\x1b[?1049l"))
	tm.Resize(100, 30)
	assert.Equal(t, "top", topRows(tm, 1))
	// Resized and reflowed, rows nothing wrote stay shared.
	assert.Len(t, sharedRows(tm), 29)
	require.Empty(t, blankRowDirty())
}

// TestBlankRowUntouchedByCorpus feeds every recorded stream (real programs,
// agent CLIs, the fuzz seeds) with resizes between chunks.
func TestBlankRowUntouchedByCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/term/*.bin")
	require.NoError(t, err)
	seeds, err := filepath.Glob("testdata/fuzz/FuzzTerm/*")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for i, f := range append(files, seeds...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		tm := New(60+i%50, 20+i%15, Options{Scrollback: 200})
		for len(data) > 0 {
			n := min(len(data), 3000)
			_, _ = tm.Write(data[:n])
			data = data[n:]
			tm.Resize(40+len(data)%90, 10+len(data)%30)
		}
		require.Empty(t, blankRowDirty(), f)
	}
	_, _ = New(80, 24, Options{}).Write(genColouredLogs(1 << 20))
	_, _ = New(120, 40, Options{}).Write(genFullScreen(1 << 20))
	require.Empty(t, blankRowDirty())
}
