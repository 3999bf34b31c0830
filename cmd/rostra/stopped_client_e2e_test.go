// stopped_client_e2e_test.go stops an attached client from outside, in
// tmux with an interactive bash, while its pane floods: kill -STOP makes
// the shell take the terminal (its "Stopped" line and prompt overwrite the
// UI's rows; a clear, all of them); after kill -CONT the client draws a
// whole frame again
// (in the background, the terminal left as the shell set it), and after fg
// it takes the terminal raw again and keys reach the UI.
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

// floodScript waits for the file go, prints coloured lines until the file
// stop exists, then says so and waits.
const floodScript = `while [ ! -e go ]; do sleep 0.05; done
i=0
while [ ! -e stop ]; do
  i=$((i+1))
  printf '\033[3%dmline %d %s\033[m\n' $((i%7+1)) $i "$(printf '%0100d' $i)"
done
echo "the flood is over"
sleep 600
`

func TestAClientStoppedDuringAFloodDrawsAWholeFrameWhenContinued(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: flood
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0 }
workers:
  - { id: flood, role: flooder, provider: shell, prompt: "bash ./flood.sh" }
`)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "flood.sh"), []byte(floodScript), 0o755))
	detachedRun(t, ws)

	const cols, rows = 160, 40
	s := newTmux(t, "stopped")
	s.run("new-session", "-d", "-s", "ui", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-c", ws,
		"env -i PATH=/usr/bin:/bin HOME="+ws+" HISTFILE=/dev/null TERM=tmux-256color PS1='shell$ ' bash --norc --noprofile -i")
	s.waitScreen("the shell", "shell$")
	s.keys("-l", rostraBin+" attach 2>"+filepath.Join(ws, "stderr"))
	s.keys("Enter")
	s.waitScreen("the UI", "flood · flooder · shell · PTY", "Tab focus")
	shell, err := strconv.Atoi(strings.TrimSpace(s.run("display", "-p", "-t", "ui", "#{pane_pid}")))
	require.NoError(t, err)
	client := childOf(t, shell)

	require.NoError(t, os.WriteFile(filepath.Join(ws, "go"), nil, 0o644))
	s.waitScreen("the flood", "line 1")

	// Whole: the pane's bottom border and the status bar, under the end
	// of the flood, and nothing of the shell's.
	whole := func(what string) {
		t.Helper()
		var last []string
		ok := assert.Eventually(t, func() bool {
			last = strings.Split(s.screen(), "\n")
			all := strings.Join(last, "\n")
			return len(last) >= rows && bottomBorder(last[rows-2], cols) && strings.Contains(last[rows-1], "Tab focus") &&
				strings.Contains(all, "the flood is over") && !strings.Contains(all, "shell$")
		}, 20*time.Second, 50*time.Millisecond)
		if !ok {
			t.Fatalf("%s: the screen is not a whole frame:\n%s", what, strings.Join(last, "\n"))
		}
	}
	// stop stops the client and waits for the shell to say so, then
	// clears the screen (what the shell writes lands where the cursor
	// was; clear leaves no row of the UI's).
	stop := func(what string, enter bool) {
		t.Helper()
		require.NoError(t, syscall.Kill(client, syscall.SIGSTOP))
		if enter {
			// A background job's stop is told at the next prompt, once
			// bash has reaped the change: an Enter that beats it gets a
			// prompt without the word, so Enter is pressed until it comes.
			require.Eventually(t, func() bool {
				s.keys("Enter")
				screen := s.screen()
				return strings.Contains(screen, "Stopped") && strings.Contains(screen, "shell$")
			}, 20*time.Second, 500*time.Millisecond, "%s: the shell never said Stopped; the screen:\n%s", what, s.screen())
		}
		s.waitScreen(what, "Stopped", "shell$")
		s.keys("-l", "clear")
		s.keys("Enter")
		require.Eventually(t, func() bool { return strings.TrimSpace(s.screen()) == "shell$" }, 15*time.Second, 50*time.Millisecond,
			"clear in the shell; the screen:\n%s", s.screen())
	}

	// kill -CONT: the client runs on in the background, the terminal as the
	// shell left it, and draws a whole frame.
	stop("kill -STOP during the flood", false)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "stop"), nil, 0o644))
	require.NoError(t, syscall.Kill(client, syscall.SIGCONT))
	whole("kill -CONT")

	// fg: the client takes the terminal raw again; a whole frame, and keys
	// reach the UI.
	stop("kill -STOP in the background", true)
	s.keys("-l", "fg")
	s.keys("Enter")
	whole("fg")
	s.keys("i")
	s.waitScreen("keys reach the UI after fg", "INPUT → flood")
}
