// engine.go is the attempt state machine (docs/design.md): it dispatches every
// worker at once over its runtime chain, watches each attempt (exit, wall and
// idle timeouts, completion files), settles it in docs/design.md's order, retries,
// and keeps team-state.json and events.jsonl in step.
//
// Data model: one goroutine, the loop, owns all run state and runs every
// change as a closure taken from its inbox (loop.go); readers get a copy it
// publishes after each batch and never wait for it. Nothing slow runs on
// the loop: an attempt's folder, its write-audit snapshot and the fork of
// its process are made on a goroutine of their own, a settlement's
// workspace walk too, and the state files are written by the disk writer
// (disk.go). Their results, process exits, timers and file events arrive
// as closures posted back; each checks that the attempt it was made for is
// still the one it concerns, so a message from a cancelled or earlier
// attempt changes nothing. Subscribers get events through their own queues
// and never block the loop.
package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// Options are what the engine is given besides the plan.
type Options struct {
	Surfaces map[runfile.SurfaceKind]Surface
	Clock    Clock    // nil: RealClock
	Environ  []string // children's base environment; nil: os.Environ()
	// PaneSize gives the terminal size a new pane of a worker opens with;
	// nil: 120x40 (a headless run still gives panes a pty).
	PaneSize func(worker string) (cols, rows int)
	// Resumed, when set, is the team-state of the run being resumed
	// (rostra run --resume); its rows are kept and its attempt numbers go on.
	Resumed *statedir.TeamState
	// Isolation is what PrepareIsolation found; a plan with isolated
	// workers cannot start without it.
	Isolation *workspace.Isolation
	// HookCommand is the absolute path of the rostra executable whose
	// `rostra hook` an agent's hooks run (agentstate.go); "": attempts
	// are given no hooks.
	HookCommand string
	// Parts runs the workers placed on other hosts (parts.go); nil when
	// the plan has none.
	Parts Parts
}

// Errors of the manual controls.
var (
	ErrUnknownWorker = errors.New("no such worker")
	ErrNotRunning    = errors.New("nothing to cancel: the worker has no running attempt and no retry pending")
	ErrShuttingDown  = errors.New("rostra is stopping")
)

// Engine drives one run.
type Engine struct {
	plan  *runfile.Plan
	opts  Options
	clock Clock

	in       *inbox
	quit     chan struct{}
	loopDone chan struct{}
	view     atomic.Pointer[view] // what readers see, published after each batch
	disk     *diskWriter
	sfs      *statedir.FS      // the state dir, opened once; no name below it is followed through a link
	relock   *statedir.RunLock // the lock on a state dir made again during the run (recreate.go)
	// stateWake wakes the disk writer's guard (recreate.go): stateWatch
	// hears the state dir go; where inotify cannot be had, stateTimer
	// looks once a second.
	stateWake  chan struct{}
	stateWatch *statedir.Watcher
	stateMu    sync.Mutex
	stateTimer Timer

	shutdownOnce sync.Once
	shutdownErr  error

	// Everything below is the loop's alone.
	st          statedir.TeamState
	workers     []*workerRT
	byID        map[string]*workerRT
	live        map[*attemptRT]bool // attempts being opened or whose process has not ended
	stopping    map[*attemptRT]bool // ended attempts whose leftovers are being stopped
	panes       int                 // attempts on (or holding a slot for) the pane surface
	background  int                 // jobs handed to other goroutines whose results are due
	idleWaiters []chan struct{}     // quiesce() callers

	log      *statedir.EventLog
	subsMu   sync.Mutex
	subs     []*Subscription
	finished chan struct{}
	finOnce  sync.Once

	shuttingDown bool
	stopped      chan struct{} // closed once every worker is stopped after a shutdown and the state saved
	stoppedOnce  bool
	persistErr   error
	dirty        bool
	afterBatch   []chan struct{}  // do() callers waiting for the batch to be saved
	unsent       []statedir.Event // emitted in this batch, for the subscribers
	notify       notifier         // notifications of the human (notify.go)
	finishNow    bool             // close finished after this batch's view is published
	worktreesEnd bool             // the run's end for the worktrees (commit, remove or keep) has begun
	// commitsDue counts settled attempts whose work is being committed on
	// their worktree's branch: the run is not finished before they are.
	commitsDue int
	// The remote workers' mirrored dispatch rows (their indexes in
	// st.Dispatches, in attempt order) and panes (parts.go).
	remoteDisp    map[string][]int
	remoteHandles map[string]viewHandle
	partsStopping bool
	queueView     map[string][]statedir.QueuedPrompt // the queues as readers see them (queue.go); replaced, never changed
}

type workerRT struct {
	spec        *runfile.WorkerSpec
	roster      runfile.AttemptPlan // the result pointer the roster row checks (attempt 1's expansion)
	idx         int                 // in st.Workers
	lastAttempt int
	cur         *attemptRT
	backoff     Timer
	backoffSeq  int
	iso         *isoRT // its worktree, when it is isolated
	queue       *promptQueue
	// resume is what its first attempt of a resumed run does, resumed
	// how many of its attempts continued a crashed one (resume.go).
	resume  *resumePlan
	resumed int
}

type attemptRT struct {
	w       *workerRT
	plan    runfile.AttemptPlan
	idx     int // in st.Dispatches
	manual  bool
	surface runfile.SurfaceKind
	handle  Handle // nil while the attempt is being opened

	// phase is the step of its life it is at (phase.go); it changes only
	// through Engine.advance.
	phase phase
	abort atomic.Bool // set by the loop: do not start the process if it is not started yet; read off the loop
	// paneReserved: it holds one of the panes.max slots.
	paneReserved bool

	// exited: its process has ended and its output is read. Not a phase:
	// an attempt that settles on its files is decided while its process
	// still runs.
	exited   bool
	stopSent bool // SIGTERM was sent to its process group
	// lateExit is the exit of a process that ended while its attempt's
	// settlement (settled on files) waited for the audit.
	lateExit *ExitStatus

	cancelled     bool
	cancelReason  string
	timedOut      bool
	timeoutReason string
	afterward     afterward // what follows it once decided: the retry policy, a manual attempt, or no retry

	wallTimer   Timer
	idleTimer   Timer
	killTimer   Timer
	stableTimer Timer
	statTimer   Timer // a diff-stat measurement asked for by output (isolation.go)
	lastBytes   int64
	lastOutput  time.Time
	stableSig   string
	watch       *fileWatch
	audit       *writeAudit
	log         *statedir.OutputLog

	// repoBefore is the shared repository as an isolated attempt found it;
	// repoFound what its settlement's check found (workspace/repocheck.go).
	repoBefore *workspace.RepoState
	repoFound  workspace.RepoFindings
	// coRunning names the workers whose attempts ran in the shared
	// workspace while this one did (itself included): who may have
	// written what its audit finds; nil when it is not audited.
	coRunning map[string]bool
	shared    bool // it runs in the shared workspace (noteCoRunning)
	// agent is its agent's state, for a worker of a known agent CLI.
	agent *agentRT
	feed  queueFeed // what typing its worker's queued prompts waits on (queue.go)
}

// New prepares an engine for plan. The state dir must exist and be locked
// by the caller (PrepareStateDir).
func New(plan *runfile.Plan, opts Options) *Engine {
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
		in:       newInbox(),
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
func (e *Engine) Plan() *runfile.Plan { return e.plan }

// Start writes the initial state and dispatches every worker, in roster
// order, without waiting for any of them.
func (e *Engine) Start() error {
	now := e.clock.Now()
	e.st = statedir.TeamState{
		Version:    1,
		Run:        e.plan.Name,
		RunFile:    e.plan.RunFile,
		Workspace:  e.plan.Workspace,
		StateDir:   e.plan.StateDir,
		Status:     statedir.RunRunning,
		Pid:        os.Getpid(),
		PidStart:   statedir.ProcessStart(os.Getpid()),
		StartedAt:  now,
		Workers:    []statedir.WorkerRow{},
		Dispatches: []statedir.DispatchRow{},
	}
	if e.plan.HasIsolated() && e.opts.Isolation == nil {
		return fmt.Errorf("%w: the run was not prepared (PrepareIsolation)", workspace.ErrIsolation)
	}
	if e.opts.Isolation != nil {
		e.st.GitFiles = e.opts.Isolation.GitFiles
	}
	prev := e.opts.Resumed
	if prev != nil {
		e.st.StartedAt = prev.StartedAt
		e.st.Dispatches = append(e.st.Dispatches, prev.Dispatches...)
	}
	for i := range e.plan.Workers {
		spec := &e.plan.Workers[i]
		row := statedir.WorkerRow{
			WorkerID:   spec.ID,
			Role:       spec.Role,
			Provider:   spec.Provider,
			Status:     statedir.StatusPending,
			ResultPath: spec.Completion.Result,
			Command:    spec.Command,
			Host:       spec.Host,
		}
		w := &workerRT{spec: spec, idx: i, roster: runfile.AttemptPlan{Workspace: e.plan.WorkspaceOf(spec)}}
		if first, err := e.plan.Expand(spec, 1); err == nil {
			w.roster = runfile.AttemptPlan{Workspace: first.Workspace, Result: first.Result, Aliases: first.Aliases}
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
		if spec.Isolated() && !spec.Remote() {
			w.iso = e.newIsoRT(spec)
			row.Isolation, row.Worktree, row.Branch, row.BaseCommit = runfile.IsolationWorktree, spec.Worktree, spec.Branch, w.iso.wt.Base
			row.WorktreeOutcome = ""
		}
		e.st.Workers = append(e.st.Workers, row)
		e.workers = append(e.workers, w)
		e.byID[spec.ID] = w
	}
	if prev != nil {
		e.planResumes(prev)
	}
	e.indexRemoteDispatches()
	if err := writeGitignore(e.plan); err != nil {
		return err
	}
	sfs, err := statedir.OpenFS(e.plan.StateDir)
	if err != nil {
		return err
	}
	e.sfs = sfs
	log, err := e.openEventLog()
	if err != nil {
		sfs.Close()
		return err
	}
	e.log = log
	if err := e.loadQueues(); err != nil {
		log.Close()
		return err
	}
	if err := e.persist(); err != nil {
		log.Close()
		return err
	}
	e.sfs.MakeReserve()
	e.disk = newDiskWriter(e.writeState, func(err error) { e.post(func() { e.failPersist(err) }) }, e.guardStateDir)
	e.disk.freeReserve = e.sfs.FreeReserve
	e.disk.guardWake = e.watchStateDir()
	e.disk.start()
	e.publish()
	go e.loop()
	e.do(func() {
		e.emit(statedir.Event{Type: statedir.EventRunStarted, Pid: os.Getpid()})
		e.announceIsolation()
		for _, w := range e.workers {
			if e.st.Workers[w.idx].Status == statedir.StatusCompleted || w.spec.Remote() {
				continue
			}
			e.startAttempt(w, false)
		}
		e.startParts()
		e.checkFinished()
	})
	return nil
}

func (e *Engine) persist() error {
	data, err := e.encodeState()
	if err != nil {
		return err
	}
	return e.writeState(data)
}

// encodeState serialises the state and marks it saved.
func (e *Engine) encodeState() ([]byte, error) {
	data, err := encodeTeamState(&e.st)
	if err != nil {
		return nil, err
	}
	e.dirty = false
	return data, nil
}

// encodeTeamState is team-state.json's text for st.
func encodeTeamState(st *statedir.TeamState) ([]byte, error) {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

func (e *Engine) writeState(data []byte) error {
	return e.sfs.WriteAtomic(statedir.TeamStateFile, data, 0o600)
}

// openEventLog opens events.jsonl below the state dir, following no link.
func (e *Engine) openEventLog() (*statedir.EventLog, error) {
	f, err := e.sfs.OpenFile(statedir.EventsFile, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return statedir.EventLogOf(f, e.sfs.Abs(statedir.EventsFile))
}

// failPersist stops the run safely when team-state.json cannot be written:
// the previous file is intact, the error is published, every worker stops.
func (e *Engine) failPersist(err error) {
	if e.persistErr != nil {
		return
	}
	e.persistErr = err
	e.emit(statedir.Event{Type: statedir.EventStateWriteFailed, Reason: err.Error()})
	e.beginShutdown("stopped: " + err.Error())
}

func (e *Engine) emit(ev statedir.Event) {
	ev.TS = e.clock.Now().UTC()
	if e.disk != nil {
		// A failed append stops the run, as a failed state write does.
		e.disk.queue(func() error { return e.log.Append(ev) }, func(err error) {
			e.post(func() { e.failPersist(err) })
		})
	}
	// Subscribers get it once the batch's view is published, so a reader
	// that hears of a change and then takes a Snapshot sees it.
	e.unsent = append(e.unsent, ev)
	e.maybeNotify(ev)
}

// startAttempt records the next attempt of w and has it opened, off the
// loop, on the first available surface of its chain.
func (e *Engine) startAttempt(w *workerRT, manual bool) {
	e.dirty = true
	n := w.lastAttempt + 1
	w.lastAttempt = n
	w.backoff = nil
	now := e.clock.Now()
	ap, rp, expandErr := e.expandAttempt(w, n)
	a := &attemptRT{w: w, plan: ap, manual: manual, lastOutput: now}
	row := statedir.DispatchRow{
		DispatchID:        ap.DispatchID,
		WorkerID:          w.spec.ID,
		Attempt:           n,
		Status:            statedir.StatusRunning,
		StartedAt:         now.UTC(),
		CompletionPaths:   ap.Paths,
		ResultAliases:     ap.Aliases,
		StatusSidecarPath: ap.StatusFile,
		OutputLogPath:     ap.OutputLog,
		Manual:            manual,
	}
	if ap.Writes != nil {
		row.WritePolicy = ap.Writes
		row.WritePolicyDigest = runfile.WritePolicy{Globs: ap.Writes}.Digest()
	}
	row.Sandbox = runfile.SandboxNone
	if w.spec.Sandbox == runfile.SandboxWrites {
		row.Sandbox = runfile.SandboxWrites
	}
	row.Isolation = runfile.IsolationNone
	if w.iso != nil {
		row.Isolation, row.Worktree, row.Branch, row.BaseCommit = runfile.IsolationWorktree, w.iso.wt.Path, w.iso.wt.Branch, w.iso.wt.Base
	}
	e.startAgent(a, &row)
	e.noteResume(a, &row, rp)
	prevIdx := e.lastRowOf(w)
	a.idx = len(e.st.Dispatches)
	e.st.Dispatches = append(e.st.Dispatches, row)
	wr := &e.st.Workers[w.idx]
	wr.Status = statedir.StatusRunning
	wr.Attempts = n
	wr.Reason = ""
	w.cur = a
	if expandErr != nil {
		e.settleUnopened(a, statedir.StatusError, expandErr.Error(), statedir.FailureNotStarted, false)
		return
	}
	// The pane slot is taken now, on the loop, so attempts being opened at
	// the same time cannot pass panes.max together.
	chain := w.spec.Surfaces
	full := ""
	if slices.Contains(chain, runfile.SurfacePane) {
		if e.panes >= e.plan.PanesMax {
			full = fmt.Sprintf("pane limit reached (%d of %d in use)", e.panes, e.plan.PanesMax)
		} else {
			e.panes++
			a.paneReserved = true
		}
	}
	launch := e.launchSpec(w.spec, &ap)
	typeResumePrompt(w.spec, rp, &ap, &launch)
	a.feed.paneTypes = launch.TypePrompt != nil
	hookFiles, noHooks := e.applyHooks(a, &launch)
	if f := e.giveSession(a, &launch); f != nil {
		hookFiles = mergeFiles(hookFiles, f)
	}
	if noHooks != "" {
		e.emit(statedir.Event{Type: statedir.EventAgentHooksUnavailable, WorkerID: w.spec.ID, Attempt: n, Reason: noHooks})
	}
	if a.agent != nil {
		e.agentSignals(a, &launch)
	}
	job := openJob{
		plan:      e.plan,
		attempt:   ap,
		launch:    launch,
		hookFiles: hookFiles,
		sandbox:   newSandboxPlan(w.spec, launch),
		chain:     chain,
		surfaces:  e.opts.Surfaces,
		paneFull:  full,
		abort:     &a.abort,
		sfs:       e.sfs,
		exclude:   e.auditExcludes(w.spec),
	}
	if w.iso != nil {
		// The worktree is made ready (the last attempt's leftovers
		// committed, the tree reset) before the rest, after every git job
		// queued for it before.
		job.iso = w.iso
		if prevIdx >= 0 {
			prev := e.st.Dispatches[prevIdx]
			job.prev, job.prevStatus = prev.Attempt, prev.Status
			job.reset = w.spec.RetryFrom != runfile.RetryFromLast
		}
	}
	e.live[a] = true
	e.noteCoRunning(a)
	e.startBackground()
	run := func() {
		res := job.Run()
		e.post(func() {
			e.attemptOpened(a, res)
			e.endBackground()
		})
	}
	if w.iso != nil {
		e.queueGit(w.iso, run)
	} else {
		go run()
	}
}

// openJob is what an attempt needs to be opened off the loop: its folder
// and prompt file, the write audit's snapshot before it, and its process on
// the first surface of the chain that opens.
type openJob struct {
	plan     *runfile.Plan
	attempt  runfile.AttemptPlan
	launch   LaunchSpec
	chain    []runfile.SurfaceKind
	surfaces map[runfile.SurfaceKind]Surface
	paneFull string       // why the pane surface is not tried, when it is full
	abort    *atomic.Bool // the attempt was cancelled before its process started
	sfs      *statedir.FS
	exclude  []string     // folders the write audit leaves out
	sandbox  *sandboxPlan // nil: not sandboxed
	// hookFiles are the agent's hook settings to write in the attempt's
	// folder (agentstate.go).
	hookFiles map[string][]byte

	// For an isolated worker: its worktree, the previous attempt (its
	// number and status) whose leftovers are committed first, and whether
	// the tree is then reset to the base commit.
	iso        *isoRT
	prev       int
	prevStatus string
	reset      bool
}

// openResult is an openJob's outcome, posted back to the loop.
type openResult struct {
	handle      Handle
	surface     runfile.SurfaceKind
	audit       *writeAudit
	log         *statedir.OutputLog  // nil when the attempt folder could not be made
	failure     string               // why no process was started
	final       bool                 // and another attempt would fail the same way
	degradedWhy string               // the last surface's reason when a later one opened
	prevCommit  string               // the previous attempt's leftovers, committed before this one
	repoBefore  *workspace.RepoState // an isolated attempt's repository at its start
	// sandboxDegraded is why the attempt runs without its sandbox
	// (sandbox_fallback: none), "" when it runs as planned.
	sandboxDegraded string
}

func (j openJob) Run() openResult {
	log, err := j.sfs.PrepareAttemptDir(&j.attempt)
	if err != nil {
		return openResult{failure: err.Error()}
	}
	res := openResult{log: log}
	if err := j.writeHookFiles(); err != nil {
		log.Close()
		return openResult{failure: err.Error()}
	}
	j.launch.Output = log
	if j.iso != nil {
		commit, before, err := j.prepareWorktree()
		res.prevCommit, res.repoBefore = commit, before
		if err != nil {
			log.Close()
			res.log, res.failure = nil, "worktree: "+err.Error()
			return res
		}
	}
	if j.sandbox != nil {
		sb, err := j.sandboxSpec()
		switch {
		case err == nil:
			j.launch.Sandbox = sb
		case j.sandbox.fallback:
			res.sandboxDegraded = err.Error()
		default:
			log.Close()
			res.log, res.failure, res.final = nil, err.Error(), true
			return res
		}
	}
	if j.attempt.Writes != nil {
		audit, err := startWriteAudit(j.attempt.Workspace, j.exclude)
		if err != nil {
			log.Close()
			res.log, res.failure = nil, "write audit: snapshot before the attempt: "+err.Error()
			return res
		}
		res.audit = audit
	}
	if j.abort.Load() {
		// Cancelled meanwhile: attemptOpened settles it so.
		res.failure = "cancelled before its process started"
		log.Close()
		return res
	}
	var reasons []string
	for _, kind := range j.chain {
		h, why, err := j.open(kind)
		var sf *SandboxFailed
		if errors.As(err, &sf) && j.launch.Sandbox != nil {
			if !j.sandbox.fallback {
				// Another surface or a retry meets the same kernel:
				// never run unsandboxed unless the run file says so.
				res.failure, res.final = why, true
				log.Close()
				return res
			}
			res.sandboxDegraded = why
			j.launch.Sandbox = nil
			h, why, err = j.open(kind)
		}
		if errors.Is(err, syscall.E2BIG) {
			// Every surface execs the same command line: none will take it,
			// and no retry will either.
			res.failure, res.final = argumentsTooLong(j.launch, err), true
			log.Close()
			return res
		}
		if h == nil {
			res.degradedWhy = why
			reasons = append(reasons, string(kind)+": "+why)
			continue
		}
		res.handle, res.surface = h, kind
		return res
	}
	res.failure = "no surface could open: " + strings.Join(reasons, "; ")
	log.Close()
	return res
}

// open tries one surface; it returns the handle or why the surface is
// unavailable (and the surface's error, when it gave one).
func (j openJob) open(kind runfile.SurfaceKind) (Handle, string, error) {
	if kind == runfile.SurfacePane && j.paneFull != "" {
		return nil, j.paneFull, nil
	}
	s := j.surfaces[kind]
	if s == nil {
		return nil, fmt.Sprintf("%s surface is not available in this rostra", kind), nil
	}
	h, err := s.Open(j.launch)
	if err != nil {
		why := err.Error()
		if strings.TrimSpace(why) == "" {
			why = "no reason reported"
		}
		return nil, why, err
	}
	if h == nil {
		return nil, "no reason reported", nil
	}
	return h, "", nil
}

// argumentsTooLong is the reason of an attempt whose command line exec
// refused (E2BIG): what was too long and what to do about it.
func argumentsTooLong(l LaunchSpec, err error) string {
	total, longest := 0, 0
	for _, arg := range l.Argv {
		total += len(arg) + 1
		longest = max(longest, len(arg))
	}
	env := 0
	for _, kv := range l.Env {
		env += len(kv) + 1
	}
	return fmt.Sprintf("%v: the command line is too long to start (%d bytes of arguments, the longest %d, and %d bytes of environment; "+
		"Linux takes at most 128 KiB in one argument and about a quarter of the stack limit in all); "+
		"pass the prompt as a file with {prompt_file} in the command, or set `delivery: type` to type it in; not retried",
		err, total, longest, env)
}

// attemptOpened takes an openJob's result on the loop. An attempt
// cancelled (or timed out, or caught by a shutdown) while it was being
// opened is stopped at once; one that never started a process settles.
func (e *Engine) attemptOpened(a *attemptRT, res openResult) {
	e.recordPrevCommit(a, res.prevCommit)
	if a.paneReserved && res.surface != runfile.SurfacePane {
		e.panes--
		a.paneReserved = false
	}
	if res.handle == nil {
		delete(e.live, a)
		a.audit = res.audit
		switch {
		case a.cancelled:
			e.settleUnopened(a, statedir.StatusCancelled, a.cancelReason, statedir.FailureCancelled, false)
		default:
			e.settleUnopened(a, statedir.StatusError, res.failure, statedir.FailureNotStarted, res.final)
		}
		return
	}
	// Refused or not, the process is open: it is kept and watched, so it
	// is stopped and reaped like any other.
	e.advance(a, phaseRunning)
	a.surface, a.handle, a.audit, a.log = res.surface, res.handle, res.audit, res.log
	a.repoBefore = res.repoBefore
	w := a.w
	d := &e.st.Dispatches[a.idx]
	d.Surface = a.surface
	d.Pid = a.handle.Pid()
	d.Containment = a.handle.Containment()
	if chain := w.spec.Surfaces; a.surface != chain[0] {
		d.DegradedFrom = chain[0]
		d.DegradedReason = res.degradedWhy
	}
	if res.sandboxDegraded != "" {
		d.Sandbox, d.SandboxDegradedReason = runfile.SandboxNone, res.sandboxDegraded
	}
	if a.repoBefore != nil && d.Sandbox == runfile.SandboxWrites {
		// The repository check leaves to their owner the refs and files
		// the sandbox kept the agent out of
		// (docs/isolation.md §The record of an attempt).
		a.repoBefore.Sandboxed = true
	}
	e.dirty = true
	e.emit(statedir.Event{Type: statedir.EventWorkerDispatched, WorkerID: w.spec.ID, Attempt: a.plan.Attempt, Surface: a.surface, Pid: d.Pid, Manual: a.manual})
	if d.DegradedFrom != "" {
		e.emit(statedir.Event{Type: statedir.EventWorkerDegraded, WorkerID: w.spec.ID, Attempt: a.plan.Attempt, From: d.DegradedFrom, To: a.surface, Reason: d.DegradedReason})
	}
	if d.SandboxDegradedReason != "" {
		e.emit(statedir.Event{Type: statedir.EventWorkerDegraded, WorkerID: w.spec.ID, Attempt: a.plan.Attempt,
			From: SandboxDegradedFrom, To: runfile.SandboxNone, Reason: d.SandboxDegradedReason})
	}
	e.watchAttempt(a)
	e.measureWhileRunning(a)
	e.watchAgentScreen(a)
	e.queueAttemptOpened(a)
	if a.cancelled || e.shuttingDown {
		e.stop(a)
	}
}

func (e *Engine) launchSpec(spec *runfile.WorkerSpec, ap *runfile.AttemptPlan) LaunchSpec {
	env := append([]string{}, e.opts.Environ...)
	env = append(env,
		"ROSTRA_RUN="+e.plan.Name,
		"ROSTRA_WORKER="+spec.ID,
		"ROSTRA_ATTEMPT="+fmt.Sprint(ap.Attempt),
		"ROSTRA_STATE_DIR="+e.plan.StateDir,
		"ROSTRA_PROMPT_FILE="+ap.PromptFile,
	)
	set := make([]string, 0, len(ap.Env))
	for k, v := range ap.Env {
		env = append(env, k+"="+v)
		set = append(set, k)
	}
	slices.Sort(set)
	cols, rows := e.opts.PaneSize(spec.ID)
	l := LaunchSpec{
		DispatchID: ap.DispatchID,
		Worker:     spec.ID,
		Attempt:    ap.Attempt,
		Argv:       ap.Argv,
		Dir:        ap.Dir,
		Env:        env,
		EnvSet:     set,
		OutputLog:  ap.OutputLog,
		Cols:       cols,
		Rows:       rows,
		StopGrace:  spec.StopGrace,
	}
	if spec.Delivery == runfile.DeliveryType {
		l.Stdin = []byte(ap.Prompt)
		l.TypePrompt = []byte(ap.Prompt)
		l.TypeQuiet = TypeQuiet
		l.TypeAwaitAgent = awaitsAgentReady(spec)
		l.PromptFile = ap.PromptFile
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
	exited := func() { e.post(func() { e.onExit(a) }) }
	if n, ok := h.(DoneNotifier); ok {
		n.OnDone(exited) // no goroutine waits for each attempt
	} else {
		go func() {
			<-h.Done()
			exited()
		}()
	}
	if d, ok := h.(PromptDelivered); ok && a.feed.paneTypes {
		go func() {
			select {
			case how, ok := <-d.PromptDelivered():
				if ok {
					e.post(func() {
						e.emit(statedir.Event{Type: statedir.EventWorkerPromptDelivered, WorkerID: spec.ID, Attempt: a.plan.Attempt, Delivery: how})
						e.queuePromptIn(a)
					})
				}
			case <-h.Done():
			}
		}()
	} else if spec.Delivery == runfile.DeliveryType && a.surface == runfile.SurfaceWrapper {
		e.emit(statedir.Event{Type: statedir.EventWorkerPromptDelivered, WorkerID: spec.ID, Attempt: a.plan.Attempt, Delivery: "stdin"})
	}
	if spec.Timeout > 0 {
		a.wallTimer = e.clock.AfterFunc(spec.Timeout, func() {
			e.post(func() { e.timeout(a, "attempt timed out after "+spec.Timeout.String()) })
		})
	}
	if spec.IdleTimeout > 0 {
		e.armIdle(a, spec.IdleTimeout)
	}
	if spec.Completion.Settle == runfile.SettleOnFiles {
		fw, err := startFileWatch(a.plan.Workspace, completionTargets(&a.plan), func() {
			e.post(func() { e.onFilesChanged(a) })
		})
		if err == nil {
			a.watch = fw
		} else {
			// Without file-system events (inotify limits reached) the files
			// are looked at on a timer instead, so an agent that stays open
			// still settles.
			every := max(spec.Completion.Stable, time.Second)
			e.emit(statedir.Event{Type: statedir.EventWorkerWatchFailed, WorkerID: spec.ID, Attempt: a.plan.Attempt,
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
			if a.phase.atLeast(phaseSettling) || a.exited {
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
			if a.phase.atLeast(phaseSettling) || a.exited {
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
	if a.phase.atLeast(phaseSettling) || a.exited || a.cancelled || a.timedOut {
		return
	}
	a.timedOut = true
	a.timeoutReason = reason
	e.stop(a)
}

// stop sends SIGTERM to the attempt's group, then SIGKILL after stop_grace.
func (e *Engine) stop(a *attemptRT) {
	if a.phase == phaseOpening {
		// Not started yet, or starting: attemptOpened stops it.
		a.abort.Store(true)
		return
	}
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
	if a.phase.atLeast(phaseSettling) {
		return
	}
	if a.watch != nil {
		a.watch.refresh()
	}
	check := CheckCompletion(&a.plan)
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
	if a.phase.atLeast(phaseSettling) || a.stableSig != sig {
		return
	}
	check := CheckCompletion(&a.plan)
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
	if a.surface == runfile.SurfacePane {
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
	e.agentExited(a, exitText(&exit))
	switch {
	case !a.phase.atLeast(phaseSettling):
		e.settle(a, &exit)
	case a.phase == phaseSettling:
		a.lateExit = &exit // recorded once the settlement is written
	default:
		e.recordLateExit(a, &exit)
		e.commitWork(a)
	}
	e.reapLeftovers(a)
	e.maybeFinishShutdown()
}

// noteLostOutput records on the row how much of an ended attempt's output
// did not reach output.log.
func (e *Engine) noteLostOutput(a *attemptRT) {
	if a.log == nil {
		return
	}
	if n, why := a.log.LostTail(a.handle.OutputBytes()); n > 0 {
		d := &e.st.Dispatches[a.idx]
		d.OutputLogLostBytes = n
		d.Reason = joinReason(d.Reason, why)
	}
}

// recordLateExit adds the exit of a process whose attempt had settled on
// its files while it ran.
func (e *Engine) recordLateExit(a *attemptRT, exit *ExitStatus) {
	d := &e.st.Dispatches[a.idx]
	if exit.Code >= 0 {
		code := exit.Code
		d.ExitCode = &code
	}
	e.noteLostOutput(a)
	e.writeSidecar(a, exit)
	e.dirty = true
}

// reapLeftovers stops whatever is left of a finished attempt's process
// group (docs/design.md §Stopping): SIGTERM, SIGKILL after stop_grace. Finding what is
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

// settleUnopened settles an attempt that never started a process: an
// error, or cancelled before its process started.
func (e *Engine) settleUnopened(a *attemptRT, status, reason, class string, final bool) {
	if !e.advance(a, phaseDone) {
		return
	}
	e.agentExited(a, "not started")
	if a.audit != nil {
		a.audit.abandon()
	}
	a.exited = true
	e.dirty = true
	now := e.clock.Now().UTC()
	d := &e.st.Dispatches[a.idx]
	d.Status = status
	d.Reason = reason
	d.FailureClass = class
	d.EndedAt = &now
	e.writeSidecar(a, nil)
	wr := &e.st.Workers[a.w.idx]
	wr.Status = status
	wr.Reason = reason
	typ := statedir.EventWorkerFailed
	if status == statedir.StatusCancelled {
		typ = statedir.EventWorkerCancelled
	}
	e.emit(statedir.Event{Type: typ, WorkerID: a.w.spec.ID, Attempt: a.plan.Attempt, Status: status, Reason: reason, FailureClass: class})
	e.afterSettle(a, status, final)
	e.maybeFinishShutdown()
}

// settle decides an attempt's outcome in docs/design.md's order (§Settlement). exit is nil
// when the attempt settles on its files while the process still runs. An
// audited attempt first has its workspace walked off the loop; the outcome
// is decided when the walk's result is back.
func (e *Engine) settle(a *attemptRT, exit *ExitStatus) {
	if a.audit != nil && (a.cancelled || a.timedOut) {
		a.audit.abandon()
		a.audit = nil
	}
	if a.audit == nil && a.repoBefore == nil {
		e.decide(a, exit, nil)
		return
	}
	if !e.advance(a, phaseSettling) {
		return
	}
	audit := a.audit
	e.startBackground()
	go func() {
		var changed *auditChanges
		if audit != nil {
			c := audit.changes()
			changed = &c
		}
		found := a.w.iso.checkAttempt(a)
		e.post(func() {
			a.repoFound = found
			e.decide(a, exit, changed)
			if a.lateExit != nil {
				e.recordLateExit(a, a.lateExit)
			}
			e.endBackground()
		})
	}()
}

// decide settles an attempt; changed is its write audit's walk, nil when
// it is not audited.
func (e *Engine) decide(a *attemptRT, exit *ExitStatus, changed *auditChanges) {
	if !e.advance(a, phaseDecided) {
		return
	}
	e.dirty = true
	spec := a.w.spec
	var status, reason, class string
	violation := false
	switch {
	case a.cancelled:
		status, reason, class = statedir.StatusCancelled, a.cancelReason, statedir.FailureCancelled
	case a.timedOut:
		status, reason, class = statedir.StatusTimeout, a.timeoutReason, statedir.FailureTimeout
	default:
		check := CheckCompletion(&a.plan)
		if !a.plan.ExpectsFiles() {
			// Nothing to look for: the exit code is all there is to go on.
			check.Satisfied = exit != nil && exit.Code == 0 && exit.Signal == ""
		}
		if check.Satisfied {
			status = statedir.StatusCompleted
			if exit != nil && (exit.Code != 0 || exit.Signal != "") {
				reason = exitText(exit) + "; outputs present"
			}
		} else {
			status = statedir.StatusError
			reason, class = failureReason(exit, spec, check)
		}
		if changed != nil {
			failure := ""
			if status != statedir.StatusCompleted {
				failure = reason
			}
			if why := auditVerdict(*changed, &e.st.Dispatches[a.idx], failure, completionTargets(&a.plan), e.othersOwn(a), e.unattributed(a)); why != "" {
				status, reason, class, violation = statedir.StatusError, why, statedir.FailureWritePolicy, true
			}
		}
	}
	if why := a.repoFound.Reason(); why != "" {
		// Failed as the write audit fails an attempt, and not retried: the
		// agent would do it again (docs/isolation.md).
		e.repositoryChanged(a, why)
		if status == statedir.StatusCompleted {
			reason = ""
		}
		reason = joinReason(reason, why)
		if status != statedir.StatusCancelled && status != statedir.StatusTimeout {
			status, class, violation = statedir.StatusError, statedir.FailureRepository, true
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
	if exit != nil {
		e.noteLostOutput(a)
	}
	e.writeSidecar(a, exit)
	ev := statedir.Event{WorkerID: spec.ID, Attempt: a.plan.Attempt, Status: status, Reason: reason, FailureClass: class, ExitCode: d.ExitCode}
	switch status {
	case statedir.StatusCompleted:
		ev.Type = statedir.EventWorkerCompleted
	case statedir.StatusCancelled:
		ev.Type = statedir.EventWorkerCancelled
	case statedir.StatusTimeout:
		ev.Type = statedir.EventWorkerTimeout
	default:
		ev.Type = statedir.EventWorkerFailed
	}
	e.emit(ev)
	// The dispatch row is settled; now the roster row.
	wr := &e.st.Workers[a.w.idx]
	wr.Status, wr.Reason = status, reason
	if status == statedir.StatusCompleted {
		if err := ResultPresent(&a.w.roster); err != nil {
			why := "roster not updated: " + err.Error()
			d.Reason = joinReason(d.Reason, why)
			wr.Status, wr.Reason = statedir.StatusError, why
			e.emit(statedir.Event{Type: statedir.EventWorkerRosterNotUpdated, WorkerID: spec.ID, Attempt: a.plan.Attempt, Reason: why})
		}
	}
	// Committed before a manual retry (afterSettle) can queue the next
	// attempt's reset.
	e.commitWork(a)
	e.afterSettle(a, status, violation)
}

// afterSettle starts the next attempt when one is due.
// final is set for a failure that another attempt would only repeat (a
// write-policy violation, a command line exec refuses).
func (e *Engine) afterSettle(a *attemptRT, status string, final bool) {
	w := a.w
	spec := w.spec
	switch {
	case e.shuttingDown:
	case a.afterward == afterManual:
		e.emit(statedir.Event{Type: statedir.EventWorkerRetry, WorkerID: spec.ID, Attempt: a.plan.Attempt, Manual: true})
		e.startAttempt(w, true)
	case a.afterward == afterNoRetry && status == statedir.StatusError && !final && e.attemptsLeft(a):
		wr := &e.st.Workers[w.idx]
		wr.Status, wr.Reason = statedir.StatusCancelled, "cancelled by a human before its retry"
		e.emit(statedir.Event{Type: statedir.EventWorkerCancelled, WorkerID: spec.ID, Attempt: a.plan.Attempt, Status: statedir.StatusCancelled, Reason: wr.Reason})
	case status == statedir.StatusError && !final && e.attemptsLeft(a):
		e.st.Workers[w.idx].Status = statedir.StatusRetrying
		w.backoffSeq++
		seq := w.backoffSeq
		e.emit(statedir.Event{Type: statedir.EventWorkerRetry, WorkerID: spec.ID, Attempt: a.plan.Attempt, Delay: spec.RetryBackoff.String(),
			Reason: fmt.Sprintf("attempt %d of %d in %s", a.plan.Attempt+1-w.resumed, spec.MaxAttempts, spec.RetryBackoff)})
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
	sc := statedir.StatusSidecar{
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
	if d.Status != statedir.StatusCompleted {
		sc.Failure = d.Reason
	}
	data, _ := json.MarshalIndent(sc, "", "  ")
	path, idx := a.plan.StatusFile, a.idx
	e.disk.queueSoft(func() error {
		rel, err := e.sfs.Rel(path)
		if err != nil {
			return err
		}
		// The folder is made if it is missing: the state dir may have been
		// made again (recreate.go) after the attempt started.
		if err := e.sfs.MkdirAll(filepath.Dir(rel)); err != nil {
			return err
		}
		return e.sfs.WriteAtomic(rel, append(data, '\n'), 0o600)
	}, func(err error) {
		// The row keeps the outcome; a missing sidecar is noted there.
		e.post(func() {
			d := &e.st.Dispatches[idx]
			d.Reason = joinReason(d.Reason, "status sidecar not written: "+err.Error())
			e.dirty = true
		})
	})
}

func exitText(exit *ExitStatus) string {
	if exit.Signal != "" {
		return "killed by signal " + exit.Signal
	}
	return fmt.Sprintf("exited with code %d", exit.Code)
}

// failureReason is docs/design.md §Settlement rule 4's reason for an attempt whose
// completion is not satisfied, and its failure class.
func failureReason(exit *ExitStatus, spec *runfile.WorkerSpec, check CompletionCheck) (reason, class string) {
	switch {
	case exit == nil:
		return check.MissingReason(), statedir.FailureMissingOutputs
	case exit.Signal != "":
		return exitText(exit), statedir.FailureExitCode
	case spec.NoResultExitCode != nil && exit.Code == *spec.NoResultExitCode:
		return "CLI ended cleanly without emitting a result", statedir.FailureNoResult
	case exit.Code != 0:
		return exitText(exit), statedir.FailureExitCode
	default:
		return check.MissingReason(), statedir.FailureMissingOutputs
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
		if statedir.Unsettled(e.st.Workers[w.idx].Status) {
			return
		}
	}
	if e.commitsDue > 0 {
		// An ended attempt's work goes on its branch before run-finished,
		// so whoever acts on the finished run (rostra wait, then merge)
		// finds it there; commitWork calls again.
		return
	}
	if e.st.Status == statedir.RunFinished {
		return
	}
	now := e.clock.Now().UTC()
	e.st.Status = statedir.RunFinished
	e.st.EndedAt = &now
	e.dirty = true
	completed := 0
	for _, wr := range e.st.Workers {
		if wr.Status == statedir.StatusCompleted {
			completed++
		}
	}
	e.emit(statedir.Event{Type: statedir.EventRunFinished, Reason: fmt.Sprintf("%d of %d workers completed", completed, len(e.st.Workers))})
	e.finishNow = true // Finished is closed once the view shows it
}

// Finished is closed the first time every worker has settled for good.
func (e *Engine) Finished() <-chan struct{} { return e.finished }

// Retry starts a manual attempt of a worker (docs/design.md §Retries): a running attempt
// is cancelled first; a pending automatic retry is replaced. Asking again
// while the cancel is under way still yields one new attempt.
func (e *Engine) Retry(worker string) error {
	if e.remoteControl(worker) {
		return e.opts.Parts.Control("retry", worker)
	}
	var err error
	e.do(func() {
		w := e.byID[worker]
		switch {
		case w == nil:
			err = fmt.Errorf("retry %s: %w", worker, ErrUnknownWorker)
		case e.shuttingDown:
			err = fmt.Errorf("retry %s: %w", worker, ErrShuttingDown)
		case w.cur != nil && w.cur.phase == phaseSettling:
			// Its outcome is being decided: the manual attempt follows it.
			w.cur.afterward = afterManual
		case w.cur != nil && !w.cur.phase.atLeast(phaseSettling):
			a := w.cur
			a.afterward = afterManual
			e.noteStopAsked(a, statedir.StopAskedRetry)
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
			if e.st.Status == statedir.RunFinished {
				e.st.Status = statedir.RunRunning
				e.st.EndedAt = nil
			}
			e.emit(statedir.Event{Type: statedir.EventWorkerRetry, WorkerID: worker, Attempt: w.lastAttempt, Manual: true})
			e.startAttempt(w, true)
		}
	})
	return err
}

// Cancel stops a worker's running attempt, or its pending retry.
func (e *Engine) Cancel(worker string) error {
	if e.remoteControl(worker) {
		return e.opts.Parts.Control("cancel", worker)
	}
	var err error
	e.do(func() {
		w := e.byID[worker]
		switch {
		case w == nil:
			err = fmt.Errorf("cancel %s: %w", worker, ErrUnknownWorker)
		case w.cur != nil && w.cur.phase == phaseSettling:
			// Its process is over and its outcome being decided: what is
			// left to cancel is a retry.
			w.cur.afterward = afterNoRetry
		case w.cur != nil && !w.cur.phase.atLeast(phaseSettling):
			a := w.cur
			a.afterward = afterPolicy
			e.noteStopAsked(a, statedir.StopAskedCancel)
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
			wr.Status = statedir.StatusCancelled
			wr.Reason = "cancelled by a human before its retry"
			e.dirty = true
			e.emit(statedir.Event{Type: statedir.EventWorkerCancelled, WorkerID: worker, Attempt: w.lastAttempt, Status: statedir.StatusCancelled, Reason: wr.Reason})
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
// interrupted otherwise. Calling it again returns the first call's result.
func (e *Engine) Shutdown() error {
	e.shutdownOnce.Do(func() { e.shutdownErr = e.shutdown() })
	return e.shutdownErr
}

func (e *Engine) shutdown() error {
	e.post(func() {
		if !e.shuttingDown {
			e.beginShutdown("stopped: rostra is quitting")
		}
	})
	<-e.stopped
	close(e.quit)
	<-e.loopDone
	e.disk.close()
	e.stopStateWatch()
	e.sfs.FreeReserve()
	e.sfs.Close()
	if e.relock != nil {
		e.relock.Release()
	}
	err := e.persistErr
	if err == nil {
		err = e.disk.err()
	}
	if cerr := e.log.Close(); err == nil {
		err = cerr
	}
	return err
}

func (e *Engine) beginShutdown(reason string) {
	e.shuttingDown = true
	e.stopParts(reason)
	for _, w := range e.workers {
		if w.backoff != nil {
			w.backoff.Stop()
			w.backoff = nil
			w.backoffSeq++
			wr := &e.st.Workers[w.idx]
			wr.Status = statedir.StatusCancelled
			wr.Reason = reason
			e.dirty = true
		}
		if a := w.cur; a != nil && !a.phase.atLeast(phaseSettling) {
			a.afterward = afterPolicy
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

// maybeFinishShutdown ends a shutdown once no attempt is being opened,
// running, settling or leaving leftovers: the run's last state is saved,
// then Stopped is closed.
func (e *Engine) maybeFinishShutdown() {
	if !e.shuttingDown || e.stoppedOnce || len(e.live) > 0 || len(e.stopping) > 0 || e.background > 0 {
		return
	}
	if e.endWorktrees() {
		return // called again once the worktrees are committed and cleared
	}
	if e.st.Status != statedir.RunFinished {
		now := e.clock.Now().UTC()
		e.st.Status = statedir.RunInterrupted
		e.st.EndedAt = &now
		e.emit(statedir.Event{Type: statedir.EventRunInterrupted, Reason: "rostra stopped before every worker finished"})
	}
	e.dirty = true
	e.stoppedOnce = true
	e.afterBatch = append(e.afterBatch, e.stopped)
}

// Stopped is closed once the engine has stopped every worker, after
// Shutdown or after it stopped the run itself (its state could not be saved).
func (e *Engine) Stopped() <-chan struct{} { return e.stopped }
