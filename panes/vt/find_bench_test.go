// find_bench_test.go measures Search over one pane's worth of lines:
// 10,000 lines of coloured agent-like output in scrollback plus a screen,
// for a literal (both cases) and a regular expression. The UI's search over
// 16 such panes is measured in tui (BenchmarkFindAll).
package vt

import (
	"fmt"
	"testing"
)

// busyLog fills a terminal with n lines of coloured, agent-like output.
func busyLog(cols, rows, n int) *Terminal {
	tm := New(cols, rows, Options{Scrollback: n})
	for i := range n {
		_, _ = fmt.Fprintf(tm, "\x1b[3%dm[step %d]\x1b[m compiling \x1b[1mpkg/%d\x1b[m ... ok \x1b[32m✓\x1b[m tests passed %d\r\n", i%8, i, i%97, i*7)
	}
	return tm
}

func BenchmarkSearch(b *testing.B) {
	tm := busyLog(80, 24, 10000)
	for _, c := range []struct {
		name  string
		query string
		regex bool
	}{
		{"literal-smartcase", "failed", false},
		{"literal-exact", "FAILED", false},
		{"regex", `fail(ed|ure)`, true},
		{"regex-exact", `FAIL(ED|URE)`, true},
	} {
		q, err := NewQuery(c.query, c.regex)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				tm.Search(q, func(*Match) bool { return true })
			}
		})
	}
}
