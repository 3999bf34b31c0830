// search_test.go checks search in a pane: a golden screen of the matches
// painted (the current one distinct) and `match k of n`, n and N stepping
// and wrapping round, smart case, the regular-expression toggle and its
// errors, and a search that finds nothing.
package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// searchScene is one pane at 70×12 whose screen says FAILED in three
// lines (once cut by the pane's edge), failed in one, FAIL in another.
func searchScene(t *testing.T) *Model {
	t.Helper()
	f := fakeRun(t, 1, 70, 12)
	h := f.handles["claude-implementer"]
	cols, rows := h.term.Size()
	h.term = vt.New(cols, rows, vt.Options{})
	_, _ = h.term.Write([]byte("=== RUN TestParse\r\n" +
		"--- FAILED: TestParse (0.01s) FAILED\r\n" +
		"ok   pkg/a\r\n" +
		"\x1b[1mtest failed\x1b[m: see above\r\n" +
		"a line long enough to reach the edge of the pane, then it says   FAILED\r\n" +
		"FAIL\r\n"))
	return newModel(t, f, 70, 12)
}

// typeQuery opens the prompt with key, types q and presses Enter.
func typeQuery(m *Model, key, q string) {
	press(m, key)
	for _, r := range q {
		press(m, string(r))
	}
	press(m, "enter")
}

func TestGoldenSearchHighlights(t *testing.T) {
	m := searchScene(t)
	typeQuery(m, "/", "failed")
	require.Equal(t, modeCopy, m.mode)
	assert.Contains(t, m.note, `"failed" (any case): match 4 of 4`, "from the live screen the newest match comes first")
	assert.Equal(t, vt.Pos{Line: 4, Col: 65}, m.copy.cur, "the newest is cut by the pane's edge, and found")
	requireGoldenANSI(t, m)
	assert.Contains(t, ansi.Strip(m.Render()), "COPY 5/9 · match 4 of 4")

	press(m, "n")
	assert.Contains(t, m.note, "match 3 of 4")
	assert.Equal(t, vt.Pos{Line: 3, Col: 5}, m.copy.cur, "the cursor is on the match")
	press(m, "n", "n")
	assert.Contains(t, m.note, "match 1 of 4")
	press(m, "n")
	assert.Contains(t, m.note, "match 4 of 4 · wrapped round to the newest")
	press(m, "N")
	assert.Contains(t, m.note, "match 1 of 4 · wrapped round to the oldest")
	press(m, "N")
	assert.Contains(t, m.note, "match 2 of 4")
}

func TestSearchSmartCaseAndRegex(t *testing.T) {
	m := searchScene(t)
	typeQuery(m, "/", "FAILED")
	assert.Contains(t, m.note, `"FAILED": match 3 of 3`, "an upper-case letter: case matters")
	press(m, "esc")

	press(m, "/", "ctrl+r")
	assert.Equal(t, "regex /", m.searchInput.Prompt)
	for _, r := range "fail(ed)?\\b" {
		press(m, string(r))
	}
	press(m, "enter")
	assert.Contains(t, m.note, `regex "fail(ed)?\\b" (any case): match 5 of 5`)
	assert.True(t, m.searchRegex, "the toggle stays for the next search")
	press(m, "esc")

	typeQuery(m, "/", "(")
	assert.Equal(t, modeNormal, m.mode)
	assert.Contains(t, m.note, "not a regular expression: error parsing regexp: missing closing ): `(`; Ctrl-R in the prompt turns regular expressions off")

	press(m, "/", "ctrl+r")
	assert.Equal(t, "/", m.searchInput.Prompt)
	press(m, "esc")
	assert.Equal(t, modeNormal, m.mode, "Esc closes the prompt")
}

func TestSearchWithoutMatchStaysLive(t *testing.T) {
	m := searchScene(t)
	typeQuery(m, "/", "panic")
	assert.Equal(t, modeNormal, m.mode)
	assert.Nil(t, m.copy)
	assert.Contains(t, m.note, `"panic" (any case): no match in claude-implementer`)
	assert.True(t, m.focused().live())
}

func TestNAndNOutsideCopyModeSearchAgain(t *testing.T) {
	m := searchScene(t)
	press(m, "n")
	assert.Contains(t, m.note, "no search yet: / starts one")
	typeQuery(m, "/", "failed")
	press(m, "esc")
	require.Equal(t, modeNormal, m.mode)
	press(m, "N")
	require.Equal(t, modeCopy, m.mode)
	assert.Contains(t, m.note, "match 1 of 4", "N from the live screen: the oldest")
	press(m, "esc", "n")
	assert.Contains(t, m.note, "match 4 of 4")
}
