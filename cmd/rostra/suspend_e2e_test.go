// suspend_e2e_test.go stops rostra as a shell user does, in tmux with an
// interactive bash: Ctrl-Z in the UI and kill -TSTP from outside give the
// shell its terminal back (no alternate screen, no mouse reports, the
// "Stopped" line), and fg brings the UI back whole, for the UI a server
// draws (rostra run) and the one drawn in-process (--no-server). Then a
// 200 KB paste that is not bracketed goes into a pane whole while Ctrl-]
// typed after it is answered.
package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const suspendRunFile = `version: 1
name: suspend
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 2s, attention_after: 1h }
workers:
  - id: reader
    role: reader
    provider: shell
    prompt: "echo reader is ready; stty raw -echo; head -c 200000 | wc -c > out/pasted; echo pasted; sleep 300"
    completion: { result: out/done.txt }
`

// waitModes waits until tmux's modes of the pane have want's values.
func (s tmuxServer) waitModes(what string, want map[string]string) {
	s.t.Helper()
	var got map[string]string
	ok := assert.Eventually(s.t, func() bool {
		got = s.paneModes()
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	}, 15*time.Second, 20*time.Millisecond)
	if !ok {
		s.t.Fatalf("%s: the pane's modes are %v, want %v; screen:\n%s", what, got, want, s.screen())
	}
}

func TestSuspendGivesTheShellItsTerminalAndFgBringsTheUIBack(t *testing.T) {
	for _, mode := range []struct{ name, args string }{
		{"served", "run"},
		{"direct", "run --no-server"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			ws := runWorkspace(t, suspendRunFile)
			require.NoError(t, os.MkdirAll(filepath.Join(ws, "out"), 0o755))
			s := newTmux(t, "suspend-"+mode.name)
			s.run("new-session", "-d", "-s", "ui", "-x", "160", "-y", "40", "-c", ws,
				"env -i PATH=/usr/bin:/bin HOME="+ws+" HISTFILE=/dev/null TERM=tmux-256color PS1='shell$ ' bash --norc --noprofile -i")
			s.waitScreen("the shell", "shell$")
			s.keys("-l", rostraBin+" "+mode.args+" 2>"+filepath.Join(ws, "stderr"))
			s.keys("Enter")
			uiUp := func(what string) {
				s.waitScreen(what, "reader · shell · PTY · attempt 1/1 · running", "Tab focus")
				s.waitModes(what, map[string]string{"alternate_on": "1", "mouse_sgr_flag": "1"})
			}
			shellUp := func(what string) {
				s.waitScreen(what, "Stopped", "shell$")
				s.waitModes(what, map[string]string{"alternate_on": "0", "mouse_sgr_flag": "0", "mouse_any_flag": "0"})
			}
			uiUp("the UI")

			s.keys("C-z")
			shellUp("Ctrl-Z gives the shell its terminal")
			s.keys("-l", "fg")
			s.keys("Enter")
			uiUp("fg brings the UI back")

			pid, err := strconv.Atoi(strings.TrimSpace(s.run("display", "-p", "-t", "ui", "#{pane_pid}")))
			require.NoError(t, err)
			require.NoError(t, syscall.Kill(childOf(t, pid), syscall.SIGTSTP))
			shellUp("kill -TSTP gives the shell its terminal")
			s.run("send-keys", "-t", "ui", "clear", "Enter")
			s.keys("-l", "fg")
			s.keys("Enter")
			uiUp("fg after kill -TSTP brings the UI back")

			// A 200 KB paste without bracketed paste: every byte reaches the
			// child, and Ctrl-] after it is answered.
			s.keys("i")
			s.waitScreen("typing", "INPUT → reader")
			paste := filepath.Join(ws, "paste.txt")
			require.NoError(t, os.WriteFile(paste, []byte(strings.Repeat("0123456789", 20_000)), 0o644))
			s.run("load-buffer", "-b", "big", paste)
			s.run("paste-buffer", "-b", "big", "-t", "ui") // no -p: not bracketed
			s.keys("C-]")
			s.waitScreen("Ctrl-] after the paste", "Tab focus")
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(filepath.Join(ws, "out", "pasted"))
				return err == nil && strings.TrimSpace(string(b)) == "200000"
			}, 60*time.Second, 50*time.Millisecond, "the child did not get 200000 bytes; screen:\n%s", s.screen())

			s.keys("q")
			s.waitScreen("the quit question", "still running")
			if mode.name == "served" {
				s.keys("s")
			} else {
				s.keys("y")
			}
			// fg's status is rostra's (a stopped job's list is not resumed
			// after it, so ask once the prompt is back).
			require.Eventually(t, func() bool {
				lines := strings.Fields(strings.TrimSpace(s.screen()))
				return len(lines) > 0 && lines[len(lines)-1] == "shell$"
			}, 30*time.Second, 50*time.Millisecond, "rostra did not exit; screen:\n%s", s.screen())
			s.keys("-l", "echo exit=$?")
			s.keys("Enter")
			s.waitScreen("rostra's exit code", "exit=130")
		})
	}
}
