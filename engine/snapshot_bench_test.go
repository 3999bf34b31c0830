// snapshot_bench_test.go measures docs/design.md's promise that the engine never
// makes the UI wait: the longest time Snapshot takes while an audited worker
// settles in a workspace of 100,000 files (the settlement walks and diffs
// the whole tree), and docs/performance.md's memory cost of a write-audit snapshot per
// file. Rerun on an idle machine with
//
//	go test -run '^$' -bench 'SnapshotWait|AuditSnapshotMemory' -benchtime 1x -count 5 ./engine
package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// benchWorkspace is a folder of n empty files, 1,000 to a folder, made once
// per test binary and shared by the benchmarks that ask for the same n.
var benchWorkspaces sync.Map // n -> string

func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	if dir, ok := benchWorkspaces.Load(n); ok {
		return dir.(string)
	}
	dir, err := os.MkdirTemp("", "rostra-bench-ws-")
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		sub := filepath.Join(dir, "src", fmt.Sprintf("pkg%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%04d.go", i%1000)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	benchWorkspaces.Store(n, dir)
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	benchWorkspaces.Range(func(_, dir any) bool {
		os.RemoveAll(dir.(string))
		return true
	})
	os.Exit(code)
}

// BenchmarkSnapshotWaitWhileAuditSettles reports the longest single
// Snapshot call a reader polling every millisecond (a UI drawing frames)
// saw while an audited worker's attempt settled in a 100,000-file workspace:
// from its exit to its worker-completed event.
func BenchmarkSnapshotWaitWhileAuditSettles(b *testing.B) {
	ws := benchWorkspace(b, 100_000)
	var worst, quiet []time.Duration
	for range b.N {
		w := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**"}})
		plan := testPlan(b, w)
		plan.Workspace = ws
		plan.StateDir = filepath.Join(b.TempDir(), "state")
		if err := os.MkdirAll(plan.StateDir, 0o700); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(filepath.Join(ws, "out"))
		h := startHarness(b, plan)
		fh := h.opened(h.pane)
		h.write("out/a/result.json", "{}")

		// The same reader for 300 ms before the attempt ends (the loop idle,
		// the snapshot's background hasher still reading): on a loaded
		// machine the scheduler alone makes a reader wait this long.
		quiet = append(quiet, longestSnapshotWait(h.eng, func() { time.Sleep(300 * time.Millisecond) }))

		worst = append(worst, longestSnapshotWait(h.eng, func() {
			fh.finish(0)
			// A walk of 100,000 files on a loaded machine may take longer
			// than h.event waits.
			for {
				ev, ok := h.sub.Next()
				if !ok || ev.Type == statedir.EventWorkerCompleted {
					return
				}
			}
		}))
	}
	sort.Slice(worst, func(i, j int) bool { return worst[i] < worst[j] })
	b.ReportMetric(float64(worst[len(worst)/2].Microseconds())/1000, "median-max-wait-ms")
	b.ReportMetric(float64(worst[len(worst)-1].Microseconds())/1000, "max-wait-ms")
	sort.Slice(quiet, func(i, j int) bool { return quiet[i] < quiet[j] })
	b.ReportMetric(float64(quiet[len(quiet)/2].Microseconds())/1000, "quiet-max-wait-ms")
}

// longestSnapshotWait polls Snapshot every millisecond while during runs
// and returns the longest call.
func longestSnapshotWait(e *Engine, during func()) time.Duration {
	stop := make(chan struct{})
	longest := make(chan time.Duration)
	go func() {
		var most time.Duration
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			start := time.Now()
			e.Snapshot()
			most = max(most, time.Since(start))
			select {
			case <-stop:
				longest <- most
				return
			case <-tick.C:
			}
		}
	}()
	during()
	close(stop)
	return <-longest
}

// BenchmarkAuditSnapshotMemory reports the heap a write-audit snapshot of
// 100,000 files keeps (bytes per file, after a GC, with the snapshot live)
// and what its walk allocates in all.
func BenchmarkAuditSnapshotMemory(b *testing.B) {
	const n = 100_000
	ws := benchWorkspace(b, n)
	var kept, allocated float64
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := workspace.SnapshotWorkspace(ws, nil)
		if err != nil {
			b.Fatal(err)
		}
		s.WaitHashed()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if s.Len() < n {
			b.Fatalf("snapshot holds %d files, want %d", s.Len(), n)
		}
		kept += (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(s.Len())
		allocated += float64(after.TotalAlloc-before.TotalAlloc) / float64(s.Len())
		runtime.KeepAlive(s)
		s.Close()
	}
	b.ReportMetric(kept/float64(b.N), "kept-B/file")
	b.ReportMetric(allocated/float64(b.N), "alloc-B/file")
}
