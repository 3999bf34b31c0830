// theme_test.go checks how the UI's colours are chosen: the run file's
// ui.theme, ROSTRA_THEME over it (a bad value is refused with the choices),
// and NO_COLOR only when set and not empty.
package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
)

func TestUIColours(t *testing.T) {
	for _, c := range []struct {
		name    string
		file    string
		env     []string
		theme   string
		noColor bool
		err     string
	}{
		{"the run file's theme", "light", []string{"TERM=xterm-256color"}, "light", false, ""},
		{"ROSTRA_THEME overrides it", "light", []string{"ROSTRA_THEME=dark"}, "dark", false, ""},
		{"an empty ROSTRA_THEME does not", "light", []string{"ROSTRA_THEME="}, "light", false, ""},
		{"a bad ROSTRA_THEME is refused", "auto", []string{"ROSTRA_THEME=blue"}, "", false,
			"ROSTRA_THEME=blue is not a theme; use one of: auto, dark, light (or unset it for the run file's ui.theme)"},
		{"NO_COLOR", "auto", []string{"NO_COLOR=1"}, "auto", true, ""},
		{"an empty NO_COLOR is not set", "auto", []string{"NO_COLOR="}, "auto", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			theme, noColor, opts, err := uiColours(&runfile.Plan{Theme: c.file}, io.Discard, c.env)
			if c.err != "" {
				require.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.theme, theme)
			assert.Equal(t, c.noColor, noColor)
			if c.noColor {
				assert.Len(t, opts, 1, "the colour profile is fixed so the panes keep their colours")
			} else {
				assert.Empty(t, opts, "bubbletea detects the colour profile itself")
			}
		})
	}
}
