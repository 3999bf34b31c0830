// narrow_test.go holds the golden views of an 80×24 terminal, a new user's
// first size: titles that keep their surface badge and attempt, a long
// status message wrapped (and whole in the event log), the run's folder in
// the status bar of two runs of one name, and outside text holding escape
// sequences (a clipboard write) shown escaped in the titles, the status
// bar, a dialog and the event log.
package tui

import (
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

// shellRun is four workers whose role is their id (a roster written
// quickly: w01 · shell), two on a pane, two on the wrapper, one on its
// second attempt, one running over an hour.
func shellRun(t *testing.T) *fakeEngine {
	t.Helper()
	f := fakeRun(t, 4, 80, 24)
	ids := []string{"w01", "w02", "w03", "reviewer-of-the-parser-changes"}
	for i := range f.plan.Workers {
		renameWorker(f, f.plan.Workers[i].ID, ids[i])
		f.plan.Workers[i].Role, f.plan.Workers[i].Provider = ids[i], "shell"
	}
	f.setWorker("w02", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		d.Surface = runfile.SurfaceWrapper
	})
	f.setWorker("w03", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Attempts, d.Attempt, d.StartedAt = 2, 2, testNow.Add(-(time.Hour + 2*time.Minute))
	})
	f.setWorker("reviewer-of-the-parser-changes", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		d.Surface, d.StartedAt = runfile.SurfaceWrapper, testNow.Add(-(3*time.Minute + 5*time.Second))
	})
	return f
}

// renameWorker gives worker old the id id everywhere the fake holds it.
func renameWorker(f *fakeEngine, old, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.plan.Workers {
		if f.plan.Workers[i].ID == old {
			f.plan.Workers[i].ID = id
		}
	}
	for i := range f.st.Workers {
		if f.st.Workers[i].WorkerID == old {
			f.st.Workers[i].WorkerID = id
		}
	}
	for i := range f.st.Dispatches {
		if f.st.Dispatches[i].WorkerID == old {
			f.st.Dispatches[i].WorkerID = id
			f.st.Dispatches[i].DispatchID = runfile.DispatchID(id, f.st.Dispatches[i].Attempt)
		}
	}
	f.handles[id] = f.handles[old]
	delete(f.handles, old)
}

// titles are the top borders of the screen's panes.
func titles(screen string) []string {
	var out []string
	for _, l := range strings.Split(ansi.Strip(screen), "\n") {
		if strings.ContainsAny(l, "┏┌") {
			out = append(out, l)
		}
	}
	return out
}

func TestGoldenNarrowTitles(t *testing.T) {
	m := newModel(t, shellRun(t), 80, 24)
	requireGolden(t, m)
	tt := strings.Join(titles(m.Render()), "\n")
	for _, want := range []string{"w01 · PTY · 1/3", "w02 · WRAPPER · 1/3", "w03 · PTY · 2/3", "reviewer… · WRAPPER · 1/3"} {
		assert.Contains(t, tt, want)
	}

	// Wide enough for the role: one that repeats the id is not shown.
	wide := strings.Join(titles(newModel(t, shellRun(t), 200, 24).Render()), "\n")
	assert.Contains(t, wide, "w01 · shell · PTY · attempt 1/3 · running · 40s")
	assert.NotContains(t, wide, "w01 · w01")
}

func TestGoldenNarrowTitlesWithAttention(t *testing.T) {
	f := shellRun(t)
	f.setWorker("w02", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		ended := testNow.Add(-time.Second)
		w.Status, d.Status, d.EndedAt, d.Reason = statedir.StatusError, statedir.StatusError, &ended, "exited with code 1"
	})
	m := newModel(t, f, 80, 24)
	requireGolden(t, m)
	assert.Contains(t, strings.Join(titles(m.Render()), "\n"), "⚑ w02 · WRAPPER · 1/3 · error")
}

// TestGoldenLongNote is a merge refused with a long reason at 80 columns:
// the message is drawn whole over its own lines, not cut mid-word, and
// the event log holds it too.
func TestGoldenLongNote(t *testing.T) {
	m := newModel(t, shellRun(t), 80, 24)
	note := "not merged: the workspace /home/someone/src/project has uncommitted changes in src/parser.go and README.md: commit or stash them, then press M again"
	m.Update(controlMsg{note: note})
	requireGolden(t, m)
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "press M again", "the reason's end is on screen")
	press(m, "e")
	assert.Contains(t, strings.Join(m.evlog.lines, "\n"), note, "the event log holds the message whole")
}

// TestGoldenSameNameRuns is two runs named proj in two folders, both with
// a pane wanting attention: their status bars differ by the folder.
func TestGoldenSameNameRuns(t *testing.T) {
	var bars []string
	for _, ws := range []string{"/srv/clients/acme/proj", "/srv/clients/globex/proj"} {
		f := shellRun(t)
		f.plan.Name, f.plan.StateDir = "proj", ws+"/.rostra/proj"
		f.st.Run, f.st.StateDir = "proj", f.plan.StateDir
		f.setWorker("w01", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
			ended := testNow.Add(-time.Second)
			w.Status, d.Status, d.EndedAt = statedir.StatusError, statedir.StatusError, &ended
		})
		m := newModel(t, f, 80, 24)
		lines := strings.Split(ansi.Strip(m.Render()), "\n")
		bar := lines[len(lines)-1]
		require.Contains(t, bar, "⚑")
		bars = append(bars, bar)
	}
	assert.Contains(t, bars[0], "acme/proj")
	assert.Contains(t, bars[1], "globex/proj")
	golden.RequireEqual(t, strings.Join(bars, "\n")+"\n")
}

// TestGoldenEscapedOutsideText is a worker whose id, exit reason and file
// names hold a clipboard write (ESC ] 52 … BEL): the title, the status
// bar, the retry dialog and the event log show it escaped, and no raw
// ESC ] or BEL reaches the frame.
func TestGoldenEscapedOutsideText(t *testing.T) {
	const evil = "\x1b]52;c;cm0gLXJm\x07"
	f := shellRun(t)
	renameWorker(f, "w01", "w01"+evil)
	f.plan.Workers[0].Role = "w01" + evil
	reason := "missing completion paths: out/" + evil + ".txt"
	f.setWorker("w01"+evil, func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Reason, d.Reason = reason, reason
	})
	m := New(f, Options{Events: fakeEvents{}, Now: func() time.Time { return testNow }})
	m.Update(eventHistoryMsg{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(eventMsg{ev: statedir.Event{TS: testNow, Type: statedir.EventWorkerFailed, WorkerID: "w01" + evil, Attempt: 1, Reason: reason}})
	m.Update(controlMsg{note: "w01" + evil + ": manual attempt requested"})
	clean := func(what string) {
		t.Helper()
		screen := m.Render()
		assert.NotContains(t, screen, "\x1b]", "%s: a raw OSC reached the frame", what)
		assert.NotContains(t, screen, "\x07", "%s: a raw BEL reached the frame", what)
		assert.Contains(t, ansi.Strip(screen), `\e]52;c;`, "%s: the escape shows as text", what)
	}
	clean("title and status bar")
	t.Run("panes", func(t *testing.T) { requireGolden(t, m) })

	press(m, "r") // the running worker: the retry dialog names it
	require.NotNil(t, m.confirm)
	clean("the retry dialog")
	t.Run("dialog", func(t *testing.T) { requireGolden(t, m) })
	press(m, "n")

	press(m, "e")
	clean("the event log")
	t.Run("events", func(t *testing.T) { requireGolden(t, m) })
}

// TestDialogLinesWrapOnANarrowTerminal: the quit dialog at 50 columns
// wraps its lines rather than cutting the end off.
func TestDialogLinesWrapOnANarrowTerminal(t *testing.T) {
	m := newModel(t, shellRun(t), 50, 24)
	press(m, "q")
	require.NotNil(t, m.confirm)
	screen := strings.Join(strings.Fields(ansi.Strip(m.Render())), " ")
	assert.Contains(t, screen, "files are completed;")
	assert.Contains(t, screen, "rostra run --resume continues the run later.")
}
