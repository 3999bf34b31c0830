// flow_test.go drives the model through Update as a person would: retry and
// cancel with their confirmations, quit while workers run, typing into a
// pane (checking the bytes the child receives), scrollback and search,
// attention marks, mouse focus and the debounced resize of each pane.
package tui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func TestCancelAsksWhileRunning(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := newModel(t, f, 120, 20)
	press(m, "tab", "x")
	require.NotNil(t, m.confirm, "cancelling a running attempt asks first")
	assert.Contains(t, ansi.Strip(m.Render()), "Cancel codex-tester?")
	press(m, "n")
	assert.Nil(t, m.confirm)
	assert.Empty(t, f.cancelled, "n keeps the attempt running")

	cmd := press(m, "x", "y")
	assert.Nil(t, m.confirm)
	runCmd(t, m, cmd)
	assert.Equal(t, []string{"codex-tester"}, f.cancelled)
	assert.Equal(t, statedir.StatusCancelled, m.focused().worker.Status, "the model re-reads the snapshot after the control")
	assert.Contains(t, m.note, "cancelled")
}

func TestCancelWithoutRunningAttemptSaysSo(t *testing.T) {
	f := fakeRun(t, 1, 80, 20)
	f.setWorker("claude-implementer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) { w.Status = statedir.StatusCompleted })
	m := newModel(t, f, 80, 20)
	assert.Nil(t, press(m, "x"))
	assert.Nil(t, m.confirm)
	assert.Contains(t, m.note, "nothing to cancel")
}

func TestRetryAsksWhileRunningAndNotAfter(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := newModel(t, f, 120, 20)
	press(m, "r")
	require.NotNil(t, m.confirm)
	assert.Contains(t, ansi.Strip(m.Render()), "Its running attempt 1 is cancelled first")
	runCmd(t, m, press(m, "enter"))
	assert.Equal(t, []string{"claude-implementer"}, f.retried)

	f.setWorker("codex-tester", func(w *statedir.WorkerRow, d *statedir.DispatchRow) { w.Status = statedir.StatusError })
	m.refresh()
	cmd := press(m, "tab", "r")
	assert.Nil(t, m.confirm, "a worker that is not running retries at once")
	runCmd(t, m, cmd)
	assert.Equal(t, []string{"claude-implementer", "codex-tester"}, f.retried)
}

func TestQuitAsksWhileWorkersRun(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	stops := 0
	m := New(f, Options{Now: func() time.Time { return testNow }, Stop: func() error { stops++; return nil }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	assert.Nil(t, press(m, "q"))
	require.NotNil(t, m.confirm)
	assert.Contains(t, ansi.Strip(m.Render()), "2 worker(s) are still running")
	press(m, "esc")
	assert.Nil(t, m.confirm)
	assert.Equal(t, 0, stops)

	press(m, "ctrl+c")
	require.NotNil(t, m.confirm, "Ctrl-C asks too")
	cmd := press(m, "y")
	assert.True(t, m.stopping)
	assert.Contains(t, ansi.Strip(m.Render()), "stopping every worker")
	msg := cmd()
	require.IsType(t, stoppedMsg{}, msg)
	_, quit := m.Update(msg)
	require.NotNil(t, quit)
	assert.IsType(t, tea.QuitMsg{}, quit())
	assert.Equal(t, 1, stops)
	assert.True(t, m.Interrupted(), "quitting while workers ran is an interruption (exit 130)")
}

func TestQuitWhenAllDoneDoesNotAsk(t *testing.T) {
	f := fakeRun(t, 1, 80, 20)
	f.setWorker("claude-implementer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) { w.Status = statedir.StatusCompleted })
	m := newModel(t, f, 80, 20)
	cmd := press(m, "q")
	assert.Nil(t, m.confirm)
	require.NotNil(t, cmd)
	require.IsType(t, stoppedMsg{}, cmd())
	assert.False(t, m.Interrupted())
}

func TestInterruptStopsWithoutAsking(t *testing.T) {
	f := fakeRun(t, 1, 80, 20)
	m := newModel(t, f, 80, 20)
	_, cmd := m.Update(Interrupt("terminated"))
	require.NotNil(t, cmd)
	assert.Nil(t, m.confirm)
	assert.True(t, m.Interrupted())
}

// typed waits for the child to have received want.
func typed(t *testing.T, h *fakeHandle, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return h.Typed() == want }, 2*time.Second, time.Millisecond,
		"the child received %q, want %q", h.Typed(), want)
}

func TestInputModeForwardsXtermBytes(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := newModel(t, f, 120, 20)
	h := f.handles["claude-implementer"]

	press(m, "i")
	require.Equal(t, modeInput, m.mode)
	assert.Contains(t, ansi.Strip(m.Render()), "INPUT → claude-implementer")
	press(m, "up")
	typed(t, h, "\x1b[A")

	_, _ = h.term.Write([]byte("\x1b[?1h")) // the child asks for application cursor keys
	press(m, "up")
	typed(t, h, "\x1b[A\x1bOA")

	press(m, "ctrl+c", "alt+x", "q", "tab")
	typed(t, h, "\x1b[A\x1bOA\x03\x1bxq\t")
	assert.Equal(t, modeInput, m.mode, "q and Tab went to the child, not to the UI")

	_, _ = h.term.Write([]byte("\x1b[?2004h")) // bracketed paste on
	m.Update(tea.PasteMsg{Content: "two\nlines"})
	typed(t, h, "\x1b[A\x1bOA\x03\x1bxq\t\x1b[200~two\rlines\x1b[201~")

	press(m, "ctrl+]")
	assert.Equal(t, modeNormal, m.mode, "Ctrl-] gives the keys back")
	before := h.Typed()
	press(m, "z")
	assert.True(t, m.zoom)
	assert.Equal(t, before, h.Typed(), "keys in normal mode are not forwarded")

	v := m.View()
	assert.Nil(t, v.Cursor, "no cursor outside input mode")
	press(m, "i")
	v = m.View()
	require.NotNil(t, v.Cursor, "the focused child's cursor is shown while it has the keys")
}

func TestWrapperPaneCannotBeTypedInto(t *testing.T) {
	f := fakeRun(t, 1, 80, 20)
	f.setWorker("claude-implementer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) { d.Surface = runfile.SurfaceWrapper })
	m := newModel(t, f, 80, 20)
	press(m, "i")
	assert.Equal(t, modeNormal, m.mode)
	assert.Contains(t, m.note, "WRAPPER")
}

func TestScrollbackAndSearch(t *testing.T) {
	f := fakeRun(t, 1, 80, 20)
	h := f.handles["claude-implementer"]
	var b strings.Builder
	for i := range 200 {
		b.WriteString("output line " + strconv.Itoa(i) + "\r\n")
	}
	_, _ = h.term.Write([]byte(b.String()))
	m := newModel(t, f, 80, 20)
	p := m.focused()
	assert.True(t, p.live())
	press(m, "pgup")
	require.GreaterOrEqual(t, p.top, 0)
	assert.Contains(t, ansi.Strip(m.Render()), "scrollback")

	press(m, "/")
	for _, r := range "line 42" {
		press(m, string(r))
	}
	press(m, "enter")
	require.Equal(t, modeCopy, m.mode, "a search shows its matches in copy mode")
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "output line 42 ")
	assert.Contains(t, m.note, `"line 42" (any case): match 1 of 1`)
	press(m, "n")
	assert.Contains(t, m.note, "wrapped round", "no older match than the only one")
	press(m, "esc")
	require.Equal(t, modeNormal, m.mode)

	press(m, "G")
	assert.True(t, p.live())
	assert.Contains(t, ansi.Strip(m.Render()), "output line 199")
}

func TestAttentionBellQuietAndJump(t *testing.T) {
	f := fakeRun(t, 3, 120, 20)
	act := vt.NewActivity()
	bellScreen := vt.New(40, 10, vt.Options{Activity: act})
	f.handles["gemini-reviewer"].term = bellScreen
	f.handles["gemini-reviewer"].screen = bellScreen
	now := testNow
	m := New(f, Options{Now: func() time.Time { return now }, Activity: act})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})

	_, _ = bellScreen.Write([]byte("waiting for approval\a"))
	select {
	case <-m.wake:
	default:
		t.Fatal("output did not wake the UI")
	}
	m.Update(frameMsg{})
	assert.Equal(t, "bell", m.byID["gemini-reviewer"].attention(now, m.plan.AttentionAfter))
	assert.Contains(t, ansi.Strip(m.Render()), "⚑ bell")
	assert.Contains(t, ansi.Strip(m.Render()), "1 attention")

	press(m, "a")
	assert.Equal(t, 2, m.focus, "a jumps to the pane that rang")
	assert.Empty(t, m.byID["gemini-reviewer"].attention(now, m.plan.AttentionAfter), "looking at it clears the bell")

	now = now.Add(31 * time.Second)
	m.Update(clockMsg(now))
	assert.Contains(t, ansi.Strip(m.Render()), "⚑ quiet 31s", "running panes with no output for attention_after are marked")
	assert.Contains(t, ansi.Strip(m.Render()), "3 attention")
}

func TestAttentionReadsTheFailureClassNotTheReason(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	ended := testNow.Add(-time.Second)
	f.setWorker("claude-implementer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, w.Reason = statedir.StatusError, "CLI said: all done"
		d.Status, d.Reason, d.FailureClass, d.EndedAt = statedir.StatusError, w.Reason, statedir.FailureMissingOutputs, &ended
	})
	f.setWorker("codex-tester", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, w.Reason = statedir.StatusError, "exited with code 1"
		d.Status, d.Reason, d.FailureClass, d.EndedAt = statedir.StatusError, "missing completion paths: quoted by the agent", statedir.FailureExitCode, &ended
	})
	m := newModel(t, f, 120, 20)
	assert.Equal(t, "outputs missing", m.byID["claude-implementer"].attention(testNow, m.plan.AttentionAfter))
	assert.Equal(t, "needs a retry", m.byID["codex-tester"].attention(testNow, m.plan.AttentionAfter))
}

func TestMouseClickFocuses(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := newModel(t, f, 120, 20)
	m.Update(tea.MouseClickMsg{X: 90, Y: 5, Button: tea.MouseLeft})
	assert.Equal(t, 1, m.focus)
	m.Update(tea.MouseWheelMsg{X: 90, Y: 5, Button: tea.MouseWheelUp})
	// Three lines of output never scroll: the pane stays live.
	assert.True(t, m.focused().live())
}

func TestResizeIsDebouncedAndSizesEveryPane(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := New(f, Options{Now: func() time.Time { return testNow }, Sizes: NewPaneSizes(f.plan, 120, 20)})
	_, first := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	_, second := m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	require.NotNil(t, first)
	msg := first()
	_, cmd := m.Update(msg)
	assert.Nil(t, cmd, "a resize superseded by a newer one does nothing")
	_, cmd = m.Update(second())
	require.NotNil(t, cmd)
	cmd()
	for i, p := range m.panes {
		c, r := m.target(i)
		assert.Equal(t, []int{79 - 1, 39 - 2}, []int{c, r}, "each cell is half of 160x39, border excluded")
		tc, tr := p.term.Size()
		assert.Equal(t, []int{c, r}, []int{tc, tr})
		gc, gr := m.opts.Sizes.Get(p.spec.ID)
		assert.Equal(t, []int{c, r}, []int{gc, gr}, "new attempts open at the size they are drawn at")
	}
}

func TestRenderAtAnySize(t *testing.T) {
	f := fakeRun(t, 6, 80, 24)
	for _, size := range [][2]int{{1, 1}, {10, 3}, {19, 40}, {20, 5}, {33, 9}, {80, 24}, {300, 10}, {64, 100}} {
		m := newModel(t, f, size[0], size[1])
		for _, keys := range [][]string{nil, {"z"}, {"?"}, {"e"}, {"x"}} {
			press(m, keys...)
			lines := strings.Split(ansi.Strip(m.Render()), "\n")
			require.Len(t, lines, size[1], "size %v after %v", size, keys)
			for _, l := range lines {
				require.Equal(t, size[0], ansi.StringWidth(l), "size %v after %v: %q", size, keys, l)
			}
			press(m, "esc")
			m.confirm = nil
			m.overlay = overlayNone
		}
	}
}

// stuckHandle is a child that never reads its input: every write blocks.
type stuckHandle struct {
	*fakeHandle
	release chan struct{}
}

func (h stuckHandle) Write(b []byte) (int, error) {
	<-h.release
	return len(b), nil
}

func TestTypingIntoAChildThatReadsNothingNeverBlocks(t *testing.T) {
	f := fakeRun(t, 1, 80, 20)
	h := stuckHandle{fakeHandle: f.handles["claude-implementer"], release: make(chan struct{})}
	defer close(h.release)
	eng := &stuckEngine{fakeEngine: f, h: h}
	m := New(eng, Options{Now: func() time.Time { return testNow }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 20})
	press(m, "i")
	require.Equal(t, modeInput, m.mode)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			press(m, "a")
		}
		// Then more than a child that reads nothing may have waiting.
		m.Update(tea.PasteMsg{Content: strings.Repeat("x", keyPending+1)})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Update blocked on a child that reads nothing")
	}
	assert.Contains(t, m.note, "not reading its input")
}

type stuckEngine struct {
	*fakeEngine
	h stuckHandle
}

func (e *stuckEngine) Handle(worker string) (engine.Handle, int) { return e.h, 1 }

func TestEndedAttemptWithoutHandleIsShownFromItsLog(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	log := filepath.Join(t.TempDir(), "output.log")
	require.NoError(t, os.WriteFile(log, []byte("resumed run: this attempt finished before the quit\r\n"), 0o644))
	ended := testNow.Add(-time.Minute)
	f.setWorker("codex-tester", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status, d.EndedAt, d.OutputLogPath = statedir.StatusCompleted, statedir.StatusCompleted, &ended, log
	})
	delete(f.handles, "codex-tester")
	m := newModel(t, f, 120, 20)
	assert.Contains(t, ansi.Strip(m.Render()), "loading attempt 1 from its output.log")
	cmd := m.loadEnded()
	runCmd(t, m, cmd)
	assert.Contains(t, ansi.Strip(m.Render()), "resumed run: this attempt finished before the quit")
	assert.Nil(t, m.loadEnded(), "each log is read once")
}

func TestMouseGoesToAChildThatAskedForIt(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	m := newModel(t, f, 120, 20)
	h := f.handles["claude-implementer"]
	_, _ = h.term.Write([]byte("\x1b[?1000h\x1b[?1006h")) // htop, vim with mouse=a
	press(m, "i")
	// The pane's inside starts at (1, 1): a click at (5, 3) is its cell (4, 2).
	m.Update(tea.MouseClickMsg{X: 5, Y: 3, Button: tea.MouseLeft})
	m.Update(tea.MouseReleaseMsg{X: 5, Y: 3, Button: tea.MouseLeft})
	typed(t, h, "\x1b[<0;5;3M\x1b[<0;5;3m")
	assert.Equal(t, 0, m.focus)

	// A click on another pane leaves input mode and focuses it.
	m.Update(tea.MouseClickMsg{X: 90, Y: 3, Button: tea.MouseLeft})
	assert.Equal(t, 1, m.focus)
	assert.Equal(t, modeNormal, m.mode)
}

// TestClockSleepsUnlessTimeShows: the clock is armed only for what time
// alone changes on screen (docs/performance.md: an idle UI is never woken).
func TestClockSleepsUnlessTimeShows(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	now := testNow.Add(500 * time.Millisecond)
	m := New(f, Options{Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	started := f.st.Dispatches[0].StartedAt
	assert.Equal(t, nextChange(started, now, true), m.clockAt, "a running attempt's elapsed time ticks each second")
	assert.Equal(t, time.Millisecond, m.clockAt.Sub(started)%time.Second, "on the second of its start")

	ended := now
	for _, id := range []string{"claude-implementer", "codex-tester"} {
		f.setWorker(id, func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
			w.Status, d.Status, d.EndedAt = statedir.StatusCompleted, statedir.StatusCompleted, &ended
		})
	}
	now = m.clockAt
	m.Update(clockMsg(now))
	assert.True(t, m.clockAt.IsZero(), "nothing shown changes with time: no tick is armed")
	assert.True(t, m.nextTick(now.Add(time.Hour)).IsZero())
}

// TestClockTicksEachMinuteOutOfFocus: only the focused pane's elapsed
// time ticks each second, and only in the minute after the human's last
// input; another visible pane's title reads to the minute and wakes the UI
// once a minute (docs/performance.md §A pane's output).
// Sixteen agents that went idle a few seconds apart change their "idle
// Nm" in one frame a minute, not in sixteen.
func TestMinuteTicksOfNearbyTimesCoincide(t *testing.T) {
	base := time.Date(2026, 12, 1, 10, 0, 1, 0, time.UTC)
	now := base.Add(90 * time.Second)
	first := nextChange(base, now, false)
	assert.Equal(t, time.Date(2026, 12, 1, 10, 2, 10, 0, time.UTC), first)
	for d := time.Second; d < 8*time.Second; d += 700 * time.Millisecond {
		assert.Equal(t, first, nextChange(base.Add(d), now, false), "since %s later", d)
	}
	assert.Equal(t, base.Add(91*time.Second+time.Millisecond), nextChange(base, now, true), "each second stays on the second")
}

func TestClockTicksEachMinuteOutOfFocus(t *testing.T) {
	f := fakeRun(t, 2, 120, 20)
	now := testNow.Add(500 * time.Millisecond)
	unwatched := make(chan struct{}, 4)
	m := New(f, Options{Now: func() time.Time { return now }, Unwatched: func() { unwatched <- struct{}{} }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	ended := now
	f.setWorker("claude-implementer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status, d.EndedAt = statedir.StatusCompleted, statedir.StatusCompleted, &ended
	})
	m.Update(clockMsg(now))
	require.Equal(t, 0, m.focus, "the ended pane has the focus")
	started := f.st.Dispatches[1].StartedAt
	assert.Equal(t, nextChange(started, now, false), m.clockAt, "the running pane out of focus ticks once a minute")
	late := m.clockAt.Sub(started) % time.Minute
	assert.True(t, late >= time.Millisecond && late <= coarseGrid+time.Millisecond, "at most %s after the minute of its start: %s", coarseGrid, late)
	assert.Equal(t, m.clockAt, m.clockAt.Truncate(coarseGrid), "on the clock's %s grid", coarseGrid)
	assert.Contains(t, m.Render(), "running · <1m", "its title reads to the minute")

	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	require.Equal(t, 1, m.focus)
	assert.Equal(t, nextChange(started, now, true), m.clockAt, "focused, it ticks each second")
	assert.NotContains(t, m.Render(), "<1m")

	// A minute with no key, click or resize: nobody watches, the focused
	// title reads to the minute too.
	now = now.Add(attendedFor)
	m.Update(clockMsg(now))
	assert.Equal(t, nextChange(started, now, false), m.clockAt, "an unwatched UI ticks once a minute")
	assert.Contains(t, m.Render(), "running · 1m")
	select {
	case <-unwatched:
	case <-time.After(10 * time.Second):
		t.Fatal("Unwatched was not called once the UI was left alone")
	}
	m.Update(clockMsg(now))
	press(m, "?")
	assert.Equal(t, nextChange(started, now, true), m.clockAt, "a key: it ticks each second again")
	assert.Empty(t, unwatched, "once for a minute left alone")
}
