// bench_test.go measures the cost of a frame: 16 busy panes (every one has
// new coloured output since the last frame, so no body comes from the
// cache) of 60×12 on a 240×50 terminal. Target: ≤ 2 ms per View, with or
// without a panel open. BenchmarkViewLipglossFrames draws the same panes
// with lipgloss borders and joins, the measurement behind style.go's
// hand-drawn frames.
package tui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/stretchr/testify/require"
)

// busyModel is 16 panes on 240×50 and a line of new output for each pane
// per frame.
func busyModel(b *testing.B) (*Model, func(n int)) {
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
	return m, func(n int) {
		for i, p := range m.panes {
			_, _ = p.term.Write(lines[(i+n)%16])
		}
	}
}

func benchView(b *testing.B, m *Model, output func(int)) {
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; b.Loop(); n++ {
		b.StopTimer()
		output(n)
		b.StartTimer()
		// view, not View: View returns the frame it made last until the
		// model is told something changed, which writing to the panes'
		// emulators here does not do.
		v := m.view()
		if len(v.Content) == 0 {
			b.Fatal("empty view")
		}
	}
}

func BenchmarkView(b *testing.B) {
	m, output := busyModel(b)
	benchView(b, m, output)
}

// BenchmarkViewHelpOpen is a busy frame under the open help panel.
func BenchmarkViewHelpOpen(b *testing.B) {
	m, output := busyModel(b)
	press(m, "?")
	require.Equal(b, overlayHelp, m.overlay)
	benchView(b, m, output)
}

// BenchmarkViewEventLogOpen is a busy frame under the open event log.
func BenchmarkViewEventLogOpen(b *testing.B) {
	m, output := busyModel(b)
	for i := range eventLogCap {
		m.evlog.lines = append(m.evlog.lines, fmt.Sprintf("10:00:%02d  worker-%d#1 started on pane", i%60, i%16))
	}
	press(m, "e")
	require.Equal(b, overlayEvents, m.overlay)
	benchView(b, m, output)
}

// BenchmarkViewLipglossFrames draws the frame BenchmarkView draws, the
// same pane bodies, with a lipgloss border style per pane and lipgloss
// joins for the rows and the screen instead of hand-drawn frames.
func BenchmarkViewLipglossFrames(b *testing.B) {
	m, output := busyModel(b)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; b.Loop(); n++ {
		b.StopTimer()
		output(n)
		b.StartTimer()
		var rows []string
		var row []string
		y := -1
		for _, v := range m.visible() {
			if v.r.y != y && row != nil {
				rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
				row = nil
			}
			y = v.r.y
			p := m.panes[v.idx]
			st := lipgloss.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(lipgloss.Cyan).Width(v.r.w).Height(v.r.h)
			if v.idx == m.focus {
				st = st.Border(lipgloss.ThickBorder()).Bold(true)
			}
			row = append(row, st.Render(strings.Join(p.window(p.term, v.r.w-2, v.r.h-2, m.th), "\n")))
		}
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...), m.statusBar())
		if len(lipgloss.JoinVertical(lipgloss.Left, rows...)) == 0 {
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
		_ = m.view() // made again, as for a title's tick
	}
}
