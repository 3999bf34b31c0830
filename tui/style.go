// style.go holds how the panes and the status bar are painted: raw SGR
// (the colours are the theme's, theme.go), so a frame is built by plain
// concatenation, and the glyphs. bubbletea downsamples the colours to what
// the terminal supports.
//
// Why the pane frames and the row composition are drawn by hand and not
// with lipgloss (which draws the dialogs and panels, built only while
// open): lipgloss measures, wraps and pads every line of every pane on
// every frame. With 16 busy panes on 240×50, BenchmarkViewLipglossFrames
// (lipgloss borders and joins over the same bodies) takes 2.8–3.7 ms a
// frame against 0.29 ms for BenchmarkView (two cores at load 12–20; 4.5 ms
// against 0.25 ms when first measured); the budget is 2 ms.
package tui

import (
	"github.com/rostra-dev/rostra/statedir"
)

const sgrReset = "\x1b[m"

// paint wraps s in the SGR parameters sgr; no parameters, no escape.
func paint(sgr, s string) string {
	if s == "" || sgr == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + sgrReset
}

// statusGlyph marks a status in the status bar's counts.
func statusGlyph(status string) string {
	switch status {
	case statedir.StatusRunning:
		return "●"
	case statedir.StatusCompleted:
		return "✓"
	case statedir.StatusError:
		return "✗"
	case statedir.StatusTimeout:
		return "◷" // not ⏱: terminals disagree on the width of emoji-capable symbols
	case statedir.StatusRetrying:
		return "↻"
	case statedir.StatusCancelled:
		return "⊘"
	}
	return "○"
}

// Border glyphs: thin for panes, heavy for the focused one.
type borderSet struct{ tl, tr, bl, br, h, v string }

var (
	thinBorder  = borderSet{"┌", "┐", "└", "┘", "─", "│"}
	heavyBorder = borderSet{"┏", "┓", "┗", "┛", "━", "┃"}
)
