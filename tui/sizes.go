// sizes.go decides where each pane is drawn and how big its terminal is:
// the grid for the window, the page, zoom, and the debounced resize of each
// attempt's emulator and pty to the cell it is drawn in (SIGWINCH reaches
// the child, which redraws). PaneSizes hands the same sizes to the engine,
// so an attempt opens at the size it will be drawn at.
//
// Data model: the target size of a worker's terminal is the inside of its
// grid cell (or of the whole area when it is zoomed) less the rows its
// notices take; sized remembers, per pane, the terminal and size last asked
// for, so each change costs one Resize.
package tui

import (
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/runfile"
)

// PaneSizes is the size each worker's next attempt opens at; it is read by
// the engine's loop (engine.Options.PaneSize) and written by the UI.
//
// A pty has one size, and a rostra server may draw several UIs of
// different sizes: the ptys follow the layout of the UI used last (tmux's
// `window-size latest`): a UI claims the sizes when it gets a key, a click,
// a paste or a new window size, and only the owner sets them; the others
// draw each pane's screen cropped or padded to their own cells. A UI
// resizes the ptys off its goroutine (resizeAll), and only while it still
// owns the sizes: a resize queued by a UI that has lost them since must
// not undo the new owner's.
type PaneSizes struct {
	mu    sync.Mutex
	sizes map[string][2]int
	def   [2]int
	owner *Model

	resizing sync.Mutex // held by resizeAll across its check and its resizes
}

// claim makes m the owner; it reports whether the owner changed.
func (s *PaneSizes) claim(m *Model) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner == m {
		return false
	}
	s.owner = m
	return true
}

// resizeAll runs m's resizes of the ptys if m still owns the sizes; the
// resizes of two UIs never interleave, so the owner's come last.
func (s *PaneSizes) resizeAll(m *Model, jobs []func()) {
	s.resizing.Lock()
	defer s.resizing.Unlock()
	if !s.owns(m) {
		return
	}
	for _, j := range jobs {
		j()
	}
}

// owns reports whether m sets the sizes.
func (s *PaneSizes) owns(m *Model) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owner == m
}

// vacant reports whether no UI sets the sizes.
func (s *PaneSizes) vacant() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owner == nil
}

// release gives up m's claim (its program has ended).
func (s *PaneSizes) release(m *Model) {
	s.mu.Lock()
	if s.owner == m {
		s.owner = nil
	}
	s.mu.Unlock()
}

// NewPaneSizes lays out plan's workers on a width×height terminal, so that
// attempts opened before the UI's first frame already fit.
func NewPaneSizes(plan *runfile.Plan, width, height int) *PaneSizes {
	s := &PaneSizes{sizes: map[string][2]int{}, def: [2]int{120, 40}}
	if width <= 0 || height <= 0 {
		return s
	}
	g := gridFor(len(plan.Workers), rect{0, 0, width, height - 1})
	for i, w := range plan.Workers {
		_, r := g.slot(i, len(plan.Workers))
		in := r.inner()
		s.sizes[w.ID] = [2]int{in.w, in.h}
	}
	return s
}

// Get is an engine.Options.PaneSize.
func (s *PaneSizes) Get(worker string) (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.sizes[worker]; ok {
		return v[0], v[1]
	}
	return s.def[0], s.def[1]
}

func (s *PaneSizes) set(worker string, cols, rows int) {
	s.mu.Lock()
	s.sizes[worker] = [2]int{cols, rows}
	s.mu.Unlock()
}

// area is where panes go: everything but the status bar.
func (m *Model) area() rect { return rect{0, 0, m.width, max(1, m.height-1)} }

// pages is how many pages the panes need.
func (m *Model) pages() int { return m.tiles().pages() }

// placed is a pane and where it is drawn.
type placed struct {
	idx int
	r   rect
}

// visible lists the panes on screen now.
func (m *Model) visible() []placed {
	if m.zoom {
		return []placed{{m.focus, m.area()}}
	}
	t := m.tiles()
	m.page = max(0, min(m.page, t.pages()-1))
	var out []placed
	for i, pg := range t.pageOf {
		if pg == m.page {
			out = append(out, placed{i, t.rects[i]})
		}
	}
	return out
}

// target is the terminal size pane i should have.
func (m *Model) target(i int) (cols, rows int) {
	var r rect
	if m.zoom && i == m.focus {
		r = m.area()
	} else {
		r = m.tiles().rects[i]
	}
	in := r.inner()
	p := m.panes[i]
	rows = in.h - len(p.notices(in.w))
	return max(2, in.w), max(1, rows)
}

// layoutChanged records the new sizes and asks for a resize once they
// have held still for resizeDebounce.
func (m *Model) layoutChanged() tea.Cmd {
	if m.width <= 0 || m.height <= 0 {
		return nil
	}
	m.resizeSeq++
	seq := m.resizeSeq
	if m.opts.Sizes != nil && m.opts.Sizes.owns(m) {
		for i, p := range m.panes {
			c, r := m.target(i)
			m.opts.Sizes.set(p.spec.ID, c, r)
		}
	}
	return tea.Tick(resizeDebounce, func(time.Time) tea.Msg { return resizeMsg{seq: seq} })
}

// claimSizes is the human using this UI: the ptys take its layout (at
// once: the layout is not moving, only its owner).
func (m *Model) claimSizes() tea.Cmd {
	if m.opts.Sizes == nil || !m.opts.Sizes.claim(m) {
		return nil
	}
	if m.width <= 0 || m.height <= 0 {
		return nil
	}
	for i, p := range m.panes {
		c, r := m.target(i)
		m.opts.Sizes.set(p.spec.ID, c, r)
	}
	return m.applySizes(true)
}

// resizeNew sizes attempts that opened since the last look (they open at
// the size PaneSizes gave, so this is usually a no-op).
func (m *Model) resizeNew() tea.Cmd { return m.applySizes(false) }

// applySizes resizes each attempt's terminal whose size is not its target;
// all=false only looks at terminals never sized by the UI.
func (m *Model) applySizes(all bool) tea.Cmd {
	if m.width <= 0 || m.height <= 0 || (m.opts.Sizes != nil && !m.opts.Sizes.owns(m)) {
		return nil
	}
	var jobs []func()
	for i, p := range m.panes {
		if p.term == nil || p.handle == nil || (!all && p.sizedTerm == p.term) {
			continue
		}
		if d := p.cur(); d != nil && d.EndedAt != nil {
			// No program is left to redraw an ended attempt's screen for
			// a new size: the emulator's reflow alone, out and back (z
			// twice), moved lines into the scrollback and left empty rows
			// below. Its screen stays as the program left it; the pane
			// shows it cut or padded (window).
			continue
		}
		c, r := m.target(i)
		p.sizedTerm = p.term
		if tc, tr := p.term.Size(); tc == c && tr == r {
			continue
		}
		rh, ok := p.handle.(resizeHandle)
		if !ok {
			continue
		}
		jobs = append(jobs, func() { _ = rh.Resize(c, r) })
	}
	if len(jobs) == 0 {
		return nil
	}
	// A Resize takes the lock the pty reader holds while it feeds the
	// emulator: do it off the UI goroutine, where another UI may have
	// claimed the sizes by the time it runs (resizeAll).
	return func() tea.Msg {
		if m.opts.Sizes != nil {
			m.opts.Sizes.resizeAll(m, jobs)
			return nil
		}
		for _, j := range jobs {
			j()
		}
		return nil
	}
}

// historySize is the size an earlier attempt's screen is rebuilt at.
func (m *Model) historySize(i int) (int, int) {
	if m.width <= 0 {
		return 80, 24
	}
	c, r := m.target(i)
	return c, max(1, r-1)
}
