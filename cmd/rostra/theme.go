// theme.go resolves how the UI is coloured: the run file's ui.theme, which
// ROSTRA_THEME overrides, and NO_COLOR, which drops every colour rostra adds
// while the panes keep their programs' own (bubbletea would otherwise read
// NO_COLOR too and strip the children's colours from the screen).
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/tui"
)

// uiColours is the theme and NO_COLOR for tui.Options, and the program
// options that keep the children's colours under NO_COLOR.
func uiColours(plan *runfile.Plan, stdout io.Writer, environ []string) (theme string, noColor bool, opts []tea.ProgramOption, err error) {
	theme = plan.Theme
	if env, ok := lookupEnv(environ, "ROSTRA_THEME"); ok && env != "" {
		if !slices.Contains(runfile.Themes, env) {
			return "", false, nil, fmt.Errorf("ROSTRA_THEME=%s is not a theme; use one of: %s (or unset it for the run file's ui.theme)", env, strings.Join(runfile.Themes, ", "))
		}
		theme = env
	}
	// no-color.org: set and not empty.
	if v, ok := lookupEnv(environ, "NO_COLOR"); ok && v != "" {
		noColor = true
		opts = append(opts, tea.WithColorProfile(colorprofile.Detect(stdout, tui.WithoutNoColor(environ))))
	}
	return theme, noColor, opts, nil
}

func lookupEnv(environ []string, key string) (string, bool) {
	for _, kv := range slices.Backward(environ) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// themeEnvOK says whether ROSTRA_THEME names a theme (and why not, on
// stderr) before this terminal attaches to a run: its server would refuse
// the client, but only after `rostra run` had started the workers.
func themeEnvOK(cmd string, stderr io.Writer) bool {
	if _, _, _, err := uiColours(&runfile.Plan{Theme: runfile.Themes[0]}, io.Discard, os.Environ()); err != nil {
		fmt.Fprintf(stderr, "rostra %s: %v\n", cmd, err)
		return false
	}
	return true
}
