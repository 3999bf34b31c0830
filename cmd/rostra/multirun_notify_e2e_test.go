// multirun_notify_e2e_test.go checks that a UI over many runs (rostra
// attach RUN RUN) alerts its own terminal of each run's notifications
// (docs/agents.md §Notifications): the real binary in a tmux of its own
// that says it is WezTerm, two runs detached, scripted children emitting
// OSC 7501 (codex's program status). The bytes the UI writes to its
// terminal, recorded with pipe-pane, hold rostra's notification of each
// waiting child once, its worker named as the UI names it; the pane the
// human types into raises nothing; each run's events.jsonl counts this
// UI among its clients.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

const manyNotifyRunFile = `version: 1
name: NAME
workspace: .
notify: { method: auto }
providers:
  fake-agent: { command: ["bash", "-c", "{prompt}"], agent: codex }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: w-typed
    provider: fake-agent
    prompt: "echo type to me; read line; printf '\\033]7501;state=blocked:app=codex:kind=permission\\a'; echo asked; exec sleep 300"
    completion: { result: out/a.txt }
  - id: w-7501
    provider: fake-agent
    prompt: "echo status; until [ -e {workspace}/go ]; do sleep 0.05; done; printf '\\033]7501;state=blocked:app=codex:kind=permission\\a'; sleep 0.2; printf '\\033]7501;state=working:app=codex\\a'; sleep 0.2; printf '\\033]7501;state=blocked:app=codex:kind=permission\\a'; echo sent; exec sleep 300"
    completion: { result: out/e.txt }
`

func TestManyRunsUINotifiedInTmux(t *testing.T) {
	alpha := runWorkspace(t, strings.Replace(manyNotifyRunFile, "NAME", "alpha", 1))
	beta := runWorkspace(t, strings.Replace(manyNotifyRunFile, "NAME", "beta", 1))
	detachedRun(t, alpha)
	detachedRun(t, beta)

	s := newTmux(t, "manynotify")
	s.run("start-server", ";", "set", "-g", "exit-empty", "off", ";", "set", "-g", "allow-passthrough", "on")
	local := t.TempDir()
	raw, exit := filepath.Join(local, "ui.bin"), filepath.Join(local, "ui.exit")
	s.run("new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "-c", local,
		"env WEZTERM_PANE=3 "+rostraBin+" attach "+alpha+" "+beta+" 2>"+filepath.Join(local, "ui.stderr")+"; echo $? > "+exit+"; sleep 60")
	t.Cleanup(func() {
		shell := strings.TrimSpace(s.run("list-panes", "-t", "ui", "-F", "#{pane_pid}"))
		_ = exec.Command("pkill", "-TERM", "-P", shell).Run()
		require.Eventually(t, func() bool {
			_, err := os.Stat(exit)
			return err == nil
		}, 30*time.Second, 20*time.Millisecond, "rostra did not exit after SIGTERM")
	})
	s.run("pipe-pane", "-O", "-t", "ui", "cat >> "+raw)
	s.waitScreen("both runs' panes", "── alpha", "── beta", "alpha/w-typed", "beta/w-7501", "type to me", "status")

	notified := func(ws, run, worker string) []statedir.Event {
		evs, _ := statedir.ReadEvents(filepath.Join(ws, ".rostra", run, statedir.EventsFile))
		var out []statedir.Event
		for _, ev := range evs {
			if ev.Type == statedir.EventNotified && ev.WorkerID == worker {
				out = append(out, ev)
			}
		}
		return out
	}
	seq := func(worker string) *regexp.Regexp {
		return regexp.MustCompile(regexp.QuoteMeta("\x1bPtmux;\x1b\x1b]9;rostra: " + worker + ": asks permission: blocked: permission\a\x1b\\"))
	}
	rawBytes := func() []byte { b, _ := os.ReadFile(raw); return b }

	// The human types into alpha's w-typed, whose child then asks: this
	// terminal is not alerted, and alpha hears that it stayed quiet.
	s.keys("i")
	s.waitScreen("typing", "INPUT → alpha/w-typed")
	s.keys("-l", "go")
	s.keys("Enter")
	s.waitScreen("the child asked", "asked")
	require.Eventually(t, func() bool { return len(notified(alpha, "alpha", "w-typed")) > 0 }, 15*time.Second, 50*time.Millisecond, "alpha's w-typed was never notified")
	ev := notified(alpha, "alpha", "w-typed")[0]
	assert.Equal(t, 1, ev.Quiet, "the human types into it here")
	require.NotNil(t, ev.Clients)
	assert.Equal(t, 0, *ev.Clients)

	// The w-7501 children of both runs ask, wait and ask again within
	// 10 s: each is told once, under its run's name.
	require.NoError(t, os.WriteFile(filepath.Join(alpha, "go"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(beta, "go"), nil, 0o644))
	for _, r := range []struct{ ws, run string }{{alpha, "alpha"}, {beta, "beta"}} {
		require.Eventually(t, func() bool { return len(notified(r.ws, r.run, "w-7501")) > 0 }, 15*time.Second, 50*time.Millisecond, "%s's w-7501 was never notified", r.run)
		ev := notified(r.ws, r.run, "w-7501")[0]
		require.NotNil(t, ev.Clients, r.run)
		assert.Equal(t, 1, *ev.Clients, "%s counts this UI", r.run)
		assert.Equal(t, "osc9 in tmux", ev.Via, r.run)
		pattern := seq(r.run + "/w-7501")
		require.Eventually(t, func() bool { return pattern.Match(rawBytes()) }, 15*time.Second, 20*time.Millisecond,
			"%s's notification on this terminal: %q", r.run, rawBytes())
	}
	s.waitScreen("both asked twice", "sent")
	require.Eventually(t, func() bool { return strings.Count(s.screen(), "sent") == 2 }, 15*time.Second, 50*time.Millisecond, "both children done: %s", s.screen())
	b := rawBytes()
	for _, run := range []string{"alpha", "beta"} {
		assert.Len(t, seq(run+"/w-7501").FindAllIndex(b, -1), 1, "%s's worker once in 10 s", run)
		assert.Len(t, notified(map[string]string{"alpha": alpha, "beta": beta}[run], run, "w-7501"), 1, "%s decided once", run)
	}
	assert.False(t, seq("alpha/w-typed").Match(b), "nothing for the pane typed into")
	assert.NotContains(t, string(b), "\x1b]7501", "no child's sequence reaches the terminal")
}
