// colors.go learns the outer terminal's colours for the panes' children. A
// child asks its terminal for its default foreground, background and
// palette (OSC 10, 11, 4) to pick a light or a dark theme; its cells are
// drawn by the outer terminal, so the honest answer is that terminal's.
// Each UI asks its own terminal once at start and puts the answers in the
// Colors of the run's vt.Activity, which every pane's emulator answers
// from; with several clients attached, the last to answer sets them.
package tui

import (
	"image/color"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// paletteQuery asks for the 16 base colours in one OSC 4 (the rest of the
// 256 are the standard cube and greys).
var paletteQuery = func() string {
	var b strings.Builder
	b.WriteString("\x1b]4")
	for i := range 16 {
		b.WriteString(";" + strconv.Itoa(i) + ";?")
	}
	return b.String() + "\x07"
}()

// askColors asks the outer terminal for its foreground and palette (the
// background is asked for the theme already, in Init).
func (m *Model) askColors() tea.Cmd {
	if m.opts.Activity == nil {
		return nil
	}
	return tea.Batch(tea.RequestForegroundColor, tea.Raw(paletteQuery))
}

// learnColor records the outer terminal's default foreground (10) or
// background (11).
func (m *Model) learnColor(which int, c color.Color) {
	if m.opts.Activity == nil || c == nil {
		return
	}
	if which == 10 {
		m.opts.Activity.Colors.SetForeground(c)
	} else {
		m.opts.Activity.Colors.SetBackground(c)
	}
}

// learnPalette records an OSC 4 answer: "ESC ] 4 ; n ; rgb:… BEL" (or ST),
// possibly several pairs.
func (m *Model) learnPalette(osc string) {
	if m.opts.Activity == nil {
		return
	}
	body, ok := strings.CutPrefix(osc, "\x1b]4;")
	if !ok {
		return
	}
	body = strings.TrimSuffix(strings.TrimSuffix(body, "\x07"), "\x1b\\")
	f := strings.Split(body, ";")
	for i := 0; i+1 < len(f); i += 2 {
		n, err := strconv.Atoi(f[i])
		if err != nil {
			continue
		}
		if c := ansi.XParseColor(f[i+1]); c != nil {
			m.opts.Activity.Colors.SetIndexed(n, c)
		}
	}
}
