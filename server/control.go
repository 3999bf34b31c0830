// control.go answers control requests from any shell: status, retry,
// cancel, send, screen, stop, wait, follow and info. Quick requests are
// answered in turn on one connection; the blocking ones (stop, wait,
// follow) end it with their answer, and give up when the client goes.
//
// Retry and cancel follow the keys' rules (the engine's Retry and Cancel);
// send types into a worker's pane as a paste would: bracketed when the
// child enabled bracketed paste, newlines as CR, then Enter when asked.
package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/tui"
)

// sendTimeout bounds how long `rostra send` waits for a child that does
// not read its input.
const sendTimeout = 5 * time.Second

// freshTimeout bounds how long a fresh status waits for its measurements
// (git, on a large worktree behind a commit); the last figures go out then.
const freshTimeout = 3 * time.Second

func (s *Server) control(c net.Conn, fr *FrameReader) {
	if err := WriteJSON(c, FrameWelcome, s.welcome()); err != nil {
		return
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(s.log, "rostra server: a control client: %v\n", err)
			}
			return
		}
		var req Request
		if f.Type != FrameRequest {
			err = fmt.Errorf("%w: a control client may not send a %s frame", ErrFrame, f.Type)
		} else {
			err = DecodeJSON(f.Payload, &req)
		}
		if err != nil {
			fmt.Fprintf(s.log, "rostra server: dropped a control client: %v\n", err)
			_ = WriteJSON(c, FrameBye, Bye{Reason: ByeDropped, Code: 2, Message: err.Error()})
			return
		}
		switch req.Op {
		case OpStop, OpWait, OpFollow:
			_ = WriteJSON(c, FrameReply, s.blocking(c, req))
			if req.Op == OpStop {
				s.holdUntilExit(c)
			}
			return
		}
		if err := WriteJSON(c, FrameReply, s.answer(req)); err != nil {
			return
		}
	}
}

// answer handles a request that needs no waiting.
func (s *Server) answer(req Request) Reply {
	switch req.Op {
	case OpInfo:
		return Reply{Info: s.info()}
	case OpStatus:
		if req.Fresh {
			select {
			case <-s.eng.RefreshDiffStats():
			case <-time.After(freshTimeout):
			}
		}
		st := s.eng.Snapshot()
		return Reply{State: &st}
	case OpRetry:
		if r, ok := s.knownWorker(req.Worker); !ok {
			return r
		}
		if err := s.eng.Retry(req.Worker); err != nil {
			return Reply{Code: 1, Error: err.Error()}
		}
		return Reply{Note: req.Worker + ": manual attempt requested"}
	case OpCancel:
		if r, ok := s.knownWorker(req.Worker); !ok {
			return r
		}
		err := s.eng.Cancel(req.Worker)
		switch {
		case errors.Is(err, engine.ErrNotRunning):
			return Reply{Code: 1, Error: req.Worker + " has nothing to cancel (" + s.workerStatus(req.Worker) + ")"}
		case err != nil:
			return Reply{Code: 1, Error: err.Error()}
		}
		return Reply{Note: req.Worker + ": cancelled"}
	case OpSend:
		if req.Queue {
			return s.queueSend(req)
		}
		return s.send(req)
	case OpQueue, OpQueueRemove, OpQueueClear:
		return s.queueOp(req)
	case OpHook:
		if req.Hook == nil || req.Worker == "" || req.Attempt <= 0 {
			return Reply{Code: 2, Error: "a hook request needs its worker, its attempt and the hook's call"}
		}
		s.eng.Hook(req.Worker, req.Attempt, req.Hook.Event, req.Hook.Payload)
		return Reply{}
	case OpScreen:
		if r, ok := s.knownWorker(req.Worker); !ok {
			return r
		}
		h, _ := s.eng.Handle(req.Worker)
		t := tui.TerminalOf(h)
		if t == nil {
			return Reply{Code: 1, Error: req.Worker + " has no screen in the server (no attempt has opened, or it ended)"}
		}
		return Reply{Screen: t.Text(false)}
	}
	return Reply{Code: 2, Error: fmt.Sprintf("unknown request %q", req.Op)}
}

func (s *Server) info() *Info {
	st := s.eng.Snapshot()
	running := 0
	for _, w := range st.Workers {
		if statedir.Unsettled(w.Status) {
			running++
		}
	}
	plan := s.eng.Plan()
	return &Info{
		Run: plan.Name, RunFile: s.cfg.RunFile, StateDir: plan.StateDir, Pid: os.Getpid(),
		Started: s.started, Status: st.Status, Workers: len(st.Workers), Running: running, Clients: s.attached(),
	}
}

// knownWorker answers an unknown worker with the roster's ids (exit 2).
func (s *Server) knownWorker(id string) (Reply, bool) {
	plan := s.eng.Plan()
	if _, ok := plan.Worker(id); ok {
		return Reply{}, true
	}
	ids := make([]string, len(plan.Workers))
	for i, w := range plan.Workers {
		ids[i] = w.ID
	}
	return Reply{Code: 2, Error: fmt.Sprintf("run %s has no worker %q (workers: %s)", plan.Name, id, strings.Join(ids, ", "))}, false
}

// knownAttempt answers an attempt the worker has not started (which a
// follow would wait on until the run ends) with the attempts it has (exit
// 2).
func (s *Server) knownAttempt(worker string, attempt int) (Reply, bool) {
	var have []string
	for _, d := range s.eng.Snapshot().Dispatches {
		if d.WorkerID != worker {
			continue
		}
		if d.Attempt == attempt {
			return Reply{}, true
		}
		have = append(have, strconv.Itoa(d.Attempt))
	}
	attempts := "it has started none yet"
	if len(have) > 0 {
		attempts = "attempts: " + strings.Join(have, ", ")
	}
	return Reply{Code: 2, Error: fmt.Sprintf("%s has no attempt %d (%s)", worker, attempt, attempts)}, false
}

func (s *Server) workerStatus(id string) string {
	for _, w := range s.eng.Snapshot().Workers {
		if w.WorkerID == id {
			return w.Status
		}
	}
	return "unknown"
}

// send types req.Text (and Enter) into the worker's running pane.
func (s *Server) send(req Request) Reply {
	if r, ok := s.knownWorker(req.Worker); !ok {
		return r
	}
	h, attempt := s.eng.Handle(req.Worker)
	var row *statedir.DispatchRow
	st := s.eng.Snapshot()
	for i := range st.Dispatches {
		if d := &st.Dispatches[i]; d.WorkerID == req.Worker && d.Attempt == attempt {
			row = d
		}
	}
	switch {
	case h == nil || row == nil:
		return Reply{Code: 1, Error: req.Worker + " has no running attempt to type into (" + s.workerStatus(req.Worker) + ")"}
	case row.Surface == runfile.SurfaceWrapper:
		return Reply{Code: 1, Error: req.Worker + " runs on a WRAPPER (pipes, no terminal): it cannot be typed into"}
	case row.EndedAt != nil:
		return Reply{Code: 1, Error: req.Worker + " attempt " + strconv.Itoa(attempt) + " has ended: rostra retry starts a new one"}
	}
	w, ok := h.(interface{ Write([]byte) (int, error) })
	t := tui.TerminalOf(h)
	if !ok || t == nil {
		return Reply{Code: 1, Error: req.Worker + " cannot take keys"}
	}
	var b []byte
	if req.Text != "" {
		b = vt.EncodePaste(req.Text, t.Modes())
	}
	if req.Enter {
		b = append(b, '\r')
	}
	if len(b) == 0 {
		return Reply{Note: "nothing to send"}
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.Write(b)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return Reply{Code: 1, Error: fmt.Sprintf("type into %s: %v", req.Worker, err)}
		}
	case <-time.After(sendTimeout):
		return Reply{Code: 1, Error: fmt.Sprintf("%s has not read its input for %s: the text is queued until it does", req.Worker, sendTimeout)}
	}
	how := "typed"
	if t.Modes().BracketedPaste && req.Text != "" {
		how = "pasted (bracketed)"
	}
	return Reply{Note: fmt.Sprintf("%s: %d bytes %s", req.Worker, len(b), how)}
}

// holdUntilExit keeps a stop's connection open until this process exits,
// once the run is over: the client learns that the server has gone (and
// the run's lock is free) when the kernel closes it.
func (s *Server) holdUntilExit(c net.Conn) {
	select {
	case <-s.over:
	default:
		return // the client went before the run was over
	}
	s.mu.Lock()
	s.held[c] = struct{}{}
	s.mu.Unlock()
}

// blocking handles stop, wait and follow: each waits for the run (or an
// attempt) to reach a point, or for the client to go away.
func (s *Server) blocking(c net.Conn, req Request) Reply {
	gone := make(chan struct{})
	go func() {
		// A control client sends nothing after a blocking request: a read
		// returns only when it has gone (or sent something it must not).
		var b [1]byte
		_, _ = c.Read(b[:])
		close(gone)
	}()
	switch req.Op {
	case OpStop:
		s.Stop("rostra stop")
		select {
		case <-s.over:
			return Reply{Code: s.code, Note: "the run stopped: " + s.eng.Snapshot().Status}
		case <-gone:
			return Reply{}
		}
	case OpWait:
		if req.Until != "" {
			return s.waitNeedsYou(gone, req)
		}
		code, ok := s.waitState(gone, func(st statedir.TeamState) bool { return st.Status == statedir.RunFinished })
		if !ok {
			return Reply{}
		}
		return Reply{Code: code, Note: "the run " + s.eng.Snapshot().Status}
	case OpFollow:
		if r, ok := s.knownWorker(req.Worker); !ok {
			return r
		}
		if r, ok := s.knownAttempt(req.Worker, req.Attempt); !ok {
			return r
		}
		_, ok := s.waitState(gone, func(st statedir.TeamState) bool {
			for _, d := range st.Dispatches {
				if d.WorkerID == req.Worker && d.Attempt == req.Attempt {
					return d.EndedAt != nil
				}
			}
			return false
		})
		if !ok {
			return Reply{}
		}
		return Reply{Note: fmt.Sprintf("%s attempt %d has ended", req.Worker, req.Attempt)}
	}
	return Reply{Code: 2, Error: fmt.Sprintf("unknown request %q", req.Op)}
}

// waitState waits until done(state) holds (code: the run's exit code as it
// stands) or the run is over (code: the server's), or the client has gone
// (ok=false).
func (s *Server) waitState(gone <-chan struct{}, done func(statedir.TeamState) bool) (code int, ok bool) {
	sub := s.eng.Subscribe()
	defer sub.Close()
	events := make(chan struct{}, 1)
	go func() {
		for {
			if _, ok := sub.Next(); !ok {
				return
			}
			select {
			case events <- struct{}{}:
			default:
			}
		}
	}()
	for {
		if done(s.eng.Snapshot()) {
			return s.eng.ExitCode(), true
		}
		select {
		case <-events:
		case <-s.over:
			return s.code, true
		case <-gone:
			return 0, false
		}
	}
}

// waitNeedsYou answers a wait until one of req.Workers' agents (every
// worker's when none is named) waits for the human: code 0 and which and
// why; 1 when the run ends first (docs/agents.md).
func (s *Server) waitNeedsYou(gone <-chan struct{}, req Request) Reply {
	if req.Until != UntilNeedsYou {
		return Reply{Code: 2, Error: fmt.Sprintf("unknown wait --until %q (use %s)", req.Until, UntilNeedsYou)}
	}
	plan := s.eng.Plan()
	watch := map[string]bool{}
	for _, id := range req.Workers {
		if r, ok := s.knownWorker(id); !ok {
			return r
		}
		if w, _ := plan.Worker(id); w.Agent == "" {
			return Reply{Code: 2, Error: id + " runs no known agent (its provider's agent: is unset and its command names none): rostra cannot tell when it waits"}
		}
		watch[id] = true
	}
	if len(watch) == 0 {
		for _, w := range plan.Workers {
			if w.Agent != "" {
				watch[w.ID] = true
			}
		}
		if len(watch) == 0 {
			return Reply{Code: 2, Error: "no worker of run " + plan.Name + " runs a known agent (docs/agents.md): rostra cannot tell when one waits"}
		}
	}
	var found *statedir.DispatchRow
	waiting := func(st statedir.TeamState) bool {
		found = nil
		latest := map[string]*statedir.DispatchRow{}
		for i := range st.Dispatches {
			d := &st.Dispatches[i]
			if watch[d.WorkerID] && (latest[d.WorkerID] == nil || d.Attempt > latest[d.WorkerID].Attempt) {
				latest[d.WorkerID] = d
			}
		}
		for _, d := range latest {
			if d.EndedAt != nil || (d.AgentState != "waiting-permission" && d.AgentState != "waiting-input") {
				continue
			}
			if found == nil || d.AgentStateSince != nil && found.AgentStateSince != nil && d.AgentStateSince.Before(*found.AgentStateSince) {
				found = d // the longest-waiting
			}
		}
		return found != nil
	}
	if _, ok := s.waitState(gone, waiting); !ok {
		return Reply{}
	}
	if !waiting(s.eng.Snapshot()) {
		return Reply{Code: 1, Note: "the run " + s.eng.Snapshot().Status + " before any of its agents waited for you"}
	}
	why := found.AgentStateEvidence
	if why == "" {
		why = found.AgentStateSource
	}
	since := "-"
	if found.AgentStateSince != nil {
		since = found.AgentStateSince.Local().Format(time.TimeOnly)
	}
	return Reply{Note: fmt.Sprintf("%s %s since %s: %s", found.DispatchID, found.AgentState, since, why)}
}
