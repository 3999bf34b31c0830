// findall_test.go checks the search across every pane: the list's golden
// screen (grouped by worker, `worker · attempt · line · text`, an earlier
// attempt's log marked), Enter opening the pane's attempt in copy mode on
// the match, a stale answer dropped, a search that finds nothing, and the
// benchmark: 16 panes × 10,000 lines (target ≤ 50 ms).
package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/statedir"
)

// findScene is three workers at 120×24; codex-tester is on its second
// attempt, its first one's output.log on disk. Each says FAILED somewhere.
func findScene(t *testing.T) (*Model, *fakeEngine) {
	t.Helper()
	f := fakeRun(t, 3, 120, 24)
	write := func(id, s string) {
		_, _ = f.handles[id].term.Write([]byte(s))
	}
	write("claude-implementer", "running tests\r\n--- FAILED: TestParse\r\nok pkg/a\r\n")
	write("codex-tester", "retrying after attempt 1\r\nall green now\r\n")
	write("gemini-reviewer", "review: FAILED to build\r\nreview: the diff looks fine\r\nsummary: 1 FAILED check\r\n")

	log := filepath.Join(t.TempDir(), "output.log")
	require.NoError(t, os.WriteFile(log, []byte("$ codex --task\r\n\x1b[31mTestLexer FAILED\x1b[m: want 3 tokens\r\nexit 1\r\n"), 0o644))
	ended := testNow.Add(-30 * time.Second)
	f.mu.Lock()
	first := f.st.Dispatches[1]
	first.Status, first.Reason, first.EndedAt, first.OutputLogPath = statedir.StatusError, "exited with code 1", &ended, log
	second := f.st.Dispatches[1]
	second.Attempt, second.DispatchID, second.StartedAt = 2, "codex-tester#2", ended.Add(time.Second)
	f.st.Dispatches[1] = first
	f.st.Dispatches = append(f.st.Dispatches, second)
	f.st.Workers[1].Attempts = 2
	f.mu.Unlock()
	return newModel(t, f, 120, 24), f
}

func TestGoldenFindAll(t *testing.T) {
	m, _ := findScene(t)
	press(m, "f")
	assert.Equal(t, "find in every pane: ", m.searchInput.Prompt)
	for _, r := range "failed" {
		press(m, string(r))
	}
	cmd := press(m, "enter")
	runCmd(t, m, cmd)
	require.Equal(t, overlayFind, m.overlay)
	t.Run("list", func(t *testing.T) { requireGolden(t, m) })
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, `"failed" (any case): 4 match(es) in 3 workers`)
	assert.Contains(t, screen, "codex-tester       · attempt 1 (log) · line 2 · TestLexer FAILED: want 3 tokens")

	// The earlier attempt's log, replayed at the pane's size, is kept for < >.
	p := m.panes[1]
	require.NotNil(t, p.hist[1])
	c, r := m.historySize(1)
	hc, hr := p.hist[1].Size()
	assert.Equal(t, []int{c, r}, []int{hc, hr})

	press(m, "down")
	press(m, "enter")
	assert.Equal(t, overlayNone, m.overlay)
	assert.Equal(t, 1, m.focus, "the match's pane is focused")
	assert.Equal(t, 1, p.view, "its earlier attempt is on screen")
	require.Equal(t, modeCopy, m.mode)
	assert.Equal(t, vt.Pos{Line: 1, Col: 10}, m.copy.cur, "copy mode's cursor is on the match")
	t.Run("jump", func(t *testing.T) { requireGoldenANSI(t, m) })
	screen = ansi.Strip(m.Render())
	assert.Contains(t, screen, "codex-tester · PTY · 1/3 (history) · error")
	assert.Contains(t, screen, "COPY 2/9 · match 1 of 1")
}

func TestFindAllNothingFound(t *testing.T) {
	m, _ := findScene(t)
	press(m, "f", "x", "y", "z", "z", "y")
	runCmd(t, m, press(m, "enter"))
	assert.Equal(t, overlayNone, m.overlay)
	assert.Contains(t, m.note, `"xyzzy" (any case): no match in any pane`)
}

func TestFindAllDropsAStaleAnswer(t *testing.T) {
	m, _ := findScene(t)
	press(m, "f", "o", "k")
	first := press(m, "enter")
	press(m, "f", "s", "u", "m")
	second := press(m, "enter")
	runCmd(t, m, second)
	require.Equal(t, overlayFind, m.overlay)
	assert.Equal(t, "sum", m.finds.res.q.String())
	press(m, "esc")
	runCmd(t, m, first)
	assert.Equal(t, overlayNone, m.overlay, "the answer to an older search is dropped")
}

// busyPanes is 16 panes on 240×50, each with n lines of coloured output
// in scrollback and on screen; every 97th line says FAILED.
func busyPanes(b testing.TB, n int) *Model {
	f := fakeRun(b, 16, 240, 50)
	for id, h := range f.handles {
		var s strings.Builder
		for i := range n {
			if i%97 == 0 {
				fmt.Fprintf(&s, "\x1b[31m--- FAILED:\x1b[m TestCase%d (%s)\r\n", i, id)
				continue
			}
			fmt.Fprintf(&s, "\x1b[3%dm[%s]\x1b[m compiling \x1b[1mpkg/%d\x1b[m … ok \x1b[32m✓\x1b[m %d\r\n", i%8, id, i%97, i)
		}
		_, _ = h.term.Write([]byte(s.String()))
	}
	return newModel(b, f, 240, 50)
}

func TestFindAllSearchesEveryPane(t *testing.T) {
	m := busyPanes(t, 1000)
	q, err := vt.NewQuery("failed", false)
	require.NoError(t, err)
	res := searchSources(m.findSources(), q)
	assert.Equal(t, 16*11, res.total, "every 97th of 1,000 lines, in 16 panes")
	assert.Len(t, res.hits, 16*11)
	for i := 1; i < len(res.hits); i++ {
		a, b := res.hits[i-1], res.hits[i]
		assert.True(t, a.src.pane < b.src.pane || a.src.pane == b.src.pane && a.match.Start.Before(b.match.Start), "grouped by worker, in reading order")
	}
}

// BenchmarkFindAll is the search across every pane: 16 panes × 10,000
// lines of scrollback (the default), from the snapshots to the sorted
// list. Target: ≤ 50 ms.
func BenchmarkFindAll(b *testing.B) {
	m := busyPanes(b, 10000)
	srcs := m.findSources()
	require.Len(b, srcs, 16)
	for _, c := range []struct {
		name, query string
		regex       bool
	}{
		{"literal", "failed", false},
		{"regex", `fail(ed|ure)`, true},
	} {
		q, err := vt.NewQuery(c.query, c.regex)
		require.NoError(b, err)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res := searchSources(srcs, q)
				if res.total != 16*104 {
					b.Fatalf("%d matches", res.total)
				}
			}
		})
	}
}

// drain runs cmd and every command it batches, feeding their messages back.
func drain(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			drain(t, m, c)
		}
		return
	}
	if msg != nil {
		drain(t, m, m.update(msg))
	}
}

func TestEarlierAttemptIsRebuiltAtTheNewSize(t *testing.T) {
	m, _ := findScene(t)
	log := m.panes[1].rows[0].OutputLogPath
	long := strings.Repeat("word ", 20) + "END"
	require.NoError(t, os.WriteFile(log, []byte("$ codex --task\r\n"+long+"\r\n"), 0o644))
	press(m, "tab")
	runCmd(t, m, press(m, "<"))
	p := m.panes[1]
	require.Equal(t, 1, p.view)
	cols, _ := p.hist[1].Size()
	require.Less(t, cols, len(long), "at 120 columns the line wraps")
	assert.NotContains(t, ansi.Strip(m.Render()), long)

	m.update(tea.WindowSizeMsg{Width: 240, Height: 24})
	drain(t, m, m.update(resizeMsg{seq: m.resizeSeq}))
	c, r := p.hist[1].Size()
	wc, wr := m.historySize(1)
	assert.Equal(t, []int{wc, wr}, []int{c, r}, "rebuilt at the pane's new size")
	assert.Contains(t, ansi.Strip(m.Render()), long, "and the line fits in one row now")
}

// BenchmarkFindAllReplayingLogs is the first search after 16 earlier
// attempts ended: each attempt's output.log (10,000 lines) is replayed at
// its pane's size before it is searched. Later searches find the replays
// kept (BenchmarkFindAll's cost).
func BenchmarkFindAllReplayingLogs(b *testing.B) {
	dir := b.TempDir()
	var srcs []*findSource
	for i := range 16 {
		var s strings.Builder
		for j := range 10000 {
			if j%97 == 0 {
				fmt.Fprintf(&s, "\x1b[31m--- FAILED:\x1b[m TestCase%d\r\n", j)
				continue
			}
			fmt.Fprintf(&s, "\x1b[3%dm[w%d]\x1b[m compiling \x1b[1mpkg/%d\x1b[m … ok \x1b[32m✓\x1b[m %d\r\n", j%8, i, j%97, j)
		}
		log := filepath.Join(dir, fmt.Sprintf("%d.log", i))
		require.NoError(b, os.WriteFile(log, []byte(s.String()), 0o644))
		srcs = append(srcs, &findSource{pane: i, worker: fmt.Sprintf("w%d", i), attempt: 1, earlier: true, log: log, cols: 58, rows: 10})
	}
	q, err := vt.NewQuery("failed", false)
	require.NoError(b, err)
	for b.Loop() {
		if res := searchSources(srcs, q); res.total != 16*104 {
			b.Fatalf("%d matches", res.total)
		}
	}
}
