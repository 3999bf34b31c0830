// notify.go decides when the human is told of a worker (docs/agents.md
// §Notifications): an agent that asks permission or waits at its prompt,
// an attempt that ended or failed, each kind as the run file's notify
// section says, at most one per worker per notifyEvery. The engine only
// decides: the attached UIs write the terminal's sequence (an Announcer,
// set by the server or the direct UI, hands it to each and says what each
// did), and the run file's notify.command runs here, once, off the loop,
// with a timeout. Each notification is a notified event; a command that
// fails is a notify-failed one.
//
// Data model: lastNotified (the loop's) holds when each worker was last
// notified; the announcer sits behind its own mutex, since the server
// sets it while the loop runs; running counts the commands not yet
// ended, so a test can wait for them.
package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// notifyEvery is the least time between two notifications of one worker.
const notifyEvery = 10 * time.Second

// Notification is one alert the engine decided on.
type Notification struct {
	Run     string
	Worker  string
	Attempt int
	Kind    string // one of runfile.NotifyKinds
	State   string // the agent state (waiting-permission, waiting-input) or the attempt's status
	Why     string // the evidence or the reason, as its source gave it: sanitise before showing
	Method  string // the run file's notify.method
}

// Delivery is what the attached UIs did with a notification: the
// sequence each alerted client was sent ("osc9", "bell", "osc99 in
// tmux"), and how many did not alert because the human types into that
// worker's pane there.
type Delivery struct {
	Via   []string
	Quiet int
}

// Announcer hands n to every attached UI and says what they did. It may
// take a moment (each UI answers from its own goroutine) but must not
// wait on the engine.
type Announcer func(n Notification) Delivery

// notifier is the engine's part of notifications.
type notifier struct {
	mu       sync.Mutex
	announce Announcer

	lastNotified map[string]time.Time // the loop's
	running      sync.WaitGroup       // notify.command runs not yet ended
}

// SetAnnouncer makes a the way notifications reach the attached UIs; nil:
// none is attached (headless), only notify.command runs.
func (e *Engine) SetAnnouncer(a Announcer) {
	e.notify.mu.Lock()
	e.notify.announce = a
	e.notify.mu.Unlock()
}

// notificationOf is the notification ev calls for, if any: an agent that
// began to wait for the human, an attempt that settled completed, failed
// or timed out. Whether its kind is on is the caller's to ask.
func notificationOf(ev statedir.Event) (kind, state string, ok bool) {
	switch ev.Type {
	case statedir.EventAgentState:
		switch ev.AgentState {
		case string(agents.WaitingPermission):
			return runfile.NotifyPermission, ev.AgentState, true
		case string(agents.WaitingInput):
			return runfile.NotifyInput, ev.AgentState, true
		}
	case statedir.EventWorkerCompleted:
		return runfile.NotifyExited, ev.Status, true
	case statedir.EventWorkerFailed, statedir.EventWorkerTimeout:
		return runfile.NotifyFailed, ev.Status, true
	}
	return "", "", false
}

// maybeNotify notifies of ev when it calls for a notification whose kind
// is on and its worker was not notified in the last notifyEvery. It runs
// on the loop, from emit; the announcement and the command run on a
// goroutine of their own.
func (e *Engine) maybeNotify(ev statedir.Event) {
	kind, state, ok := notificationOf(ev)
	if !ok || e.shuttingDown || !e.plan.Notify.Enabled(kind) || ev.WorkerID == "" {
		return
	}
	if kind == runfile.NotifyFailed {
		// A failure is the human's when no retry follows: the settlement
		// that emitted it decides that next, so it is looked at once the
		// loop has done so (a flaky worker's first attempt tells no one).
		e.post(func() {
			w := e.byID[ev.WorkerID]
			if w == nil || e.shuttingDown || statedir.Unsettled(e.st.Workers[w.idx].Status) {
				return
			}
			e.sendNotification(ev, kind, state)
		})
		return
	}
	e.sendNotification(ev, kind, state)
}

// sendNotification sends the notification of ev unless its worker was
// notified in the last notifyEvery.
func (e *Engine) sendNotification(ev statedir.Event, kind, state string) {
	nt := &e.notify
	nt.mu.Lock()
	announce := nt.announce
	nt.mu.Unlock()
	cfg := e.plan.Notify
	if announce == nil && len(cfg.Command) == 0 {
		return // no UI can be attached and no command runs: no one to tell
	}
	now := e.clock.Now()
	if last, seen := nt.lastNotified[ev.WorkerID]; seen && now.Sub(last) < notifyEvery {
		return
	}
	if nt.lastNotified == nil {
		nt.lastNotified = map[string]time.Time{}
	}
	nt.lastNotified[ev.WorkerID] = now
	n := Notification{Run: e.plan.Name, Worker: ev.WorkerID, Attempt: ev.Attempt, Kind: kind, State: state, Why: ev.Reason, Method: e.plan.Notify.Method}
	nt.running.Add(1)
	go func() {
		defer nt.running.Done()
		var d Delivery
		if announce != nil {
			d = announce(n)
		}
		e.post(func() { e.notified(n, d) })
		// The human types into that pane: they see it, their phone need not.
		if len(cfg.Command) == 0 || d.Quiet > 0 {
			return
		}
		if why := e.runNotifyCommand(cfg, n); why != "" {
			e.post(func() {
				e.emit(statedir.Event{Type: statedir.EventNotifyFailed, WorkerID: n.Worker, Attempt: n.Attempt, Notify: n.Kind, Reason: why})
			})
		}
	}()
}

// notified records what a notification became.
func (e *Engine) notified(n Notification, d Delivery) {
	clients := len(d.Via)
	e.emit(statedir.Event{Type: statedir.EventNotified, WorkerID: n.Worker, Attempt: n.Attempt, Notify: n.Kind,
		AgentState: n.State, Reason: n.Why, Clients: &clients, Via: strings.Join(d.Via, ", "), Quiet: d.Quiet})
}

// notifyOutputMax bounds how much of the command's output is kept, for
// the reason of its failure; the rest is dropped, never shown.
const notifyOutputMax = 4 << 10

// runNotifyCommand runs notify.command for n, not through a shell, in the
// workspace, with nothing on its stdin and its output kept apart from
// the UI, and stops its process group once cfg.Timeout has passed or the
// engine shuts down. It returns why it failed, "" when it did not.
func (e *Engine) runNotifyCommand(cfg runfile.Notify, n Notification) string {
	argv, err := cfg.ExpandCommand(map[string]string{"worker": n.Worker, "state": n.State, "why": n.Why, "run": n.Run})
	if err != nil {
		return fmt.Sprintf("notify.command: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	go func() {
		select {
		case <-e.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = e.plan.Workspace
	cmd.Env = e.opts.Environ
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	out := &capped{max: notifyOutputMax}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if err == nil {
		return ""
	}
	why := fmt.Sprintf("notify.command %s", argv[0])
	var exit *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why += fmt.Sprintf(": still running after %s, stopped", cfg.Timeout)
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		why += fmt.Sprintf(": exited with code %d", exit.ExitCode())
	default:
		why += ": " + err.Error()
	}
	if last := lastLine(out.b.String()); last != "" {
		why += ": " + printable.String(last)
	}
	return why
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// lastLine is the last line of s that holds more than blanks.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
