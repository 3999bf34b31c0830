// colors.go holds the colours a child is told when it asks its terminal for
// them (OSC 10 foreground, OSC 11 background, OSC 12 cursor, OSC 4 palette).
// A child runs in rostra's emulator, but its cells are drawn by the outer
// terminal with that terminal's colours, so the honest answer is the outer
// terminal's: the UI asks it once and sets them here, and every pane shares
// one Colors. A light-background user then gets the agents' light themes.
// Without a UI (headless, replay) the answer is DefaultColors: white-grey on
// black with x/ansi's 256-colour palette.
package vt

import (
	stdcolor "image/color"
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// Colors is the palette a child's colour queries are answered from. It is
// safe for concurrent use: the UI sets it while panes read it.
type Colors struct {
	mu      sync.RWMutex
	fg, bg  stdcolor.Color
	indexed map[int]stdcolor.Color // what the outer terminal reported; others come from x/ansi's table
}

// NewColors returns the default palette: DefaultForeground on
// DefaultBackground.
func NewColors() *Colors { return &Colors{} }

// The defaults a pane answers with until (or unless) the outer terminal's
// colours are known.
var (
	DefaultForeground stdcolor.Color = ansi.IndexedColor(7) // #c0c0c0
	DefaultBackground stdcolor.Color = ansi.IndexedColor(0) // #000000
)

// defaultColors answers for terminals made without Options.Colors.
var defaultColors = NewColors()

// SetForeground records the outer terminal's default foreground (nil: the
// default again).
func (c *Colors) SetForeground(fg stdcolor.Color) {
	c.mu.Lock()
	c.fg = fg
	c.mu.Unlock()
}

// SetBackground records the outer terminal's default background.
func (c *Colors) SetBackground(bg stdcolor.Color) {
	c.mu.Lock()
	c.bg = bg
	c.mu.Unlock()
}

// SetIndexed records the outer terminal's palette entry i (0–255).
func (c *Colors) SetIndexed(i int, col stdcolor.Color) {
	if i < 0 || i > 255 {
		return
	}
	c.mu.Lock()
	if c.indexed == nil {
		c.indexed = map[int]stdcolor.Color{}
	}
	c.indexed[i] = col
	c.mu.Unlock()
}

// Foreground is the default foreground a child is told.
func (c *Colors) Foreground() stdcolor.Color {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.fg != nil {
		return c.fg
	}
	return DefaultForeground
}

// Background is the default background a child is told.
func (c *Colors) Background() stdcolor.Color {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.bg != nil {
		return c.bg
	}
	return DefaultBackground
}

// Indexed is palette entry i (0–255).
func (c *Colors) Indexed(i int) stdcolor.Color {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if col, ok := c.indexed[i]; ok && col != nil {
		return col
	}
	return ansi.IndexedColor(uint8(i))
}

// xrgb is a colour as xterm reports one: rgb:rrrr/gggg/bbbb.
func xrgb(c stdcolor.Color) string { return ansi.XRGBColor{Color: c}.String() }
