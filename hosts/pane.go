// pane.go shows a remote worker's pane here: the part's server is
// joined in view mode through the host's transport and the bridge
// (server.Multi, one link per part, dialled again when it drops), which
// paints an emulator here from the changed rows of each pane there; that
// emulator's handle is the attempt's engine.Handle here, so the local
// grid draws it as any pane, and keys typed into it and its size go back
// over the same link to the pty there.
package hosts

import (
	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// paneView is the view link of one part and the handles it gave.
type paneView struct {
	multi  *server.Multi
	prefix string                   // the workers' prefix in the view: "<host>:<run>"
	given  map[string]engine.Handle // worker: the handle mirrored
	stop   func()                   // ends the relay of its activity
}

// openView joins the part's server in view mode, once it is up; false
// while it cannot (the next tick tries again).
func (p *part) openView() *paneView {
	p.mu.Lock()
	v := p.view
	p.mu.Unlock()
	if v != nil || p.state == "" || p.stopping() {
		return v
	}
	m, err := server.OpenMulti([]server.RunAddr{{Ref: p.state, Host: p.name, Dial: func() (server.Stream, error) {
		return p.t.Stream(p.bridge())
	}}})
	if err != nil {
		return nil
	}
	pv := &paneView{multi: m, prefix: p.name + ":" + p.ps.plan.Name, given: map[string]engine.Handle{}}
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
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		pv.close()
		return nil
	}
	p.view = pv
	p.mu.Unlock()
	return pv
}

// followPanes mirrors, for each worker of the part, the handle of the
// attempt its view shows.
func (p *part) followPanes(rows []statedir.WorkerRow) {
	v := p.openView()
	if v == nil {
		return
	}
	for _, wr := range rows {
		if p.spec(wr.WorkerID) == nil {
			continue
		}
		h, n := v.multi.Handle(v.prefix + "/" + wr.WorkerID)
		if h == nil || v.given[wr.WorkerID] == h {
			continue
		}
		v.given[wr.WorkerID] = h
		p.m.MirrorHandle(wr.WorkerID, h, n)
	}
}

func (v *paneView) close() {
	v.multi.Close()
	v.stop()
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
