// bench_test.go measures Terminal against github.com/charmbracelet/x/vt and
// github.com/hinshun/vt10x on the same generated streams (coloured logs,
// plain ASCII, a full-screen app at 120x40, fed in 4 KB writes), plus
// memory per pane and per scrollback line, and rendering.
package vt

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	xvt "github.com/charmbracelet/x/vt"
	"github.com/hinshun/vt10x"
	"github.com/stretchr/testify/require"
)

const (
	benchCols  = 120
	benchRows  = 40
	benchBytes = 4 << 20
	benchChunk = 4096
)

var logWords = strings.Fields("request served cache miss upstream latency retry connection pool " +
	"handler user session token refreshed queue depth worker started finished compile module " +
	"package test passed failed warning deprecated config loaded path error timeout")

// genColouredLogs makes log lines with 16-colour levels, 256-colour
// components, truecolor values and CRLF endings.
func genColouredLogs(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	levels := []string{"\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[36mDEBUG\x1b[0m"}
	var b strings.Builder
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, "\x1b[2m2026-11-30T06:%02d:%02d.%03dZ\x1b[0m %s \x1b[38;5;%dm[%s]\x1b[0m ",
			n/60%60, n%60, n%1000, levels[rng.IntN(len(levels))], 16+rng.IntN(216), logWords[rng.IntN(len(logWords))])
		words := 4 + rng.IntN(10)
		for range words {
			b.WriteString(logWords[rng.IntN(len(logWords))])
			b.WriteByte(' ')
		}
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dmlatency=%dms\x1b[0m", 128+rng.IntN(128), rng.IntN(256), 64, rng.IntN(1000))
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

func genPlainASCII(size int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < size {
		w := 0
		for w < 60+rng.IntN(55) {
			word := logWords[rng.IntN(len(logWords))]
			b.WriteString(word)
			b.WriteByte(' ')
			w += len(word) + 1
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// genFullScreen redraws a 120x40 alt-screen app: a box-drawn frame,
// coloured rows placed with cursor moves, a reverse-video status line.
func genFullScreen(size int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[?25l")
	for frame := 0; b.Len() < size; frame++ {
		b.WriteString("\x1b[H\x1b[38;5;244m┌")
		b.WriteString(strings.Repeat("─", benchCols-2))
		b.WriteString("┐")
		for y := 2; y < benchRows-1; y++ {
			fmt.Fprintf(&b, "\x1b[%d;1H│\x1b[0m", y)
			fmt.Fprintf(&b, "\x1b[%dm%5d\x1b[0m ", 31+(y+frame)%7, frame*100+y)
			col := 7
			for col < benchCols-12 {
				word := logWords[rng.IntN(len(logWords))]
				if rng.IntN(4) == 0 {
					fmt.Fprintf(&b, "\x1b[1;38;5;%dm%s\x1b[0m ", rng.IntN(256), word)
				} else {
					b.WriteString(word + " ")
				}
				col += len(word) + 1
			}
			fmt.Fprintf(&b, "\x1b[K\x1b[%d;%dH\x1b[38;5;244m│", y, benchCols)
		}
		fmt.Fprintf(&b, "\x1b[%d;1H└%s┘", benchRows-1, strings.Repeat("─", benchCols-2))
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[7m frame %d  CPU %d%%  MEM %dMiB \x1b[K\x1b[0m", benchRows, frame, rng.IntN(100), rng.IntN(4096))
	}
	return []byte(b.String())
}

var benchStreams = []struct {
	name string
	gen  func(int) []byte
}{
	{"ColouredLogs", genColouredLogs},
	{"PlainASCII", genPlainASCII},
	{"FullScreen", genFullScreen},
}

func feedChunks(w io.Writer, data []byte) {
	for len(data) > 0 {
		n := min(len(data), benchChunk)
		_, _ = w.Write(data[:n])
		data = data[n:]
	}
}

// BenchmarkFeed compares emulators on each stream; -bench prints MB/s.
func BenchmarkFeed(b *testing.B) {
	for _, st := range benchStreams {
		data := st.gen(benchBytes)
		emulators := []struct {
			name string
			make func() io.Writer
		}{
			{"rostra", func() io.Writer { return New(benchCols, benchRows, Options{}) }},
			{"x-vt", func() io.Writer { return xvt.NewEmulator(benchCols, benchRows) }},
			{"vt10x", func() io.Writer { return vt10x.New(vt10x.WithSize(benchCols, benchRows)) }},
		}
		for _, em := range emulators {
			b.Run(st.name+"/"+em.name, func(b *testing.B) {
				w := em.make()
				feedChunks(w, data[:min(len(data), 1<<20)]) // warm up: steady state
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					feedChunks(w, data)
				}
			})
		}
	}
}

// BenchmarkRender renders a full 120x40 screen of the full-screen app as
// ANSI.
func BenchmarkRender(b *testing.B) {
	tm := New(benchCols, benchRows, Options{})
	feedChunks(tm, genFullScreen(256<<10))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		lines := tm.Window(tm.ScrollbackLen(), true)
		if len(lines) != benchRows {
			b.Fatal("short window")
		}
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// emptyPaneBytes measures the heap an empty 120x40 Terminal holds.
func emptyPaneBytes() float64 {
	const n = 20
	before := heapInUse()
	terms := make([]*Terminal, n)
	for i := range terms {
		terms[i] = New(benchCols, benchRows, Options{})
	}
	after := heapInUse()
	runtime.KeepAlive(terms)
	return (float64(after) - float64(before)) / n
}

// scrollbackLineBytes measures the heap per scrollback line of coloured
// 120-column logs, 10,000 lines.
func scrollbackLineBytes(t testing.TB) float64 {
	logs := genColouredLogs(4 << 20)
	tm := New(benchCols, benchRows, Options{Scrollback: 10000})
	before := heapInUse()
	feedChunks(tm, logs)
	require.Equal(t, 10000, tm.ScrollbackLen(), "the stream must fill the scrollback")
	after := heapInUse()
	runtime.KeepAlive(tm)
	runtime.KeepAlive(logs)
	return (float64(after) - float64(before)) / 10000
}

func TestTermMemory(t *testing.T) {
	empty := emptyPaneBytes()
	t.Logf("empty 120x40 pane: %.0f bytes (%.3f MiB)", empty, empty/(1<<20))
	require.LessOrEqual(t, empty, float64(512<<10), "empty pane must stay within 0.5 MiB")
	perLine := scrollbackLineBytes(t)
	t.Logf("scrollback: %.1f bytes per coloured 120-column line", perLine)
	require.LessOrEqual(t, perLine, 200.0, "a scrollback line must stay within 200 bytes")
}

func BenchmarkMemory(b *testing.B) {
	b.Run("EmptyPane", func(b *testing.B) {
		var v float64
		for range b.N {
			v = emptyPaneBytes()
		}
		b.ReportMetric(v, "bytes/pane")
	})
	b.Run("Scrollback10k", func(b *testing.B) {
		var v float64
		for range b.N {
			v = scrollbackLineBytes(b)
		}
		b.ReportMetric(v, "bytes/line")
	})
}

// BenchmarkResizeReflow narrows and widens a pane holding 10,000 lines of
// coloured logs in scrollback: every long line is split and joined again.
func BenchmarkResizeReflow(b *testing.B) {
	tm := New(benchCols, benchRows, Options{Scrollback: 10000})
	feedChunks(tm, genColouredLogs(4<<20))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			tm.Resize(80, benchRows)
		} else {
			tm.Resize(benchCols, benchRows)
		}
	}
}

// BenchmarkReaderWaitDuringFullScreenStorm: the longest a reader (the UI's
// frame) waits for a 200×60 pane while the child's output is a 64 KiB chunk
// of DECALN, each 3 bytes filling every cell: the Write takes the lock per
// 1 KiB slice, so the wait is one slice's cost, not the chunk's.
func BenchmarkReaderWaitDuringFullScreenStorm(b *testing.B) {
	storm := []byte(strings.Repeat("\x1b#8", 64<<10/3))
	var worst time.Duration
	for b.Loop() {
		tm := New(200, 60, Options{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = tm.Write(storm)
		}()
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
				start := time.Now()
				_, _ = tm.Size()
				worst = max(worst, time.Since(start))
			}
		}
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-wait-ms")
}
