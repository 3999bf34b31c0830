// notify_e2e_test.go checks that a worker waiting for the human reaches
// the human's terminal (docs/agents.md §Notifications), with the real
// binary in a tmux of its own, served (rostra run --detach, then two
// rostra attach, in terminals that say they are kitty and WezTerm) and direct (rostra run
// --no-server with notify.method: osc9). Scripted children emit OSC 9,
// OSC 777, OSC 99 and OSC 7501 (codex's program status) in their panes;
// the bytes rostra writes to its terminal, recorded with pipe-pane, must
// hold rostra's own notification of each, through tmux's passthrough
// (allow-passthrough on), and none of the children's sequences; the one
// pane the human is typing into raises nothing; the child that says two
// states at once is notified once; notify.command runs once per
// notification with its arguments; events.jsonl says what was sent and
// to how many clients.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

const notifyRunFile = `version: 1
name: notify
workspace: .
ui: { theme: dark }
notify:
  method: METHOD
  command: [sh, -c, 'printf "%s\n" "$@" >> "$0/$1"', calls, "{worker}", "{state}", "{why}", "{run}"]
providers:
  fake-agent: { command: ["bash", "-c", "{prompt}"], agent: codex }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: w-typed
    provider: fake-agent
    prompt: "echo type to me; read line; printf '\\033]7501;state=blocked:app=codex:kind=permission\\a'; echo asked; exec sleep 300"
    completion: { result: out/a.txt }
  - id: w-osc9
    provider: fake-agent
    prompt: "echo nine; until [ -e {workspace}/go ]; do sleep 0.05; done; printf '\\033]9;child-secret-9 Approval needed for rm -rf build\\a'; echo sent; exec sleep 300"
    completion: { result: out/b.txt }
  - id: w-osc777
    provider: fake-agent
    prompt: "echo seven; until [ -e {workspace}/go ]; do sleep 0.05; done; printf '\\033]777;notify;child-secret-777;Your turn\\a'; echo sent; exec sleep 300"
    completion: { result: out/c.txt }
  - id: w-osc99
    provider: fake-agent
    prompt: "echo kitty; until [ -e {workspace}/go ]; do sleep 0.05; done; printf '\\033]99;;child-secret-99 permission wanted\\033\\\\'; echo sent; exec sleep 300"
    completion: { result: out/d.txt }
  - id: w-7501
    provider: fake-agent
    prompt: "echo status; until [ -e {workspace}/go ]; do sleep 0.05; done; printf '\\033]7501;state=working:app=codex\\a'; sleep 0.2; printf '\\033]7501;state=blocked:app=codex:kind=permission\\a'; sleep 0.2; printf '\\033]7501;state=done:app=codex\\a'; echo sent; exec sleep 300"
    completion: { result: out/e.txt }
`

func TestNotificationsReachTheTerminalInTmux(t *testing.T) {
	t.Run("served, to two clients: kitty and WezTerm behind tmux", func(t *testing.T) {
		ws := notifyWorkspace(t, "auto")
		detachedRun(t, ws)
		kitty := func(worker, body string) *regexp.Regexp {
			return regexp.MustCompile(regexp.QuoteMeta("\x1bPtmux;\x1b\x1b]99;i=rostra-") + `\d+` + regexp.QuoteMeta(":d=0;rostra: "+worker+"\x1b\x1b\\\x1b\x1b]99;i=rostra-") + `\d+` + regexp.QuoteMeta(":d=1:p=body;"+body+"\x1b\x1b\\\x1b\\"))
		}
		wezterm := func(worker, body string) *regexp.Regexp {
			return regexp.MustCompile(regexp.QuoteMeta("\x1bPtmux;\x1b\x1b]9;rostra: " + worker + ": " + body + "\a\x1b\\"))
		}
		notifyInTmux(t, ws, []notifyClient{
			{"env KITTY_WINDOW_ID=7 " + rostraBin + " attach", kitty, "osc99 in tmux"},
			{"env WEZTERM_PANE=3 " + rostraBin + " attach", wezterm, "osc9 in tmux"},
		})
	})
	t.Run("direct, osc9 from the run file", func(t *testing.T) {
		ws := notifyWorkspace(t, "osc9")
		notifyInTmux(t, ws, []notifyClient{{rostraBin + " run --no-server", func(worker, body string) *regexp.Regexp {
			return regexp.MustCompile(regexp.QuoteMeta("\x1bPtmux;\x1b\x1b]9;rostra: " + worker + ": " + body + "\a\x1b\\"))
		}, "osc9 in tmux"}})
	})
}

// notifyClient is one UI of the run in a terminal: the command that
// runs it, the pattern of rostra's notification of a worker there, and
// how events.jsonl names that sequence.
type notifyClient struct {
	command string
	seq     func(worker, body string) *regexp.Regexp
	via     string
}

func notifyWorkspace(t *testing.T, method string) string {
	ws := runWorkspace(t, strings.Replace(notifyRunFile, "METHOD", method, 1))
	require.NoError(t, os.Mkdir(filepath.Join(ws, "calls"), 0o755))
	return ws
}

// notifyInTmux runs each client (a UI of the run in ws) in a session of
// one tmux that allows passthrough, the first one typed into, sets the
// children off and checks what reached each terminal.
func notifyInTmux(t *testing.T, ws string, clients []notifyClient) {
	s := newTmux(t, "notify")
	s.run("start-server", ";", "set", "-g", "exit-empty", "off", ";", "set", "-g", "allow-passthrough", "on")
	raws := make([]string, len(clients))
	exits := make([]string, len(clients))
	for i, c := range clients {
		name := "ui"
		if i > 0 {
			name = "ui" + strconv.Itoa(i)
		}
		raws[i] = filepath.Join(ws, name+".bin")
		exits[i] = filepath.Join(ws, name+".exit")
		s.run("new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", ws,
			c.command+" 2>"+filepath.Join(ws, name+".stderr")+"; echo $? > "+exits[i]+"; sleep 60")
		exit := exits[i]
		t.Cleanup(func() {
			shell := strings.TrimSpace(s.run("list-panes", "-t", name, "-F", "#{pane_pid}"))
			_ = exec.Command("pkill", "-TERM", "-P", shell).Run()
			require.Eventually(t, func() bool {
				_, err := os.Stat(exit)
				return err == nil
			}, 30*time.Second, 20*time.Millisecond, "rostra did not exit after SIGTERM")
		})
		s.run("pipe-pane", "-O", "-t", name, "cat >> "+raws[i])
		// Each UI up before the children speak: screen shows the panes.
		require.Eventually(t, func() bool {
			sc := s.run("capture-pane", "-p", "-t", name)
			return strings.Contains(sc, "type to me") && strings.Contains(sc, "status")
		}, 15*time.Second, 50*time.Millisecond, "client %d never drew the panes", i)
	}
	stateDir := filepath.Join(ws, ".rostra", "notify")
	events := func() []statedir.Event {
		evs, _ := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
		return evs
	}
	notified := func(worker string) []statedir.Event {
		var out []statedir.Event
		for _, ev := range events() {
			if ev.Type == statedir.EventNotified && ev.WorkerID == worker {
				out = append(out, ev)
			}
		}
		return out
	}
	waitNotified := func(worker string) statedir.Event {
		t.Helper()
		require.Eventually(t, func() bool { return len(notified(worker)) > 0 }, 15*time.Second, 50*time.Millisecond, "%s was never notified; events: %+v", worker, events())
		return notified(worker)[0]
	}

	// The human types into w-typed (focused first), whose child then asks
	// for a permission: nothing is raised on this terminal for it.
	s.keys("i")
	s.waitScreen("typing", "INPUT → w-typed")
	s.keys("-l", "go")
	s.keys("Enter")
	s.waitScreen("the child asked", "asked")
	ev := waitNotified("w-typed")
	assert.Equal(t, 1, ev.Quiet, "the human types into it")
	require.NotNil(t, ev.Clients)
	assert.Equal(t, len(clients)-1, *ev.Clients, "the other clients are alerted")

	// The other children, at once; the human still types into w-typed.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go"), nil, 0o644))
	want := map[string]struct{ kind, state, why string }{
		"w-osc9":   {"permission", "waiting-permission", "child-secret-9 Approval needed for rm -rf build"},
		"w-osc777": {"input", "waiting-input", "child-secret-777: Your turn"},
		"w-osc99":  {"permission", "waiting-permission", "child-secret-99 permission wanted"},
		"w-7501":   {"permission", "waiting-permission", "blocked: permission"},
	}
	verbs := map[string]string{"permission": "asks permission", "input": "waits for you"}
	var vias []string
	for _, c := range clients {
		vias = append(vias, c.via)
	}
	slices.Sort(vias)
	sortedVia := func(via string) []string {
		v := strings.Split(via, ", ")
		slices.Sort(v)
		return v
	}
	for worker, w := range want {
		ev := waitNotified(worker)
		assert.Equal(t, w.kind, ev.Notify, worker)
		assert.Equal(t, w.state, ev.AgentState, worker)
		assert.Equal(t, w.why, ev.Reason, worker)
		require.NotNil(t, ev.Clients, worker)
		assert.Equal(t, len(clients), *ev.Clients, worker)
		assert.Equal(t, vias, sortedVia(ev.Via), worker)
		for i, c := range clients {
			pattern := c.seq(worker, verbs[w.kind]+": "+w.why)
			require.Eventually(t, func() bool {
				b, _ := os.ReadFile(raws[i])
				return pattern.Match(b)
			}, 10*time.Second, 50*time.Millisecond, "%s: rostra never wrote %q to client %d", worker, pattern, i)
		}
		require.Eventually(t, func() bool {
			b, _ := os.ReadFile(filepath.Join(ws, "calls", worker))
			return string(b) == worker+"\n"+w.state+"\n"+w.why+"\nnotify\n"
		}, 10*time.Second, 50*time.Millisecond, "%s: notify.command was not run with its arguments", worker)
	}

	// w-7501 said blocked and then done within 10 s: the second waits
	// unannounced until its worker is over.
	require.Eventually(t, func() bool {
		for _, ev := range events() {
			if ev.Type == statedir.EventAgentState && ev.WorkerID == "w-7501" && ev.AgentState == "waiting-input" {
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond, "w-7501 never went on to waiting-input")

	// Stop the run: every event is written once it has ended.
	if strings.Contains(clients[0].command, "attach") {
		stop := exec.Command(rostraBin, "stop")
		stop.Dir = ws
		out, _ := stop.CombinedOutput()
		t.Logf("rostra stop: %s", out)
	} else {
		shell := strings.TrimSpace(s.run("list-panes", "-t", "ui", "-F", "#{pane_pid}"))
		_ = exec.Command("pkill", "-TERM", "-P", shell).Run()
	}
	for _, exit := range exits {
		require.Eventually(t, func() bool {
			_, err := os.Stat(exit)
			return err == nil
		}, 30*time.Second, 20*time.Millisecond, "rostra did not exit")
	}
	assert.Len(t, notified("w-7501"), 1, "two states within 10 s: one notification")
	assert.Len(t, notified("w-typed"), 1)
	for worker := range want {
		assert.Len(t, notified(worker), 1, worker)
	}
	// How long each took from its state to its notified event (the UIs'
	// answers included), for docs/agents.md's figures.
	for worker := range want {
		var stateAt time.Time
		for _, ev := range events() {
			if ev.WorkerID == worker && ev.Type == statedir.EventAgentState && stateAt.IsZero() && ev.AgentState == want[worker].state {
				stateAt = ev.TS
			}
		}
		if n := notified(worker); len(n) == 1 && !stateAt.IsZero() {
			t.Logf("%s: state to notified %v (%d client(s))", worker, n[0].TS.Sub(stateAt), *n[0].Clients)
		}
	}
	_, err := os.Stat(filepath.Join(ws, "calls", "w-typed"))
	assert.True(t, os.IsNotExist(err), "no notify.command while the human types into the pane")
	b, _ := os.ReadFile(filepath.Join(ws, "calls", "w-7501"))
	assert.Equal(t, 4, strings.Count(string(b), "\n"), "notify.command ran once for w-7501: %q", b)

	for i, c := range clients {
		out, err := os.ReadFile(raws[i])
		require.NoError(t, err)
		if i == 0 {
			assert.NotContains(t, string(out), "rostra: w-typed", "the pane typed into raised nothing where it is typed into")
		} else {
			assert.Regexp(t, c.seq("w-typed", "asks permission: blocked: permission"), string(out), "client %d, not typing, is alerted", i)
		}
		for _, childs := range []string{"]9;child-secret", "]777;notify;child-secret", "]99;;child-secret", "]7501;"} {
			assert.NotContains(t, string(out), childs, "a child's own sequence reached terminal %d", i)
		}
	}
}
