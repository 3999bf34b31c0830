// theme_e2e_test.go checks the colours of the real binary's UI in tmux,
// through the run server as a person gets it (run --detach, then attach):
// auto picks the light palette on a white pane and the dark one on a black
// pane (tmux answers the UI's OSC 11 question with the pane's background),
// NO_COLOR leaves only the worker's own colour on screen, and a bad
// ROSTRA_THEME is refused before attaching.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const themeRunFile = `version: 1
name: theme
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: painter
    role: paint
    provider: shell
    prompt: "printf '\\033[35mmagenta from the worker\\033[m\\n'; exec sleep 300"
    completion: { result: out/painter.txt }
`

func TestThemeInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("the theme end-to-end test needs tmux (apt-get install -y tmux); it never skips")
	}
	ws := runWorkspace(t, themeRunFile)
	detachedRun(t, ws)

	s := newTmux(t, "theme")
	s.run("start-server", ";", "set", "-g", "exit-empty", "off")
	// The focused frame's colour, as the SGR before its corner.
	frame := regexp.MustCompile(`\x1b\[([0-9;]*)m┏`)
	// attach shows the UI in a pane of the given style and environment,
	// waits until its focused frame's colour has want in it (the UI draws
	// dark until the terminal has said what its background is) and returns
	// the screen with its colours (capture-pane -e).
	attach := func(style, env, want string) string {
		s.run("set", "-g", "window-style", style)
		s.run("new-session", "-d", "-s", "ui", "-x", "100", "-y", "12", "-c", ws,
			"env "+env+" "+rostraBin+" attach 2>"+filepath.Join(ws, "stderr")+"; sleep 60")
		defer s.run("kill-session", "-t", "ui")
		s.waitScreen("the pane", "magenta from the worker", "painter · paint")
		var screen, got string
		ok := assert.Eventually(t, func() bool {
			screen = s.run("capture-pane", "-p", "-e", "-t", "ui")
			m := frame.FindStringSubmatch(screen)
			got = ""
			if m != nil {
				got = m[1]
			}
			return strings.Contains(";"+got+";", ";"+want+";")
		}, 10*time.Second, 50*time.Millisecond)
		if !ok {
			t.Fatalf("%s with %s: the focused frame is painted %q, not %q:\n%s", style, env, got, want, screen)
		}
		return screen
	}

	attach("bg=white,fg=black", "X=1", "38;5;25") // a white terminal: the light palette
	attach("bg=black,fg=white", "X=1", "36")      // a black one: the dark palette
	attach("bg=black,fg=white", "ROSTRA_THEME=light", "38;5;25")

	plain := attach("bg=black,fg=white", "NO_COLOR=1", "1")
	assert.Regexp(t, `\x1b\[35m(\x1b\[[0-9;]*m)*magenta from the worker`, plain, "NO_COLOR: the worker's colour stays")
	for _, sgr := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(plain, -1) {
		for _, p := range strings.Split(sgr[1], ";") {
			n, _ := strconv.Atoi(p)
			if n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 107 {
				assert.Equal(t, "35", sgr[1], "NO_COLOR: no colour but the worker's (%q)", sgr[0])
			}
		}
	}

	bad := exec.Command(rostraBin, "attach")
	bad.Dir = ws
	bad.Env = append(os.Environ(), "ROSTRA_THEME=sepia")
	out, err := bad.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, string(out), "rostra attach: ROSTRA_THEME=sepia is not a theme; use one of: auto, dark, light")
}
