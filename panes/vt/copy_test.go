// copy_test.go holds unit tests of the copy-mode read side: rows read cell
// by cell, snapshots, Copy for each kind of selection, and Search with
// smart case, regular expressions and matches across a wrap. Copy is
// checked against tmux itself in copy_oracle_test.go.
package vt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRowReadsCells(t *testing.T) {
	tm := New(8, 3, Options{Scrollback: 10})
	feedString(t, tm, "a中e\u0301  \r\nwrapping!\r\n")
	var r Row
	tm.ReadRow(0, &r)
	require.Equal(t, 8, r.Cols())
	assert.Equal(t, []string{"a", "中", "", "e\u0301", " ", " ", " ", " "}, cellsOf(&r))
	assert.True(t, r.Padding(2), "the right half of 中")
	assert.Equal(t, 4, r.Len(), "trailing spaces are not part of the line; 中 takes two cells")
	assert.Equal(t, "a中e\u0301", r.Text())
	assert.False(t, r.Wrapped)
	tm.ReadRow(1, &r)
	assert.True(t, r.Wrapped)
	assert.Equal(t, "wrapping", r.Text())

	// The same line read back from scrollback.
	feedString(t, tm, "\r\n\r\n\r\n")
	require.Equal(t, 4, tm.ScrollbackLen())
	tm.ReadRow(0, &r)
	assert.Equal(t, []string{"a", "中", "", "e\u0301", " ", " ", " ", " "}, cellsOf(&r))
	tm.ReadRow(1, &r)
	assert.True(t, r.Wrapped)
}

func cellsOf(r *Row) []string {
	out := make([]string, r.Cols())
	for x := range out {
		out[x] = r.Cell(x)
	}
	return out
}

func TestSnapshotIsFrozen(t *testing.T) {
	tm := New(10, 2, Options{Scrollback: 5})
	feedString(t, tm, "one\r\ntwo\r\nthree\x1b[31mred\x1b[m")
	snap := tm.Snapshot()
	feedString(t, tm, "\r\nfour\r\nfive\r\nsix\r\nseven\r\neight\r\nnine")
	assert.Equal(t, "one\ntwo\nthreered\n", snap.Text(true), "later output does not reach the snapshot")
	assert.Equal(t, 3, snap.LineCount())
	assert.Contains(t, snap.ANSI(false), "\x1b[31mred", "styles are kept")
	assert.Contains(t, tm.Text(false), "nine")
	x, y, _ := snap.Cursor()
	assert.Equal(t, []int{8, 1}, []int{x, y})
}

func TestCopySelections(t *testing.T) {
	tm := New(10, 6, Options{})
	// Row 0: "hello  " (trailing spaces); rows 1-2: a line wrapped at 10;
	// row 3: wide characters; row 4: empty; row 5: "end".
	feedString(t, tm, "hello  \r\n0123456789abc\r\nx中文y\r\n\r\nend")
	for _, c := range []struct {
		name           string
		anchor, cursor Pos
		kind           SelectionKind
		want           string
	}{
		{"one word", Pos{0, 1}, Pos{0, 3}, SelectChars, "ell"},
		{"backwards is the same", Pos{0, 3}, Pos{0, 1}, SelectChars, "ell"},
		{"to the last character: no newline", Pos{0, 0}, Pos{0, 4}, SelectChars, "hello"},
		{"past the end: trailing spaces dropped, newline kept", Pos{0, 0}, Pos{0, 8}, SelectChars, "hello\n"},
		{"a wrapped line is one line", Pos{1, 0}, Pos{2, 2}, SelectChars, "0123456789abc"},
		{"across lines", Pos{0, 3}, Pos{1, 1}, SelectChars, "lo\n01"},
		{"starting on a right half leaves the character out", Pos{3, 2}, Pos{3, 4}, SelectChars, "文"},
		{"ending on a right half takes the whole character", Pos{3, 0}, Pos{3, 2}, SelectChars, "x中"},
		{"lines", Pos{0, 3}, Pos{0, 3}, SelectLines, "hello\n"},
		{"lines take the whole wrapped line", Pos{2, 1}, Pos{2, 1}, SelectLines, "0123456789abc\n"},
		{"lines, upwards", Pos{3, 1}, Pos{0, 4}, SelectLines, "hello\n0123456789abc\nx中文y\n"},
		{"an empty line is its newline", Pos{4, 0}, Pos{4, 3}, SelectChars, "\n"},
		{"block", Pos{0, 1}, Pos{3, 3}, SelectBlock, "ell\n123\nbc\n中文"},
		{"block, corners swapped", Pos{3, 1}, Pos{0, 3}, SelectBlock, "ell\n123\nbc\n中文"},
		{"block from a right half", Pos{0, 2}, Pos{3, 4}, SelectBlock, "llo\n234\nc\n文"},
		{"block of one column past the text", Pos{0, 8}, Pos{2, 8}, SelectBlock, "\n8\n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tm.Copy(c.anchor, c.cursor, c.kind))
		})
	}
	first, last := tm.LineBounds(2)
	assert.Equal(t, []int{1, 2}, []int{first, last}, "rows 1 and 2 are one line")
}

func TestCopyFromScrollback(t *testing.T) {
	tm := New(6, 2, Options{Scrollback: 100})
	feedString(t, tm, "alpha\r\nbeta gamma\r\ndelta\r\n")
	require.Equal(t, 3, tm.ScrollbackLen())
	assert.Equal(t, "alpha\nbeta gamma\ndelta\n", tm.Copy(Pos{0, 0}, Pos{3, 0}, SelectLines))
}

func TestQuerySmartCaseAndSyntax(t *testing.T) {
	for _, c := range []struct {
		text       string
		regex      bool
		ignoreCase bool
		err        string
	}{
		{"failed", false, true, ""},
		{"FAILED", false, false, ""},
		{"(x", false, true, ""},
		{"fail(ed)?", true, true, ""},
		{`\S+ed`, true, true, ""},
		{`Fail\S+`, true, false, ""},
		{"(x", true, true, "not a regular expression: error parsing regexp: missing closing ): `(x`"},
		{"", false, true, "the query is empty"},
	} {
		q, err := NewQuery(c.text, c.regex)
		if c.err != "" {
			assert.EqualError(t, err, c.err, c.text)
			continue
		}
		require.NoError(t, err, c.text)
		assert.Equal(t, c.ignoreCase, q.IgnoresCase(), c.text)
		assert.Equal(t, c.regex, q.Regex())
		assert.Equal(t, c.text, q.String())
	}
}

// found lists a search's matches as "line:col-line:col text".
func found(t *testing.T, tm *Terminal, text string, regex bool) []string {
	t.Helper()
	q, err := NewQuery(text, regex)
	require.NoError(t, err)
	var out []string
	tm.Search(q, func(m *Match) bool {
		out = append(out, strings.Join([]string{
			itoa(m.Start.Line) + ":" + itoa(m.Start.Col) + "-" + itoa(m.End.Line) + ":" + itoa(m.End.Col),
			string(m.Text[m.From:m.To]),
		}, " "))
		return true
	})
	return out
}

// itoa is n in two digits.
func itoa(n int) string { return string(rune('0'+n/10%10)) + string(rune('0'+n%10)) }

func TestSearchFindsCells(t *testing.T) {
	tm := New(10, 4, Options{Scrollback: 50})
	feedString(t, tm, "Test FAILED\r\n中 failed\r\nok ok\r\nthe end")
	assert.Equal(t, []string{"00:05-01:01 FAILED", "02:03-02:09 failed"}, found(t, tm, "failed", false),
		"smart case: lower case finds both; the first is cut by the wrap and found across it")
	assert.Equal(t, []string{"00:05-01:01 FAILED"}, found(t, tm, "FAILED", false))
	assert.Equal(t, []string{"02:00-02:02 中"}, found(t, tm, "中", false))
	assert.Equal(t, []string{"03:00-03:02 ok", "03:03-03:05 ok"}, found(t, tm, "ok", false), "every match on a line")
	assert.Equal(t, []string{"00:00-00:04 Test", "03:00-03:02 ok", "04:00-04:03 the"}, found(t, tm, `^\w+`, true), "^ is the start of a line (\\w is ASCII: not 中)")
	assert.Empty(t, found(t, tm, "x*", true), "empty matches are not reported")
	assert.Equal(t, []string{"00:05-01:01 FAILED", "02:03-02:09 failed"}, found(t, tm, "fail(ed)?", true))
	assert.Equal(t, []string{"00:05-01:01 FAILED"}, found(t, tm, `FAIL\w+`, true), "an upper-case letter makes case matter")

	café := New(20, 2, Options{})
	feedString(t, café, "CAFÉ Café café")
	assert.Equal(t, []string{"00:00-00:04 CAFÉ", "00:05-00:09 Café", "00:10-00:14 café"}, found(t, café, "café", false),
		"smart case folds letters beyond ASCII too")
	assert.Equal(t, []string{"00:00-00:04 CAFÉ", "00:05-00:09 Café", "00:10-00:14 café"}, found(t, café, "caf.", true))

	// Older lines in scrollback are searched too, and stopping works.
	feedString(t, tm, "\r\n\r\n\r\n\r\n\r\nnew")
	require.Positive(t, tm.ScrollbackLen())
	q, _ := NewQuery("ok", false)
	n := 0
	tm.Search(q, func(*Match) bool { n++; return false })
	assert.Equal(t, 1, n, "fn returning false stops the search")
}

// Scrollback keeps the main screen's width while the alternate screen is
// up (it is reflowed when the main screen comes back): a narrower screen
// shows those lines cut, and a match in the part cut off has no cells. It
// is not reported (FuzzTerm found one reported with its start at its end,
// on codex's recorded stream).
func TestSearchSkipsMatchesCutOffTheScreen(t *testing.T) {
	tm := New(40, 3, Options{Scrollback: 50})
	feedString(t, tm, "left part ........................ zzz right part\r\n\r\n\r\n\r\n")
	feedString(t, tm, "\x1b[?1049h")
	tm.Resize(20, 3)
	q, _ := NewQuery("z", false)
	n := 0
	tm.Search(q, func(m *Match) bool {
		n++
		assert.True(t, m.Start.Before(m.End), "a reported match has cells: %+v", m)
		return true
	})
	assert.Zero(t, n, "the zzz is past the 20 columns shown")
}
