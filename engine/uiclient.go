// uiclient.go records in events.jsonl the UI sessions that come from
// another machine (an SSH session of rostra's SSH server, docs/remote.md
// §The SSH server): who came, from where, and how the session ended.
package engine

import "github.com/rostra-dev/rostra/statedir"

// RecordUIClient appends an ssh-session-started (started) or -ended event
// for c; why says how a session ended. It does not wait for the loop.
func (e *Engine) RecordUIClient(c statedir.UIClient, started bool, why string) {
	ev := statedir.Event{Type: statedir.EventSSHSessionEnded, Client: &c, Reason: why}
	if started {
		ev = statedir.Event{Type: statedir.EventSSHSessionStarted, Client: &c}
	}
	e.post(func() { e.emit(ev) })
}
