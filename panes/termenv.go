//go:build linux

// termenv.go gives a pane child rostra's terminal identity. The child runs
// in rostra's emulator, not in the terminal rostra itself runs in: a child
// that saw TERM=tmux-256color and TMUX would wrap its output in tmux
// passthrough and copy into the outer tmux's buffers, and one that saw
// KITTY_WINDOW_ID would speak kitty's graphics protocol to an emulator that
// draws none. Wrapper children have no terminal and keep the plain
// environment.
package panes

import (
	"strings"

	"github.com/rostra-dev/rostra/panes/vt"
)

// outerTerminalVars are the variables terminals and multiplexers set to
// say who they are; outerTerminalPrefixes the families of them.
var (
	outerTerminalVars = map[string]bool{
		"TERM": true, "COLORTERM": true, "TERMCAP": true,
		"TERM_PROGRAM": true, "TERM_PROGRAM_VERSION": true, "TERM_SESSION_ID": true,
		"TERMINAL_EMULATOR": true, "LC_TERMINAL": true, "LC_TERMINAL_VERSION": true,
		"TMUX": true, "TMUX_PANE": true, "TMUX_PLUGIN_MANAGER_PATH": true,
		"STY": true, "VTE_VERSION": true, "TERMINOLOGY": true, "TILIX_ID": true,
		"WT_SESSION": true, "WT_PROFILE_ID": true,
	}
	outerTerminalPrefixes = []string{
		"ZELLIJ", "KITTY_", "WEZTERM_", "ITERM_", "KONSOLE_", "GNOME_TERMINAL_",
		"ALACRITTY_", "GHOSTTY_", "TERMINATOR_", "XTERM_", "WARP_",
	}
)

func isOuterTerminalVar(key string) bool {
	if outerTerminalVars[key] {
		return true
	}
	for _, p := range outerTerminalPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// terminalEnv drops the outer terminal's variables from env and adds
// rostra's: TERM=xterm-256color, COLORTERM=truecolor, TERM_PROGRAM=rostra
// and TERM_PROGRAM_VERSION. A key the run file sets (set) is left as the
// run file says.
func terminalEnv(env []string, set []string) []string {
	keep := make(map[string]bool, len(set))
	for _, k := range set {
		keep[k] = true
	}
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !keep[k] && isOuterTerminalVar(k) {
			continue
		}
		out = append(out, kv)
	}
	for _, kv := range []string{
		"TERM=" + vt.Term,
		"COLORTERM=truecolor",
		"TERM_PROGRAM=" + vt.Program,
		"TERM_PROGRAM_VERSION=" + vt.Version(),
	} {
		if k, _, _ := strings.Cut(kv, "="); !keep[k] {
			out = append(out, kv)
		}
	}
	return out
}
