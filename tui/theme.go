// theme.go holds the palettes rostra paints its own parts with — pane
// frames and titles by status, badges (⚑, DEGRADED), the status bar, search
// matches, copy mode's cursor and selection, and the dialogs' boxes — for a
// dark terminal, a light one, and none at all (NO_COLOR: every colour rostra
// adds is dropped, bold, faint, underline and reverse video remain). What
// the children print is never repainted: their colours are theirs.
//
// The choice comes from the run file (ui: { theme: auto | dark | light }),
// then ROSTRA_THEME, then NO_COLOR (cmd/rostra resolves them into Options).
// auto asks the outer terminal for its background (bubbletea's
// RequestBackgroundColor) and draws dark until the answer comes, or when
// none does.
//
// Data model: a theme is raw SGR parameter strings (frames are built by
// concatenation, see style.go) plus the lipgloss styles of the boxes, which
// are drawn only while open.
package tui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"

	"github.com/rostra-dev/rostra/statedir"
)

// theme is one palette.
type theme struct {
	name string // dark, light or none

	status map[string]string // a pane frame's colour by its worker's status
	focus  string            // added to the focused pane's frame

	warn   string // DEGRADED, notes, confirmations
	attn   string // the ⚑ badge, INPUT
	dim    string // secondary text
	barKey string // keys and labels in the status bar

	match    string // a search match
	matchCur string // the current search match
	selected string // copy mode's selection
	cursor   string // copy mode's cursor

	box      lipgloss.Style // dialogs and panels
	boxTitle lipgloss.Style
	boxFoot  lipgloss.Style
	helpKey  lipgloss.Style // the keys in the help
	prompt   lipgloss.Style // the search prompt's /
}

// Theme names, as the run file and ROSTRA_THEME spell them.
const (
	ThemeAuto  = "auto"
	ThemeDark  = "dark"
	ThemeLight = "light"
)

func newTheme(name string) *theme {
	var th *theme
	switch name {
	case ThemeLight:
		// Colours dark enough to read on white: the 256-colour cube, not
		// the 16 colours a light scheme often makes pale (cyan, yellow).
		th = &theme{
			status: map[string]string{
				statedir.StatusRunning:   "38;5;25",
				statedir.StatusCompleted: "38;5;28",
				statedir.StatusError:     "38;5;160",
				statedir.StatusTimeout:   "38;5;127",
				statedir.StatusRetrying:  "38;5;130",
				statedir.StatusCancelled: "38;5;244",
				statedir.StatusPending:   "38;5;240",
			},
			focus: "1", warn: "1;38;5;130", attn: "1;97;48;5;166", dim: "38;5;243", barKey: "1;38;5;25",
			match: "30;48;5;153", matchCur: "1;97;48;5;127", selected: "30;48;5;222", cursor: "7",
		}
		th.box = boxStyleOf(lipgloss.Color("25"))
		th.boxTitle = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("25"))
		th.helpKey = th.boxTitle
	case "none":
		th = &theme{
			status: map[string]string{},
			focus:  "1", warn: "1", attn: "1;7", dim: "2", barKey: "1",
			match: "4", matchCur: "1;7", selected: "7", cursor: "1;4",
		}
		th.box = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
		th.boxTitle = lipgloss.NewStyle().Bold(true)
		th.helpKey = th.boxTitle
	default:
		name = ThemeDark
		th = &theme{
			status: map[string]string{
				statedir.StatusRunning:   "36",
				statedir.StatusCompleted: "32",
				statedir.StatusError:     "31",
				statedir.StatusTimeout:   "35",
				statedir.StatusRetrying:  "33",
				statedir.StatusCancelled: "90",
				statedir.StatusPending:   "37",
			},
			focus: "1", warn: "1;33", attn: "1;30;43", dim: "2", barKey: "1;36",
			// As tmux's copy-mode-match-style and copy-mode-current-match-style.
			match: "30;46", matchCur: "1;30;45", selected: "30;43", cursor: "7",
		}
		th.box = boxStyleOf(lipgloss.Cyan)
		th.boxTitle = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Cyan)
		th.helpKey = th.boxTitle
	}
	th.name = name
	th.boxFoot = lipgloss.NewStyle().Faint(true)
	th.prompt = th.boxTitle
	return th
}

func boxStyleOf(border color.Color) lipgloss.Style {
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(border).Padding(0, 1)
}

// statusColour colours a pane's frame and title by its worker's status.
func (th *theme) statusColour(status string) string {
	if c, ok := th.status[status]; ok {
		return c
	}
	return th.status[statedir.StatusPending]
}

// frameColour is the SGR of a pane's frame.
func (th *theme) frameColour(status string, focused bool) string {
	c := th.statusColour(status)
	if focused {
		return joinSGR(th.focus, c)
	}
	return c
}

// joinSGR joins SGR parameter lists, leaving out empty ones.
func joinSGR(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ";" + b
}

// themeName resolves what the UI was asked for to the palette it draws
// with, given the outer terminal's background when it is known.
func themeName(asked string, noColor, darkKnown, dark bool) string {
	switch {
	case noColor:
		return "none"
	case asked == ThemeLight, asked == ThemeDark:
		return asked
	case darkKnown && !dark:
		return ThemeLight
	}
	return ThemeDark
}

// WithoutNoColor is environ less NO_COLOR, for detecting the outer
// terminal's colour profile. NO_COLOR drops the colours rostra adds
// (Options.NoColor), not the panes' own: a profile detected with it would
// strip the children's colours from the screen.
func WithoutNoColor(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			out = append(out, kv)
		}
	}
	return out
}

// setTheme switches the palette, and what holds a copy of its styles.
func (m *Model) setTheme(name string) {
	if m.th != nil && m.th.name == name {
		return
	}
	m.th = newTheme(name)
	styleSearchInput(&m.searchInput, m.th)
	m.panelBox = nil
	if m.confirm != nil {
		m.confirm.drawn = nil
	}
	for _, p := range m.panes {
		p.cache = bodyCache{}
	}
	m.fillPanel(false)
}

// styleSearchInput gives the search prompt the theme's looks. Its cursor
// does not blink (a blink is a redraw twice a second).
func styleSearchInput(ti *textinput.Model, th *theme) {
	st := textinput.DefaultDarkStyles()
	if th.name == ThemeLight {
		st = textinput.DefaultLightStyles()
	}
	st.Focused.Prompt = th.prompt
	st.Focused.Text = lipgloss.NewStyle()
	st.Cursor.Blink = false
	ti.SetStyles(st)
}
