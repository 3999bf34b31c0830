// layout.go tiles panes on the screen: 1 fills it, 2 sit side by side, 3–4
// make a 2×2 grid, more make the squarest grid whose cells stay at least
// minPaneCols×minPaneRows; what does not fit goes on further pages.
//
// Data model: a grid is cols×rows cells over an area; cell (c, r) is a
// rectangle whose sizes differ by at most one from its neighbours', the
// remainder going to the first columns and rows; the panes of a last row
// that is not full share its whole width.
package tui

import "math"

// The smallest pane frame (border included) the grid makes before it pages.
const (
	minPaneCols = 32
	minPaneRows = 8
)

type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// inner is the rectangle inside the frame's border.
func (r rect) inner() rect {
	return rect{r.x + 1, r.y + 1, max(1, r.w-2), max(1, r.h-2)}
}

type grid struct {
	cols, rows int
	area       rect
}

// perPage is how many panes one page holds.
func (g grid) perPage() int { return g.cols * g.rows }

// gridFor picks the grid for n panes in area.
func gridFor(n int, area rect) grid {
	if n < 1 {
		n = 1
	}
	maxCols := max(1, area.w/minPaneCols)
	maxRows := max(1, area.h/minPaneRows)
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	rows := (n + cols - 1) / cols
	if n == 2 {
		cols, rows = 2, 1
	}
	cols = min(cols, maxCols)
	rows = min(rows, maxRows)
	// A narrow terminal that can hold more rows than columns stacks them.
	for cols*rows < n && rows < maxRows {
		rows++
	}
	for cols*rows < n && cols < maxCols {
		cols++
	}
	return grid{cols: cols, rows: rows, area: area}
}

// cell is the rectangle of slot i (0-based within a page) when the page
// holds n panes: a last row that is not full shares its width among the
// panes it has, as tmux's tiled layout does, instead of leaving a hole.
func (g grid) cell(i, n int) rect {
	c, r := i%g.cols, i/g.cols
	cols := g.cols
	if n > 0 && r == (n-1)/g.cols {
		cols = n - r*g.cols
	}
	x, w := split(g.area.x, g.area.w, cols, c)
	y, h := split(g.area.y, g.area.h, g.rows, r)
	return rect{x, y, w, h}
}

// slot is where pane i of n goes: its page and its rectangle there.
func (g grid) slot(i, n int) (page int, r rect) {
	per := g.perPage()
	page = i / per
	onPage := min(per, n-page*per)
	return page, g.cell(i-page*per, onPage)
}

// split divides length into n parts and returns part i's start and size.
func split(start, length, n, i int) (int, int) {
	base, extra := length/n, length%n
	pos := start + i*base + min(i, extra)
	size := base
	if i < extra {
		size++
	}
	return pos, size
}
