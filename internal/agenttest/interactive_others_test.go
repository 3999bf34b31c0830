// Tests of codex, gemini and qwen run interactively in tmux with their
// permission prompt for the shell tool: the prompt is given on the command
// line, the permission hook fires, the test approves with keys, the file
// appears. codex's own terminal state (OSC 7501) and its notify program
// are recorded too, from the pane's raw output (pipe-pane).
package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/internal/printable"
)

func TestInteractivePermissionOthers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind      Kind
		escalate  bool // the tool call asks to leave the sandbox
		setup     func(a *Agent, l *HookLog, notify string) []string
		permEvent string // the hook that fires as the prompt is drawn
		prompt    string // text of the permission prompt on screen
		approve   []string
		endEvent  string   // the hook that fires as the turn ends
		wantOSC   []string // OSC sequences its output must hold, in order
	}{
		{Codex, true, func(a *Agent, l *HookLog, notify string) []string {
			return append(l.CodexArgs(),
				"-c", `notify=["sh","-c","printf '%s\\n' \"$1\" >> `+notify+`","notify"]`,
				"-a", "on-request", "-s", "read-only", "write the result file")
		}, "PermissionRequest", "Would you like to run the following command?", []string{"Enter"}, "Stop",
			[]string{"7501;state=working:app=codex", "7501;state=blocked:app=codex:kind=permission", "7501;state=working:app=codex", "7501;state=done:app=codex"}},
		{Gemini, false, func(a *Agent, l *HookLog, notify string) []string {
			a.SetEnv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", l.GeminiSettings(t))
			return []string{"--approval-mode", "default", "-i", "write the result file"}
		}, "Notification", "Allow execution", []string{"Enter"}, "AfterAgent",
			[]string{"0;✦  Working…", "0;✋  Action Required", "0;✦  Working…", "0;◇  Ready"}},
		{Qwen, false, func(a *Agent, l *HookLog, notify string) []string {
			a.SetEnv("QWEN_CODE_SYSTEM_SETTINGS_PATH", l.QwenSettings(t))
			return []string{"--approval-mode", "default", "-i", "write the result file"}
		}, "PermissionRequest", "Allow execution", []string{"Enter"}, "Stop", nil},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			script := toolScript()
			script.Turns[0].Escalate = c.escalate
			srv := fakemodel.Start(t, script)
			dir := t.TempDir()
			a := New(t, c.kind, srv.URL(), dir)
			l := NewHookLog(t)
			notify := filepath.Join(t.TempDir(), "notify.log")
			p := newTmuxPane(t, a.ShellLine(c.setup(a, l, shellQuote(notify))...))
			raw := filepath.Join(t.TempDir(), "raw")
			p.run("pipe-pane", "-O", "-t", "cli", "cat >> "+shellQuote(raw))
			t.Cleanup(func() {
				if t.Failed() {
					b, _ := os.ReadFile(raw)
					if len(b) > 300000 {
						b = b[len(b)-3000:]
					}
					t.Logf("the screen at the failure:\n%s\nthe pane's last output: %s\nrequests:\n%s", p.screen(), printable.String(string(b)), srv.Summary())
				}
			})

			perm := l.Wait(t, c.permEvent, 2*time.Minute)
			screen := p.waitScreen("the permission prompt", time.Minute, c.prompt)
			t.Logf("permission prompt (%s hook %s):\n%s", c.permEvent, eventFields(perm), screen)
			_, err := os.Stat(filepath.Join(dir, "result.txt"))
			require.True(t, os.IsNotExist(err), "the command ran before it was approved")
			presses := 0
			require.Eventually(t, func() bool {
				if !strings.Contains(p.screen(), c.prompt) {
					return true
				}
				presses++
				p.keys(c.approve...)
				return false
			}, 2*time.Minute, time.Second, "the permission prompt did not take %q", c.approve)
			t.Logf("approved with %d presses", presses)
			WaitFile(t, filepath.Join(dir, "result.txt"), 2*time.Minute)
			l.Wait(t, c.endEvent, 2*time.Minute)
			second := srv.WaitMain(2, 10*time.Second)
			assert.True(t, second.Contains("marker-wrote-result"), "the second main request does not carry the tool's output")
			p.waitScreen("the model's last text", time.Minute, "All done.")
			calls := l.Calls(t)
			for _, call := range calls {
				t.Logf("%s %+.3fs %s", call.Event, call.At.Sub(calls[0].At).Seconds(), eventFields(call))
			}
			if b, err := os.ReadFile(notify); err == nil {
				t.Logf("notify calls:\n%s", b)
			}
			t.Logf("requests:\n%s", srv.Summary())
			// The title or state drawn last may come after the text.
			seqs := waitOSC(t, raw, c.wantOSC, time.Minute)
			for _, osc := range seqs {
				t.Logf("OSC %s", printable.String(osc))
			}
		})
	}
}

// waitOSC waits up to timeout for the raw output in path to hold OSC
// sequences beginning with each of want, in want's order, and returns
// them all.
func waitOSC(t *testing.T, path string, want []string, timeout time.Duration) []string {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Add(filepath.Dir(path)))
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		b, _ := os.ReadFile(path)
		got := oscs(string(b))
		i := 0
		for _, g := range got {
			if i < len(want) && strings.HasPrefix(g, want[i]) {
				i++
			}
		}
		if i == len(want) {
			return got
		}
		select {
		case <-w.Events:
		case <-deadline.C:
			t.Fatalf("the output's OSC sequences lack %q (in this order) after %v; they are:\n%s", want, timeout, printable.Lines(strings.Join(got, "\n")))
		}
	}
}

// oscs are the OSC sequences other than titles' and colours' in raw
// terminal output, as ESC ] ... (BEL or ST).
func oscs(raw string) []string {
	var out []string
	for {
		i := strings.Index(raw, "\x1b]")
		if i < 0 {
			return out
		}
		raw = raw[i+2:]
		end := strings.IndexAny(raw, "\x07\x1b")
		if end < 0 {
			return out
		}
		seq := raw[:end]
		out = append(out, seq)
		raw = raw[end:]
	}
}
