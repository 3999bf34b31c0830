// pane.go is a part's view link: the part's server joined in view mode
// through the host's transport and the bridge (server.Multi, one link per
// part, dialled again when it drops). It brings two things. The part's
// state, pushed by its server each time it changes
// (docs/remote.md §While it runs): the link hands each to the part's
// follower (part.go), which copies its rows in. And its panes: an emulator here painted from the
// changed rows of each pane there; that emulator's handle is the
// attempt's engine.Handle here, so the local grid draws it as any pane,
// and keys typed into it and its size go back over the same link to the
// pty there.
package hosts

import (
	"errors"
	"sync"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// paneView is the view link of one part and what it brought.
type paneView struct {
	multi  *server.Multi
	prefix string                   // the workers' prefix in the view: "<host>:<run>"
	given  map[string]engine.Handle // worker: the handle mirrored
	stop   func()                   // ends the relay of its activity

	pushed chan struct{} // a View came (cap 1: Views between two looks coalesce)
	over   chan struct{} // closed once the link is over for good
	once   sync.Once

	mu    sync.Mutex
	st    *statedir.TeamState // the latest state it brought
	fresh bool                // st has not been looked at yet
}

// latest is the latest state the link brought, and whether it is new
// since the last look.
func (v *paneView) latest() (*statedir.TeamState, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fresh := v.fresh
	v.fresh = false
	return v.st, fresh
}

// openView joins the part's server in view mode; nil and why when it
// cannot (or the part was stopped).
func (p *part) openView() (*paneView, error) {
	if p.state == "" || p.stopping() {
		return nil, errStopped
	}
	pv := &paneView{prefix: p.name + ":" + p.ps.plan.Name, given: map[string]engine.Handle{},
		pushed: make(chan struct{}, 1), over: make(chan struct{})}
	poke := func() {
		select {
		case pv.pushed <- struct{}{}:
		default:
		}
	}
	lostOnce := false
	m, err := server.OpenMulti([]server.RunAddr{{Ref: p.state, Host: p.name,
		Dial: func() (server.Stream, error) { return p.t.Stream(p.bridge()) },
		OnView: func(st *statedir.TeamState) {
			if st != nil {
				pv.mu.Lock()
				pv.st, pv.fresh = st, true
				pv.mu.Unlock()
			}
			if lostOnce {
				lostOnce = false
				p.logf("its link is back")
			}
			poke()
		},
		OnLost: func(err error) {
			if !lostOnce {
				lostOnce = true
				p.logf("its link is lost (%v); the part goes on there, and rostra dials it again", err)
			}
		},
		OnOver: func(string) { pv.once.Do(func() { close(pv.over) }) },
	}})
	if err != nil {
		return nil, err
	}
	pv.multi = m
	// The view's emulators wake its own activity; the local UIs listen
	// on the run's.
	wake, stop := m.Activity().Listen()
	done := make(chan struct{})
	pv.stop = func() { stop(); close(done) }
	go func() {
		for {
			select {
			case <-wake:
				if a := p.ps.opts.Activity; a != nil {
					a.Wake()
				}
			case <-done:
				return
			}
		}
	}()
	// Multi keeps the run's events for a UI; nobody reads them here (the
	// rows make this run's own events, engine.MirrorRow).
	go func() {
		for {
			if _, ok := m.Next(); !ok {
				return
			}
		}
	}()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		pv.close()
		return nil, errStopped
	}
	p.view = pv
	p.mu.Unlock()
	return pv, nil
}

// followPanes mirrors, for each worker of the part, the handle of the
// attempt its view shows.
func (p *part) followPanes(v *paneView) {
	for _, w := range p.workers {
		h, n := v.multi.Handle(v.prefix + "/" + w.ID)
		if h == nil || v.given[w.ID] == h {
			continue
		}
		v.given[w.ID] = h
		p.m.MirrorHandle(w.ID, h, n)
	}
}

func (v *paneView) close() {
	v.multi.Close()
	v.stop()
}

// dropView ends a link that is over, its handles left to the next one.
func (p *part) dropView(v *paneView) {
	p.mu.Lock()
	if p.view == v {
		p.view = nil
	}
	p.mu.Unlock()
	v.close()
}

// closePanes ends the view of a part that stopped.
func (p *part) closePanes() {
	p.mu.Lock()
	v := p.view
	p.view = nil
	p.closed = true
	p.mu.Unlock()
	if v != nil {
		v.close()
	}
}

// errStopped: the part was stopped, or has no state dir there yet.
var errStopped = errors.New("the part is stopped")
