// bench_test.go measures the cost of a frame: 16 busy panes (every one has
// new coloured output since the last frame, so no body comes from the
// cache) of 60×12 on a 240×50 terminal. Target: ≤ 2 ms per View.
package tui

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func BenchmarkView(b *testing.B) {
	f := fakeRun(b, 16, 240, 50)
	m := newModel(b, f, 240, 50)
	vis := m.visible()
	require.Len(b, vis, 16)
	require.Equal(b, 60, vis[0].r.w)
	require.Equal(b, 13, vis[0].r.h) // 49 rows of panes: 13+12+12+12
	var lines [16][]byte
	for i := range lines {
		lines[i] = fmt.Appendf(nil, "\x1b[3%dm[worker %d]\x1b[m compiling \x1b[1mpkg/%d\x1b[m … ok \x1b[32m✓\x1b[m %s\r\n", i%8, i, i, "0123456789abcdef")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; b.Loop(); n++ {
		b.StopTimer()
		for i, p := range m.panes {
			_, _ = p.term.Write(lines[(i+n)%16])
		}
		b.StartTimer()
		v := m.View()
		if len(v.Content) == 0 {
			b.Fatal("empty view")
		}
	}
}

// BenchmarkViewIdle is a frame where nothing changed: every body comes from
// the cache (the clock tick's frame).
func BenchmarkViewIdle(b *testing.B) {
	f := fakeRun(b, 16, 240, 50)
	m := newModel(b, f, 240, 50)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}
