// lingering.go answers the engine's question after an attempt's leader has
// exited: is anything of the attempt still there to stop (SPEC §4.4)?
package panes

import (
	"errors"
	"syscall"
)

// Lingering reports whether a process of the attempt is left after its
// leader exited: a member of its process group, or a linked process (other
// groups of its pty session, token carriers, their descendants).
func (p *process) Lingering() bool {
	p.mu.Lock()
	gone := p.groupGone
	if !gone {
		if err := syscall.Kill(-p.pid, 0); errors.Is(err, syscall.ESRCH) {
			p.groupGone = true
			gone = true
		}
	}
	p.mu.Unlock()
	return !gone || len(p.linked()) > 0
}
