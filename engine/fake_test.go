// fake_test.go holds the fake surface, fake handles and the harness the
// engine rule tests use: no process is started, time is a FakeClock, and
// the test decides when and how each attempt's "process" ends.
package engine

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

type fakeHandle struct {
	spec       LaunchSpec
	kind       runfile.SurfaceKind
	pid        int
	done       chan struct{}
	once       sync.Once
	mu         sync.Mutex
	exit       ExitStatus
	signals    []syscall.Signal
	ignoreTerm bool
	leftover   bool // a group member outlives the child
	closed     bool
	out        atomic.Int64
	outWake    atomic.Pointer[func()]
	listening  chan struct{} // a NotifyOutput came (cap 1)
	rows       []string      // its screen (agentstate_test.go)
	bellCount  int64
	typed      []string      // the lines typed into it (queue_test.go)
	typeGate   chan struct{} // when set, TypeLine waits for it to close
	typing     chan string   // when set, receives each line TypeLine starts
	afterEnter func()        // when set, runs as the child would once Enter is written
	ready      atomic.Int32  // AgentReady calls (typeready_test.go)
	onDone     []func()      // OnDone's, when the handle is a notifyingHandle
}

func (h *fakeHandle) NotifyOutput(f func()) {
	h.outWake.Store(&f)
	select {
	case h.listening <- struct{}{}:
	default:
	}
}

// waitListening waits (a few seconds at most) until the engine listens
// for the handle's output: it arms the wake on a goroutine of its own
// after the attempt opened, and output before that wakes nobody.
func (h *fakeHandle) waitListening() {
	deadline := time.After(5 * time.Second)
	for h.outWake.Load() == nil {
		select {
		case <-h.listening:
		case <-deadline:
			return
		}
	}
}

// output is the child writing n bytes.
func (h *fakeHandle) output(n int64) {
	h.out.Add(n)
	if f := h.outWake.Swap(nil); f != nil {
		(*f)()
	}
}

func (h *fakeHandle) Pid() int              { return h.pid }
func (h *fakeHandle) Containment() string   { return statedir.ContainmentTracking }
func (h *fakeHandle) Done() <-chan struct{} { return h.done }
func (h *fakeHandle) OutputBytes() int64    { return h.out.Load() }
func (h *fakeHandle) Exit() ExitStatus      { h.mu.Lock(); defer h.mu.Unlock(); return h.exit }
func (h *fakeHandle) Close() error          { h.mu.Lock(); h.closed = true; h.mu.Unlock(); return nil }
func (h *fakeHandle) finish(code int)       { h.end(ExitStatus{Code: code}) }
func (h *fakeHandle) end(st ExitStatus) {
	h.once.Do(func() {
		h.mu.Lock()
		h.exit = st
		fs := h.onDone
		h.onDone = nil
		close(h.done) // under mu: an OnDone sees it closed or is in fs
		h.mu.Unlock()
		for _, f := range fs {
			f()
		}
	})
}

func (h *fakeHandle) exited() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

func (h *fakeHandle) Lingering() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.leftover
}

func (h *fakeHandle) Signal(sig syscall.Signal) error {
	h.mu.Lock()
	if sig != 0 {
		h.signals = append(h.signals, sig)
	}
	leftover := h.leftover
	ignore := h.ignoreTerm
	h.mu.Unlock()
	if sig == 0 {
		if !h.exited() || leftover {
			return nil
		}
		return syscall.ESRCH
	}
	switch {
	case sig == syscall.SIGKILL:
		h.mu.Lock()
		h.leftover = false
		h.mu.Unlock()
		h.end(ExitStatus{Code: -1, Signal: "SIGKILL"})
	case sig == syscall.SIGTERM && !ignore:
		h.mu.Lock()
		h.leftover = false
		h.mu.Unlock()
		h.end(ExitStatus{Code: -1, Signal: "SIGTERM"})
	}
	return nil
}

func (h *fakeHandle) sigs() []syscall.Signal {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]syscall.Signal(nil), h.signals...)
}

type fakeSurface struct {
	kind    runfile.SurfaceKind
	mu      sync.Mutex
	fail    error // Open fails with this
	opened  chan *fakeHandle
	nextPid int
	setup   func(*fakeHandle)
	// gate, when set, holds every Open until it is closed (a slow fork);
	// entered receives the launch of each Open as it starts waiting.
	gate    chan struct{}
	entered chan LaunchSpec
	// wrap, when set, is what Open returns for each handle it makes.
	wrap func(*fakeHandle) Handle
}

func newFakeSurface(kind runfile.SurfaceKind) *fakeSurface {
	return &fakeSurface{kind: kind, opened: make(chan *fakeHandle, 64), nextPid: 1000}
}

func (s *fakeSurface) Open(l LaunchSpec) (Handle, error) {
	if s.gate != nil {
		s.entered <- l
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	s.nextPid++
	h := &fakeHandle{spec: l, kind: s.kind, pid: s.nextPid, done: make(chan struct{}), listening: make(chan struct{}, 1)}
	if s.setup != nil {
		s.setup(h)
	}
	s.opened <- h
	if s.wrap != nil {
		return s.wrap(h), nil
	}
	return h, nil
}

// harness runs an engine over fake surfaces.
type harness struct {
	t       testing.TB
	plan    *runfile.Plan
	clock   *FakeClock
	pane    *fakeSurface
	wrapper *fakeSurface
	eng     *Engine
	sub     *Subscription
	stop    sync.Once
}

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// testPlan builds a plan whose workers write into a temp workspace.
func testPlan(t testing.TB, workers ...runfile.WorkerSpec) *runfile.Plan {
	t.Helper()
	ws := t.TempDir()
	p := &runfile.Plan{
		Version:   1,
		Name:      "t",
		RunFile:   filepath.Join(ws, "rostra.yaml"),
		Workspace: ws,
		StateDir:  filepath.Join(ws, ".rostra", "t"),
		PanesMax:  8,
	}
	for _, w := range workers {
		if w.Role == "" {
			w.Role = "implementer"
		}
		if w.Provider == "" {
			w.Provider = "shell"
		}
		if w.Command == nil {
			w.Command = []string{"agent", "{prompt}"}
		}
		if w.Surfaces == nil {
			w.Surfaces = []runfile.SurfaceKind{runfile.SurfacePane, runfile.SurfaceWrapper}
		}
		if w.MaxAttempts == 0 {
			w.MaxAttempts = 3
		}
		if w.RetryBackoff == 0 {
			w.RetryBackoff = 2 * time.Second
		}
		if w.StopGrace == 0 {
			w.StopGrace = 5 * time.Second
		}
		if w.Completion.Settle == "" {
			w.Completion.Settle = runfile.SettleOnExit
		}
		if w.Completion.Stable == 0 {
			w.Completion.Stable = 500 * time.Millisecond
		}
		p.Workers = append(p.Workers, w)
	}
	require.NoError(t, os.MkdirAll(p.StateDir, 0o700))
	return p
}

func startHarness(t testing.TB, plan *runfile.Plan) *harness {
	t.Helper()
	return startHarnessWith(t, plan, func(_, _ *fakeSurface) {})
}

// shutdown stops the engine, moving fake time on so the grace timers of
// fake processes that ignore SIGTERM can fire.
func (h *harness) shutdown() { h.stop.Do(h.shutdownNow) }

func (h *harness) shutdownNow() {
	done := make(chan struct{})
	go func() {
		h.eng.Shutdown()
		close(done)
	}()
	for {
		select {
		case <-done:
			return
		case <-time.After(10 * time.Millisecond):
			h.clock.Advance(time.Minute)
		}
	}
}

// opened waits for the next attempt opened on s.
func (h *harness) opened(s *fakeSurface) *fakeHandle {
	h.t.Helper()
	select {
	case fh := <-s.opened:
		return fh
	case <-time.After(5 * time.Second):
		h.t.Fatalf("no attempt opened on %s; rows: %+v", s.kind, h.eng.Snapshot().Dispatches)
		return nil
	}
}

// openedEach waits for the next len(workers) attempts opened on s, which
// are opened at the same time and so in any order, and returns each
// worker's.
func (h *harness) openedEach(s *fakeSurface, workers ...string) map[string]*fakeHandle {
	h.t.Helper()
	got := map[string]*fakeHandle{}
	for range workers {
		fh := h.opened(s)
		got[fh.spec.Worker] = fh
	}
	for _, w := range workers {
		if got[w] == nil {
			h.t.Fatalf("no attempt of %s opened on %s (got %v)", w, s.kind, got)
		}
	}
	return got
}

// noneOpened asserts that nothing opened on s after the loop settled.
func (h *harness) noneOpened(s *fakeSurface) {
	h.t.Helper()
	h.sync()
	select {
	case fh := <-s.opened:
		h.t.Fatalf("unexpected attempt %s opened on %s", fh.spec.DispatchID, s.kind)
	default:
	}
}

// sync waits until the engine loop has run everything posted so far.
func (h *harness) sync() { h.eng.quiesce() }

// event waits for the next event of the given type.
func (h *harness) event(typ string) statedir.Event {
	h.t.Helper()
	got := make(chan statedir.Event, 1)
	go func() {
		for {
			ev, ok := h.sub.Next()
			if !ok {
				close(got)
				return
			}
			if ev.Type == typ {
				got <- ev
				return
			}
		}
	}()
	select {
	case ev, ok := <-got:
		require.True(h.t, ok, "subscription closed before %s", typ)
		return ev
	case <-time.After(5 * time.Second):
		h.t.Fatalf("no %s event", typ)
		return statedir.Event{}
	}
}

// advance moves fake time on one due timer at a time, letting the loop
// handle each before the next, so timers the loop arms in response (idle
// checks, SIGKILL after the grace) fall due within the same advance.
func (h *harness) advance(d time.Duration) {
	h.sync()
	end := h.clock.Now().Add(d)
	for {
		due, ok := h.clock.NextDue()
		if !ok || due.After(end) {
			h.clock.Advance(end.Sub(h.clock.Now()))
			h.sync()
			return
		}
		h.clock.Advance(due.Sub(h.clock.Now()))
		h.sync()
	}
}

func (h *harness) dispatch(id string) statedir.DispatchRow {
	h.t.Helper()
	h.sync()
	for _, d := range h.eng.Snapshot().Dispatches {
		if d.DispatchID == id {
			return d
		}
	}
	h.t.Fatalf("no dispatch row %s", id)
	return statedir.DispatchRow{}
}

func (h *harness) worker(id string) statedir.WorkerRow {
	h.t.Helper()
	h.sync()
	for _, w := range h.eng.Snapshot().Workers {
		if w.WorkerID == id {
			return w
		}
	}
	h.t.Fatalf("no worker row %s", id)
	return statedir.WorkerRow{}
}

func (h *harness) write(rel, content string) {
	h.t.Helper()
	p := filepath.Join(h.plan.Workspace, rel)
	require.NoError(h.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(h.t, os.WriteFile(p, []byte(content), 0o644))
}

var errNoPty = errors.New("open pty: open /dev/ptmx: too many open files")
