// fake_test.go holds the fake engine and attempt handles the UI tests feed
// the model: fixed plans, snapshots and emulators, keys recorded instead of
// typed into a process, and a fixed clock.
package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

var testNow = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

// fakeHandle embeds engine.Handle (nil) so that methods the UI never calls
// need no stub; calling one would panic and fail the test.
type fakeHandle struct {
	engine.Handle
	term   *vt.Terminal
	screen vt.Screen // what Screen returns; nil: term
	done   chan struct{}

	mu      sync.Mutex
	typed   []byte
	resized [][2]int
}

func newFakeHandle(cols, rows int, output string) *fakeHandle {
	h := &fakeHandle{term: vt.New(cols, rows, vt.Options{}), done: make(chan struct{})}
	_, _ = h.term.Write([]byte(output))
	return h
}

func (h *fakeHandle) Pid() int              { return 4242 }
func (h *fakeHandle) Done() <-chan struct{} { return h.done }
func (h *fakeHandle) Screen() vt.Screen {
	if h.screen != nil {
		return h.screen
	}
	return h.term
}

func (h *fakeHandle) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.typed = append(h.typed, b...)
	return len(b), nil
}

func (h *fakeHandle) Resize(cols, rows int) error {
	h.mu.Lock()
	h.resized = append(h.resized, [2]int{cols, rows})
	h.mu.Unlock()
	h.term.Resize(cols, rows)
	return nil
}

func (h *fakeHandle) Typed() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.typed)
}

type fakeEngine struct {
	plan *runfile.Plan

	mu        sync.Mutex
	st        statedir.TeamState
	handles   map[string]*fakeHandle
	retried   []string
	cancelled []string
}

func (f *fakeEngine) Plan() *runfile.Plan { return f.plan }

func (f *fakeEngine) Snapshot() statedir.TeamState {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.st
	st.Workers = append([]statedir.WorkerRow(nil), f.st.Workers...)
	st.Dispatches = append([]statedir.DispatchRow(nil), f.st.Dispatches...)
	return st
}

func (f *fakeEngine) Handle(worker string) (engine.Handle, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.handles[worker]
	if h == nil {
		return nil, 0
	}
	n := 0
	for _, d := range f.st.Dispatches {
		if d.WorkerID == worker {
			n = d.Attempt
		}
	}
	return h, n
}

func (f *fakeEngine) Diff(worker string, color bool) ([]byte, workspace.DiffInfo, error) {
	st := f.Snapshot()
	return workspace.WorktreeDiff(&st, worker, color)
}

func (f *fakeEngine) Merge(worker, pin string) (workspace.MergeResult, error) {
	st := f.Snapshot()
	return workspace.MergeWorktree(&st, worker, pin)
}

func (f *fakeEngine) Retry(worker string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retried = append(f.retried, worker)
	return nil
}

func (f *fakeEngine) Cancel(worker string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, worker)
	for i := range f.st.Workers {
		if f.st.Workers[i].WorkerID == worker {
			f.st.Workers[i].Status = statedir.StatusCancelled
		}
	}
	return nil
}

// fakeRun is a roster of n workers, each running attempt 1 on a PTY pane
// whose screen shows a few lines of its own.
func fakeRun(t testing.TB, n, width, height int) *fakeEngine {
	t.Helper()
	roles := []string{"implementer", "tester", "reviewer", "verifier", "documenter"}
	provs := []string{"claude", "codex", "gemini", "grok"}
	plan := &runfile.Plan{Name: "golden", StateDir: "/work/ws/.rostra/golden", AttentionAfter: 30 * time.Second}
	for i := range n {
		role, prov := roles[i%len(roles)], provs[i%len(provs)]
		plan.Workers = append(plan.Workers, runfile.WorkerSpec{
			ID: fmt.Sprintf("%s-%s", prov, role), Role: role, Provider: prov, MaxAttempts: 3,
			Surfaces: []runfile.SurfaceKind{runfile.SurfacePane, runfile.SurfaceWrapper},
		})
		if i >= len(roles) {
			plan.Workers[i].ID = fmt.Sprintf("%s-%s-%d", prov, role, i)
		}
	}
	f := &fakeEngine{plan: plan, handles: map[string]*fakeHandle{}}
	f.st = statedir.TeamState{Run: plan.Name, StateDir: plan.StateDir, Status: statedir.RunRunning}
	sizes := NewPaneSizes(plan, width, height)
	for i, w := range plan.Workers {
		started := testNow.Add(-time.Duration(40+i) * time.Second)
		f.st.Workers = append(f.st.Workers, statedir.WorkerRow{WorkerID: w.ID, Role: w.Role, Provider: w.Provider, Status: statedir.StatusRunning, Attempts: 1})
		f.st.Dispatches = append(f.st.Dispatches, statedir.DispatchRow{
			DispatchID: runfile.DispatchID(w.ID, 1), WorkerID: w.ID, Attempt: 1,
			Surface: runfile.SurfacePane, Status: statedir.StatusRunning, StartedAt: started, Pid: 1000 + i,
		})
		cols, rows := sizes.Get(w.ID)
		f.handles[w.ID] = newFakeHandle(cols, rows, fmt.Sprintf("$ %s --task {prompt}\r\n[%s] step 1/3 reading files\r\n[%s] step 2/3 planning edits\r\n", w.Provider, w.ID, w.ID))
	}
	return f
}

// setWorker changes a worker's roster row and its last dispatch row.
func (f *fakeEngine) setWorker(id string, change func(w *statedir.WorkerRow, d *statedir.DispatchRow)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var w *statedir.WorkerRow
	var d *statedir.DispatchRow
	for i := range f.st.Workers {
		if f.st.Workers[i].WorkerID == id {
			w = &f.st.Workers[i]
		}
	}
	for i := range f.st.Dispatches {
		if f.st.Dispatches[i].WorkerID == id {
			d = &f.st.Dispatches[i]
		}
	}
	change(w, d)
}

// newModel is the UI over f at a fixed size and time.
func newModel(t testing.TB, f *fakeEngine, width, height int) *Model {
	t.Helper()
	m := New(f, Options{Now: func() time.Time { return testNow }})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	return m
}

// keyMsg is the key press bubbletea reports for a key named as
// KeyPressMsg.String() names it ("ctrl+b", "shift+up", "G").
func keyMsg(s string) tea.KeyPressMsg {
	var k tea.KeyPressMsg
	for {
		switch {
		case strings.HasPrefix(s, "ctrl+") && len(s) > len("ctrl+"):
			k.Mod |= tea.ModCtrl
			s = s[len("ctrl+"):]
			continue
		case strings.HasPrefix(s, "alt+") && len(s) > len("alt+"):
			k.Mod |= tea.ModAlt
			s = s[len("alt+"):]
			continue
		case strings.HasPrefix(s, "shift+") && len(s) > len("shift+"):
			k.Mod |= tea.ModShift
			s = s[len("shift+"):]
			continue
		}
		break
	}
	if code, ok := namedKeys[s]; ok {
		k.Code = code
		return k
	}
	r := []rune(s)
	require.Len(nil, r, 1, "key %q", s)
	k.Code = r[0]
	if k.Mod == 0 {
		k.Text = s
	}
	return k
}

var namedKeys = map[string]rune{
	"tab": tea.KeyTab, "enter": tea.KeyEnter, "esc": tea.KeyEscape, "backspace": tea.KeyBackspace,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	"space": tea.KeySpace,
}

// press sends keys and returns the command the last one gave.
func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(keyMsg(k))
	}
	return cmd
}

// runCmd runs a command the way bubbletea would and feeds its message back.
func runCmd(t testing.TB, m *Model, cmd tea.Cmd) tea.Msg {
	t.Helper()
	require.NotNil(t, cmd, "expected a command")
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		if msg != nil {
			m.Update(msg)
		}
		return msg
	case <-time.After(5 * time.Second):
		t.Fatal("command did not return")
	}
	return nil
}
