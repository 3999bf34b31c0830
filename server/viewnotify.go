// viewnotify.go carries the run's notifications to the UIs over many
// runs (docs/agents.md §Notifications, docs/remote.md §Many runs in one
// UI). The run's engine decides, by its one rule (the kinds its run file
// turns on, at most one per worker per 10 s, a failure only when no retry
// follows); the server hands each decision to its view clients as well
// as to its own sessions, in the next View's Notices. The UI over many
// runs writes the sequence its own terminal understands, unless the
// human types into that pane there, and answers with an OpNotified
// request saying what it did, so the run's notified event counts it.
//
// Data model: viewNotices is the set of view clients, each with the
// notices not yet sent in a View, and the announcements awaiting their
// answers by notice number; all behind its mutex.
package server

import (
	"sync"
	"time"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/tui"
)

// Notice is one notification of the run, as a View carries it.
type Notice struct {
	ID      uint64 `json:"id"` // the number its OpNotified answer names
	Worker  string `json:"worker"`
	Attempt int    `json:"attempt,omitempty"`
	Kind    string `json:"kind"`
	State   string `json:"state,omitempty"`
	Why     string `json:"why,omitempty"`
	Method  string `json:"method,omitempty"`
}

// OpNotified is a view client's answer to a Notice (Request.Notice): Text
// names the sequence it wrote ("" for none), Quiet that it wrote none
// because the human types into that pane. It gets no Reply.
const OpNotified = "notified"

type viewNotices struct {
	mu      sync.Mutex
	seq     uint64
	clients map[*noticeClient]struct{}
	waiting map[uint64]chan tui.NotifyReply
}

// noticeClient is one view client's notices not yet sent.
type noticeClient struct {
	queue []Notice
	kick  func()
}

// join adds a view client; kick wakes its loop. The returned func takes
// its notices not yet sent; leave removes it.
func (vn *viewNotices) join(kick func()) (take func() []Notice, leave func()) {
	c := &noticeClient{kick: kick}
	vn.mu.Lock()
	if vn.clients == nil {
		vn.clients = map[*noticeClient]struct{}{}
	}
	vn.clients[c] = struct{}{}
	vn.mu.Unlock()
	take = func() []Notice {
		vn.mu.Lock()
		defer vn.mu.Unlock()
		q := c.queue
		c.queue = nil
		return q
	}
	leave = func() {
		vn.mu.Lock()
		delete(vn.clients, c)
		vn.mu.Unlock()
	}
	return take, leave
}

// maxQueuedNotices bounds a view client's unsent notices (one whose
// link is cut takes none until it is let go).
const maxQueuedNotices = 64

// send queues n for every view client and returns how many there are
// and where their answers come.
func (vn *viewNotices) send(n engine.Notification) (id uint64, count int, answers <-chan tui.NotifyReply) {
	vn.mu.Lock()
	defer vn.mu.Unlock()
	if len(vn.clients) == 0 {
		return 0, 0, nil
	}
	vn.seq++
	id = vn.seq
	ch := make(chan tui.NotifyReply, len(vn.clients))
	if vn.waiting == nil {
		vn.waiting = map[uint64]chan tui.NotifyReply{}
	}
	vn.waiting[id] = ch
	nt := Notice{ID: id, Worker: n.Worker, Attempt: n.Attempt, Kind: n.Kind, State: n.State, Why: n.Why, Method: n.Method}
	for c := range vn.clients {
		if len(c.queue) < maxQueuedNotices {
			c.queue = append(c.queue, nt)
			count++
			c.kick()
		}
	}
	return id, count, ch
}

// answer is a view client's OpNotified for notice id.
func (vn *viewNotices) answer(id uint64, r tui.NotifyReply) {
	vn.mu.Lock()
	ch := vn.waiting[id]
	vn.mu.Unlock()
	if ch != nil {
		select {
		case ch <- r:
		default:
		}
	}
}

// done forgets notice id's answers.
func (vn *viewNotices) done(id uint64) {
	vn.mu.Lock()
	delete(vn.waiting, id)
	vn.mu.Unlock()
}

// announceViews hands n to the view clients and adds what they did to d,
// waiting at most wait for their answers.
func (s *Server) announceViews(n engine.Notification, wait time.Duration) engine.Delivery {
	id, count, answers := s.viewNotes.send(n)
	if count == 0 {
		return engine.Delivery{}
	}
	defer s.viewNotes.done(id)
	return tui.GatherReplies(answers, count, wait)
}

// notification is the Notice as the UI over many runs announces it:
// its worker's ID prefixed by the run's name there.
func (nt Notice) notification(run, prefix string) engine.Notification {
	return engine.Notification{Run: run, Worker: prefix + "/" + nt.Worker, Attempt: nt.Attempt,
		Kind: nt.Kind, State: nt.State, Why: nt.Why, Method: nt.Method}
}
