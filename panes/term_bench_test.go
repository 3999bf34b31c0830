// term_bench_test.go measures Term against github.com/charmbracelet/x/vt and
// github.com/hinshun/vt10x on the same generated streams (coloured logs,
// plain ASCII, a full-screen app at 120x40, fed in 4 KB writes), plus
// memory per pane and per scrollback line, and rendering.
package panes

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	xvt "github.com/charmbracelet/x/vt"
	"github.com/hinshun/vt10x"
	"github.com/stretchr/testify/require"
)

const (
	termBenchCols  = 120
	termBenchRows  = 40
	termBenchBytes = 4 << 20
	termBenchChunk = 4096
)

var termLogWords = strings.Fields("request served cache miss upstream latency retry connection pool " +
	"handler user session token refreshed queue depth worker started finished compile module " +
	"package test passed failed warning deprecated config loaded path error timeout")

// termGenColouredLogs makes log lines with 16-colour levels, 256-colour
// components, truecolor values and CRLF endings.
func termGenColouredLogs(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	levels := []string{"\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[36mDEBUG\x1b[0m"}
	var b strings.Builder
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, "\x1b[2m2026-11-30T06:%02d:%02d.%03dZ\x1b[0m %s \x1b[38;5;%dm[%s]\x1b[0m ",
			n/60%60, n%60, n%1000, levels[rng.IntN(len(levels))], 16+rng.IntN(216), termLogWords[rng.IntN(len(termLogWords))])
		words := 4 + rng.IntN(10)
		for range words {
			b.WriteString(termLogWords[rng.IntN(len(termLogWords))])
			b.WriteByte(' ')
		}
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dmlatency=%dms\x1b[0m", 128+rng.IntN(128), rng.IntN(256), 64, rng.IntN(1000))
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

func termGenPlainASCII(size int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < size {
		w := 0
		for w < 60+rng.IntN(55) {
			word := termLogWords[rng.IntN(len(termLogWords))]
			b.WriteString(word)
			b.WriteByte(' ')
			w += len(word) + 1
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// termGenFullScreen redraws a 120x40 alt-screen app: a box-drawn frame,
// coloured rows placed with cursor moves, a reverse-video status line.
func termGenFullScreen(size int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[?25l")
	for frame := 0; b.Len() < size; frame++ {
		b.WriteString("\x1b[H\x1b[38;5;244m┌")
		b.WriteString(strings.Repeat("─", termBenchCols-2))
		b.WriteString("┐")
		for y := 2; y < termBenchRows-1; y++ {
			fmt.Fprintf(&b, "\x1b[%d;1H│\x1b[0m", y)
			fmt.Fprintf(&b, "\x1b[%dm%5d\x1b[0m ", 31+(y+frame)%7, frame*100+y)
			col := 7
			for col < termBenchCols-12 {
				word := termLogWords[rng.IntN(len(termLogWords))]
				if rng.IntN(4) == 0 {
					fmt.Fprintf(&b, "\x1b[1;38;5;%dm%s\x1b[0m ", rng.IntN(256), word)
				} else {
					b.WriteString(word + " ")
				}
				col += len(word) + 1
			}
			fmt.Fprintf(&b, "\x1b[K\x1b[%d;%dH\x1b[38;5;244m│", y, termBenchCols)
		}
		fmt.Fprintf(&b, "\x1b[%d;1H└%s┘", termBenchRows-1, strings.Repeat("─", termBenchCols-2))
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[7m frame %d  CPU %d%%  MEM %dMiB \x1b[K\x1b[0m", termBenchRows, frame, rng.IntN(100), rng.IntN(4096))
	}
	return []byte(b.String())
}

var termBenchStreams = []struct {
	name string
	gen  func(int) []byte
}{
	{"ColouredLogs", termGenColouredLogs},
	{"PlainASCII", termGenPlainASCII},
	{"FullScreen", termGenFullScreen},
}

func termFeedChunks(w io.Writer, data []byte) {
	for len(data) > 0 {
		n := min(len(data), termBenchChunk)
		_, _ = w.Write(data[:n])
		data = data[n:]
	}
}

// BenchmarkFeed compares emulators on each stream; -bench prints MB/s.
func BenchmarkFeed(b *testing.B) {
	for _, st := range termBenchStreams {
		data := st.gen(termBenchBytes)
		emulators := []struct {
			name string
			make func() io.Writer
		}{
			{"rostra", func() io.Writer { return NewTerm(termBenchCols, termBenchRows, TermOptions{}) }},
			{"x-vt", func() io.Writer { return xvt.NewEmulator(termBenchCols, termBenchRows) }},
			{"vt10x", func() io.Writer { return vt10x.New(vt10x.WithSize(termBenchCols, termBenchRows)) }},
		}
		for _, em := range emulators {
			b.Run(st.name+"/"+em.name, func(b *testing.B) {
				w := em.make()
				termFeedChunks(w, data[:min(len(data), 1<<20)]) // warm up: steady state
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					termFeedChunks(w, data)
				}
			})
		}
	}
}

// BenchmarkRender renders a full 120x40 screen of the full-screen app as
// ANSI.
func BenchmarkRender(b *testing.B) {
	tm := NewTerm(termBenchCols, termBenchRows, TermOptions{})
	termFeedChunks(tm, termGenFullScreen(256<<10))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		lines := tm.Window(tm.ScrollbackLen(), true)
		if len(lines) != termBenchRows {
			b.Fatal("short window")
		}
	}
}

func termHeapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// termEmptyPaneBytes measures the heap an empty 120x40 Term holds.
func termEmptyPaneBytes() float64 {
	const n = 20
	before := termHeapInUse()
	terms := make([]*Term, n)
	for i := range terms {
		terms[i] = NewTerm(termBenchCols, termBenchRows, TermOptions{})
	}
	after := termHeapInUse()
	runtime.KeepAlive(terms)
	return (float64(after) - float64(before)) / n
}

// termScrollbackLineBytes measures the heap per scrollback line of coloured
// 120-column logs, 10,000 lines.
func termScrollbackLineBytes(t testing.TB) float64 {
	logs := termGenColouredLogs(4 << 20)
	tm := NewTerm(termBenchCols, termBenchRows, TermOptions{Scrollback: 10000})
	before := termHeapInUse()
	termFeedChunks(tm, logs)
	require.Equal(t, 10000, tm.ScrollbackLen(), "the stream must fill the scrollback")
	after := termHeapInUse()
	runtime.KeepAlive(tm)
	runtime.KeepAlive(logs)
	return (float64(after) - float64(before)) / 10000
}

func TestTermMemory(t *testing.T) {
	empty := termEmptyPaneBytes()
	t.Logf("empty 120x40 pane: %.0f bytes (%.3f MiB)", empty, empty/(1<<20))
	require.LessOrEqual(t, empty, float64(512<<10), "empty pane must stay within 0.5 MiB")
	perLine := termScrollbackLineBytes(t)
	t.Logf("scrollback: %.1f bytes per coloured 120-column line", perLine)
	require.LessOrEqual(t, perLine, 200.0, "a scrollback line must stay within 200 bytes")
}

func BenchmarkMemory(b *testing.B) {
	b.Run("EmptyPane", func(b *testing.B) {
		var v float64
		for range b.N {
			v = termEmptyPaneBytes()
		}
		b.ReportMetric(v, "bytes/pane")
	})
	b.Run("Scrollback10k", func(b *testing.B) {
		var v float64
		for range b.N {
			v = termScrollbackLineBytes(b)
		}
		b.ReportMetric(v, "bytes/line")
	})
}

// BenchmarkResizeReflow narrows and widens a pane holding 10,000 lines of
// coloured logs in scrollback: every long line is split and joined again.
func BenchmarkResizeReflow(b *testing.B) {
	tm := NewTerm(termBenchCols, termBenchRows, TermOptions{Scrollback: 10000})
	termFeedChunks(tm, termGenColouredLogs(4<<20))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			tm.Resize(80, termBenchRows)
		} else {
			tm.Resize(termBenchCols, termBenchRows)
		}
	}
}
