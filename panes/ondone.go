//go:build linux

package panes

// OnDone calls f once Done is closed: from the goroutine that closes it,
// or at once when it is closed already. f must not block. A supervisor
// told this way keeps no goroutine waiting on Done for each attempt
// (docs/performance.md §Memory of a quiet pane).
func (p *process) OnDone(f func()) {
	p.doneMu.Lock()
	if !p.doneSaid {
		p.onDone = append(p.onDone, f)
		p.doneMu.Unlock()
		return
	}
	p.doneMu.Unlock()
	f()
}

// sayDone calls the OnDone functions; Done is closed.
func (p *process) sayDone() {
	p.doneMu.Lock()
	p.doneSaid = true
	fs := p.onDone
	p.onDone = nil
	p.doneMu.Unlock()
	for _, f := range fs {
		f()
	}
}
