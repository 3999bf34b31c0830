// multirun_e2e_test.go drives `rostra attach RUN...` in tmux over one run
// on this machine and one on each of two test hosts (internal/testhost):
// every pane shown under its run's name, keys and retry reaching the
// pane's own run, and one host's link cut for 10 s while the others go on,
// the UI reconnecting with nothing lost from the screen.
package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/testhost"
)

// farRunFile is the run on each test host: cat, and a ticker that ticks
// until the file stop-ticks appears in its workspace, then ends.
const farRunFile = `version: 1
name: far
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: cat-echo
    role: echo
    provider: shell
    prompt: "echo cat is ready; exec cat"
  - id: ticker
    provider: shell
    prompt: "i=0; while [ ! -e stop-ticks ]; do i=$((i+1)); echo tick $i; sleep 0.1; done; echo ticks done after $i"
`

// nearRunFile is the run on this machine: a ticker that never stops.
const nearRunFile = `version: 1
name: near
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: ticker
    provider: shell
    prompt: "i=0; while true; do i=$((i+1)); echo near $i; sleep 0.1; done"
`

// sshToHosts writes an ssh command that reaches each named test host: it
// takes the destination after "--" as the host's name and runs that
// host's own ssh (testhost.Host.SSHCommand) to it. ROSTRA_SSH names it.
func sshToHosts(t testing.TB, hosts map[string]*testhost.Host) string {
	var cases strings.Builder
	for name, h := range hosts {
		cases.WriteString("  " + name + ") exec " + h.SSHCommand() + ` "${args[@]}";;` + "\n")
	}
	script := `#!/bin/bash
args=(); dest=""; after=0
for a in "$@"; do
  if [ $after = 1 ] && [ -z "$dest" ]; then dest=$a; args+=(` + testhost.Alias + `); continue; fi
  [ "$a" = "--" ] && after=1
  args+=("$a")
done
case $dest in
` + cases.String() + `esac
echo "no test host named $dest" >&2; exit 255
`
	path := filepath.Join(t.TempDir(), "ssh-to-hosts")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// outputLog is the first attempt's output.log of worker in the run's
// state dir.
func outputLog(t *testing.T, stateDir, worker string) string {
	var found string
	_ = filepath.WalkDir(stateDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "output.log" && strings.Contains(p, "/"+worker) && found == "" {
			found = p
		}
		return nil
	})
	require.NotEmpty(t, found, "no output.log of %s in %s", worker, stateDir)
	return found
}

var nearRx = regexp.MustCompile(`near (\d+)`)

// lastNear is the last tick of the near run on the screen.
func lastNear(screen string) int {
	n := 0
	for _, m := range nearRx.FindAllStringSubmatch(screen, -1) {
		v, _ := strconv.Atoi(m[1])
		n = max(n, v)
	}
	return n
}

func TestAttachManyRunsOverSSH(t *testing.T) {
	box1, box2 := newRemoteHost(t, true), newRemoteHost(t, true)
	sshCmd := sshToHosts(t, map[string]*testhost.Host{"box1": box1, "box2": box2})
	far1, far2 := startRemoteRun(t, box1, farRunFile), startRemoteRun(t, box2, farRunFile)
	env := []string{"ROSTRA_SSH=" + sshCmd}
	addr1, addr2 := "ssh://box1/~/ws", "ssh://box2/~/ws"
	near := runWorkspace(t, nearRunFile)
	detachedRun(t, near)

	local := t.TempDir()
	exit := filepath.Join(local, "exit-attach")
	term := newTmux(t, "many")
	term.run("new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "-c", local,
		"ROSTRA_SSH="+sshCmd+" "+rostraBin+" attach "+near+" "+addr1+" "+addr2+" 2>"+filepath.Join(local, "attach.err")+"; echo $? > "+exit+"; sleep 60")
	screen := term.waitScreen("every run's panes, under its name",
		"near/ticker", "box1:far/cat-echo", "box1:far/ticker", "box2:far/cat-echo", "box2:far/ticker",
		"cat is ready", "tick 3", "near 3", "near ●1 · box1:far ●2 · box2:far ●2", "d detach")
	t.Logf("first screen:\n%s", screen)
	// Grouped by run: each run under its header, its panes on rows of
	// their own, the runs in order.
	lines := strings.Split(screen, "\n")
	headAt := map[string]int{}
	for i, l := range lines {
		for _, h := range []string{"── near ●1", "── box1:far ●2", "── box2:far ●2"} {
			if strings.HasPrefix(l, h) {
				headAt[h] = i
			}
		}
	}
	require.Len(t, headAt, 3, "a header per run:\n%s", screen)
	assert.Less(t, headAt["── near ●1"], headAt["── box1:far ●2"])
	assert.Less(t, headAt["── box1:far ●2"], headAt["── box2:far ●2"])
	for run, h := range map[string]string{"near/": "── near ●1", "box1:far/": "── box1:far ●2", "box2:far/": "── box2:far ●2"} {
		assert.Contains(t, lines[headAt[h]+1], run, "%s's panes right under its header", run)
		for _, other := range []string{"near/", "box1:far/", "box2:far/"} {
			if other != run {
				assert.NotContains(t, lines[headAt[h]+1], other, "no other run on %s's row", run)
			}
		}
	}

	// A key typed into a remote pane reaches its child there.
	term.keys("Tab")
	term.keys("i")
	term.waitScreen("input mode", "INPUT → box1:far/cat-echo")
	term.keys("-l", "typed far away")
	term.keys("Enter")
	require.Eventually(t, func() bool { return strings.Count(term.screen(), "typed far away") == 2 }, 20*time.Second, 20*time.Millisecond,
		"the line and cat's copy of it: %s", term.screen())
	catLog, err := os.ReadFile(outputLog(t, filepath.Join(far1.ws, ".rostra", "far"), "cat-echo"))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(catLog), "typed far away"), "cat on box1 got it: %q", catLog)
	term.keys("C-]")

	// box2's link is cut for 10 s: its panes say so, the others go on.
	box2.SetLink(t, false)
	cutAt := time.Now()
	screen = term.waitScreen("box2's link lost", "link lost · reconnecting")
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "box1:far/") || strings.Contains(l, "near/") {
			assert.NotContains(t, l, "link lost", "only box2's panes lose their link")
		}
	}
	lost := 0
	for _, l := range strings.Split(screen, "\n") {
		for _, w := range []string{"box2:far/cat-echo", "box2:far/ticker"} {
			if strings.Contains(l, w) && strings.Contains(l, "link lost · reconnecting") {
				lost++
			}
		}
	}
	assert.Equal(t, 2, lost, "both of box2's panes say so:\n%s", screen)
	assert.Contains(t, screen, "box2:far ⚠")
	assert.Contains(t, screen, "── box2:far ●2 ⚠ link lost · reconnecting", "its header says so too")
	// A key typed into a pane of the lost run: dropped, and the note says
	// when keys go again.
	term.keys("Tab", "Tab", "i")
	term.waitScreen("input mode on box2's pane", "INPUT → box2:far/cat-echo")
	term.keys("x")
	term.waitScreen("the dropped key's note", "box2:far/cat-echo: link lost · reconnecting", "the key was dropped, not queued; keys go again once the link is back")
	term.keys("C-]")
	before := lastNear(screen)
	require.Eventually(t, func() bool { return lastNear(term.screen()) > before+5 }, 5*time.Second, 50*time.Millisecond,
		"the local pane goes on while box2 is cut off: %s", term.screen())
	// The ticker there ends while the link is down.
	time.Sleep(time.Until(cutAt.Add(7 * time.Second)))
	require.NoError(t, os.WriteFile(filepath.Join(far2.ws, "stop-ticks"), nil, 0o644))
	assert.Contains(t, term.screen(), "link lost", "still cut off")
	time.Sleep(time.Until(cutAt.Add(10 * time.Second)))
	box2.SetLink(t, true)

	// Reconnected: the ticker's end, drawn while the link was down, is on
	// the screen as in its output.log there.
	screen = term.waitScreen("box2 back", "ticks done after")
	require.Eventually(t, func() bool { return !strings.Contains(term.screen(), "link lost") }, 20*time.Second, 50*time.Millisecond,
		"the titles say the link is back: %s", term.screen())
	t.Logf("reconnected after the cut, %v after it began", time.Since(cutAt).Round(100*time.Millisecond))
	term.keys("Tab", "z")
	screen = term.waitScreen("box2's ticker zoomed", "ZOOM", "box2:far/ticker")
	var shown []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "┃") {
			shown = append(shown, strings.TrimRight(strings.TrimSuffix(strings.TrimPrefix(l, "┃"), "┃"), " "))
		}
	}
	for len(shown) > 0 && shown[len(shown)-1] == "" {
		shown = shown[:len(shown)-1]
	}
	require.NotEmpty(t, shown)
	logData, err := os.ReadFile(outputLog(t, filepath.Join(far2.ws, ".rostra", "far"), "ticker"))
	require.NoError(t, err)
	logLines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(logData), "\r\n", "\n"), "\n"), "\n")
	require.GreaterOrEqual(t, len(logLines), len(shown))
	assert.Equal(t, logLines[len(logLines)-len(shown):], shown, "the screen is the end of output.log there")
	// The run there never noticed: its ticks are whole, and it runs on.
	for i, l := range logLines[:len(logLines)-1] {
		assert.Equal(t, "tick "+strconv.Itoa(i+1), l)
	}
	st := runBinEnv(t, local, env, "status", addr2)
	require.Equal(t, 0, st.code, st.stderr)
	assert.Regexp(t, `cat-echo\s+echo\s+shell\s+running`, st.stdout)
	assert.Regexp(t, `ticker\s+.*completed`, st.stdout)

	// Retry there: a second attempt of box2's ticker.
	term.keys("z", "r")
	term.waitScreen("the retry's attempt", "box2:far/ticker · ticker · shell · PTY · attempt 2/1")
	require.Eventually(t, func() bool {
		st = runBinEnv(t, local, env, "status", addr2)
		return st.code == 0 && regexp.MustCompile(`(?m)^\s*ticker#2\s`).MatchString(st.stdout)
	}, 20*time.Second, 50*time.Millisecond, "a second attempt there: %s%s", st.stdout, st.stderr)

	// d detaches from every run; they go on.
	term.keys("d")
	assert.Equal(t, "0", exitCodeFile(t, term, exit), "a detach exits 0")
	errText, _ := os.ReadFile(filepath.Join(local, "attach.err"))
	assert.Contains(t, string(errText), "detached from 3 runs; they go on")
	st = runBinEnv(t, local, env, "status", addr1)
	require.Equal(t, 0, st.code, st.stderr)
	assert.Regexp(t, `cat-echo\s+echo\s+shell\s+running`, st.stdout, "box1's run goes on")
}

// attach of many runs says which run it cannot find, and needs a terminal.
func TestAttachManyRunsRefusals(t *testing.T) {
	near := runWorkspace(t, nearRunFile)
	dir := t.TempDir()
	r := runBin(t, dir, "attach", near, filepath.Join(dir, "nowhere.yaml"))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "rostra attach: "+filepath.Join(dir, "nowhere.yaml")+" does not exist")
	r = runBin(t, dir, "attach", near, near)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "stdin and stdout must be a terminal")
}
