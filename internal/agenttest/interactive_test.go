// Tests of claude run interactively, in a real pty in tmux, with its
// permission prompt: the model asks for a shell command, claude asks the
// human, the test approves with keys as a person would, the file appears,
// and the recording hooks show which events fired and when.
package agenttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/internal/tmuxtest"
)

// tmuxPane is a tmux server of the test's own with one session, "cli".
type tmuxPane struct {
	t      *testing.T
	socket string
}

var tmuxSeq atomic.Int64

func newTmuxPane(t *testing.T, shellLine string) tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test needs tmux (apt-get install -y tmux); it never skips")
	}
	p := tmuxPane{t: t, socket: "rostra-agent-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(tmuxSeq.Add(1), 10)}
	// After the server's end (cleanups run last first): what the CLI left
	// running is ended before the test's folders are removed.
	var sid int
	t.Cleanup(func() { tmuxtest.EndSession(sid) })
	stop, err := tmuxtest.Guard(p.socket)
	require.NoError(t, err)
	t.Cleanup(stop)
	// remain-on-exit keeps the pane, and the CLI's last words, after it exits.
	p.run("new-session", "-d", "-s", "cli", "-x", "120", "-y", "40", shellLine)
	p.run("set-option", "-t", "cli", "remain-on-exit", "on")
	sid, _ = strconv.Atoi(strings.TrimSpace(p.run("display-message", "-p", "-t", "cli", "#{pane_pid}")))
	return p
}

func (p tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	require.NoError(p.t, err, "tmux %v: %s", args, out)
	return string(out)
}

func (p tmuxPane) screen() string { return p.run("capture-pane", "-p", "-t", "cli") }

func (p tmuxPane) keys(keys ...string) { p.run(append([]string{"send-keys", "-t", "cli"}, keys...)...) }

// submitPrompt presses Enter on a typed prompt until the model server has
// its first request: a CLI still starting (gemini under load) may drop the
// first Enter, and an Enter on an empty prompt submits nothing twice.
func submitPrompt(t *testing.T, p tmuxPane, srv *fakemodel.Server) {
	t.Helper()
	require.Eventually(t, func() bool {
		if len(srv.MainRequests()) > 0 {
			return true
		}
		p.keys("Enter")
		return false
	}, 2*time.Minute, 5*time.Second, "the CLI never sent the typed prompt to the model server")
}

// waitScreen waits until the screen shows every one of want (tmux gives
// no event for a screen change; capture-pane is asked, as the UI
// end-to-end tests of cmd/rostra do).
func (p tmuxPane) waitScreen(what string, timeout time.Duration, want ...string) string {
	p.t.Helper()
	var last string
	ok := assert.Eventually(p.t, func() bool {
		last = p.screen()
		for _, w := range want {
			if !strings.Contains(last, w) {
				return false
			}
		}
		return true
	}, timeout, 100*time.Millisecond)
	if !ok {
		p.t.Fatalf("%s: the screen never showed %q; it shows:\n%s", what, want, last)
	}
	return last
}

func TestClaudeInteractivePermission(t *testing.T) {
	t.Parallel()
	srv := fakemodel.Start(t, toolScript())
	dir := t.TempDir()
	a := New(t, Claude, srv.URL(), dir)
	hooks := NewHookLog(t)
	settings := hooks.ClaudeSettings(t)
	const session = "5f0c6a52-7a3e-4c1e-9d55-1f6a2b3c4d5e"
	p := newTmuxPane(t, a.ShellLine("--permission-mode", "default", "--settings", settings, "--session-id", session))

	start := hooks.Wait(t, "SessionStart", 2*time.Minute)
	assert.Equal(t, session, start.Payload["session_id"], "claude's hooks carry the session id it was given")
	p.waitScreen("claude's prompt", 2*time.Minute, "? for shortcuts")
	p.keys("-l", "write the result file")
	submitPrompt(t, p, srv)

	perm := hooks.Wait(t, "PermissionRequest", 2*time.Minute)
	screen := p.waitScreen("the permission prompt", time.Minute, "Do you want to proceed?")
	t.Logf("permission prompt:\n%s", screen)
	assert.Equal(t, "Bash", perm.Payload["tool_name"])
	_, err := os.Stat(filepath.Join(dir, "result.txt"))
	require.True(t, os.IsNotExist(err), "the command ran before it was approved")

	// claude's own Notification (permission_prompt) comes seconds after the
	// prompt is drawn; waiting for it here measures how late.
	note := hooks.Wait(t, "Notification", 2*time.Minute)
	assert.Equal(t, "permission_prompt", note.Payload["notification_type"])
	t.Logf("Notification %v after PermissionRequest: %s", note.At.Sub(perm.At), eventFields(note))

	// "1. Yes" is selected: Enter approves. claude ignores keys for a
	// moment after it draws the prompt (against approving by accident
	// while typing), so Enter is pressed again until the prompt is gone.
	presses := 0
	require.Eventually(t, func() bool {
		if !strings.Contains(p.screen(), "Do you want to proceed?") {
			return true
		}
		presses++
		p.keys("Enter")
		return false
	}, 2*time.Minute, time.Second, "the permission prompt did not take Enter")
	t.Logf("Enter pressed %d times, %v after the PermissionRequest hook", presses, time.Since(perm.At))
	WaitFile(t, filepath.Join(dir, "result.txt"), 2*time.Minute)
	stop := hooks.Wait(t, "Stop", 2*time.Minute)
	p.waitScreen("the model's last text", time.Minute, "All done.")
	second := srv.WaitMain(2, 10*time.Second)
	assert.True(t, second.Contains("marker-wrote-result"), "the second main request does not carry the tool's output")

	// Ctrl-C twice quits, the second once claude says so: two sent at once
	// may be read as one key on a loaded machine.
	p.keys("C-c")
	p.waitScreen("the quit hint", time.Minute, "again to exit")
	p.keys("C-c")
	hooks.Wait(t, "SessionEnd", 2*time.Minute)
	calls := hooks.Calls(t)
	for _, c := range calls {
		t.Logf("%s %+.3fs %s", c.Event, c.At.Sub(start.At).Seconds(), eventFields(c))
	}
	assert.True(t, stop.At.After(perm.At))
	t.Logf("requests:\n%s", srv.Summary())
}

// eventFields is a hook call's payload less the fields every call has,
// for the log.
func eventFields(c HookCall) string {
	m := map[string]any{}
	for k, v := range c.Payload {
		switch k {
		case "session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode", "prompt_id", "timestamp":
		default:
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return printable.String(string(b))
}
