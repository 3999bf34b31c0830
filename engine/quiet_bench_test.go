// quiet_bench_test.go measures what the engine keeps for each quiet
// worker (docs/performance.md §Memory of a quiet pane): the goroutines,
// live heap and stacks of 16 running attempts on fake handles, over none.
// Rerun with
//
//	go test -run '^$' -bench QuietWorkers -benchtime 3x ./engine
package engine

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rostra-dev/rostra/runfile"
)

// notifyingHandle is a fake handle that tells its end through OnDone, as
// the panes' handles do.
type notifyingHandle struct{ *fakeHandle }

func (h notifyingHandle) OnDone(f func()) {
	h.mu.Lock()
	if !h.exited() {
		h.onDone = append(h.onDone, f)
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	f()
}

func BenchmarkQuietWorkers(b *testing.B) {
	for _, notify := range []bool{false, true} {
		name := "goroutine-waits"
		if notify {
			name = "handle-notifies"
		}
		b.Run(name, func(b *testing.B) {
			const n = 16
			var goroutines, heap, stack float64
			for b.Loop() {
				var ws []runfile.WorkerSpec
				for i := range n {
					ws = append(ws, runfile.WorkerSpec{ID: fmt.Sprintf("w%d", i), Surfaces: []runfile.SurfaceKind{runfile.SurfacePane}})
				}
				plan := testPlan(b, ws...)
				plan.PanesMax = n
				g0, h0, s0 := quietSample()
				h := startHarnessWith(b, plan, func(pane, _ *fakeSurface) {
					if notify {
						pane.wrap = func(fh *fakeHandle) Handle { return notifyingHandle{fh} }
					}
				})
				var fhs []*fakeHandle
				for range n {
					fhs = append(fhs, h.opened(h.pane))
				}
				h.sync()
				g1, h1, s1 := quietSample()
				goroutines, heap, stack = float64(g1-g0)/n, float64(h1-h0)/n, float64(s1-s0)/n
				for _, fh := range fhs {
					fh.finish(0)
				}
				h.shutdown()
			}
			b.ReportMetric(goroutines, "goroutines/worker")
			b.ReportMetric(heap, "heap-B/worker")
			b.ReportMetric(stack, "stack-B/worker")
		})
	}
}

// quietSample is the goroutines, live heap and goroutine stacks once the
// garbage is gone.
func quietSample() (int, int64, int64) {
	time.Sleep(50 * time.Millisecond) // the engine's own goroutines settle
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), int64(ms.HeapAlloc), int64(ms.StackInuse)
}
