//go:build linux

// feed_test.go floods both surfaces while the screen lags far behind, so
// the reader spills to output.log and the feeder reads it back, and checks
// the screen and scrollback end exactly as feeding every byte in order.
package panes

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// floodStream is coloured log lines with cursor moves, erases, wide
// characters, tabs and bare LFs: enough state that a byte fed twice, lost
// or reordered shows in the final screen or scrollback.
func floodStream(size int) []byte {
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, "\x1b[3%dm%07d\x1b[m ", n%8, n)
		for range 3 + rng.IntN(12) {
			switch rng.IntN(12) {
			case 0:
				b.WriteString("\x1b[1;38;5;" + fmt.Sprint(rng.IntN(256)) + "m漢字\x1b[m")
			case 1:
				b.WriteString("\t")
			case 2:
				fmt.Fprintf(&b, "\x1b[%dD", 1+rng.IntN(4))
			case 3:
				b.WriteString("\x1b[K")
			default:
				b.WriteString([]string{"alpha ", "beta ", "gamma ", "delta "}[rng.IntN(4)])
			}
		}
		if rng.IntN(5) == 0 {
			b.WriteString("\n") // a bare LF: the wrapper's translation shows
		} else {
			b.WriteString("\r\n")
		}
	}
	return []byte(b.String())
}

// slowScreen is a Terminal whose writes stall now and then, as an
// emulator would on a loaded machine. Its first write also waits until the
// reader has spilled (or the stream has ended): gate delivers the attempt,
// whose feed queue it watches. So every run spills, however the two
// goroutines happen to be scheduled, and a small flood proves what a large
// one did.
type slowScreen struct {
	*vt.Terminal
	writes atomic.Int64
	gate   chan attempt
}

func (s *slowScreen) Write(b []byte) (int, error) {
	n := s.writes.Add(1)
	if n == 1 {
		// On the feeder's goroutine, started after the queue was set.
		q := processOf(<-s.gate).feed
		q.mu.Lock()
		for q.spilled == 0 && !q.done {
			q.cond.Wait()
		}
		q.mu.Unlock()
	} else if n%8 == 0 {
		time.Sleep(2 * time.Millisecond)
	}
	return s.Terminal.Write(b)
}

// TestFloodSpillsAndEndsAsFedInOrder floods 512 KiB through a queue of two
// chunks: the screen holds one chunk while the queue fills, the reader
// spills up to feedLagMin behind, then the feeder reads the spilled run
// back while the reader queues again after it (a hole before a queued
// chunk), and so on to the end. 512 KiB is over 7,000 lines, three times the
// scrollback kept, so the scrollback's own eviction is in the comparison too.
func TestFloodSpillsAndEndsAsFedInOrder(t *testing.T) {
	old := feedQueueBytes
	feedQueueBytes = 2 * feedChunk
	t.Cleanup(func() { feedQueueBytes = old })

	data := floodStream(512 << 10)
	src := filepath.Join(t.TempDir(), "flood.bin")
	require.NoError(t, os.WriteFile(src, data, 0o600))
	const cols, rows = 100, 30
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			var scr *slowScreen
			gate := make(chan attempt, 1)
			l := newLaunch(t, []string{"cat", src})
			l.Cols, l.Rows = cols, rows
			a, err := s.start(l, func(c, r int, reply func([]byte)) Screen {
				scr = &slowScreen{Terminal: vt.New(c, r, vt.Options{Scrollback: 2000, OnReply: reply}), gate: gate}
				return scr
			})
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			gate <- a
			waitDone(t, a, 60*time.Second)
			require.Equal(t, Exit{Code: 0}, a.Exit())

			q := processOf(a).feed
			q.mu.Lock()
			spilled := q.spilled
			q.mu.Unlock()
			assert.Positive(t, spilled, "the screen lagged: some output must have been read back from the log")
			require.NoError(t, processOf(a).feedErr)

			logged, err := os.ReadFile(l.OutputLog)
			require.NoError(t, err)
			in := logged
			if s.name == "pty" { // the tty's onlcr wrote each LF as CR LF
				require.Equal(t, len(data)+strings.Count(string(data), "\n"), len(logged), "output.log has every byte")
			} else {
				require.Equal(t, len(data), len(logged), "output.log has every byte")
				var lastCR bool
				in = crlf(nil, logged, &lastCR)
			}
			want := vt.New(cols, rows, vt.Options{Scrollback: 2000})
			for len(in) > 0 { // in pieces, as a reader would
				n := min(len(in), 4096)
				_, _ = want.Write(in[:n])
				in = in[n:]
			}
			assert.Equal(t, want.ScrollbackLen(), scr.ScrollbackLen())
			assert.Equal(t, want.ANSI(true), scr.ANSI(true), "screen and scrollback as fed in order")
			wx, wy, _ := want.Cursor()
			gx, gy, _ := scr.Cursor()
			assert.Equal(t, [2]int{wx, wy}, [2]int{gx, gy}, "cursor")
		})
	}
}

func processOf(a attempt) *process {
	switch p := a.(type) {
	case *PTYProcess:
		return p.process
	case *WrapperProcess:
		return p.process
	}
	panic("unknown attempt")
}

// countScreen counts the bytes written to it.
type countScreen struct {
	*vt.Terminal
	n atomic.Int64
}

func (s *countScreen) Write(b []byte) (int, error) {
	s.n.Add(int64(len(b)))
	return s.Terminal.Write(b)
}

// TestFloodEndReachesScreenWhileChildIsSilent: the feeder is left asleep
// while the reader reads on in a flood, and must still be woken for a
// flood's end when the stream then stays open without a byte more. The
// wrapper's pipe gives the child's one write of 30 KiB to one read, which
// fills a chunk as a flood does (and a pty's flood ends wherever it ends).
func TestFloodEndReachesScreenWhileChildIsSilent(t *testing.T) {
	const size = 30 << 10
	src := filepath.Join(t.TempDir(), "flood.bin")
	require.NoError(t, os.WriteFile(src, bytes.Repeat([]byte("x"), size), 0o600))
	for _, s := range bothSurfaces {
		t.Run(s.name, func(t *testing.T) {
			var scr *countScreen
			l := newLaunch(t, sh("dd if="+src+" bs="+fmt.Sprint(size)+" count=1 2>/dev/null; exec sleep 60"))
			a, err := s.start(l, func(c, r int, reply func([]byte)) Screen {
				scr = &countScreen{Terminal: vt.New(c, r, vt.Options{OnReply: reply})}
				return scr
			})
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })
			require.Eventually(t, func() bool { return scr.n.Load() == size }, 10*time.Second, 5*time.Millisecond,
				"the screen never had every byte")
			assert.False(t, isClosed(a.Exited()), "the child still runs")
		})
	}
}

// TestFloodWakesFeederInBatches: a chunk the reader reads on after wakes
// the feeder only once feedWakeBatch bytes wait or the reader goes idle;
// any other chunk wakes it at once.
func TestFloodWakesFeederInBatches(t *testing.T) {
	q := newFeedQueue(nil, 1<<20)
	chunk := make([]byte, 28<<10)
	q.push(chunk, false, true)
	assert.Equal(t, len(chunk), q.untold, "a flood's chunk waits for more")
	for q.untold+len(chunk) < feedWakeBatch {
		q.push(chunk, false, true)
	}
	q.push(chunk, false, true)
	assert.Zero(t, q.untold, "a batch's worth wakes the feeder")
	q.push(chunk, false, true)
	q.wake()
	assert.Zero(t, q.untold, "the reader going idle wakes the feeder")
	q.push(chunk[:100], false, false)
	assert.Zero(t, q.untold, "a chunk that ended the burst wakes the feeder")

	got := make(chan int64)
	go func() {
		var n int64
		for {
			_, b, k, ok := q.next()
			if !ok {
				got <- n
				return
			}
			n += k
			putChunk(b)
		}
	}()
	q.push(chunk, false, true)
	q.wake()
	q.close()
	select {
	case n := <-got:
		assert.Equal(t, q.end, n, "the feeder took every byte")
	case <-time.After(10 * time.Second):
		t.Fatal("the feeder was never woken")
	}
}
