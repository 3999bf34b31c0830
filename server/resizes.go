// resizes.go coalesces an attached client's Resize frames. Only the latest
// size of a client matters, and each size its program takes costs a layout
// and a whole view (and, once the layout holds still, a resize of the ptys:
// a reflow of each pane's scrollback and a SIGWINCH to each child). So the
// reader only records the latest size; one goroutine per session hands it
// to the program, at most once a frame (1/FPS), however fast the client
// sends: a flood of 10,000 frames costs a handful of layouts.
//
// Order is kept where a human would see it: before the reader passes on
// any other frame (keys, a detach, a suspend, a resume), it hands over the
// size still waiting, so keys typed after a resize reach the program after
// it, and go to the pane as resized.
//
// Data model: latest is the size not yet handed over (pending says there
// is one); handing takes it under mu, and the hand-over itself runs under
// handing, so that a size taken by the pacer is received by the program
// before the reader can pass on the frame that followed it.
package server

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
)

type resizes struct {
	send  func(tea.Msg) // the program's Send: returns once the program took the message
	every time.Duration // at most one size per this
	wake  chan struct{}

	handing sync.Mutex

	mu         sync.Mutex
	pending    bool
	cols, rows int
}

func newResizes(send func(tea.Msg), fps int) *resizes {
	return &resizes{send: send, every: time.Second / time.Duration(max(1, fps)), wake: make(chan struct{}, 1)}
}

// offer records the client's latest size; it never waits.
func (r *resizes) offer(cols, rows int) {
	r.mu.Lock()
	r.pending, r.cols, r.rows = true, cols, rows
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// flush hands the size waiting, if any, to the program; it returns once
// the program has taken it.
func (r *resizes) flush() {
	r.handing.Lock()
	defer r.handing.Unlock()
	r.mu.Lock()
	pending, cols, rows := r.pending, r.cols, r.rows
	r.pending = false
	r.mu.Unlock()
	if pending {
		r.send(tea.WindowSizeMsg{Width: cols, Height: rows})
	}
}

// pace hands sizes over as they come, at most one per r.every, until ctx
// (the program's) ends.
func (r *resizes) pace(ctx context.Context) {
	t := time.NewTimer(r.every)
	t.Stop()
	for {
		select {
		case <-r.wake:
		case <-ctx.Done():
			return
		}
		r.flush()
		t.Reset(r.every)
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}
