// multi_test.go checks ModeView and Multi against real servers over the
// fake pane surface: two runs joined under their names, screens mirrored
// row by row (colours, scrolling, the cursor), keys, sizes, retry and
// cancel reaching the pane's own run, events prefixed, and a run that
// finishes while attached saying so with its panes kept.
package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/tui"
)

func openMulti(t *testing.T, runs ...RunAddr) *Multi {
	t.Helper()
	m, err := OpenMulti(runs)
	require.NoError(t, err)
	t.Cleanup(m.Close)
	return m
}

func mirrorOf(t *testing.T, m *Multi, worker string) (*mirrorHandle, int) {
	t.Helper()
	var h engine.Handle
	var n int
	require.Eventually(t, func() bool { h, n = m.Handle(worker); return h != nil }, 10*time.Second, 5*time.Millisecond, "%s has a mirror", worker)
	return h.(*mirrorHandle), n
}

func TestMultiMirrorsEachRunUnderItsName(t *testing.T) {
	a, b := startServer(t, 1, ""), startServer(t, 2, "")
	m := openMulti(t, RunAddr{Ref: a.plan.StateDir}, RunAddr{Ref: b.plan.StateDir, Host: "box"})
	var ids []string
	for _, w := range m.Plan().Workers {
		ids = append(ids, w.ID)
	}
	assert.Equal(t, []string{"srv/w00", "box:srv/w00", "box:srv/w01"}, ids)
	assert.Equal(t, []tui.RunGroup{{Name: "srv", Workers: []string{"srv/w00"}}, {Name: "box:srv", Workers: []string{"box:srv/w00", "box:srv/w01"}}}, m.Groups())
	st := m.Snapshot()
	require.Len(t, st.Workers, 3)
	assert.Equal(t, "box:srv/w01", st.Workers[2].WorkerID)
	for _, d := range st.Dispatches {
		assert.Empty(t, d.OutputLogPath, "a log is on its run's machine")
	}

	// The screen, row by row: colours, lines scrolled off, the cursor.
	remote := b.surf.handle("w01")
	mh, n := mirrorOf(t, m, "box:srv/w01")
	assert.Equal(t, 1, n)
	for i := range 60 {
		fmt.Fprintf(remote.screen, "\x1b[3%dmline %d\x1b[m\r\n", i%7+1, i)
	}
	fmt.Fprint(remote.screen, "\x1b[1;31mprompt> \x1b[m")
	require.Eventually(t, func() bool { return mh.term.ANSI(false) == remote.screen.ANSI(false) }, 10*time.Second, 5*time.Millisecond,
		"the mirror:\n%s\nthe run's:\n%s", mh.term.Text(false), remote.screen.Text(false))
	rx, ry, _ := remote.screen.Cursor()
	mx, my, _ := mh.term.Cursor()
	assert.Equal(t, [2]int{rx, ry}, [2]int{mx, my}, "the cursor")
	assert.Equal(t, remote.screen.ANSI(true), mh.term.ANSI(true), "the lines scrolled off the run's screen are in the mirror's scrollback")

	// The alternate screen and its modes.
	fmt.Fprint(remote.screen, "\x1b[?1049h\x1b[?1h\x1b[?2004h\x1b[Hfull screen app")
	require.Eventually(t, func() bool {
		return mh.term.Text(false) == remote.screen.Text(false) && mh.term.Modes() == remote.screen.Modes()
	},
		10*time.Second, 5*time.Millisecond, "the mirror in the alternate screen: %+v vs %+v", mh.term.Modes(), remote.screen.Modes())

	// Keys and sizes go to the pane's own run.
	_, err := mh.Write([]byte("typed\r"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return remote.Typed() == "typed\r" }, 10*time.Second, 5*time.Millisecond)
	assert.Empty(t, a.surf.handle("w00").Typed(), "not to the other run's")
	require.NoError(t, mh.Resize(70, 12))
	require.Eventually(t, func() bool { c, r := mh.term.Size(); return c == 70 && r == 12 }, 10*time.Second, 5*time.Millisecond,
		"the mirror follows the run's new size")

	// Cancel and retry act on the pane's own run; their events come back
	// prefixed.
	require.NoError(t, m.Cancel("box:srv/w00"))
	require.Eventually(t, func() bool {
		for _, w := range b.eng.Snapshot().Workers {
			if w.WorkerID == "w00" {
				return w.Status == statedir.StatusCancelled
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, statedir.StatusRunning, a.eng.Snapshot().Workers[0].Status, "the other run's w00 runs on")
	err = m.Cancel("srv/nobody")
	assert.Error(t, err)
	require.NoError(t, m.Retry("box:srv/w00"))
	require.Eventually(t, func() bool { _, n := m.Handle("box:srv/w00"); return n == 2 }, 10*time.Second, 5*time.Millisecond, "attempt 2, mirrored")
	seen := map[string]bool{}
	deadline := time.After(10 * time.Second)
	for !seen[statedir.EventWorkerCancelled] {
		got := make(chan statedir.Event, 1)
		go func() {
			ev, _ := m.Next()
			got <- ev
		}()
		select {
		case ev := <-got:
			if ev.WorkerID == "box:srv/w00" {
				seen[ev.Type] = true
			}
			assert.False(t, ev.WorkerID == "w00", "an event's worker is prefixed")
		case <-deadline:
			t.Fatalf("no cancel event of box:srv/w00; saw %v", seen)
		}
	}
	_, _, err = m.Diff("box:srv/w00", false)
	assert.ErrorContains(t, err, "rostra diff --run "+b.plan.StateDir+" w00")
	assert.Empty(t, m.LinkNote("box:srv/w00"), "the link is up")
}

// A run that finishes while attached: its server ends (no client is
// attached to it: a view is not one), its panes keep their screens and
// say so; the other run goes on.
func TestMultiRunThatFinishesSaysSo(t *testing.T) {
	a, b := startServer(t, 1, ""), startServer(t, 1, "")
	m := openMulti(t, RunAddr{Ref: a.plan.StateDir, Host: "one"}, RunAddr{Ref: b.plan.StateDir, Host: "two"})
	mh, _ := mirrorOf(t, m, "one:srv/w00")
	fmt.Fprint(a.surf.handle("w00").screen, "the last words\r\n")
	require.Eventually(t, func() bool { return strings.Contains(mh.term.Text(false), "the last words") }, 10*time.Second, 5*time.Millisecond)
	a.surf.handle("w00").end(0, "")
	assert.Equal(t, 0, a.wait())
	require.Eventually(t, func() bool { return m.LinkNote("one:srv/w00") == "the run finished; its server has ended" }, 10*time.Second, 5*time.Millisecond,
		"the note: %q", m.LinkNote("one:srv/w00"))
	assert.Contains(t, mh.term.Text(false), "the last words", "its screen stays")
	assert.Empty(t, m.LinkNote("two:srv/w00"), "the other run goes on")
	assert.Equal(t, statedir.StatusCompleted, m.Snapshot().Workers[0].Status)
	assert.ErrorContains(t, m.Retry("one:srv/w00"), "the run finished; its server has ended")
}

// cutStream is a connection to a run's socket through a proxy that a test
// can cut: while cut, nothing passes either way (a link that drops
// packets, not one that closes).
type cutStream struct {
	net.Conn
}

func (cutStream) CloseWrite() error { return nil }

// A link that falls silent is lost: its panes say so and it dials again
// (refused while the link is cut) until it is back; the first view then
// repaints what the run printed meanwhile. The run never notices.
func TestMultiLinkLostReconnectsAndRepaints(t *testing.T) {
	h := startServer(t, 1, "")
	var cut atomic.Bool
	dialled := atomic.Int32{}
	saved := DialAddress
	t.Cleanup(func() { DialAddress = saved })
	DialAddress = func(string) (Stream, error) {
		if cut.Load() {
			return nil, errors.New("network is unreachable")
		}
		dialled.Add(1)
		sc, err := Dial(h.plan.StateDir)
		if err != nil {
			return nil, err
		}
		ours, theirs := net.Pipe()
		pass := func(dst, src net.Conn) {
			buf := make([]byte, 32<<10)
			for {
				n, err := src.Read(buf)
				if n > 0 && !cut.Load() {
					if _, werr := dst.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					_ = dst.Close()
					return
				}
			}
		}
		go pass(theirs, sc)
		go pass(sc, theirs)
		return cutStream{ours}, nil
	}
	m := openMulti(t, RunAddr{Ref: "test://box/run", Host: "box"})
	mh, _ := mirrorOf(t, m, "box:srv/w00")
	require.Eventually(t, func() bool { return strings.Contains(mh.term.Text(false), "hello from w00") }, 10*time.Second, 5*time.Millisecond)

	cut.Store(true)
	fmt.Fprint(h.surf.handle("w00").screen, "printed while cut off\r\n")
	require.Eventually(t, func() bool { return strings.HasPrefix(m.LinkNote("box:srv/w00"), "link lost · reconnecting") }, 15*time.Second, 10*time.Millisecond,
		"the note: %q", m.LinkNote("box:srv/w00"))
	assert.NotContains(t, mh.term.Text(false), "printed while cut off", "nothing passed")
	assert.ErrorContains(t, m.Retry("box:srv/w00"), "the link is lost; reconnecting")
	assert.Equal(t, statedir.RunRunning, h.eng.Snapshot().Status, "the run never noticed")

	cut.Store(false)
	require.Eventually(t, func() bool { return m.LinkNote("box:srv/w00") == "" }, 15*time.Second, 10*time.Millisecond, "back: %q", m.LinkNote("box:srv/w00"))
	require.Eventually(t, func() bool { return strings.Contains(mh.term.Text(false), "printed while cut off") }, 10*time.Second, 5*time.Millisecond,
		"repainted: %s", mh.term.Text(false))
	h2, _ := m.Handle("box:srv/w00")
	assert.Same(t, mh, h2.(*mirrorHandle), "the same attempt keeps its mirror (and its scrollback)")
	assert.GreaterOrEqual(t, dialled.Load(), int32(2))
	_, err := mh.Write([]byte("after\r"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(h.surf.handle("w00").Typed(), "after\r") }, 10*time.Second, 5*time.Millisecond, "keys go again")
}

// A View heavier than a frame goes in parts that each fit one, and the
// parts, applied in turn, paint what the whole would have.
func TestAViewHeavierThanAFrameGoesInParts(t *testing.T) {
	const cols, rows = 400, 300
	line := func(r int) string {
		var b strings.Builder
		for c := 0; b.Len() < 2400 && c < cols/4; c++ {
			fmt.Fprintf(&b, "\x1b[3%dm<%02d>", (r+c)%7+1, c%100)
		}
		return b.String() + "\x1b[m"
	}
	var panes []PaneView
	for w := range 3 {
		pv := PaneView{Worker: fmt.Sprintf("w%d", w), Attempt: 1, Cols: cols, Rows: rows, Full: true, Lines: map[int]string{}, Cursor: true, CursorX: 3, CursorY: 7}
		for r := range rows {
			pv.Lines[r] = line(r + w)
		}
		panes = append(panes, pv)
	}
	st := statedir.TeamState{Run: "big"}
	whole := View{State: &st, Panes: panes}
	parts := splitView(whole, viewFrameBudget)
	require.Greater(t, len(parts), 3, "cut")
	assert.Equal(t, &st, parts[0].State)
	for i, p := range parts {
		data, err := json.Marshal(p)
		require.NoError(t, err)
		assert.Less(t, len(data)+1, MaxFrame, "part %d fits a frame", i)
	}
	paint := func(views []View) map[string]string {
		out := map[string]string{}
		terms := map[string]*vt.Terminal{}
		for _, v := range views {
			for _, pv := range v.Panes {
				t := terms[pv.Worker]
				if t == nil {
					t = vt.New(1, 1, vt.Options{})
					terms[pv.Worker] = t
				}
				_, _ = t.Write(paneSeq(t, pv))
			}
		}
		for w, t := range terms {
			out[w] = t.ANSI(true)
		}
		return out
	}
	assert.Equal(t, paint([]View{whole}), paint(parts))
}
