// multirun_test.go checks the UI over many runs (multirun.go) with a fake
// engine that groups its workers by run and says which run's link is
// lost: the grouped grid, the per-run counts, and a lost link's titles.
package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// fakeRuns is fakeEngine's workers split into runs: names[i] takes
// sizes[i] workers, their IDs prefixed "name/".
type fakeRuns struct {
	*fakeEngine
	groups []RunGroup
	lost   map[string]string // run name → its link's note
}

func (f *fakeRuns) Groups() []RunGroup { return f.groups }

func (f *fakeRuns) LinkNote(worker string) string {
	for _, g := range f.groups {
		if strings.HasPrefix(worker, g.Name+"/") {
			return f.lost[g.Name]
		}
	}
	return ""
}

func newFakeRuns(t *testing.T, width, height int, names []string, sizes []int) *fakeRuns {
	n := 0
	for _, s := range sizes {
		n += s
	}
	f := fakeRun(t, n, width, height)
	r := &fakeRuns{fakeEngine: f, lost: map[string]string{}}
	rename := map[string]string{}
	i := 0
	for gi, name := range names {
		g := RunGroup{Name: name}
		for range sizes[gi] {
			id := name + "/" + f.plan.Workers[i].ID
			rename[f.plan.Workers[i].ID] = id
			f.plan.Workers[i].ID = id
			g.Workers = append(g.Workers, id)
			i++
		}
		r.groups = append(r.groups, g)
	}
	for i := range f.st.Workers {
		f.st.Workers[i].WorkerID = rename[f.st.Workers[i].WorkerID]
	}
	for i := range f.st.Dispatches {
		f.st.Dispatches[i].WorkerID = rename[f.st.Dispatches[i].WorkerID]
	}
	handles := map[string]*fakeHandle{}
	for id, h := range f.handles {
		handles[rename[id]] = h
	}
	f.handles = handles
	f.plan.StateDir = ""
	f.st.StateDir = "3 runs"
	return r
}

func newRunsModel(t *testing.T, f *fakeRuns, width, height int) *Model {
	t.Helper()
	m := New(f, Options{Now: func() time.Time { return testNow }})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	return m
}

func TestGoldenManyRunsGrouped(t *testing.T) {
	f := newFakeRuns(t, 160, 30, []string{"api", "build-box:api", "cloud:web"}, []int{1, 2, 2})
	f.setWorker("cloud:web/claude-documenter", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status = statedir.StatusCompleted, statedir.StatusCompleted
		ended := testNow
		d.EndedAt = &ended
	})
	m := newRunsModel(t, f, 160, 30)
	requireGolden(t, m)
	bar := ansi.Strip(m.statusBar())
	assert.Contains(t, bar, "api ●1 · build-box:api ●2 · cloud:web ●1 ✓1", "each run counted apart")

	// q over many runs: its stop is every run's.
	m.opts.Attached = true
	m.keys = keyMapFor(true)
	press(m, "q")
	require.NotNil(t, m.confirm)
	assert.Contains(t, strings.Join(m.confirm.lines, "\n"), "s  stop every run (3): each worker is stopped gracefully")
}

func TestGoldenManyRunsLinkLost(t *testing.T) {
	f := newFakeRuns(t, 160, 30, []string{"api", "build-box:api", "cloud:web"}, []int{1, 2, 2})
	f.lost["build-box:api"] = "link lost · reconnecting (3 s)"
	m := newRunsModel(t, f, 160, 30)
	requireGolden(t, m)
	screen := ansi.Strip(m.Render())
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "build-box:api/") {
			assert.Contains(t, l, "⚠ link lost · reconnecting (3 s)", "the lost run's titles say so")
		}
	}
	assert.Equal(t, 3, strings.Count(screen, "link lost"), "only the lost run's header and two panes")
	assert.Contains(t, ansi.Strip(m.statusBar()), "build-box:api ⚠ ●2")

	// A key typed into a lost run's pane is not sent, and the note says so.
	m.focus = 1
	press(m, "i", "x")
	assert.Equal(t, "build-box:api/codex-tester: link lost · reconnecting (3 s): the key was dropped, not queued; keys go again once the link is back", m.note)
	assert.Empty(t, f.handles["build-box:api/codex-tester"].Typed())
	assert.Contains(t, ansi.Strip(m.Render()), "the key was dropped, not queued; keys go again once the link is back", "the note is on the screen in input mode")

	// The link back: the titles are the run's again.
	delete(f.lost, "build-box:api")
	m.refresh()
	assert.NotContains(t, ansi.Strip(m.Render()), "link lost")
	press(m, "y")
	require.Eventually(t, func() bool { return f.handles["build-box:api/codex-tester"].Typed() == "y" }, 5*time.Second, time.Millisecond, "keys go again")
}

// groupedRows checks the many-runs grid on its page: every run's panes
// start on a row of their own under a header naming the run, and no row
// holds two runs' panes.
func groupedRows(t *testing.T, m *Model) {
	t.Helper()
	tl := m.tiles()
	for _, b := range tl.blocks {
		r := tl.rects[b.first]
		assert.Equal(t, 0, r.x, "%s starts a row", b.name)
		found := false
		for _, gh := range tl.heads {
			if tl.blocks[gh.block].name == b.name && gh.page == tl.pageOf[b.first] && gh.y == r.y-1 {
				found = true
			}
		}
		assert.True(t, found, "%s has its header right above its first row", b.name)
		for i := b.first; i < b.first+b.n; i++ {
			for j, o := range tl.rects {
				if (j < b.first || j >= b.first+b.n) && tl.pageOf[j] == tl.pageOf[i] {
					assert.False(t, o.y == tl.rects[i].y, "%s shares no row with another run", b.name)
				}
			}
			in := tl.rects[i].inner()
			assert.GreaterOrEqual(t, tl.rects[i].h, minPaneRows, "pane %d tall enough", i)
			assert.GreaterOrEqual(t, in.w, minPaneCols-2, "pane %d wide enough", i)
		}
	}
}

func TestGoldenManyRunsGrouped80x24(t *testing.T) {
	f := newFakeRuns(t, 80, 24, []string{"api", "build-box:api", "cloud:web"}, []int{1, 2, 2})
	m := newRunsModel(t, f, 80, 24)
	groupedRows(t, m)
	assert.Equal(t, 2, m.pages(), "three runs of 5 panes on 80x24: two pages")
	requireGolden(t, m)
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "── api ●1")
	assert.Contains(t, screen, "── build-box:api ●2")
	assert.NotContains(t, screen, "cloud:web/", "the third run goes on the next page whole")

	// ]: the next page starts with the third run, under its header.
	press(m, "]")
	assert.Equal(t, 3, m.focus, "the focus goes to the next page's first pane")
	screen = ansi.Strip(m.Render())
	assert.Contains(t, screen, "── cloud:web ●2")
	assert.NotContains(t, screen, "build-box:api/")
	assert.Contains(t, ansi.Strip(m.statusBar()), "2/2")
}

func TestGoldenManyRunsGrouped300x80(t *testing.T) {
	f := newFakeRuns(t, 300, 80, []string{"api", "build-box:api", "cloud:web"}, []int{3, 16, 2})
	m := newRunsModel(t, f, 300, 80)
	groupedRows(t, m)
	assert.Equal(t, 1, m.pages(), "21 panes of three runs on 300x80: one page")
	requireGolden(t, m)
	screen := ansi.Strip(m.Render())
	for _, h := range []string{"── api ●3", "── build-box:api ●16", "── cloud:web ●2"} {
		assert.Contains(t, screen, h)
	}
}

// A run larger than a page goes on over pages, its header on each.
func TestManyRunsLargeRunPaged(t *testing.T) {
	f := newFakeRuns(t, 80, 24, []string{"api", "big"}, []int{1, 9})
	m := newRunsModel(t, f, 80, 24)
	groupedRows(t, m)
	seen := map[int]bool{}
	for pg := range m.pages() {
		m.page = pg
		screen := ansi.Strip(m.Render())
		for _, v := range m.visible() {
			seen[v.idx] = true
		}
		if pg > 0 {
			assert.Contains(t, screen, "── big (continued)", "page %d", pg+1)
		}
	}
	assert.Len(t, seen, 10, "every pane is on a page")
}
