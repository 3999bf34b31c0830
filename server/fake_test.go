// fake_test.go holds the harness of the server tests: a real engine and a
// real server on a real socket, over a fake pane surface whose "processes"
// are emulators the test writes into (typed keys are echoed, as a tty in
// cooked mode would); and a test client that attaches without a terminal,
// drawing what the server sends into an emulator of its own.
package server

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/tui"
)

type fakeHandle struct {
	worker string
	screen *vt.Terminal
	done   chan struct{}
	once   sync.Once

	mu    sync.Mutex
	exit  engine.ExitStatus
	typed []byte
	sizes [][2]int
}

func (h *fakeHandle) Pid() int                    { return 1 << 22 }
func (h *fakeHandle) Containment() string         { return statedir.ContainmentTracking }
func (h *fakeHandle) Done() <-chan struct{}       { return h.done }
func (h *fakeHandle) OutputBytes() int64          { return 0 }
func (h *fakeHandle) NotifyOutput(func())         {}
func (h *fakeHandle) Lingering() bool             { return false }
func (h *fakeHandle) Close() error                { return nil }
func (h *fakeHandle) Screen() vt.Screen           { return h.screen }
func (h *fakeHandle) Signal(syscall.Signal) error { h.end(-1, "SIGTERM"); return nil }
func (h *fakeHandle) Exit() engine.ExitStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.exit
}

func (h *fakeHandle) end(code int, sig string) {
	h.once.Do(func() {
		h.mu.Lock()
		h.exit = engine.ExitStatus{Code: code, Signal: sig}
		h.mu.Unlock()
		close(h.done)
	})
}

// Write is a key typed into the pane: recorded, and echoed.
func (h *fakeHandle) Write(b []byte) (int, error) {
	h.mu.Lock()
	h.typed = append(h.typed, b...)
	h.mu.Unlock()
	_, _ = h.screen.Write(bytes.ReplaceAll(b, []byte("\r"), []byte("\r\n")))
	return len(b), nil
}

func (h *fakeHandle) Resize(cols, rows int) error {
	h.mu.Lock()
	h.sizes = append(h.sizes, [2]int{cols, rows})
	h.mu.Unlock()
	h.screen.Resize(cols, rows)
	return nil
}

func (h *fakeHandle) Typed() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.typed)
}

func (h *fakeHandle) size() (int, int) { return h.screen.Size() }

type fakeSurface struct {
	act *vt.Activity

	mu      sync.Mutex
	handles map[string]*fakeHandle
}

func (s *fakeSurface) Kind() runfile.SurfaceKind { return runfile.SurfacePane }

func (s *fakeSurface) Open(l engine.LaunchSpec) (engine.Handle, error) {
	h := &fakeHandle{worker: l.Worker, done: make(chan struct{})}
	h.screen = vt.New(l.Cols, l.Rows, vt.Options{Activity: s.act})
	fmt.Fprintf(h.screen, "hello from %s attempt %d\r\n", l.Worker, l.Attempt)
	s.mu.Lock()
	s.handles[l.Worker] = h
	s.mu.Unlock()
	return h, nil
}

func (s *fakeSurface) handle(worker string) *fakeHandle {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handles[worker]
}

// syncBuffer is the server's log, read by the tests while it writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type harness struct {
	t    *testing.T
	plan *runfile.Plan
	eng  *engine.Engine
	srv  *Server
	surf *fakeSurface
	log  *syncBuffer
	code chan int

	viewMu   sync.Mutex
	lastView string
}

// workerID is the id of the i-th worker of a harness's run.
func workerID(i int) string { return fmt.Sprintf("w%02d", i) }

// startServer serves a run of n workers in a fresh workspace; stateDir, if
// not empty, is the run's state dir (relative to the workspace).
func startServer(t *testing.T, n int, stateDir string, tune ...func(*harness, *Config)) *harness {
	t.Helper()
	ws := t.TempDir()
	var rf strings.Builder
	fmt.Fprintf(&rf, "version: 1\nname: srv\nworkspace: .\n")
	if stateDir != "" {
		fmt.Fprintf(&rf, "state_dir: %s\n", stateDir)
	}
	fmt.Fprintf(&rf, "panes: { max: 32 }\nproviders:\n  shell: { command: [\"true\"] }\ndefaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }\nworkers:\n")
	for i := range n {
		fmt.Fprintf(&rf, "  - { id: %s, role: r, provider: shell, prompt: p }\n", workerID(i))
	}
	file := filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(file, []byte(rf.String()), 0o644))
	plan, err := runfile.Load(file)
	require.NoError(t, err)
	prep, err := engine.PrepareStateDir(plan, false, time.Now())
	require.NoError(t, err)
	t.Cleanup(func() { _ = prep.Lock.Release() })

	act := vt.NewActivity()
	sizes := tui.NewPaneSizes(plan, 120, 40)
	surf := &fakeSurface{act: act, handles: map[string]*fakeHandle{}}
	eng := engine.New(plan, engine.Options{
		Surfaces: map[runfile.SurfaceKind]engine.Surface{runfile.SurfacePane: surf},
		PaneSize: sizes.Get,
	})
	ln, err := Listen(plan.StateDir)
	require.NoError(t, err)
	log := &syncBuffer{}
	cfg := Config{Engine: eng, Activity: act, Sizes: sizes, Listener: ln, RunFile: file, Log: log}
	h := &harness{t: t, plan: plan, eng: eng, surf: surf, log: log, code: make(chan int, 1)}
	for _, f := range tune {
		f(h, &cfg)
	}
	h.srv = New(cfg)
	require.NoError(t, eng.Start())
	go func() { h.code <- h.srv.Serve() }()
	for i := range n {
		require.Eventually(t, func() bool { return surf.handle(workerID(i)) != nil }, 10*time.Second, 5*time.Millisecond, "worker %d opens", i)
	}
	t.Cleanup(func() {
		select {
		case <-h.srv.over:
		default:
			h.srv.Stop("the test is over")
		}
		select {
		case <-h.code:
		case <-time.After(30 * time.Second):
			t.Errorf("the server did not end; its log:\n%s", log.String())
		}
	})
	return h
}

// viewRecorder keeps the last frame a client's model drew (read by the
// test while the program runs, hence the lock).
type viewRecorder struct {
	tea.Model
	mu   *sync.Mutex
	last *string
}

func (v viewRecorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := v.Model.Update(msg)
	v.Model = m
	return v, cmd
}

func (v viewRecorder) View() tea.View {
	view := v.Model.View()
	v.mu.Lock()
	*v.last = view.Content
	v.mu.Unlock()
	return view
}

// recordViews makes a harness keep its clients' last frame (lastFrame).
func recordViews(h *harness, c *Config) {
	c.WrapModel = func(m *tui.Model) tea.Model {
		return viewRecorder{Model: m, mu: &h.viewMu, last: &h.lastView}
	}
}

// lastFrame is the last frame a model drew (recordViews).
func (h *harness) lastFrame() string {
	h.viewMu.Lock()
	defer h.viewMu.Unlock()
	return h.lastView
}

// wait is Serve's exit code, once it returns.
func (h *harness) wait() int {
	h.t.Helper()
	select {
	case c := <-h.code:
		h.code <- c
		return c
	case <-time.After(30 * time.Second):
		h.t.Fatalf("the server did not end; its log:\n%s", h.log.String())
	}
	return -1
}

// testClient is an attached client without a terminal: an emulator of its
// own stands for the terminal.
type testClient struct {
	t    *testing.T
	c    *net.UnixConn
	term *vt.Terminal
	done chan struct{}

	mu     sync.Mutex
	bye    *Bye
	err    error
	frames int
	raw    []byte // every output byte
}

func attachClient(t *testing.T, stateDir string, cols, rows int, env ...string) *testClient {
	t.Helper()
	c, err := Dial(stateDir)
	require.NoError(t, err)
	tc := &testClient{t: t, c: c, term: vt.New(cols, rows, vt.Options{}), done: make(chan struct{})}
	require.NoError(t, WriteJSON(c, FrameHello, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: append([]string{"TERM=xterm-256color"}, env...), Cols: cols, Rows: rows}))
	fr := NewFrameReader(c)
	bye, err := readWelcome(fr)
	require.NoError(t, err)
	require.Nil(t, bye, "the server refused to attach")
	go tc.read(fr)
	t.Cleanup(func() { c.Close(); <-tc.done })
	return tc
}

func (tc *testClient) read(fr *FrameReader) {
	defer close(tc.done)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			tc.mu.Lock()
			tc.err = err
			tc.mu.Unlock()
			return
		}
		switch f.Type {
		case FrameOutput:
			_, _ = tc.term.Write(f.Payload)
			tc.mu.Lock()
			tc.frames++
			tc.raw = append(tc.raw, f.Payload...)
			tc.mu.Unlock()
		case FrameBye:
			var b Bye
			_ = DecodeJSON(f.Payload, &b)
			tc.mu.Lock()
			tc.bye = &b
			tc.mu.Unlock()
		}
	}
}

func (tc *testClient) send(t FrameType, p []byte) {
	tc.t.Helper()
	require.NoError(tc.t, WriteFrame(tc.c, t, p))
}

func (tc *testClient) keys(s string) { tc.send(FrameInput, []byte(s)) }

func (tc *testClient) text() string { return tc.term.Text(false) }

func (tc *testClient) rawOutput() string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return string(tc.raw)
}

// waitText waits until the client's screen shows every one of want.
func (tc *testClient) waitText(what string, want ...string) {
	tc.t.Helper()
	ok := assert.Eventually(tc.t, func() bool {
		last := tc.text()
		for _, w := range want {
			if !strings.Contains(last, w) {
				return false
			}
		}
		return true
	}, 15*time.Second, 5*time.Millisecond)
	if !ok {
		tc.t.Fatalf("%s: the client's screen never showed %q; it shows:\n%s", what, want, tc.text())
	}
}

// waitBye waits for the session's end and returns the server's Bye.
func (tc *testClient) waitBye() Bye {
	tc.t.Helper()
	select {
	case <-tc.done:
	case <-time.After(20 * time.Second):
		tc.t.Fatalf("the session did not end; the screen:\n%s", tc.text())
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	require.NotNil(tc.t, tc.bye, "the session ended without a bye (%v)", tc.err)
	return *tc.bye
}

// control sends one request on a fresh control connection.
func control(t *testing.T, stateDir string, req Request) Reply {
	t.Helper()
	cc, err := Control(stateDir)
	require.NoError(t, err)
	defer cc.Close()
	rep, err := cc.Do(req)
	require.NoError(t, err)
	return rep
}
