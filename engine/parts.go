// parts.go is the engine's seam for workers placed on other hosts
// (docs/remote.md §One roster over many hosts). The engine does not run
// them: a part of the run on each host does, with rostra's own engine
// there. Here such a worker's row and its dispatch rows are the part's,
// copied in by the Parts the run was given (Mirror), and its pane is a
// Handle the Parts feeds from the host (MirrorHandle). The engine saves,
// publishes and counts them as any other row, so one team-state.json,
// one `rostra status` and one `rostra wait` cover the whole roster.
package engine

import (
	"github.com/rostra-dev/rostra/statedir"
)

// Parts runs the workers of a plan placed on other hosts.
type Parts interface {
	// Run starts (or reattaches to) every host's part and mirrors its
	// rows into m until Stop, on goroutines of its own: it returns at
	// once. The engine calls it once, from its loop, as the run starts
	// (so before any Stop).
	Run(m Mirror)
	// Stop stops every part and returns once they have stopped (or
	// cannot be reached), their last rows mirrored.
	Stop(reason string)
	// Control passes a human's retry or cancel ("retry", "cancel") of a
	// worker to its host.
	Control(op, worker string) error
}

// Mirror is what Parts writes into: the engine.
type Mirror interface {
	// MirrorRow replaces the row of a remote worker (row.WorkerID) and its
	// dispatch rows by the part's, in attempt order.
	MirrorRow(row statedir.WorkerRow, dispatches []statedir.DispatchRow)
	// MirrorHandle makes h the pane of a remote worker's attempt; nil
	// drops it.
	MirrorHandle(worker string, h Handle, attempt int)
}

// MirrorRow implements Mirror.
func (e *Engine) MirrorRow(row statedir.WorkerRow, dispatches []statedir.DispatchRow) {
	e.post(func() {
		w := e.byID[row.WorkerID]
		if w == nil || !w.spec.Remote() {
			return
		}
		row.Host = w.spec.Host
		e.st.Workers[w.idx] = row
		if e.remoteDisp == nil {
			e.remoteDisp = map[string][]int{}
		}
		idx := e.remoteDisp[row.WorkerID]
		for i, d := range dispatches {
			if i < len(idx) {
				e.mirrorEvents(&e.st.Dispatches[idx[i]], d)
				e.st.Dispatches[idx[i]] = d
				continue
			}
			e.mirrorEvents(nil, d)
			e.st.Dispatches = append(e.st.Dispatches, d)
			idx = append(idx, len(e.st.Dispatches)-1)
		}
		e.remoteDisp[row.WorkerID] = idx
		w.lastAttempt = row.Attempts
		e.dirty = true
		e.checkFinished()
	})
}

// mirrorEvents emits, for a remote attempt's row as it was (nil when new)
// and is now, the events a local attempt would have: its dispatch and its
// settlement. So events.jsonl, the headless lines and whatever follows
// the events tell of remote workers as of local ones.
func (e *Engine) mirrorEvents(was *statedir.DispatchRow, now statedir.DispatchRow) {
	if was == nil && now.Surface != "" {
		e.emit(statedir.Event{Type: statedir.EventWorkerDispatched, WorkerID: now.WorkerID, Attempt: now.Attempt, Surface: now.Surface, Pid: now.Pid, Manual: now.Manual})
	}
	if now.EndedAt == nil || (was != nil && was.EndedAt != nil) {
		return
	}
	typ := statedir.EventWorkerFailed
	switch now.Status {
	case statedir.StatusCompleted:
		typ = statedir.EventWorkerCompleted
	case statedir.StatusTimeout:
		typ = statedir.EventWorkerTimeout
	case statedir.StatusCancelled:
		typ = statedir.EventWorkerCancelled
	}
	e.emit(statedir.Event{Type: typ, WorkerID: now.WorkerID, Attempt: now.Attempt, Status: now.Status, Reason: now.Reason, FailureClass: now.FailureClass, ExitCode: now.ExitCode})
}

// MirrorHandle implements Mirror.
func (e *Engine) MirrorHandle(worker string, h Handle, attempt int) {
	e.post(func() {
		if e.remoteHandles == nil {
			e.remoteHandles = map[string]viewHandle{}
		}
		if h == nil {
			delete(e.remoteHandles, worker)
		} else {
			e.remoteHandles[worker] = viewHandle{h, attempt}
		}
		e.dirty = true
	})
}

// startParts hands the remote workers to the run's Parts.
func (e *Engine) startParts() {
	if e.opts.Parts == nil {
		for _, w := range e.workers {
			if w.spec.Remote() {
				wr := &e.st.Workers[w.idx]
				wr.Status, wr.Reason = statedir.StatusError, "placed on host "+w.spec.Host+", and this run has no way to reach other hosts"
				e.dirty = true
			}
		}
		return
	}
	e.opts.Parts.Run(e)
}

// stopParts stops the other hosts' parts as the run stops, as a
// background job: the shutdown ends once they have stopped.
func (e *Engine) stopParts(reason string) {
	if e.opts.Parts == nil || e.partsStopping {
		return
	}
	e.partsStopping = true
	e.startBackground()
	go func() {
		e.opts.Parts.Stop(reason)
		e.post(e.endBackground)
	}()
}

// remoteControl reports whether a human's retry or cancel of worker goes
// to its host's part. The plan is not changed once the run starts, so
// this reads it off the loop.
func (e *Engine) remoteControl(worker string) bool {
	spec, ok := e.plan.Worker(worker)
	return ok && spec.Remote() && e.opts.Parts != nil
}

// indexRemoteDispatches finds, in a resumed run's rows, the dispatch rows
// of its remote workers: the part's rows replace them in place.
func (e *Engine) indexRemoteDispatches() {
	for i, d := range e.st.Dispatches {
		if w := e.byID[d.WorkerID]; w != nil && w.spec.Remote() {
			if e.remoteDisp == nil {
				e.remoteDisp = map[string][]int{}
			}
			e.remoteDisp[d.WorkerID] = append(e.remoteDisp[d.WorkerID], i)
		}
	}
}
