//go:build linux

// quiet_mem_bench_test.go measures what a quiet pane costs while it waits:
// 16 attempts of `sleep` through StartPTY with a 120×40 emulator and an
// output.log, over none, as RSS, live heap, goroutines and OS threads
// (a goroutine parked in the poller costs its stack; one blocked in a
// system call costs a whole thread).
package panes

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// procStatus reads a "Key:  N ..." field of /proc/self/status.
func procStatus(t testing.TB, key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", key)
	return 0
}

type quietSample struct {
	rss, heap, goroutines, threads int64
}

func sampleQuiet(t testing.TB) quietSample {
	time.Sleep(500 * time.Millisecond) // every helper parked
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return quietSample{
		rss:        procStatus(t, "VmRSS") << 10,
		heap:       int64(ms.HeapAlloc),
		goroutines: int64(runtime.NumGoroutine()),
		threads:    procStatus(t, "Threads"),
	}
}

func BenchmarkQuietPane(b *testing.B) {
	const n = 16
	var per quietSample
	for b.Loop() {
		dir := b.TempDir()
		before := sampleQuiet(b)
		var ps []*PTYProcess
		for i := range n {
			l := Launch{Argv: []string{"sleep", "600"}, OutputLog: filepath.Join(dir, strconv.Itoa(i)+".log"), Cols: 120, Rows: 40}
			p, err := StartPTY(l, PTYOptions{NewScreen: func(c, r int, reply func([]byte)) Screen {
				return vt.New(c, r, vt.Options{OnReply: reply})
			}})
			require.NoError(b, err)
			ps = append(ps, p)
		}
		after := sampleQuiet(b)
		per = quietSample{
			rss:        after.rss - before.rss,
			heap:       after.heap - before.heap,
			goroutines: after.goroutines - before.goroutines,
			// Go keeps the threads it made: a later round reuses the
			// first's, so the most any round added is the cost.
			threads: max(per.threads, after.threads-before.threads),
		}
		for _, p := range ps {
			require.NoError(b, p.Signal(9))
			<-p.Done()
			require.NoError(b, p.Close())
		}
	}
	b.ReportMetric(float64(per.rss)/n, "rss-B/pane")
	b.ReportMetric(float64(per.heap)/n, "heap-B/pane")
	b.ReportMetric(float64(per.goroutines)/n, "goroutines/pane")
	b.ReportMetric(float64(per.threads)/n, "threads/pane")
}
