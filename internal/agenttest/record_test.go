// Tests that record each CLI's whole interactive session around a
// permission prompt, as a pane sees it: the idle prompt, the model's tool
// call, the permission prompt, the approval, the end of the turn, the
// exit. The screen rules of package agents must know the live permission
// prompt (and what it asks) and the idle prompt after the turn. The
// stream (what tmux got, pipe-pane, from the CLI's first byte) is fed to
// panes/vt, which must show the prompt where tmux showed it and hear the
// CLI's own notifications and states (OSC 9, 777, 99, 7501), which are
// logged. With ROSTRA_RECORD_TERM set to a folder, each stream is written
// there as agent-NAME-permission@100x30.bin, the recordings the screen
// rules are tested on (panes/vt/testdata/term/README).
package agenttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/internal/tmuxtest"
	"github.com/rostra-dev/rostra/panes/vt"
)

func TestRecordPermissionSession(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind     Kind
		escalate bool
		args     []string
		typed    string // typed at the idle prompt ("" when args hold the prompt)
		ready    string // the idle prompt's text, before typing
		prompt   string // text of the permission prompt on screen
		idle     string // text of the idle prompt after the turn
		quit     []string
	}{
		{Claude, false, []string{"--permission-mode", "default"}, "write the result file", "? for shortcuts", "Do you want to proceed?", "? for shortcuts", ctrlC},
		{Codex, true, []string{"-a", "on-request", "-s", "read-only"}, "write the result file", "for shortcuts", "Would you like to run the following command?", "for shortcuts", ctrlC},
		{Gemini, false, []string{"--approval-mode", "default"}, "write the result file", "Type your message", "Allow execution", "Type your message", ctrlC},
		// qwen 0.24.4 asks a second Ctrl-C only after its first has been
		// shown; /quit ends it at once.
		{Qwen, false, []string{"--approval-mode", "default"}, "write the result file", "Type your message", "Allow execution", "Type your message", []string{"-l", "/quit"}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			script := toolScript()
			script.Turns[0].Escalate = c.escalate
			srv := fakemodel.Start(t, script)
			dir := t.TempDir()
			a := New(t, c.kind, srv.URL(), dir)
			rules, err := agents.LoadRules()
			require.NoError(t, err)
			set := rules.For(agents.Agent(c.kind), "")
			require.NotNil(t, set)
			raw := filepath.Join(t.TempDir(), "raw")
			p := newRecordedPane(t, a.ShellLine(c.args...), raw)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the screen at the failure:\n%s\nrequests:\n%s", p.screen(), srv.Summary())
				}
			})

			p.waitScreen("the idle prompt", time.Minute, c.ready)
			p.keys("-l", c.typed)
			p.waitScreen("the typed prompt", 10*time.Second, c.typed)
			p.keys("Enter")
			screen := p.waitScreen("the permission prompt", time.Minute, c.prompt)
			atPrompt := fileSize(t, raw)
			// The screen rules know the live prompt, and what it asks.
			m, ok := set.Match(strings.Split(screen, "\n"), "")
			assert.True(t, ok && m.State == agents.WaitingPermission, "the rules do not see the permission prompt: %+v", m)
			assert.Contains(t, m.Evidence(), "echo done > result.txt")
			t.Logf("permission prompt at byte %d:\n%s", atPrompt, screen)
			require.Eventually(t, func() bool {
				if !strings.Contains(p.screen(), c.prompt) {
					return true
				}
				p.keys("Enter")
				return false
			}, time.Minute, time.Second, "the permission prompt did not take Enter")
			WaitFile(t, filepath.Join(dir, "result.txt"), time.Minute)
			screen = p.waitScreen("the end of the turn", time.Minute, "All done.", c.idle)
			m, ok = set.Match(strings.Split(screen, "\n"), "")
			assert.True(t, ok && m.State == agents.WaitingInput, "the rules do not see the idle prompt: %+v\n%s", m, screen)
			p.keys(c.quit...)
			if c.kind == Qwen {
				p.waitScreen("/quit typed", 10*time.Second, "/quit")
				p.keys("Enter")
			} else {
				p.keys(c.quit...)
			}
			p.waitDead(30 * time.Second)

			b, err := os.ReadFile(raw)
			require.NoError(t, err)
			// The emulator shows the prompt from the stream up to where
			// tmux showed it.
			var notes []vt.Notification
			var states []vt.AgentState
			term := vt.New(100, 30, vt.Options{
				OnNotify:     func(n vt.Notification) { notes = append(notes, n) },
				OnAgentState: func(s vt.AgentState) { states = append(states, s) },
			})
			_, _ = term.Write(b[:atPrompt])
			assert.Contains(t, term.Text(false), c.prompt, "vt does not show the permission prompt tmux showed")
			_, _ = term.Write(b[atPrompt:])
			for _, n := range notes {
				t.Logf("notification %s title %q body %q", n.Kind, printable.String(n.Title), printable.String(n.Body))
			}
			for _, s := range states {
				t.Logf("agent state %q", printable.String(s.Raw))
			}
			if c.kind == Codex {
				var got []string
				for _, s := range states {
					got = append(got, s.State+"/"+s.Kind)
				}
				assertInOrder(t, got, []string{"working/", "blocked/permission", "working/", "done/"})
			}
			if out := os.Getenv("ROSTRA_RECORD_TERM"); out != "" {
				name := filepath.Join(out, "agent-"+string(c.kind)+"-permission@100x30.bin")
				require.NoError(t, os.WriteFile(name, b, 0o644))
				t.Logf("wrote %s (%d bytes, the prompt at %d)", name, len(b), atPrompt)
			}
		})
	}
}

// newRecordedPane is a tmux pane of 100x30 whose output, from the CLI's
// first byte, goes to raw: the shell waits for pipe-pane before it starts
// the CLI.
func newRecordedPane(t *testing.T, shellLine, raw string) tmuxPane {
	t.Helper()
	p := tmuxPane{t: t, socket: "rostra-record-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(tmuxSeq.Add(1), 10)}
	stop, err := tmuxtest.Guard(p.socket)
	require.NoError(t, err)
	t.Cleanup(stop)
	// tmux wait-for: a signal sent before the shell waits is kept.
	p.run("new-session", "-d", "-s", "cli", "-x", "100", "-y", "30", "tmux wait-for rostra-go; "+shellLine)
	p.run("set-option", "-t", "cli", "remain-on-exit", "on")
	p.run("pipe-pane", "-O", "-t", "cli", "cat >> "+shellQuote(raw))
	p.run("wait-for", "-S", "rostra-go")
	return p
}

// waitDead waits until the pane's process has exited.
func (p tmuxPane) waitDead(timeout time.Duration) {
	p.t.Helper()
	require.Eventually(p.t, func() bool {
		return strings.TrimSpace(p.run("display", "-p", "-t", "cli", "#{pane_dead}")) == "1"
	}, timeout, 100*time.Millisecond, "the CLI did not exit after Ctrl-C Ctrl-C")
}

// ctrlC ends claude, codex and gemini.
var ctrlC = []string{"C-c"}

func fileSize(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return int(fi.Size())
}
