// golden_test.go compares whole screens, ANSI stripped, at fixed sizes with
// testdata/<test name>.golden through x/exp/golden (go test ./tui -update
// rewrites them): 1, 2, 4 and 9 panes, pages, a degraded pane and one no
// surface could open, zoom, help, the confirm dialog, the event log and
// attempt history.
package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC // the event log shows local times
	os.Exit(m.Run())
}

// requireGolden checks the model's screen against
// testdata/<test name>.golden (go test ./tui -update rewrites them).
func requireGolden(t *testing.T, m *Model) {
	t.Helper()
	screen := m.Render()
	got := ansi.Strip(screen) + "\n"
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	require.Len(t, lines, m.height, "the screen has one line per terminal row")
	for i, l := range lines {
		require.Equal(t, m.width, ansi.StringWidth(l), "line %d is not %d cells wide: %q", i, m.width, l)
	}
	golden.RequireEqual(t, got)
}

func TestGoldenOnePane(t *testing.T) {
	f := fakeRun(t, 1, 80, 16)
	requireGolden(t, newModel(t, f, 80, 16))
}

func TestGoldenTwoPanes(t *testing.T) {
	f := fakeRun(t, 2, 120, 16)
	requireGolden(t, newModel(t, f, 120, 16))
}

func TestGoldenThreePanes(t *testing.T) {
	f := fakeRun(t, 3, 100, 24)
	m := newModel(t, f, 100, 24)
	requireGolden(t, m)
	vis := m.visible()
	require.Len(t, vis, 3)
	assert.Equal(t, 100, vis[2].r.w, "the last row's one pane takes the whole width")
}

func TestGoldenFourPanesByStatus(t *testing.T) {
	f := fakeRun(t, 4, 120, 24)
	ended := testNow.Add(-5 * time.Second)
	f.setWorker("codex-tester", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status, d.EndedAt = statedir.StatusCompleted, statedir.StatusCompleted, &ended
	})
	f.setWorker("gemini-reviewer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, w.Attempts, w.Reason = statedir.StatusError, 3, "exited with code 1"
		d.Attempt, d.Status, d.Reason, d.FailureClass, d.EndedAt = 3, statedir.StatusError, "exited with code 1", statedir.FailureExitCode, &ended
	})
	f.setWorker("grok-verifier", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, w.Reason = statedir.StatusError, "missing completion paths: out/grok-verifier/result.json"
		d.Status, d.Reason, d.FailureClass, d.EndedAt = statedir.StatusError, w.Reason, statedir.FailureMissingOutputs, &ended
	})
	requireGolden(t, newModel(t, f, 120, 24))
}

func TestGoldenNinePanes(t *testing.T) {
	f := fakeRun(t, 9, 120, 31)
	requireGolden(t, newModel(t, f, 120, 31))
}

func TestGoldenPages(t *testing.T) {
	f := fakeRun(t, 9, 80, 21)
	m := newModel(t, f, 80, 21)
	assert.Equal(t, 3, m.pages(), "2x2 cells of at least 32x8 on 80x20: three pages")
	press(m, "]")
	requireGolden(t, m)
	assert.Equal(t, 4, m.focus, "] focuses the first pane of the next page")
}

func TestGoldenDegraded(t *testing.T) {
	f := fakeRun(t, 3, 180, 16)
	f.setWorker("codex-tester", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		d.Surface, d.DegradedFrom, d.DegradedReason = runfile.SurfaceWrapper, runfile.SurfacePane, "pane limit reached (1 of 1 in use)"
	})
	f.setWorker("gemini-reviewer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		reason := "no surface could open: pane: open pty: no space left on device; wrapper: start bash: exec: no such file"
		ended := testNow
		w.Status, w.Reason = statedir.StatusError, reason
		d.Surface, d.Status, d.Reason, d.EndedAt = "", statedir.StatusError, reason, &ended
	})
	delete(f.handles, "gemini-reviewer")
	m := newModel(t, f, 180, 16)
	requireGolden(t, m)
	assert.Contains(t, ansi.Strip(m.Render()), "DEGRADED pane -> wrapper: pane limit reached (1 of 1 in")
	assert.Contains(t, ansi.Strip(m.Render()), "wrapper: start bash: exec: no such file", "every surface's reason is shown")
}

func TestGoldenZoom(t *testing.T) {
	f := fakeRun(t, 4, 100, 20)
	m := newModel(t, f, 100, 20)
	press(m, "tab", "z")
	requireGolden(t, m)
	press(m, "z")
	assert.Len(t, m.visible(), 4)
}

func TestGoldenHelp(t *testing.T) {
	f := fakeRun(t, 2, 120, 30)
	m := newModel(t, f, 120, 30)
	press(m, "?")
	requireGolden(t, m)
}

func TestGoldenConfirmCancel(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := newModel(t, f, 120, 20)
	press(m, "x")
	requireGolden(t, m)
}

func TestGoldenEventLog(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := newModel(t, f, 120, 20)
	code := 1
	for _, ev := range []statedir.Event{
		{TS: testNow.Add(-50 * time.Second), Type: statedir.EventRunStarted},
		{TS: testNow.Add(-49 * time.Second), Type: statedir.EventWorkerDispatched, WorkerID: "claude-implementer", Attempt: 1, Surface: runfile.SurfacePane},
		{TS: testNow.Add(-49 * time.Second), Type: statedir.EventWorkerDispatched, WorkerID: "codex-tester", Attempt: 1, Surface: runfile.SurfaceWrapper},
		{TS: testNow.Add(-49 * time.Second), Type: statedir.EventWorkerDegraded, WorkerID: "codex-tester", Attempt: 1, From: runfile.SurfacePane, To: runfile.SurfaceWrapper, Reason: "pane limit reached (1 of 1 in use)"},
		{TS: testNow.Add(-20 * time.Second), Type: statedir.EventWorkerFailed, WorkerID: "codex-tester", Attempt: 1, Reason: "exited with code 1", ExitCode: &code},
		{TS: testNow.Add(-20 * time.Second), Type: statedir.EventWorkerRetry, WorkerID: "codex-tester", Attempt: 1, Reason: "exited with code 1"},
	} {
		m.Update(eventMsg{ev: ev})
	}
	press(m, "e")
	requireGolden(t, m)
}

func TestGoldenAttemptHistory(t *testing.T) {
	f := fakeRun(t, 2, 120, 16)
	log := filepath.Join(t.TempDir(), "output.log")
	require.NoError(t, os.WriteFile(log, []byte("$ codex --task\r\n\x1b[31mTypeError: cannot read 'x'\x1b[m\r\nexit 1\r\n"), 0o644))
	ended := testNow.Add(-30 * time.Second)
	f.mu.Lock()
	first := f.st.Dispatches[1]
	first.Status, first.Reason, first.EndedAt, first.OutputLogPath = statedir.StatusError, "exited with code 1", &ended, log
	f.st.Dispatches = append(f.st.Dispatches, first)
	f.st.Dispatches[len(f.st.Dispatches)-1] = first
	second := f.st.Dispatches[1]
	second.Attempt, second.DispatchID, second.StartedAt = 2, "codex-tester#2", ended.Add(time.Second)
	f.st.Dispatches[1] = first
	f.st.Dispatches[len(f.st.Dispatches)-1] = second
	f.st.Workers[1].Attempts = 2
	f.mu.Unlock()

	m := newModel(t, f, 120, 16)
	cmd := press(m, "tab", "<")
	runCmd(t, m, cmd)
	requireGolden(t, m)
	assert.Contains(t, ansi.Strip(m.Render()), "TypeError: cannot read 'x'")
	press(m, ">")
	assert.Equal(t, 0, m.focused().view, "> past the last earlier attempt is live again")
}

// fakeEvents is an event queue that never delivers (the tests feed
// eventMsg themselves): it marks the UI as one with a live log.
type fakeEvents struct{}

func (fakeEvents) Next() (statedir.Event, bool) { select {} }

// TestGoldenEventLogFromTheFile is a client attaching after the run has
// logged: e shows events.jsonl's events, then the live ones (an event both
// in the file and heard live once), wrapped at 80 columns rather than cut,
// and a reason holding a clipboard write escaped.
func TestGoldenEventLogFromTheFile(t *testing.T) {
	f := fakeRun(t, 2, 80, 24)
	f.plan.StateDir = t.TempDir()
	f.st.StateDir = f.plan.StateDir
	code := 1
	logged := []statedir.Event{
		{TS: testNow.Add(-49 * time.Second), Type: statedir.EventWorkerDispatched, WorkerID: "claude-implementer", Attempt: 1, Surface: runfile.SurfacePane},
		{TS: testNow.Add(-49 * time.Second), Type: statedir.EventWorkerDegraded, WorkerID: "codex-tester", Attempt: 1, From: runfile.SurfacePane, To: runfile.SurfaceWrapper,
			Reason: "pane limit reached (1 of 1 in use): the other workers hold every pane the run file allows"},
		{TS: testNow.Add(-20 * time.Second), Type: statedir.EventWorkerFailed, WorkerID: "codex-tester", Attempt: 1, Reason: "exited with code 1 \x1b]52;c;cm0gLXJmIH4=\x07", ExitCode: &code},
	}
	log, err := statedir.OpenEventLog(filepath.Join(f.plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	for _, ev := range logged {
		require.NoError(t, log.Append(ev))
	}
	require.NoError(t, log.Close())

	m := New(f, Options{Events: fakeEvents{}, Now: func() time.Time { return testNow }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	read := m.readEventHistory()
	require.NotNil(t, read, "a UI with an event queue reads the file")
	// Heard live before the file's events are in: the last one logged,
	// and one the file does not hold yet.
	m.Update(eventMsg{ev: logged[2]})
	m.Update(eventMsg{ev: statedir.Event{TS: testNow.Add(-19 * time.Second), Type: statedir.EventWorkerRetry, WorkerID: "codex-tester", Attempt: 1, Reason: "exited with code 1"}})
	m.Update(read())
	press(m, "e")
	requireGolden(t, m)
	screen := ansi.Strip(m.Render())
	assert.Equal(t, 1, strings.Count(screen, "codex-tester#1 failed"), "an event in the file and heard live shows once")
	assert.NotContains(t, m.Render(), "\x1b]52", "no raw clipboard write")
}

// TestEventLogFromALongFile keeps the newest eventLogCap lines of a long
// events.jsonl and says where the others are.
func TestEventLogFromALongFile(t *testing.T) {
	f := fakeRun(t, 1, 80, 24)
	f.plan.StateDir = t.TempDir()
	m := New(f, Options{Events: fakeEvents{}, Now: func() time.Time { return testNow }})
	evs := make([]statedir.Event, eventLogCap+10)
	for i := range evs {
		evs[i] = statedir.Event{TS: testNow.Add(time.Duration(i) * time.Second), Type: statedir.EventWorkerRetry, WorkerID: "claude-implementer", Attempt: i}
	}
	m.Update(eventHistoryMsg{events: evs})
	require.Len(t, m.evlog.lines, eventLogCap)
	assert.Equal(t, "11 earlier event(s) are in "+filepath.Join(f.plan.StateDir, statedir.EventsFile), m.evlog.lines[0])
	assert.Equal(t, formatEvent(evs[len(evs)-1], f.plan), m.evlog.lines[eventLogCap-1])
}
