// engine.go is the attempt state machine (SPEC §4): it dispatches every
// worker at once over its runtime chain, watches each attempt (exit, wall and
// idle timeouts, completion files), settles it in SPEC §4.2's order, retries,
// and keeps team-state.json and events.jsonl in step.
//
// Data model: one goroutine, the loop, owns all run state and runs every
// change as a closure taken from inbox, holding mu so Snapshot readers see
// a consistent copy. Process exits, timers and file events arrive as
// closures posted from other goroutines; each closure checks that the
// attempt it was made for is still the one it concerns, so a message from a
// cancelled or earlier attempt changes nothing. Subscribers get events
// through their own queues and never block the loop.
package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options are what the engine is given besides the plan.
type Options struct {
	Surfaces map[SurfaceKind]Surface
	Clock    Clock    // nil: RealClock
	Environ  []string // children's base environment; nil: os.Environ()
	// PaneSize gives the terminal size a new pane of a worker opens with;
	// nil: 120x40 (a headless run still gives panes a pty).
	PaneSize func(worker string) (cols, rows int)
	// Resumed, when set, is the team-state of the run being resumed
	// (rostra run --resume); its rows are kept and its attempt numbers go on.
	Resumed *TeamState
}

// Errors of the manual controls.
var (
	ErrUnknownWorker = errors.New("no such worker")
	ErrNotRunning    = errors.New("nothing to cancel: the worker has no running attempt and no retry pending")
	ErrShuttingDown  = errors.New("rostra is stopping")
)

// Engine drives one run.
type Engine struct {
	plan  *Plan
	opts  Options
	clock Clock

	inbox    chan func()
	quit     chan struct{}
	loopDone chan struct{}

	mu       sync.RWMutex // held by the loop while it changes anything below
	st       TeamState
	workers  []*workerRT
	byID     map[string]*workerRT
	live     map[*attemptRT]bool // attempts whose process has not ended
	stopping map[*attemptRT]bool // ended attempts whose leftovers are being stopped
	panes    int                 // live attempts on the pane surface

	log      *EventLog
	subsMu   sync.Mutex
	subs     []*Subscription
	finished chan struct{}
	finOnce  sync.Once

	shuttingDown bool
	stopped      chan struct{} // closed once every worker is stopped after a shutdown
	stoppedOnce  bool
	persistErr   error
	logErr       error // the first failed append to events.jsonl
	dirty        bool
	afterBatch   []chan struct{} // do() callers waiting for the batch to be saved
}

type workerRT struct {
	spec        *WorkerSpec
	roster      AttemptPlan // the result pointer the roster row checks (attempt 1's expansion)
	idx         int         // in st.Workers
	lastAttempt int
	cur         *attemptRT
	backoff     Timer
	backoffSeq  int
}

type attemptRT struct {
	w       *workerRT
	plan    AttemptPlan
	idx     int // in st.Dispatches
	manual  bool
	surface SurfaceKind
	handle  Handle

	settled bool
	exited  bool

	cancelled     bool
	cancelReason  string
	manualRetry   bool // start a manual attempt once this one has settled
	timedOut      bool
	timeoutReason string
	stopSent      bool

	wallTimer   Timer
	idleTimer   Timer
	killTimer   Timer
	stableTimer Timer
	lastBytes   int64
	lastOutput  time.Time
	stableSig   string
	watch       *fileWatch
	audit       *writeAudit
}

// New prepares an engine for plan. The state dir must exist and be locked
// by the caller (PrepareStateDir).
func New(plan *Plan, opts Options) *Engine {
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.PaneSize == nil {
		opts.PaneSize = func(string) (int, int) { return 120, 40 }
	}
	e := &Engine{
		plan:     plan,
		opts:     opts,
		clock:    opts.Clock,
		inbox:    make(chan func(), 1024),
		quit:     make(chan struct{}),
		loopDone: make(chan struct{}),
		byID:     map[string]*workerRT{},
		live:     map[*attemptRT]bool{},
		stopping: map[*attemptRT]bool{},
		finished: make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	return e
}

// Plan is the plan the engine runs.
func (e *Engine) Plan() *Plan { return e.plan }

// Start writes the initial state and dispatches every worker, in roster
// order, without waiting for any of them.
func (e *Engine) Start() error {
	now := e.clock.Now()
	e.st = TeamState{
		Version:    1,
		Run:        e.plan.Name,
		RunFile:    e.plan.RunFile,
		Workspace:  e.plan.Workspace,
		StateDir:   e.plan.StateDir,
		Status:     RunRunning,
		Pid:        os.Getpid(),
		PidStart:   ProcessStart(os.Getpid()),
		StartedAt:  now,
		Workers:    []WorkerRow{},
		Dispatches: []DispatchRow{},
	}
	prev := e.opts.Resumed
	if prev != nil {
		e.st.StartedAt = prev.StartedAt
		e.st.Dispatches = append(e.st.Dispatches, prev.Dispatches...)
	}
	for i := range e.plan.Workers {
		spec := &e.plan.Workers[i]
		row := WorkerRow{
			WorkerID:   spec.ID,
			Role:       spec.Role,
			Provider:   spec.Provider,
			Status:     StatusPending,
			ResultPath: spec.Completion.Result,
			Command:    spec.Command,
		}
		w := &workerRT{spec: spec, idx: i}
		if first, err := e.plan.Expand(spec, 1); err == nil {
			w.roster = AttemptPlan{Result: first.Result, Aliases: first.Aliases}
			row.ResultPath = first.Result
		}
		if prev != nil {
			for _, old := range prev.Workers {
				if old.WorkerID == spec.ID {
					// A resumed worker keeps the provider and command recorded
					// for the run, whatever the run file says now.
					row = old
					w.lastAttempt = old.Attempts
					spec.Provider = old.Provider
					if len(old.Command) > 0 {
						spec.Command = old.Command
					}
				}
			}
		}
		e.st.Workers = append(e.st.Workers, row)
		e.workers = append(e.workers, w)
		e.byID[spec.ID] = w
	}
	log, err := OpenEventLog(filepath.Join(e.plan.StateDir, EventsFile))
	if err != nil {
		return err
	}
	e.log = log
	if err := e.persist(); err != nil {
		log.Close()
		return err
	}
	go e.loop()
	e.do(func() {
		e.emit(Event{Type: EventRunStarted, Pid: os.Getpid()})
		for _, w := range e.workers {
			if e.st.Workers[w.idx].Status == StatusCompleted {
				continue
			}
			e.startAttempt(w, false)
		}
		e.checkFinished()
	})
	return nil
}

// loop runs posted closures one at a time and saves team-state.json after
// each batch, so a burst of changes costs one write.
func (e *Engine) loop() {
	defer close(e.loopDone)
	for {
		select {
		case f := <-e.inbox:
			e.mu.Lock()
			f()
		batch:
			for range 256 {
				select {
				case f := <-e.inbox:
					f()
				default:
					break batch
				}
			}
			// Encode under the lock, write (and fsync) outside it, so the UI's
			// Snapshot never waits for the disk. Only this goroutine writes.
			var data []byte
			var err error
			if e.dirty {
				data, err = e.encodeState()
			}
			waiters := e.afterBatch
			e.afterBatch = nil
			logErr := e.logErr
			e.mu.Unlock()
			if data != nil {
				err = e.writeState(data)
			}
			if err == nil && logErr != nil {
				err = logErr
			}
			if err != nil {
				e.mu.Lock()
				e.failPersist(err)
				e.mu.Unlock()
			}
			for _, c := range waiters {
				close(c)
			}
		case <-e.quit:
			return
		}
	}
}

// post hands f to the loop from any goroutine other than the loop's.
func (e *Engine) post(f func()) {
	select {
	case e.inbox <- f:
	default:
		go func() {
			select {
			case e.inbox <- f:
			case <-e.loopDone:
			}
		}()
	}
}

// do runs f on the loop and waits until the state it changed is saved.
func (e *Engine) do(f func()) {
	done := make(chan struct{})
	e.post(func() { f(); e.afterBatch = append(e.afterBatch, done) })
	select {
	case <-done:
	case <-e.loopDone:
	}
}

func (e *Engine) persist() error {
	data, err := e.encodeState()
	if err != nil {
		return err
	}
	return e.writeState(data)
}

// encodeState serialises the state and marks it saved; the caller holds mu.
func (e *Engine) encodeState() ([]byte, error) {
	data, err := json.MarshalIndent(&e.st, "", "  ")
	if err != nil {
		return nil, err
	}
	e.dirty = false
	return append(data, '\n'), nil
}

func (e *Engine) writeState(data []byte) error {
	return WriteFileAtomic(filepath.Join(e.plan.StateDir, TeamStateFile), data, 0o600)
}

// failPersist stops the run safely when team-state.json cannot be written:
// the previous file is intact, the error is published, every worker stops.
func (e *Engine) failPersist(err error) {
	if e.persistErr != nil {
		return
	}
	e.persistErr = err
	e.emit(Event{Type: EventStateWriteFailed, Reason: err.Error()})
	e.beginShutdown("stopped: " + err.Error())
}

// Err is the first error that kept the engine from saving its state.
func (e *Engine) Err() error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.persistErr
}

func (e *Engine) emit(ev Event) {
	ev.TS = e.clock.Now().UTC()
	if e.log != nil {
		if err := e.log.Append(ev); err != nil && e.logErr == nil {
			e.logErr = err // the loop stops the run once this batch is over
		}
	}
	e.subsMu.Lock()
	for _, s := range e.subs {
		s.push(ev)
	}
	e.subsMu.Unlock()
}

// startAttempt opens the next attempt of w on the first available surface
// of its chain.
func (e *Engine) startAttempt(w *workerRT, manual bool) {
	e.dirty = true
	n := w.lastAttempt + 1
	w.lastAttempt = n
	w.backoff = nil
	now := e.clock.Now()
	ap, expandErr := e.plan.Expand(w.spec, n)
	a := &attemptRT{w: w, plan: ap, manual: manual, lastOutput: now}
	row := DispatchRow{
		DispatchID:        ap.DispatchID,
		WorkerID:          w.spec.ID,
		Attempt:           n,
		Status:            StatusRunning,
		StartedAt:         now.UTC(),
		CompletionPaths:   ap.Paths,
		ResultAliases:     ap.Aliases,
		StatusSidecarPath: ap.StatusFile,
		OutputLogPath:     ap.OutputLog,
		Manual:            manual,
	}
	if ap.Writes != nil {
		row.WritePolicy = ap.Writes
		row.WritePolicyDigest = WritePolicy{Globs: ap.Writes}.Digest()
	}
	a.idx = len(e.st.Dispatches)
	e.st.Dispatches = append(e.st.Dispatches, row)
	wr := &e.st.Workers[w.idx]
	wr.Status = StatusRunning
	wr.Attempts = n
	wr.Reason = ""
	w.cur = a
	if expandErr != nil {
		e.settleUnopened(a, expandErr.Error(), FailureNotStarted)
		return
	}
	if err := e.prepareAttemptDir(&ap); err != nil {
		e.settleUnopened(a, err.Error(), FailureNotStarted)
		return
	}
	if ap.Writes != nil {
		audit, err := startWriteAudit(e.plan)
		if err != nil {
			e.settleUnopened(a, "write audit: snapshot before the attempt: "+err.Error(), FailureNotStarted)
			return
		}
		a.audit = audit
	}
	launch := e.launchSpec(w.spec, &ap)
	chain := w.spec.Surfaces
	var reasons []string
	var lastReason string
	for _, kind := range chain {
		h, why := e.open(kind, launch)
		if h == nil {
			lastReason = why
			reasons = append(reasons, string(kind)+": "+why)
			continue
		}
		a.surface = kind
		a.handle = h
		break
	}
	if a.handle == nil {
		e.settleUnopened(a, "no surface could open: "+strings.Join(reasons, "; "), FailureNotStarted)
		return
	}
	d := &e.st.Dispatches[a.idx]
	d.Surface = a.surface
	d.Pid = a.handle.Pid()
	d.Containment = a.handle.Containment()
	if a.surface != chain[0] {
		d.DegradedFrom = chain[0]
		d.DegradedReason = lastReason
	}
	e.live[a] = true
	if a.surface == SurfacePane {
		e.panes++
	}
	e.emit(Event{Type: EventWorkerDispatched, WorkerID: w.spec.ID, Attempt: n, Surface: a.surface, Pid: d.Pid, Manual: manual})
	if d.DegradedFrom != "" {
		e.emit(Event{Type: EventWorkerDegraded, WorkerID: w.spec.ID, Attempt: n, From: d.DegradedFrom, To: a.surface, Reason: d.DegradedReason})
	}
	e.watchAttempt(a)
}

// open tries one surface; it returns the handle or why the surface is
// unavailable.
func (e *Engine) open(kind SurfaceKind, launch LaunchSpec) (Handle, string) {
	if kind == SurfacePane && e.panes >= e.plan.PanesMax {
		return nil, fmt.Sprintf("pane limit reached (%d of %d in use)", e.panes, e.plan.PanesMax)
	}
	s := e.opts.Surfaces[kind]
	if s == nil {
		return nil, fmt.Sprintf("%s surface is not available in this rostra", kind)
	}
	h, err := s.Open(launch)
	if err != nil {
		why := err.Error()
		if strings.TrimSpace(why) == "" {
			why = "no reason reported"
		}
		return nil, why
	}
	if h == nil {
		return nil, "no reason reported"
	}
	return h, ""
}

func (e *Engine) prepareAttemptDir(ap *AttemptPlan) error {
	dir := filepath.Dir(ap.PromptFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create attempt folder: %w", err)
	}
	if err := os.WriteFile(ap.PromptFile, []byte(ap.Prompt), 0o600); err != nil {
		return fmt.Errorf("write prompt file: %w", err)
	}
	return nil
}

func (e *Engine) launchSpec(spec *WorkerSpec, ap *AttemptPlan) LaunchSpec {
	env := append([]string{}, e.opts.Environ...)
	env = append(env,
		"ROSTRA_RUN="+e.plan.Name,
		"ROSTRA_WORKER="+spec.ID,
		"ROSTRA_ATTEMPT="+fmt.Sprint(ap.Attempt),
		"ROSTRA_STATE_DIR="+e.plan.StateDir,
		"ROSTRA_PROMPT_FILE="+ap.PromptFile,
	)
	for k, v := range ap.Env {
		env = append(env, k+"="+v)
	}
	cols, rows := e.opts.PaneSize(spec.ID)
	l := LaunchSpec{
		DispatchID: ap.DispatchID,
		Worker:     spec.ID,
		Attempt:    ap.Attempt,
		Argv:       ap.Argv,
		Dir:        ap.Dir,
		Env:        env,
		OutputLog:  ap.OutputLog,
		Cols:       cols,
		Rows:       rows,
		StopGrace:  spec.StopGrace,
	}
	if spec.Delivery == DeliveryType {
		l.Stdin = []byte(ap.Prompt)
		l.TypePrompt = []byte(ap.Prompt)
		l.TypeQuiet = TypeQuiet
	}
	return l
}

// TypeQuiet is how long a pane's output must be quiet before a typed prompt
// is delivered.
var TypeQuiet = 500 * time.Millisecond

// watchAttempt arms everything that can end an open attempt.
func (e *Engine) watchAttempt(a *attemptRT) {
	spec := a.w.spec
	h := a.handle
	go func() {
		<-h.Done()
		e.post(func() { e.onExit(a) })
	}()
	if d, ok := h.(PromptDelivered); ok && spec.Delivery == DeliveryType {
		go func() {
			select {
			case how, ok := <-d.PromptDelivered():
				if ok {
					e.post(func() {
						e.emit(Event{Type: EventWorkerPromptDelivered, WorkerID: spec.ID, Attempt: a.plan.Attempt, Delivery: how})
					})
				}
			case <-h.Done():
			}
		}()
	} else if spec.Delivery == DeliveryType && a.surface == SurfaceWrapper {
		e.emit(Event{Type: EventWorkerPromptDelivered, WorkerID: spec.ID, Attempt: a.plan.Attempt, Delivery: "stdin"})
	}
	if spec.Timeout > 0 {
		a.wallTimer = e.clock.AfterFunc(spec.Timeout, func() {
			e.post(func() { e.timeout(a, "attempt timed out after "+spec.Timeout.String()) })
		})
	}
	if spec.IdleTimeout > 0 {
		e.armIdle(a, spec.IdleTimeout)
	}
	if spec.Completion.Settle == SettleOnFiles {
		fw, err := startFileWatch(e.plan.Workspace, completionTargets(&a.plan), func() {
			e.post(func() { e.onFilesChanged(a) })
		})
		if err == nil {
			a.watch = fw
		} else {
			// Without file-system events (inotify limits reached) the files
			// are looked at on a timer instead, so an agent that stays open
			// still settles.
			every := max(spec.Completion.Stable, time.Second)
			e.emit(Event{Type: EventWorkerWatchFailed, WorkerID: spec.ID, Attempt: a.plan.Attempt,
				Reason: fmt.Sprintf("%v; looking for the completion files every %s instead", err, every)})
			e.pollFiles(a, every)
		}
		e.onFilesChanged(a)
	}
}

// startFileWatch is watchCompletion; tests replace it to make it fail.
var startFileWatch = watchCompletion

// pollFiles looks for an on-files attempt's files every interval until it
// settles or exits: the fallback when they cannot be watched.
func (e *Engine) pollFiles(a *attemptRT, every time.Duration) {
	e.clock.AfterFunc(every, func() {
		e.post(func() {
			if a.settled || a.exited {
				return
			}
			e.onFilesChanged(a)
			e.pollFiles(a, every)
		})
	})
}

// armIdle checks the output counter a quarter of the idle timeout apart, so
// an attempt times out between idle and 1.25×idle after its last output.
func (e *Engine) armIdle(a *attemptRT, idle time.Duration) {
	a.idleTimer = e.clock.AfterFunc(idle/4, func() {
		e.post(func() {
			if a.settled || a.exited {
				return
			}
			now := e.clock.Now()
			if b := a.handle.OutputBytes(); b != a.lastBytes {
				a.lastBytes = b
				a.lastOutput = now
			}
			if now.Sub(a.lastOutput) >= idle {
				e.timeout(a, "no output for "+idle.String())
				return
			}
			e.armIdle(a, idle)
		})
	})
}

func (e *Engine) timeout(a *attemptRT, reason string) {
	if a.settled || a.exited || a.cancelled || a.timedOut {
		return
	}
	a.timedOut = true
	a.timeoutReason = reason
	e.stop(a)
}

// stop sends SIGTERM to the attempt's group, then SIGKILL after stop_grace.
func (e *Engine) stop(a *attemptRT) {
	if a.stopSent || a.exited {
		return
	}
	a.stopSent = true
	a.handle.Signal(syscall.SIGTERM)
	a.killTimer = e.clock.AfterFunc(a.w.spec.StopGrace, func() {
		e.post(func() {
			if !a.exited {
				a.handle.Signal(syscall.SIGKILL)
			}
		})
	})
}

func (e *Engine) onFilesChanged(a *attemptRT) {
	if a.settled {
		return
	}
	if a.watch != nil {
		a.watch.refresh()
	}
	check := CheckCompletion(e.plan.Workspace, &a.plan)
	if !check.Satisfied {
		if a.stableTimer != nil {
			a.stableTimer.Stop()
			a.stableTimer = nil
		}
		a.stableSig = ""
		return
	}
	if check.Signature == a.stableSig {
		return
	}
	a.stableSig = check.Signature
	if a.stableTimer != nil {
		a.stableTimer.Stop()
	}
	sig := check.Signature
	a.stableTimer = e.clock.AfterFunc(a.w.spec.Completion.Stable, func() {
		e.post(func() { e.onStable(a, sig) })
	})
}

// onStable settles an on-files attempt whose files kept the same size and
// mtime for the whole stability window; the process, if still running,
// gets stop_grace to exit before it is stopped.
func (e *Engine) onStable(a *attemptRT, sig string) {
	if a.settled || a.stableSig != sig {
		return
	}
	check := CheckCompletion(e.plan.Workspace, &a.plan)
	if !check.Satisfied || check.Signature != sig {
		a.stableSig = ""
		e.onFilesChanged(a)
		return
	}
	e.settle(a, nil)
	if !a.exited {
		e.clock.AfterFunc(a.w.spec.StopGrace, func() {
			e.post(func() { e.stop(a) })
		})
	}
}

// onExit runs once the attempt's process has ended and its output is read.
func (e *Engine) onExit(a *attemptRT) {
	a.exited = true
	delete(e.live, a)
	if a.surface == SurfacePane {
		e.panes--
	}
	for _, t := range []Timer{a.wallTimer, a.idleTimer, a.killTimer, a.stableTimer} {
		if t != nil {
			t.Stop()
		}
	}
	if a.watch != nil {
		a.watch.close()
	}
	exit := a.handle.Exit()
	if !a.settled {
		e.settle(a, &exit)
	} else {
		// Settled on files while it ran: record how it ended.
		d := &e.st.Dispatches[a.idx]
		code := exit.Code
		if code >= 0 {
			d.ExitCode = &code
		}
		e.writeSidecar(a, &exit)
		e.dirty = true
	}
	e.reapLeftovers(a)
	e.maybeFinishShutdown()
}

// reapLeftovers stops whatever is left of a finished attempt's process
// group (SPEC §4.4): SIGTERM, SIGKILL after stop_grace. Finding what is
// left and closing it may wait on the kernel, so it runs off the loop.
func (e *Engine) reapLeftovers(a *attemptRT) {
	h := a.handle
	grace := a.w.spec.StopGrace
	e.stopping[a] = true
	go func() {
		if h.Lingering() {
			h.Signal(syscall.SIGTERM)
			graceOver := make(chan struct{})
			e.clock.AfterFunc(grace, func() { close(graceOver) })
			<-graceOver
		}
		h.Close()
		e.post(func() {
			delete(e.stopping, a)
			e.maybeFinishShutdown()
		})
	}()
}

// settleUnopened settles an attempt that never started a process.
func (e *Engine) settleUnopened(a *attemptRT, reason, class string) {
	if a.audit != nil {
		a.audit.abandon()
	}
	a.exited = true
	a.settled = true
	now := e.clock.Now().UTC()
	d := &e.st.Dispatches[a.idx]
	d.Status = StatusError
	d.Reason = reason
	d.FailureClass = class
	d.EndedAt = &now
	e.writeSidecar(a, nil)
	wr := &e.st.Workers[a.w.idx]
	wr.Status = StatusError
	wr.Reason = reason
	e.emit(Event{Type: EventWorkerFailed, WorkerID: a.w.spec.ID, Attempt: a.plan.Attempt, Status: StatusError, Reason: reason})
	e.afterSettle(a, StatusError, false)
}

// settle decides an attempt's outcome in SPEC §4.2's order. exit is nil
// when the attempt settles on its files while the process still runs.
func (e *Engine) settle(a *attemptRT, exit *ExitStatus) {
	a.settled = true
	e.dirty = true
	spec := a.w.spec
	var status, reason, class string
	violation := false
	if a.audit != nil && (a.cancelled || a.timedOut) {
		a.audit.abandon()
	}
	switch {
	case a.cancelled:
		status, reason, class = StatusCancelled, a.cancelReason, FailureCancelled
	case a.timedOut:
		status, reason, class = StatusTimeout, a.timeoutReason, FailureTimeout
	default:
		check := CheckCompletion(e.plan.Workspace, &a.plan)
		if !a.plan.ExpectsFiles() {
			// Nothing to look for: the exit code is all there is to go on.
			check.Satisfied = exit != nil && exit.Code == 0 && exit.Signal == ""
		}
		if check.Satisfied {
			status = StatusCompleted
			if exit != nil && (exit.Code != 0 || exit.Signal != "") {
				reason = exitText(exit) + "; outputs present"
			}
		} else {
			status = StatusError
			reason, class = failureReason(exit, spec, check)
		}
		if a.audit != nil {
			failure := ""
			if status != StatusCompleted {
				failure = reason
			}
			if why := a.audit.finish(&e.st.Dispatches[a.idx], failure, completionTargets(&a.plan), e.othersOwn(a)); why != "" {
				status, reason, class, violation = StatusError, why, FailureWritePolicy, true
			}
		}
	}
	now := e.clock.Now().UTC()
	d := &e.st.Dispatches[a.idx]
	d.Status = status
	d.Reason = reason
	d.FailureClass = class
	d.EndedAt = &now
	d.Timeout = a.timedOut && !a.cancelled
	if exit != nil && exit.Code >= 0 {
		code := exit.Code
		d.ExitCode = &code
	}
	e.writeSidecar(a, exit)
	ev := Event{WorkerID: spec.ID, Attempt: a.plan.Attempt, Status: status, Reason: reason, ExitCode: d.ExitCode}
	switch status {
	case StatusCompleted:
		ev.Type = EventWorkerCompleted
	case StatusCancelled:
		ev.Type = EventWorkerCancelled
	case StatusTimeout:
		ev.Type = EventWorkerTimeout
	default:
		ev.Type = EventWorkerFailed
	}
	e.emit(ev)
	// The dispatch row is settled; now the roster row.
	wr := &e.st.Workers[a.w.idx]
	wr.Status, wr.Reason = status, reason
	if status == StatusCompleted {
		if err := ResultPresent(e.plan.Workspace, &a.w.roster); err != nil {
			why := "roster not updated: " + err.Error()
			d.Reason = joinReason(d.Reason, why)
			wr.Status, wr.Reason = StatusError, why
			e.emit(Event{Type: EventWorkerRosterNotUpdated, WorkerID: spec.ID, Attempt: a.plan.Attempt, Reason: why})
		}
	}
	e.afterSettle(a, status, violation)
}

// afterSettle starts the next attempt when one is due.
func (e *Engine) afterSettle(a *attemptRT, status string, violation bool) {
	w := a.w
	spec := w.spec
	switch {
	case e.shuttingDown:
	case a.manualRetry:
		e.emit(Event{Type: EventWorkerRetry, WorkerID: spec.ID, Attempt: a.plan.Attempt, Manual: true})
		e.startAttempt(w, true)
	case status == StatusError && !violation && a.plan.Attempt < spec.MaxAttempts:
		e.st.Workers[w.idx].Status = StatusRetrying
		w.backoffSeq++
		seq := w.backoffSeq
		e.emit(Event{Type: EventWorkerRetry, WorkerID: spec.ID, Attempt: a.plan.Attempt, Delay: spec.RetryBackoff.String(),
			Reason: fmt.Sprintf("attempt %d of %d in %s", a.plan.Attempt+1, spec.MaxAttempts, spec.RetryBackoff)})
		w.backoff = e.clock.AfterFunc(spec.RetryBackoff, func() {
			e.post(func() {
				if w.backoffSeq != seq || w.backoff == nil || e.shuttingDown {
					return
				}
				e.startAttempt(w, false)
			})
		})
	}
	e.checkFinished()
}

func (e *Engine) writeSidecar(a *attemptRT, exit *ExitStatus) {
	d := &e.st.Dispatches[a.idx]
	sc := StatusSidecar{
		ExitCode:  d.ExitCode,
		Timeout:   d.Timeout,
		Surface:   d.Surface,
		StartedAt: d.StartedAt,
	}
	if d.EndedAt != nil {
		sc.EndedAt = *d.EndedAt
	}
	if exit != nil {
		sc.Signal = exit.Signal
	}
	if d.Status != StatusCompleted {
		sc.Failure = d.Reason
	}
	data, _ := json.MarshalIndent(sc, "", "  ")
	if err := WriteFileAtomic(a.plan.StatusFile, append(data, '\n'), 0o600); err != nil {
		// The row keeps the outcome; a missing sidecar is noted there.
		d.Reason = joinReason(d.Reason, "status sidecar not written: "+err.Error())
	}
}

func exitText(exit *ExitStatus) string {
	if exit.Signal != "" {
		return "killed by signal " + exit.Signal
	}
	return fmt.Sprintf("exited with code %d", exit.Code)
}

// failureReason is SPEC §4.2 rule 4's reason for an attempt whose
// completion is not satisfied, and its failure class.
func failureReason(exit *ExitStatus, spec *WorkerSpec, check CompletionCheck) (reason, class string) {
	switch {
	case exit == nil:
		return check.MissingReason(), FailureMissingOutputs
	case exit.Signal != "":
		return exitText(exit), FailureExitCode
	case spec.NoResultExitCode != nil && exit.Code == *spec.NoResultExitCode:
		return "CLI ended cleanly without emitting a result", FailureNoResult
	case exit.Code != 0:
		return exitText(exit), FailureExitCode
	default:
		return check.MissingReason(), FailureMissingOutputs
	}
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// checkFinished marks the run finished when no worker has an attempt open
// or a retry pending.
func (e *Engine) checkFinished() {
	if e.shuttingDown {
		return // a quit is an interruption, whatever the workers' rows say
	}
	for _, w := range e.workers {
		switch e.st.Workers[w.idx].Status {
		case StatusPending, StatusRunning, StatusRetrying:
			return
		}
	}
	if e.st.Status == RunFinished {
		return
	}
	now := e.clock.Now().UTC()
	e.st.Status = RunFinished
	e.st.EndedAt = &now
	e.dirty = true
	completed := 0
	for _, wr := range e.st.Workers {
		if wr.Status == StatusCompleted {
			completed++
		}
	}
	e.emit(Event{Type: EventRunFinished, Reason: fmt.Sprintf("%d of %d workers completed", completed, len(e.st.Workers))})
	e.finOnce.Do(func() { close(e.finished) })
}

// Finished is closed the first time every worker has settled for good.
func (e *Engine) Finished() <-chan struct{} { return e.finished }

// Retry starts a manual attempt of a worker (SPEC §4.6): a running attempt
// is cancelled first; a pending automatic retry is replaced. Asking again
// while the cancel is under way still yields one new attempt.
func (e *Engine) Retry(worker string) error {
	var err error
	e.do(func() {
		w := e.byID[worker]
		switch {
		case w == nil:
			err = fmt.Errorf("retry %s: %w", worker, ErrUnknownWorker)
		case e.shuttingDown:
			err = fmt.Errorf("retry %s: %w", worker, ErrShuttingDown)
		case w.cur != nil && !w.cur.settled:
			a := w.cur
			a.manualRetry = true
			if !a.cancelled {
				a.cancelled = true
				a.cancelReason = "cancelled for a manual retry"
				e.stop(a)
			}
		default:
			if w.backoff != nil {
				w.backoff.Stop()
				w.backoff = nil
			}
			w.backoffSeq++
			if e.st.Status == RunFinished {
				e.st.Status = RunRunning
				e.st.EndedAt = nil
			}
			e.emit(Event{Type: EventWorkerRetry, WorkerID: worker, Attempt: w.lastAttempt, Manual: true})
			e.startAttempt(w, true)
		}
	})
	return err
}

// Cancel stops a worker's running attempt, or its pending retry.
func (e *Engine) Cancel(worker string) error {
	var err error
	e.do(func() {
		w := e.byID[worker]
		switch {
		case w == nil:
			err = fmt.Errorf("cancel %s: %w", worker, ErrUnknownWorker)
		case w.cur != nil && !w.cur.settled:
			a := w.cur
			a.manualRetry = false
			if !a.cancelled {
				a.cancelled = true
				a.cancelReason = "cancelled by a human"
				e.stop(a)
			}
		case w.backoff != nil:
			w.backoff.Stop()
			w.backoff = nil
			w.backoffSeq++
			wr := &e.st.Workers[w.idx]
			wr.Status = StatusCancelled
			wr.Reason = "cancelled by a human before its retry"
			e.dirty = true
			e.emit(Event{Type: EventWorkerCancelled, WorkerID: worker, Attempt: w.lastAttempt, Status: StatusCancelled, Reason: wr.Reason})
			e.checkFinished()
		default:
			err = fmt.Errorf("cancel %s: %w", worker, ErrNotRunning)
		}
	})
	return err
}

// Shutdown stops every worker gracefully (SIGTERM, SIGKILL after
// stop_grace), waits for them, saves the final state and closes the event
// log. The run is recorded finished when every worker had settled for good,
// interrupted otherwise.
func (e *Engine) Shutdown() error {
	e.post(func() {
		if !e.shuttingDown {
			e.beginShutdown("stopped: rostra is quitting")
		}
	})
	<-e.stopped
	close(e.quit)
	<-e.loopDone
	err := e.persistErr
	if cerr := e.log.Close(); err == nil {
		err = cerr
	}
	return err
}

func (e *Engine) beginShutdown(reason string) {
	e.shuttingDown = true
	for _, w := range e.workers {
		if w.backoff != nil {
			w.backoff.Stop()
			w.backoff = nil
			w.backoffSeq++
			wr := &e.st.Workers[w.idx]
			wr.Status = StatusCancelled
			wr.Reason = reason
			e.dirty = true
		}
		if a := w.cur; a != nil && !a.settled {
			a.manualRetry = false
			if !a.cancelled {
				a.cancelled = true
				a.cancelReason = reason
			}
		}
		if a := w.cur; a != nil && !a.exited {
			e.stop(a)
		}
	}
	e.maybeFinishShutdown()
}

func (e *Engine) maybeFinishShutdown() {
	if !e.shuttingDown || e.stoppedOnce || len(e.live) > 0 || len(e.stopping) > 0 {
		return
	}
	if e.st.Status != RunFinished {
		now := e.clock.Now().UTC()
		e.st.Status = RunInterrupted
		e.st.EndedAt = &now
		e.emit(Event{Type: EventRunInterrupted, Reason: "rostra stopped before every worker finished"})
	}
	if err := e.persist(); err != nil && e.persistErr == nil {
		e.persistErr = err
	}
	e.stoppedOnce = true
	close(e.stopped)
}

// Stopped is closed once the engine has stopped every worker, after
// Shutdown or after it stopped the run itself (its state could not be saved).
func (e *Engine) Stopped() <-chan struct{} { return e.stopped }

// Snapshot copies the current state.
func (e *Engine) Snapshot() TeamState {
	e.mu.RLock()
	defer e.mu.RUnlock()
	st := e.st
	st.Workers = append([]WorkerRow(nil), e.st.Workers...)
	st.Dispatches = append([]DispatchRow(nil), e.st.Dispatches...)
	return st
}

// Handle is the open (or last) attempt of a worker, for the UI to draw and
// type into; nil when the worker has none.
func (e *Engine) Handle(worker string) (Handle, int) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	w := e.byID[worker]
	if w == nil || w.cur == nil || w.cur.handle == nil {
		return nil, 0
	}
	return w.cur.handle, w.cur.plan.Attempt
}

// ExitCode is rostra's exit code for the run as it stands (SPEC §5): 0 when
// every worker completed, 1 otherwise.
func (e *Engine) ExitCode() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, wr := range e.st.Workers {
		if wr.Status != StatusCompleted {
			return 1
		}
	}
	return 0
}
