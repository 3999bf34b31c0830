package main

// memtrim.go gives the system back the memory a burst of attempt starts
// and ends leaves behind (docs/performance.md §Memory of a quiet pane):
// the Go heap's garbage is not collected while the heap stays under its
// goal (4 MB at least), so without this a quiet run keeps the start-up's
// garbage resident for as long as it runs.

import (
	"runtime/debug"
	"time"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/statedir"
)

// trimQuiet is how long after the last attempt started or ended the
// memory is given back: a burst (the run's start, a wave of retries) is
// over by then.
const trimQuiet = time.Second

// eventSource is what trimAfterBursts reads: an engine subscription.
type eventSource interface {
	Next() (statedir.Event, bool)
}

// trimMemory trims after each burst of eng's attempts until the returned
// function is called (before eng.Start, so the first burst is seen).
func trimMemory(eng *engine.Engine) (stop func()) {
	sub := eng.Subscribe()
	done := trimAfterBursts(sub, engine.RealClock{}, trimQuiet, debug.FreeOSMemory)
	return func() {
		sub.Close()
		<-done
	}
}

// trimAfterBursts runs trim once quiet has passed with no attempt started
// or ended after one did, until src ends. Nothing else wakes it: an idle
// run is never woken by it.
func trimAfterBursts(src eventSource, clock engine.Clock, quiet time.Duration, trim func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var t engine.Timer
		defer func() {
			if t != nil {
				t.Stop()
			}
		}()
		for {
			ev, ok := src.Next()
			if !ok {
				return
			}
			switch ev.Type {
			case statedir.EventWorkerDispatched, statedir.EventWorkerCompleted, statedir.EventWorkerFailed,
				statedir.EventWorkerTimeout, statedir.EventWorkerCancelled:
				if t != nil {
					t.Stop()
				}
				t = clock.AfterFunc(quiet, trim)
			}
		}
	}()
	return done
}
