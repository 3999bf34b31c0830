// notify_test.go checks notify.go: the sequence each terminal is sent
// (by its XTVERSION answer, TERM_PROGRAM, TERM, its variables, and
// behind tmux with or without passthrough), the text escaped and cut,
// and a pane the human is typing into raising nothing in that UI while
// others do.
package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
)

var permission = engine.Notification{Run: "r", Worker: "w1", Attempt: 1, Kind: "permission", State: "waiting-permission", Why: "Bash(rm -rf build)", Method: "auto"}

func TestAlertSequencePerTerminal(t *testing.T) {
	const osc9 = "\x1b]9;rostra: w1: asks permission: Bash(rm -rf build)\a"
	const osc777 = "\x1b]777;notify;rostra: w1;asks permission: Bash(rm -rf build)\a"
	const osc99 = "\x1b]99;i=rostra-7:d=0;rostra: w1\x1b\\\x1b]99;i=rostra-7:d=1:p=body;asks permission: Bash(rm -rf build)\x1b\\"
	tmuxed := func(s string) string { return "\x1bPtmux;" + strings.ReplaceAll(s, "\x1b", "\x1b\x1b") + "\x1b\\" }
	cases := []struct {
		name    string
		env     []string
		version string
		method  string
		seq     string
		via     string
	}{
		{"kitty by XTVERSION", nil, "kitty(0.35.2)", "", osc99, "osc99"},
		{"WezTerm by XTVERSION", []string{"TERM=xterm-256color"}, "WezTerm 20240203-110809-5046fc22", "", osc9, "osc9"},
		{"ghostty by XTVERSION", nil, "ghostty 1.1.3", "", osc9, "osc9"},
		{"foot by XTVERSION", nil, "foot(1.16.2)", "", osc777, "osc777"},
		{"iTerm2 by TERM_PROGRAM", []string{"TERM_PROGRAM=iTerm.app"}, "", "", osc9, "osc9"},
		{"kitty by TERM", []string{"TERM=xterm-kitty"}, "", "", osc99, "osc99"},
		{"ghostty by TERM", []string{"TERM=xterm-ghostty"}, "", "", osc9, "osc9"},
		{"foot by TERM", []string{"TERM=foot-extra"}, "", "", osc777, "osc777"},
		{"WezTerm by its variable", []string{"TERM=xterm-256color", "WEZTERM_PANE=3"}, "", "", osc9, "osc9"},
		{"Konsole: the bell", []string{"KONSOLE_VERSION=230800"}, "", "", "\a", "bell"},
		{"xterm: the bell", []string{"TERM=xterm-256color"}, "XTerm(388)", "", "\a", "bell"},
		{"nothing known: the bell", nil, "", "", "\a", "bell"},
		{"set in the run file", []string{"TERM=xterm-kitty"}, "", "osc777", osc777, "osc777"},
		{"none", []string{"TERM=xterm-kitty"}, "", "none", "", ""},
		{"bell set", []string{"TERM=xterm-kitty"}, "", "bell", "\a", "bell"},
		{"kitty behind tmux with passthrough", []string{"TMUX=/tmp/tmux-0/default,1,0", "TERM=tmux-256color", "KITTY_WINDOW_ID=1", "ROSTRA_TMUX_PASSTHROUGH=on"}, "tmux 3.3a", "", tmuxed(osc99), "osc99 in tmux"},
		{"tmux by XTVERSION alone", []string{"ROSTRA_TMUX_PASSTHROUGH=all"}, "tmux 3.4", "osc9", tmuxed(osc9), "osc9 in tmux"},
		{"tmux without passthrough: the bell", []string{"TMUX=/t,1,0", "KITTY_WINDOW_ID=1", "ROSTRA_TMUX_PASSTHROUGH=off"}, "", "", "\a", "bell (osc99 not sent: tmux's allow-passthrough is off)"},
		{"tmux, passthrough unknown: the bell", []string{"TMUX=/t,1,0", "TERM_PROGRAM=tmux"}, "", "osc9", "\a", "bell (osc9 not sent: tmux's allow-passthrough unknown)"},
		{"tmux, terminal unknown: the bell", []string{"TMUX=/t,1,0", "ROSTRA_TMUX_PASSTHROUGH=on"}, "", "", "\a", "bell"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := permission
			if c.method != "" {
				n.Method = c.method
			}
			seq, via := alertSequence(n, alertTerminal(tea.EnvMsg(c.env), c.version), 7)
			assert.Equal(t, c.seq, seq)
			assert.Equal(t, c.via, via)
		})
	}
}

func TestAlertTextIsEscapedAndCut(t *testing.T) {
	n := permission
	n.Why = "Bash(printf '\x1b]52;c;aGk=\x07\x9b31m')" + strings.Repeat("x", 300)
	n.Worker = "w\x1b[2J"
	for _, method := range []string{"osc9", "osc777", "osc99"} {
		n.Method = method
		seq, _ := alertSequence(n, terminalInfo{}, 1)
		inner := seq
		for _, frame := range []string{"\x1b]9;", "\x1b]777;notify;", "\x1b]99;i=rostra-1:d=0;", "\x1b]99;i=rostra-1:d=1:p=body;", "\x1b\\", "\a"} {
			inner = strings.ReplaceAll(inner, frame, "")
		}
		assert.NotContains(t, inner, "\x1b", method)
		assert.NotContains(t, inner, "\a", method)
		assert.NotContains(t, inner, "\u009b", method)
		assert.Contains(t, inner, `\e]52`, method)
		assert.LessOrEqual(t, len([]rune(inner)), 2*alertText, method)
	}
	_, body := alertWords(n)
	assert.Len(t, []rune(body), alertText)
	assert.True(t, strings.HasSuffix(body, "…"))
}

// notifyModel sends n to m as an Announcer would and returns what m did.
func notifyModel(t *testing.T, m *Model, n engine.Notification) (NotifyReply, string) {
	t.Helper()
	reply := make(chan NotifyReply, 1)
	_, cmd := m.Update(Notify(n, reply))
	r := <-reply
	raw := ""
	if cmd != nil {
		for _, msg := range flatten(cmd) {
			if rm, ok := msg.(tea.RawMsg); ok {
				raw += rm.Msg.(string)
			}
		}
	}
	return r, raw
}

// flatten runs cmd and the commands of a batch it gives.
func flatten(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, flatten(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func TestAPaneTheHumanTypesIntoRaisesNothing(t *testing.T) {
	f := fakeRun(t, 2, 120, 30)
	now := testNow
	m := New(f, Options{Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(tea.EnvMsg{"TERM=xterm-ghostty"})
	focused, other := m.panes[0].spec.ID, m.panes[1].spec.ID
	n := permission
	n.Worker = focused

	r, raw := notifyModel(t, m, n)
	assert.Equal(t, NotifyReply{Via: "osc9"}, r, "focused but nothing typed: it alerts")
	assert.Equal(t, "\x1b]9;rostra: "+focused+": asks permission: Bash(rm -rf build)\a", raw)

	press(m, "i")
	require.Nil(t, m.Filter(m, keyMsg("y")))
	now = now.Add(5 * time.Second)
	r, raw = notifyModel(t, m, n)
	assert.Equal(t, NotifyReply{Quiet: true}, r, "typed into 5 s ago: quiet")
	assert.Empty(t, raw)

	n2 := n
	n2.Worker = other
	r, raw = notifyModel(t, m, n2)
	assert.Equal(t, "osc9", r.Via, "another pane alerts all the same")
	assert.Contains(t, raw, other)

	m.Update(tea.BlurMsg{})
	r, _ = notifyModel(t, m, n)
	assert.Equal(t, "osc9", r.Via, "the terminal lost the focus: the human is elsewhere")
	m.Update(tea.FocusMsg{})
	r, _ = notifyModel(t, m, n)
	assert.True(t, r.Quiet)

	now = now.Add(typingWindow)
	r, _ = notifyModel(t, m, n)
	assert.Equal(t, "osc9", r.Via, "nothing typed for typingWindow: it alerts")

	require.Nil(t, m.Filter(m, keyMsg("y")))
	press(m, "ctrl+]")
	r, _ = notifyModel(t, m, n)
	assert.Equal(t, "osc9", r.Via, "keys no longer go to the pane: it alerts")
}
