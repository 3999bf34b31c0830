// tiling.go places every pane on its page: one run's panes in the grid
// of layout.go, many runs' (docs/ui.md §Many runs in one UI) grouped by
// run. Each run starts on a row of its own under a one-line header with
// its name, and every run shares one column count, so the cells line up
// down the screen; a run's last row that is not full shares its width.
// What does not fit goes on further pages, a run that does not fit on
// the rest of a page starting on the next one (and one larger than a
// page going on over several, its header on each).
//
// Data model: a tiling is, for each pane, its page and rectangle, and
// for each page its headers (a full-width line naming a run) and its
// first pane, which is where `]` and `[` put the focus.
package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/internal/printable"
)

type tiling struct {
	pageOf []int
	rects  []rect
	first  []int       // each page's first pane
	heads  []groupHead // every page's headers
	key    [3]int      // the width, height and pane count it was made for
	blocks []paneBlock // the runs, as ranges of panes (nil: one run)
	cached bool
}

// groupHead is one run's header line on a page.
type groupHead struct {
	page  int
	y     int
	block int  // index into blocks
	cont  bool // the run began on an earlier page
}

// paneBlock is a run's panes: [first, first+n) of the model's panes.
type paneBlock struct {
	name     string
	first, n int
}

// pages is how many pages the tiling has.
func (t *tiling) pages() int { return max(1, len(t.first)) }

// tiles is the tiling of the panes on the screen now (recomputed when
// the size changes).
func (m *Model) tiles() *tiling {
	area := m.area()
	key := [3]int{area.w, area.h, len(m.panes)}
	if m.tileCache.cached && m.tileCache.key == key {
		return &m.tileCache
	}
	blocks := m.paneBlocks()
	var t tiling
	if len(blocks) == 0 {
		t = gridTiling(len(m.panes), area)
	} else {
		t = groupTiling(blocks, area)
	}
	t.key, t.blocks, t.cached = key, blocks, true
	m.tileCache = t
	return &m.tileCache
}

// paneBlocks is the runs' ranges of panes, nil for a single run: a run's
// workers are consecutive in the joined plan.
func (m *Model) paneBlocks() []paneBlock {
	rg, ok := m.eng.(runGroups)
	if !ok {
		return nil
	}
	groupOf := map[string]int{}
	names := []string{}
	for gi, g := range rg.Groups() {
		names = append(names, g.Name)
		for _, id := range g.Workers {
			groupOf[id] = gi
		}
	}
	var out []paneBlock
	for i, p := range m.panes {
		gi, ok := groupOf[p.spec.ID]
		name := ""
		if ok {
			name = names[gi]
		}
		if len(out) > 0 && out[len(out)-1].name == name && out[len(out)-1].first+out[len(out)-1].n == i {
			out[len(out)-1].n++
			continue
		}
		out = append(out, paneBlock{name: name, first: i, n: 1})
	}
	return out
}

// gridTiling is layout.go's grid as a tiling.
func gridTiling(n int, area rect) tiling {
	g := gridFor(n, area)
	t := tiling{pageOf: make([]int, n), rects: make([]rect, n)}
	for i := range n {
		t.pageOf[i], t.rects[i] = g.slot(i, n)
		if i%g.perPage() == 0 {
			t.first = append(t.first, i)
		}
	}
	return t
}

// tileRow is one row of panes of a run on a page.
type tileRow struct {
	block, first, n int
}

// tilePage is what one page holds, top to bottom: headers and rows.
type tilePage struct {
	items []tileItem
	heads int
	rows  int
}

type tileItem struct {
	head bool
	cont bool
	row  tileRow
}

// groupTiling lays the runs out: of every column count that makes cells
// at least minPaneCols wide, the one with the fewest pages, then the
// squarest smallest cell (a cell is about twice as tall as it is wide),
// then the fewest columns.
func groupTiling(blocks []paneBlock, area rect) tiling {
	maxCols := max(1, area.w/minPaneCols)
	var best []tilePage
	bestScore := -1
	for cols := 1; cols <= maxCols; cols++ {
		pages := packRows(blocks, cols, area.h)
		score := 1 << 30
		for _, pg := range pages {
			score = min(score, min(area.w/cols, 2*((area.h-pg.heads)/max(1, pg.rows))))
		}
		if best == nil || len(pages) < len(best) || (len(pages) == len(best) && score > bestScore) {
			best, bestScore = pages, score
		}
	}
	n := 0
	for _, b := range blocks {
		n += b.n
	}
	t := tiling{pageOf: make([]int, n), rects: make([]rect, n)}
	for pi, pg := range best {
		y := area.y
		row := 0
		for _, it := range pg.items {
			if it.head {
				t.heads = append(t.heads, groupHead{page: pi, y: y, block: it.row.block, cont: it.cont})
				y++
				continue
			}
			if row == 0 {
				t.first = append(t.first, it.row.first)
			}
			_, h := split(0, area.h-pg.heads, pg.rows, row)
			for c := range it.row.n {
				// A run's last row that is not full shares the width
				// among the panes it has.
				x, w := split(area.x, area.w, it.row.n, c)
				i := it.row.first + c
				t.pageOf[i], t.rects[i] = pi, rect{x, y, w, h}
			}
			y += h
			row++
		}
	}
	return t
}

// packRows puts the runs' rows of cols panes on pages of h lines, each
// row at least minPaneRows tall: a run that does not fit on what is left
// of a page starts the next, unless it fits on no page whole.
func packRows(blocks []paneBlock, cols, h int) []tilePage {
	fits := func(heads, rows int) bool { return rows == 0 || (h-heads)/rows >= minPaneRows }
	var pages []tilePage
	var cur tilePage
	flush := func() {
		if cur.rows > 0 {
			pages = append(pages, cur)
		}
		cur = tilePage{}
	}
	for bi, b := range blocks {
		nrows := (b.n + cols - 1) / cols
		if cur.rows > 0 && !fits(cur.heads+1, cur.rows+nrows) && fits(1, nrows) {
			flush()
		}
		cont := false
		for r := range nrows {
			row := tileRow{block: bi, first: b.first + r*cols, n: min(cols, b.n-r*cols)}
			head := r == 0 || cur.rows == 0
			heads := cur.heads
			if head {
				heads++
			}
			if cur.rows > 0 && !fits(heads, cur.rows+1) {
				flush()
				head, heads, cont = true, 1, true
			}
			if head {
				cur.items = append(cur.items, tileItem{head: true, cont: cont, row: row})
			}
			cur.items = append(cur.items, tileItem{row: row})
			cur.heads, cur.rows = heads, cur.rows+1
		}
	}
	flush()
	return pages
}

// groupHeader is a run's header line, w cells: its name, its workers'
// counts by status, and its link's note when the link is lost.
func (m *Model) groupHeader(gh groupHead, w int) string {
	b := m.tileCache.blocks[gh.block]
	name := printable.String(b.name)
	if gh.cont {
		name += " (continued)"
	}
	status := map[string]int{}
	link := ""
	for i := b.first; i < b.first+b.n; i++ {
		status[m.panes[i].worker.Status]++
		if m.panes[i].link != "" {
			link = m.panes[i].link
		}
	}
	var parts []string
	for _, s := range statusOrder {
		if status[s] > 0 {
			parts = append(parts, paint(m.th.statusColour(s), statusGlyph(s)+strconv.Itoa(status[s])))
		}
	}
	var sb strings.Builder
	sb.WriteString(paint(m.th.dim, "──"))
	sb.WriteString(" " + paint(m.th.barKey, name) + " ")
	if len(parts) > 0 {
		sb.WriteString(strings.Join(parts, " ") + " ")
	}
	if link != "" {
		sb.WriteString(paint(m.th.warn, "⚠ "+printable.String(link)) + " ")
	}
	l := sb.String()
	if rest := w - ansi.StringWidth(l); rest > 0 {
		l += paint(m.th.dim, strings.Repeat("─", rest))
	}
	return fit(l, w)
}
