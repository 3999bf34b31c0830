// notify_test.go checks notify.go over fake surfaces and the fake clock:
// which changes notify, at most one per worker per notifyEvery, the
// kinds turned off, notify.command run with its placeholders filled (a
// real sh writing its argv to a file), its failure recorded, and no
// command while the human types into the pane.
package engine

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// announced records what the engine announced, and answers each with
// the delivery a test gives.
type announced struct {
	mu    sync.Mutex
	got   []Notification
	reply Delivery
}

func (a *announced) announce(n Notification) Delivery {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, n)
	return a.reply
}

func (a *announced) list() []Notification {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Notification(nil), a.got...)
}

// settled waits until every notification decided so far has been
// announced, its command has ended and its events are out.
func (h *harness) settled() {
	h.sync()
	h.eng.notify.running.Wait()
	h.sync()
}

// queued takes the events of type typ waiting in s, without waiting.
func queued(s *Subscription, typ string) []statedir.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []statedir.Event
	for _, ev := range s.queue {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	s.queue = nil
	return out
}

func notifyPlan(t *testing.T, n runfile.Notify) *runfile.Plan {
	p := testPlan(t, runfile.WorkerSpec{ID: "a", Agent: "claude", Command: []string{"claude", "{prompt}"}})
	p.Notify = n
	return p
}

// argvScript is a notify.command that writes its arguments, one a line,
// to file.
func argvScript(file string) []string {
	return []string{"sh", "-c", `printf '%s\n' "$@" > "$0"`, file, "{worker}", "{state}", "{why}", "{run}", "literal {{x}}"}
}

func TestNotifyAtMostOncePerWorkerPerTenSeconds(t *testing.T) {
	argv := filepath.Join(t.TempDir(), "argv")
	n := runfile.DefaultNotify()
	n.Command = argvScript(argv)
	h := startHarness(t, notifyPlan(t, n))
	a := &announced{reply: Delivery{Via: []string{"osc9", "bell"}}}
	h.eng.SetAnnouncer(a.announce)
	sub := h.eng.Subscribe()
	defer sub.Close()
	h.opened(h.pane)
	bash := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf build"}}

	h.eng.Hook("a", 1, "PermissionRequest", bash)
	h.settled()
	got := a.list()
	require.Len(t, got, 1)
	assert.Equal(t, Notification{Run: "t", Worker: "a", Attempt: 1, Kind: "permission", State: "waiting-permission", Why: "Bash(rm -rf build)", Method: "auto"}, got[0])
	evs := queued(sub, statedir.EventNotified)
	require.Len(t, evs, 1)
	assert.Equal(t, "permission", evs[0].Notify)
	assert.Equal(t, "waiting-permission", evs[0].AgentState)
	require.NotNil(t, evs[0].Clients)
	assert.Equal(t, 2, *evs[0].Clients)
	assert.Equal(t, "osc9, bell", evs[0].Via)
	assert.Equal(t, "a#1 notified (permission waiting-permission) to 2 client(s) by osc9, bell: Bash(rm -rf build)", evs[0].Describe("implementer", ""))
	b, err := os.ReadFile(argv)
	require.NoError(t, err, "notify.command ran")
	assert.Equal(t, "a\nwaiting-permission\nBash(rm -rf build)\nt\nliteral {x}\n", string(b), "each placeholder one argument, not through a shell")
	require.NoError(t, os.Remove(argv))

	// Approved, then the turn ends 5 s after the first: within 10 s of
	// it, no second notification, no second command.
	h.clock.Advance(2 * time.Second)
	h.eng.Hook("a", 1, "PostToolUse", bash)
	h.clock.Advance(3 * time.Second)
	h.eng.Hook("a", 1, "Stop", nil)
	h.settled()
	assert.Len(t, a.list(), 1, "two changes within 10 s: one notification")
	assert.Empty(t, queued(sub, statedir.EventNotified))
	assert.NoFileExists(t, argv)
	assert.Equal(t, "waiting-input", h.dispatch("a#1").AgentState, "the state itself changed")

	// 10 s after the first, the next wait notifies again.
	h.clock.Advance(5 * time.Second)
	h.eng.Hook("a", 1, "UserPromptSubmit", nil)
	h.eng.Hook("a", 1, "Stop", nil)
	h.settled()
	require.Len(t, a.list(), 2)
	assert.Equal(t, "input", a.list()[1].Kind)
	assert.Equal(t, "turn ended", a.list()[1].Why)
	assert.Len(t, queued(sub, statedir.EventNotified), 1)
	assert.FileExists(t, argv)
}

func TestNotifyKindsAndTheirDefaults(t *testing.T) {
	t.Run("input off, exited off by default, failed on", func(t *testing.T) {
		n := runfile.DefaultNotify()
		n.On[runfile.NotifyInput] = false
		p := notifyPlan(t, n)
		p.Workers[0].MaxAttempts = 1
		h := startHarness(t, p)
		a := &announced{}
		h.eng.SetAnnouncer(a.announce)
		fh := h.opened(h.pane)
		h.eng.Hook("a", 1, "Stop", nil)
		h.settled()
		assert.Empty(t, a.list(), "input is off")
		fh.finish(1)
		h.event(statedir.EventWorkerFailed)
		h.settled()
		got := a.list()
		require.Len(t, got, 1)
		assert.Equal(t, "failed", got[0].Kind)
		assert.Equal(t, "error", got[0].State)
		assert.Contains(t, got[0].Why, "exited with code 1")
	})
	t.Run("a failure with a retry to come tells no one", func(t *testing.T) {
		p := notifyPlan(t, runfile.DefaultNotify())
		p.Workers[0].MaxAttempts = 2
		h := startHarness(t, p)
		a := &announced{}
		h.eng.SetAnnouncer(a.announce)
		h.opened(h.pane).finish(1)
		h.event(statedir.EventWorkerRetry)
		h.settled()
		assert.Empty(t, a.list(), "attempt 1 of 2 failed: the retry is rostra's to make")
		h.clock.Advance(p.Workers[0].RetryBackoff + time.Second)
		h.opened(h.pane).finish(1)
		h.event(statedir.EventWorkerFailed)
		h.settled()
		got := a.list()
		require.Len(t, got, 1, "the last attempt failed: the human is told")
		assert.Equal(t, "failed", got[0].Kind)
		assert.Equal(t, 2, got[0].Attempt)
	})
	t.Run("exited on", func(t *testing.T) {
		n := runfile.DefaultNotify()
		n.On[runfile.NotifyExited] = true
		p := notifyPlan(t, n)
		p.Workers[0].MaxAttempts = 1
		h := startHarness(t, p)
		a := &announced{}
		h.eng.SetAnnouncer(a.announce)
		fh := h.opened(h.pane)
		h.write("out/a.txt", "done")
		fh.finish(0)
		h.event(statedir.EventWorkerCompleted)
		h.settled()
		got := a.list()
		require.Len(t, got, 1)
		assert.Equal(t, "exited", got[0].Kind)
		assert.Equal(t, "completed", got[0].State)
	})
	t.Run("a plan without a notify section notifies nothing", func(t *testing.T) {
		h := startHarness(t, notifyPlan(t, runfile.Notify{}))
		a := &announced{}
		h.eng.SetAnnouncer(a.announce)
		h.opened(h.pane)
		h.eng.Hook("a", 1, "PermissionRequest", nil)
		h.settled()
		assert.Empty(t, a.list())
	})
}

func TestNotifyCommandFailureIsAnEvent(t *testing.T) {
	n := runfile.DefaultNotify()
	n.Command = []string{"sh", "-c", `echo "first"; echo "no route to ntfy.sh: \033]52;c;aGk=\a" >&2; exit 3`}
	h := startHarness(t, notifyPlan(t, n))
	sub := h.eng.Subscribe()
	defer sub.Close()
	h.opened(h.pane)
	h.eng.Hook("a", 1, "PermissionRequest", nil)
	ev := h.event(statedir.EventNotifyFailed)
	assert.Equal(t, "a", ev.WorkerID)
	assert.Equal(t, `notify.command sh: exited with code 3: no route to ntfy.sh: \e]52;c;aGk=\x07`, ev.Reason, "its output's last line, escaped")
	h.settled()
	evs := queued(sub, statedir.EventNotified)
	require.Len(t, evs, 1, "headless: notified all the same")
	assert.Equal(t, 0, *evs[0].Clients)

	t.Run("a command that hangs is stopped", func(t *testing.T) {
		n := runfile.DefaultNotify()
		n.Timeout = 200 * time.Millisecond
		n.Command = []string{"sh", "-c", "sleep 30 & sleep 30"}
		h := startHarness(t, notifyPlan(t, n))
		h.opened(h.pane)
		h.eng.Hook("a", 1, "PermissionRequest", nil)
		ev := h.event(statedir.EventNotifyFailed)
		assert.Equal(t, "notify.command sh: still running after 200ms, stopped", ev.Reason)
	})
	t.Run("a program that is not there", func(t *testing.T) {
		n := runfile.DefaultNotify()
		n.Command = []string{"/nonexistent/ntfy", "{why}"}
		h := startHarness(t, notifyPlan(t, n))
		h.opened(h.pane)
		h.eng.Hook("a", 1, "PermissionRequest", nil)
		ev := h.event(statedir.EventNotifyFailed)
		assert.True(t, strings.HasPrefix(ev.Reason, "notify.command /nonexistent/ntfy: "), ev.Reason)
		assert.Contains(t, ev.Reason, "no such file or directory")
	})
}

func TestNotifyCommandSkippedWhileTheHumanTypesIntoThePane(t *testing.T) {
	argv := filepath.Join(t.TempDir(), "argv")
	n := runfile.DefaultNotify()
	n.Command = argvScript(argv)
	h := startHarness(t, notifyPlan(t, n))
	a := &announced{reply: Delivery{Quiet: 1}}
	h.eng.SetAnnouncer(a.announce)
	sub := h.eng.Subscribe()
	defer sub.Close()
	h.opened(h.pane)
	h.eng.Hook("a", 1, "PermissionRequest", nil)
	h.settled()
	require.Len(t, a.list(), 1)
	evs := queued(sub, statedir.EventNotified)
	require.Len(t, evs, 1)
	assert.Equal(t, 1, evs[0].Quiet)
	assert.Equal(t, 0, *evs[0].Clients)
	assert.NoFileExists(t, argv, "the human is at the pane: no command")
}
