// queue.go answers the requests about the workers' prompt queues
// (docs/agents.md §A queue of prompts): `rostra send --queue` queues a
// prompt, `rostra queue` lists them, `rostra queue rm` and `rostra queue
// clear` edit them. The engine keeps and saves the queues and types them;
// the server only asks it.
package server

import (
	"errors"
	"fmt"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/statedir"
)

// queueSend queues req.Text for the worker's agent.
func (s *Server) queueSend(req Request) Reply {
	if r, ok := s.knownWorker(req.Worker); !ok {
		return r
	}
	p, n, err := s.eng.QueuePrompt(req.Worker, req.Text)
	switch {
	case errors.Is(err, engine.ErrNoAgentState):
		return Reply{Code: 2, Error: err.Error()}
	case err != nil:
		return Reply{Code: 1, Error: err.Error()}
	}
	ahead := "it is typed when the agent next waits for input"
	if n > 1 {
		ahead = fmt.Sprintf("%d ahead of it", n-1)
	}
	return Reply{Note: fmt.Sprintf("%s: prompt %d queued (%s)", req.Worker, p.ID, ahead)}
}

// queueOp lists or edits the queues.
func (s *Server) queueOp(req Request) Reply {
	if req.Worker == "" && req.Op == OpQueue {
		qs := map[string][]statedir.QueuedPrompt{}
		for _, w := range s.eng.Plan().Workers {
			if ps := s.eng.Queue(w.ID); len(ps) > 0 {
				qs[w.ID] = ps
			}
		}
		return Reply{Queues: qs}
	}
	if r, ok := s.knownWorker(req.Worker); !ok {
		return r
	}
	switch req.Op {
	case OpQueue:
		return Reply{Queues: map[string][]statedir.QueuedPrompt{req.Worker: s.eng.Queue(req.Worker)}}
	case OpQueueRemove:
		p, left, err := s.eng.RemoveQueued(req.Worker, req.Prompt)
		switch {
		case errors.Is(err, engine.ErrNotQueued):
			return Reply{Code: 2, Error: err.Error()}
		case err != nil:
			return Reply{Code: 1, Error: err.Error()}
		}
		return Reply{Note: fmt.Sprintf("%s: prompt %d removed (%d left)", req.Worker, p.ID, left)}
	default:
		n, left, err := s.eng.ClearQueue(req.Worker)
		if err != nil {
			return Reply{Code: 1, Error: err.Error()}
		}
		note := fmt.Sprintf("%s: %d queued prompt(s) removed", req.Worker, n)
		if left > 0 {
			note += fmt.Sprintf("; %d is being typed now", left)
		}
		return Reply{Note: note}
	}
}
