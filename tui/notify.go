// notify.go alerts this UI's terminal when the engine notifies the human
// (docs/agents.md §Notifications): the engine decides, an Announcer hands
// each attached UI a Notify message, and each writes the sequence its
// own terminal understands, at once (tea.Raw is written as soon as it is
// queued, not with the next frame), or nothing when the human is typing
// into that worker's pane in this UI. Each answers with what it did, so
// the engine's notified event can say how many clients were alerted.
//
// Data model: alerts holds what this UI knows of its terminal (its
// environment, from tea.EnvMsg: the client's in a server; its XTVERSION
// answer) and the last key typed into a pane (typedInto, typedAt); it
// picks the sequence per notification, so an answer arriving late still
// counts.
package tui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
)

// typingWindow is how recently a key must have been typed into the
// focused pane for its own notifications to stay quiet in this UI.
const typingWindow = 30 * time.Second

// TmuxPassthroughEnv is the variable that carries, to a UI, the outer
// tmux's allow-passthrough for the client's pane (off, on or all), as the
// client asked its tmux; unset when it could not ask.
const TmuxPassthroughEnv = "ROSTRA_TMUX_PASSTHROUGH"

// alerts is what a UI knows to alert its terminal.
type alerts struct {
	env       tea.EnvMsg
	version   string // the terminal's XTVERSION answer ("kitty(0.35.2)", "tmux 3.3a")
	typedInto string // the worker whose pane a key was last typed into
	typedAt   time.Time
	seq       int // numbers OSC 99 notifications
}

// typed records a key or paste sent to worker's pane.
func (a *alerts) typed(worker string, now time.Time) { a.typedInto, a.typedAt = worker, now }

// NotifyReply is what one UI did with a notification: Via names the
// sequence it wrote ("" when none), Quiet says it wrote none because the
// human types into that worker's pane.
type NotifyReply struct {
	Via   string
	Quiet bool
}

// notifyMsg asks the UI to alert its terminal of n.
type notifyMsg struct {
	n     engine.Notification
	reply chan<- NotifyReply
}

// Notify is the message that asks a UI to alert its terminal of n; it
// answers on reply, which must have room for the answer.
func Notify(n engine.Notification, reply chan<- NotifyReply) tea.Msg {
	return notifyMsg{n: n, reply: reply}
}

// Announce hands n to each program and gathers their answers, waiting at
// most wait for those that are slow (a program that has ended never
// answers): the engine's Announcer for the UIs of one process.
func Announce(progs []*tea.Program, n engine.Notification, wait time.Duration) engine.Delivery {
	replies := make(chan NotifyReply, len(progs))
	for _, p := range progs {
		go p.Send(Notify(n, replies))
	}
	return GatherReplies(replies, len(progs), wait)
}

// GatherReplies reads count answers to one notification from replies,
// waiting at most wait in all, and says what they did: the alerts sent
// and the UIs that stayed quiet for their human typing into the pane.
func GatherReplies(replies <-chan NotifyReply, count int, wait time.Duration) engine.Delivery {
	var d engine.Delivery
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for range count {
		select {
		case r := <-replies:
			if r.Quiet {
				d.Quiet++
			} else if r.Via != "" {
				d.Via = append(d.Via, r.Via)
			}
		case <-deadline.C:
			return d
		}
	}
	return d
}

// onNotify writes n's sequence to the terminal, unless the human is
// typing into n's worker's pane here.
func (m *Model) onNotify(msg notifyMsg) tea.Cmd {
	var r NotifyReply
	var cmd tea.Cmd
	if m.typingInto(msg.n.Worker, m.opts.Now()) {
		r.Quiet = true
	} else {
		m.alerts.seq++
		var seq string
		seq, r.Via = alertSequence(msg.n, alertTerminal(m.alerts.env, m.alerts.version), m.alerts.seq)
		if seq != "" {
			cmd = tea.Raw(seq)
		}
	}
	select {
	case msg.reply <- r:
	default:
	}
	return cmd
}

// typingInto reports whether the human is typing into worker's pane in
// this UI: it is the focused pane, keys go to it, one was typed in the
// last typingWindow, and the terminal has not said it lost the focus.
func (m *Model) typingInto(worker string, now time.Time) bool {
	return m.mode == modeInput && !m.blurred && m.focused().spec.ID == worker &&
		m.alerts.typedInto == worker && now.Sub(m.alerts.typedAt) < typingWindow
}

// terminalInfo is what decides the sequence: the terminal behind
// everything, when known ("kitty", "wezterm", "iterm2", "ghostty",
// "foot", "konsole"; "" when not), whether an outer tmux sits between,
// and that tmux's allow-passthrough ("" when unknown).
type terminalInfo struct {
	name        string
	tmux        bool
	passthrough string
}

// alertTerminal reads what a UI knows of its terminal: the XTVERSION
// answer, then TERM_PROGRAM, TERM and the variables each terminal sets.
// Behind tmux the answer and TERM are tmux's own: only the variables the
// outer terminal left in tmux's environment tell.
func alertTerminal(env tea.EnvMsg, version string) terminalInfo {
	get := func(k string) string {
		if env == nil {
			return ""
		}
		return env.Getenv(k)
	}
	v := strings.ToLower(version)
	t := terminalInfo{tmux: get("TMUX") != "" || strings.HasPrefix(v, "tmux"), passthrough: get(TmuxPassthroughEnv)}
	if !t.tmux {
		for _, name := range []string{"kitty", "wezterm", "iterm2", "ghostty", "foot", "konsole"} {
			if strings.HasPrefix(v, name) {
				t.name = name
				return t
			}
		}
		switch get("TERM_PROGRAM") {
		case "iTerm.app":
			t.name = "iterm2"
		case "WezTerm":
			t.name = "wezterm"
		case "ghostty":
			t.name = "ghostty"
		}
		switch term := get("TERM"); {
		case t.name != "":
		case term == "xterm-kitty":
			t.name = "kitty"
		case term == "xterm-ghostty":
			t.name = "ghostty"
		case term == "wezterm":
			t.name = "wezterm"
		case term == "foot" || strings.HasPrefix(term, "foot-"):
			t.name = "foot"
		}
		if t.name != "" {
			return t
		}
	}
	switch {
	case get("KITTY_WINDOW_ID") != "":
		t.name = "kitty"
	case get("WEZTERM_PANE") != "":
		t.name = "wezterm"
	case get("LC_TERMINAL") == "iTerm2" || get("ITERM_SESSION_ID") != "":
		t.name = "iterm2"
	case get("GHOSTTY_RESOURCES_DIR") != "":
		t.name = "ghostty"
	case get("KONSOLE_VERSION") != "":
		t.name = "konsole"
	}
	return t
}

// methodOf is the sequence auto picks for a terminal: kitty's own OSC 99,
// OSC 9 for WezTerm, iTerm2 and ghostty, OSC 777 for foot; the bell for
// the rest (Konsole included: docs/agents.md §Notifications).
func methodOf(terminal string) string {
	switch terminal {
	case "kitty":
		return "osc99"
	case "wezterm", "iterm2", "ghostty":
		return "osc9"
	case "foot":
		return "osc777"
	}
	return "bell"
}

// alertText bounds what a notification says.
const alertText = 200

// alertSequence is the bytes that alert a terminal t of n, and how they
// are named in the notified event ("" and "" for method none). Behind
// tmux an OSC goes through its passthrough when tmux allows it, else
// the bell does, which tmux passes on itself.
func alertSequence(n engine.Notification, t terminalInfo, id int) (seq, via string) {
	method := n.Method
	if method == "" || method == "auto" {
		method = methodOf(t.name)
	}
	if method == "none" {
		return "", ""
	}
	if t.tmux && method != "bell" {
		switch t.passthrough {
		case "on", "all":
		case "":
			return "\a", "bell (" + method + " not sent: tmux's allow-passthrough unknown)"
		default:
			return "\a", "bell (" + method + " not sent: tmux's allow-passthrough is " + printable.String(t.passthrough) + ")"
		}
	}
	title, body := alertWords(n)
	switch method {
	case "osc9":
		seq = "\x1b]9;" + title + ": " + body + "\a"
	case "osc777":
		seq = "\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + strings.ReplaceAll(body, ";", ",") + "\a"
	case "osc99":
		ident := "rostra-" + strconv.Itoa(id)
		seq = "\x1b]99;i=" + ident + ":d=0;" + title + "\x1b\\" + "\x1b]99;i=" + ident + ":d=1:p=body;" + body + "\x1b\\"
	default:
		return "\a", "bell"
	}
	if t.tmux {
		return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\", method + " in tmux"
	}
	return seq, method
}

// alertWords are a notification's title and body, with every control
// character escaped (no byte of an agent's evidence reaches the
// terminal raw) and the body cut to alertText characters.
func alertWords(n engine.Notification) (title, body string) {
	title = printable.String("rostra: " + n.Worker)
	why := n.Why
	switch n.Kind {
	case runfile.NotifyPermission:
		body = "asks permission"
	case runfile.NotifyInput:
		body = "waits for you"
	case runfile.NotifyExited:
		body = "ended"
	case runfile.NotifyFailed:
		body = "failed"
	default:
		body = n.State
	}
	if why != "" {
		body += ": " + why
	}
	body = printable.String(body)
	if r := []rune(body); len(r) > alertText {
		body = string(r[:alertText-1]) + "…"
	}
	return title, body
}
