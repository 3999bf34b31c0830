// copy_e2e_test.go copies text out of a pane of the real binary as a
// person would (a run started with --detach and rostra attach, or rostra
// run --no-server, in a tmux server of its own with set-clipboard on: tmux
// then keeps what an application sends with OSC 52 as a paste buffer):
// a search puts copy mode on the line, V and y copy it; v and e copy a
// word; a mouse drag copies from inside one pane. The bytes rostra wrote
// to its terminal are recorded (pipe-pane) and must hold each OSC 52
// sequence, and tmux's buffer must hold the text as soon as the note
// saying it was copied shows.
package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const copyRunFile = `version: 1
name: copy
workspace: .
ui: { theme: dark }
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: talker
    role: talk
    provider: shell
    prompt: "printf 'warming up\\n\\033[31mthe error: ELIFECYCLE 中文 tail\\033[m   \\nafter it\\n'; exec sleep 300"
    completion: { result: out/talker.txt }
  - id: other
    role: other
    provider: shell
    prompt: "echo the other pane; exec sleep 300"
    completion: { result: out/other.txt }
`

func TestCopyModeReachesTheClipboardInTmux(t *testing.T) {
	t.Run("served", func(t *testing.T) {
		ws := runWorkspace(t, copyRunFile)
		detachedRun(t, ws)
		copyInTmux(t, ws, rostraBin+" attach")
	})
	t.Run("direct", func(t *testing.T) {
		ws := runWorkspace(t, copyRunFile)
		copyInTmux(t, ws, rostraBin+" run --no-server")
	})
}

// copyInTmux runs command (a UI of the run in ws) in tmux and copies out
// of its panes.
func copyInTmux(t *testing.T, ws, command string) {
	raw := filepath.Join(ws, "terminal.bin")
	s := newTmux(t, "copy")
	s.run("start-server", ";", "set", "-s", "set-clipboard", "on", ";", "set", "-g", "exit-empty", "off")
	exitFile := filepath.Join(ws, "exit-code")
	s.run("new-session", "-d", "-s", "ui", "-x", "120", "-y", "30", "-c", ws,
		command+" 2>"+filepath.Join(ws, "stderr")+"; echo $? > "+exitFile+"; sleep 60")
	// Registered after newTmux, so it runs before the tmux server is
	// killed: rostra is stopped (SIGTERM, as a closing terminal's hangup
	// would) and waited for, so it writes nothing into ws once the test's
	// folders are being removed.
	t.Cleanup(func() {
		shell := strings.TrimSpace(s.run("list-panes", "-t", "ui", "-F", "#{pane_pid}"))
		_ = exec.Command("pkill", "-TERM", "-P", shell).Run()
		require.Eventually(t, func() bool {
			_, err := os.Stat(exitFile)
			return err == nil
		}, 30*time.Second, 20*time.Millisecond, "rostra did not exit after SIGTERM")
	})
	s.run("pipe-pane", "-O", "-t", "ui", "cat >> "+raw)
	s.waitScreen("the panes open", "the error: ELIFECYCLE 中文 tail", "the other pane")

	buffer := func() string {
		out, err := exec.Command("tmux", "-L", s.socket, "show-buffer").Output()
		if err != nil {
			return ""
		}
		return string(out)
	}
	// The note that says the text was copied is drawn in the same write
	// as the OSC 52 (tmux reads a pane's output in order): once it shows,
	// the buffer holds the text, with no other key or redraw needed.
	waitBuffer := func(what, want string) {
		t.Helper()
		screen := s.waitScreen(what+": the note", fmt.Sprintf("%d character(s), to the clipboard", len([]rune(want))))
		require.Equal(t, want, buffer(), "%s: the note is on screen but tmux's buffer does not hold the text yet (the OSC 52 was not written with the frame); screen:\n%s", what, screen)
		osc := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(want))
		require.Eventually(t, func() bool {
			b, _ := os.ReadFile(raw)
			return strings.Contains(string(b), osc)
		}, 10*time.Second, 50*time.Millisecond, "%s: rostra never wrote %q", what, osc)
		_ = exec.Command("tmux", "-L", s.socket, "delete-buffer").Run()
	}

	// A whole line: the search puts copy mode's cursor on it, V y copies
	// it (colours and trailing spaces gone, the newline kept).
	s.keys("/")
	s.keys("-l", "ELIFECYCLE")
	s.keys("Enter")
	s.waitScreen("the match", "match 1 of 1", "COPY")
	t.Logf("the match in copy mode:\n%s", s.screen())
	s.keys("V")
	s.waitScreen("a line selected", "lines")
	s.keys("y")
	waitBuffer("V y", "the error: ELIFECYCLE 中文 tail\n")

	// A word: n finds the match again, v e copies it.
	s.keys("n")
	s.waitScreen("copy mode again", "match 1 of 1")
	s.keys("v", "e", "y")
	waitBuffer("v e y", "ELIFECYCLE")

	// A drag inside the first pane: press on "the", move past the pane's
	// right edge, release. tmux passes the mouse reports on as typed.
	row := -1
	for i, l := range strings.Split(s.screen(), "\n") {
		if strings.Contains(l, "the error: ELIFECYCLE") {
			row = i
		}
	}
	require.GreaterOrEqual(t, row, 0)
	col := strings.Index(strings.Split(s.screen(), "\n")[row], "the error")
	col = len([]rune(strings.Split(s.screen(), "\n")[row][:col]))
	mouse := func(b, x, y int, final string) {
		s.keys("-l", fmt.Sprintf("\x1b[<%d;%d;%d%s", b, x+1, y+1, final))
	}
	mouse(0, col, row, "M")
	mouse(32, col+4, row, "M")
	mouse(32, 100, row, "M") // in the other pane: the selection stays in this one
	mouse(0, 100, row, "m")
	waitBuffer("a drag", "the error: ELIFECYCLE 中文 tail\n")
}
