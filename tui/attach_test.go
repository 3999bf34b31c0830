// attach_test.go checks what an attached UI adds: d detaches, q offers
// detach or stop while workers run and leaves at once when none does, and
// the ptys follow the attached UI used last (PaneSizes' owner).
package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

func attachedModel(t *testing.T, f *fakeEngine, sizes *PaneSizes, stops *int, w, h int) *Model {
	t.Helper()
	m := New(f, Options{Now: func() time.Time { return testNow }, Attached: true, Sizes: sizes, Stop: func() error { *stops++; return nil }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// isQuit reports whether cmd, run, quits the program.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestDetachKey(t *testing.T) {
	var stops int
	m := attachedModel(t, fakeRun(t, 2, 100, 30), nil, &stops, 100, 30)
	assert.Contains(t, ansi.Strip(m.Render()), "d detach", "the status bar hints d")
	assert.True(t, isQuit(press(m, "d")))
	assert.True(t, m.Detached())
	assert.Zero(t, stops, "detaching stops nothing")

	direct := newModel(t, fakeRun(t, 2, 100, 30), 100, 30)
	assert.NotContains(t, ansi.Strip(direct.Render()), "d detach", "a UI that runs the run itself has nothing to detach from")
	assert.Nil(t, press(direct, "d"))
	assert.False(t, direct.Detached())
}

func TestQuitInAnAttachedUI(t *testing.T) {
	var stops int
	m := attachedModel(t, fakeRun(t, 2, 100, 30), nil, &stops, 100, 30)
	require.Nil(t, press(m, "q"))
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "Leave rostra?")
	assert.Contains(t, screen, "d detach · s stop the run · Esc stay")
	press(m, "y")
	assert.NotNil(t, m.confirm, "y means nothing here: the choice is d or s")
	press(m, "esc")
	assert.Nil(t, m.confirm)

	press(m, "q")
	assert.True(t, isQuit(press(m, "d")), "d in the dialog detaches")
	assert.True(t, m.Detached())

	m = attachedModel(t, fakeRun(t, 2, 100, 30), nil, &stops, 100, 30)
	press(m, "q")
	cmd := press(m, "s")
	require.IsType(t, stoppedMsg{}, runCmd(t, m, cmd))
	assert.Equal(t, 1, stops, "s stops the run")
	assert.True(t, m.Interrupted(), "workers ran: the run was interrupted")
	assert.False(t, m.Detached())
}

func TestQuitLeavesAFinishedRunAtOnce(t *testing.T) {
	var stops int
	f := fakeRun(t, 2, 100, 30)
	f.mu.Lock()
	for i := range f.st.Workers {
		f.st.Workers[i].Status = statedir.StatusCompleted
	}
	f.mu.Unlock()
	m := attachedModel(t, f, nil, &stops, 100, 30)
	assert.True(t, isQuit(press(m, "q")))
	assert.Zero(t, stops, "leaving a finished run stops nothing: the server ends once no client is left")
	assert.False(t, m.Detached())
}

func TestPtysFollowTheUIUsedLast(t *testing.T) {
	var stops int
	f := fakeRun(t, 2, 100, 30)
	sizes := &PaneSizes{sizes: map[string][2]int{}, def: [2]int{120, 40}}
	big := attachedModel(t, f, sizes, &stops, 200, 50)
	small := attachedModel(t, f, sizes, &stops, 100, 30)
	first := f.plan.Workers[0].ID
	wantSmall, _ := small.target(0)
	wantBig, _ := big.target(0)
	require.NotEqual(t, wantBig, wantSmall)

	c, _ := sizes.Get(first)
	assert.Equal(t, wantSmall, c, "the UI that got a window size last sets the sizes")
	press(big, "z")
	press(big, "z")
	big.Update(resizeMsg{seq: big.resizeSeq})
	c, _ = sizes.Get(first)
	assert.Equal(t, wantBig, c, "a key claims the sizes for the big UI")
	press(small, "tab")
	c, _ = sizes.Get(first)
	assert.Equal(t, wantSmall, c, "and back")

	small.Close()
	assert.True(t, sizes.vacant())
	big.Update(TakeSizes())
	c, _ = sizes.Get(first)
	assert.Equal(t, wantBig, c, "the UI left takes the sizes over")
}

// An attached client's program starts with its size and gets the same size
// again as a WindowSizeMsg that bubbletea sends from a goroutine, at any
// later time: that late message is not the client being used, and must
// not take the ptys from a client typed into since (server
// TestTwoClientsAtDifferentSizes waited 10 s on it under load).
func TestALateFirstWindowSizeDoesNotTakeThePtys(t *testing.T) {
	var stops int
	f := fakeRun(t, 2, 100, 30)
	sizes := &PaneSizes{sizes: map[string][2]int{}, def: [2]int{120, 40}}
	started := func(w, h int) *Model {
		m := New(f, Options{Now: func() time.Time { return testNow }, Attached: true, Sizes: sizes, Width: w, Height: h,
			Stop: func() error { stops++; return nil }})
		m.Init()
		return m
	}
	big := started(200, 50)
	small := started(100, 30)
	first := f.plan.Workers[0].ID
	wantSmall, _ := small.target(0)
	wantBig, _ := big.target(0)
	require.NotEqual(t, wantBig, wantSmall)
	c, _ := sizes.Get(first)
	assert.Equal(t, wantSmall, c, "the client attached last sets the sizes from its start")

	press(big, "tab")
	c, _ = sizes.Get(first)
	require.Equal(t, wantBig, c, "a key claims the sizes for the big UI")
	small.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	c, _ = sizes.Get(first)
	assert.Equal(t, wantBig, c, "small's first size, delivered late, leaves them to big")

	small.Update(tea.WindowSizeMsg{Width: 110, Height: 30})
	wantResized, _ := small.target(0)
	small.Update(resizeMsg{seq: small.resizeSeq})
	c, _ = sizes.Get(first)
	assert.Equal(t, wantResized, c, "a real resize of small's terminal claims them")
}

// A UI resizes the ptys off its goroutine: a resize it queued while it
// owned the sizes, and that runs only after another UI claimed them and
// resized, must not undo the new owner's sizes (the server's
// TestTwoClientsAtDifferentSizes saw the small client's late resize win).
func TestAResizeQueuedBeforeAnotherUIClaimedIsDropped(t *testing.T) {
	var stops int
	f := fakeRun(t, 2, 100, 30)
	sizes := &PaneSizes{sizes: map[string][2]int{}, def: [2]int{120, 40}}
	big := attachedModel(t, f, sizes, &stops, 200, 50)
	small := attachedModel(t, f, sizes, &stops, 90, 24) // not the size the ptys opened at
	first := f.plan.Workers[0].ID
	wantBig, wantBigRows := big.target(0)
	wantSmall, _ := small.target(0)
	require.NotEqual(t, wantBig, wantSmall)

	stale := small.applySizes(true) // small owns the sizes: its resize is queued
	require.NotNil(t, stale)
	press(big, "tab")
	resize := big.applySizes(true)
	require.NotNil(t, resize)
	resize()
	stale()
	f.mu.Lock()
	h := f.handles[first]
	f.mu.Unlock()
	c, r := h.term.Size()
	assert.Equal(t, [2]int{wantBig, wantBigRows}, [2]int{c, r}, "the pty keeps the size of the UI used last")
}
