// notify.go makes the server the engine's Announcer (docs/agents.md
// §Notifications): a notification goes to the program of every attached
// client, each writes the sequence its own client's terminal
// understands, and the engine hears what each did. The run file's
// notify.command runs in the engine, once, whatever the clients.
package server

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/tui"
)

// announceWait bounds how long a notification waits for a client's
// program to answer (one busy drawing a flood, say).
const announceWait = time.Second

// announce hands n to every attached client's program and view client.
func (s *Server) announce(n engine.Notification) engine.Delivery {
	s.mu.Lock()
	progs := make([]*tea.Program, 0, len(s.sessions))
	for ss := range s.sessions {
		progs = append(progs, ss.prog)
	}
	s.mu.Unlock()
	// The UIs over many runs attached are told too (viewnotify.go), at
	// the same time as the sessions here.
	views := make(chan engine.Delivery, 1)
	go func() { views <- s.announceViews(n, announceWait) }()
	d := tui.Announce(progs, n, announceWait)
	vd := <-views
	d.Via = append(d.Via, vd.Via...)
	d.Quiet += vd.Quiet
	return d
}
