// theme_test.go checks the palettes: golden screens with their SGR kept
// (ESC written as \e) for the dark and light themes and NO_COLOR, that
// NO_COLOR leaves only the children's own colours on screen, and that the
// auto theme follows the outer terminal's background.
package tui

import (
	"image/color"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// themedRun is two panes at 100×16: the focused one running, whose child
// prints in its own red; the other degraded onto a wrapper and failed,
// needing attention; the cancel dialog open over them.
func themedRun(t *testing.T, opts Options) *Model {
	t.Helper()
	f := fakeRun(t, 2, 100, 16)
	_, _ = f.handles["claude-implementer"].term.Write([]byte("\x1b[31mred from the child\x1b[m plain again\r\n"))
	ended := testNow.Add(-3 * time.Second)
	f.setWorker("codex-tester", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, w.Attempts, w.Reason = statedir.StatusError, 3, "exited with code 1"
		d.Status, d.Reason, d.EndedAt = statedir.StatusError, "exited with code 1", &ended
		d.Surface, d.DegradedFrom, d.DegradedReason = runfile.SurfaceWrapper, runfile.SurfacePane, "pane limit reached (1 of 1 in use)"
	})
	opts.Now = func() time.Time { return testNow }
	m := New(f, opts)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 16})
	press(m, "x")
	return m
}

// requireGoldenANSI checks the screen, escapes and all, against
// testdata/<test name>.golden.
func requireGoldenANSI(t *testing.T, m *Model) {
	t.Helper()
	screen := m.Render()
	lines := strings.Split(screen, "\n")
	require.Len(t, lines, m.height)
	for i, l := range lines {
		require.Equal(t, m.width, ansi.StringWidth(l), "line %d is not %d cells wide", i, m.width)
	}
	golden.RequireEqual(t, strings.ReplaceAll(screen, "\x1b", `\e`)+"\n")
}

func TestGoldenThemeDark(t *testing.T) {
	requireGoldenANSI(t, themedRun(t, Options{Theme: ThemeDark}))
}

func TestGoldenThemeLight(t *testing.T) {
	requireGoldenANSI(t, themedRun(t, Options{Theme: ThemeLight}))
}

func TestGoldenNoColor(t *testing.T) {
	m := themedRun(t, Options{Theme: ThemeLight, NoColor: true})
	requireGoldenANSI(t, m)
	assert.Equal(t, []string{"31"}, colourSGRs(m.Render()),
		"NO_COLOR: the only colour on screen is the one the child printed")
}

func TestThemesColourTheirParts(t *testing.T) {
	dark, light := themedRun(t, Options{Theme: ThemeDark}), themedRun(t, Options{Theme: ThemeLight})
	assert.Contains(t, colourSGRs(dark.Render()), "31", "the child's red stays")
	assert.Contains(t, colourSGRs(light.Render()), "31", "the child's red stays")
	assert.NotEqual(t, colourSGRs(dark.Render()), colourSGRs(light.Render()))
	assert.Equal(t, ansi.Strip(dark.Render()), ansi.Strip(light.Render()), "a theme changes colours, never text")
}

var sgrPattern = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colourSGRs lists the colour parameters (foreground, background,
// underline colour) of every SGR in s, each once, in order of appearance.
func colourSGRs(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range sgrPattern.FindAllStringSubmatch(s, -1) {
		ps := strings.Split(m[1], ";")
		for i := 0; i < len(ps); i++ {
			n, _ := strconv.Atoi(ps[i])
			var c string
			switch {
			case n == 38 || n == 48 || n == 58:
				k := 2
				if i+1 < len(ps) && ps[i+1] == "2" {
					k = 4
				}
				c = strings.Join(ps[i:min(len(ps), i+k+1)], ";")
				i += k
			case n >= 30 && n <= 37, n >= 40 && n <= 47, n >= 90 && n <= 97, n >= 100 && n <= 107:
				c = ps[i]
			}
			if c != "" && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func TestThemeFollowsTheBackground(t *testing.T) {
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	black := color.RGBA{0, 0, 0, 0xff}
	for _, c := range []struct {
		asked   string
		noColor bool
		bg      color.Color
		want    string
	}{
		{ThemeAuto, false, nil, ThemeDark},
		{ThemeAuto, false, white, ThemeLight},
		{ThemeAuto, false, black, ThemeDark},
		{"", false, white, ThemeLight},
		{ThemeDark, false, white, ThemeDark},
		{ThemeLight, false, black, ThemeLight},
		{ThemeAuto, true, white, "none"},
	} {
		f := fakeRun(t, 1, 80, 10)
		m := New(f, Options{Theme: c.asked, NoColor: c.noColor, Now: func() time.Time { return testNow }})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 10})
		if c.bg != nil {
			m.Update(tea.BackgroundColorMsg{Color: c.bg})
			assert.Equal(t, c.bg, m.background, "the background is kept for what else needs it")
		}
		assert.Equal(t, c.want, m.th.name, "%s, NO_COLOR %v, background %v", c.asked, c.noColor, c.bg)
	}
}
