// ui_reliability_test.go is FAULTS.md's fault 17 for the UI drawn in rostra's
// own process (rostra run --no-server; server_e2e_test.go has the served
// UI's counterpart): stopped from outside (SIGTERM, as a closing terminal
// or a `kill` would) or by a panic inside it (ROSTRA_TEST_PANIC_KEY makes a
// key panic in Update, as a bug would, in a binary built with -tags
// rostra_testpanic), it gives the terminal back as it found it (no
// alternate screen, mouse and keypad modes off, cursor shown, canonical
// mode and echo on), stops its workers and leaves complete state; a panic
// is printed after the restore. It runs the real binary in a tmux server
// of its own.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// paneModes reads the terminal modes tmux tracks for the pane.
func (s tmuxServer) paneModes() map[string]string {
	s.t.Helper()
	keys := []string{"alternate_on", "mouse_any_flag", "mouse_sgr_flag", "keypad_flag", "keypad_cursor_flag", "cursor_flag"}
	var f strings.Builder
	for _, k := range keys {
		f.WriteString(k + "=#{" + k + "} ")
	}
	modes := map[string]string{}
	for _, kv := range strings.Fields(s.run("display-message", "-p", "-t", "ui", f.String())) {
		k, v, _ := strings.Cut(kv, "=")
		modes[k] = v
	}
	return modes
}

// childOf is the one child of pid (the rostra under the pane's shell).
func childOf(t *testing.T, pid int) int {
	t.Helper()
	var child int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
		if err != nil {
			return false
		}
		f := strings.Fields(string(data))
		if len(f) != 1 {
			return false
		}
		child, err = strconv.Atoi(f[0])
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)
	return child
}

func TestReliabilityUIStoppedBySignalRestoresTheTerminal(t *testing.T) {
	t.Parallel()
	// SIGHUP and SIGQUIT (FAULTS.md 28) as SIGTERM: the Go runtime's
	// default would kill rostra with the terminal raw (and a goroutine dump
	// for SIGQUIT).
	for _, tc := range []struct {
		sig  syscall.Signal
		code string
	}{{syscall.SIGTERM, "130"}, {syscall.SIGHUP, "129"}, {syscall.SIGQUIT, "131"}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			stderr := uiStopped(t, rostraBin, "", func(s tmuxServer, rostra int) {
				require.NoError(t, syscall.Kill(rostra, tc.sig))
			}, tc.code)
			assert.NotContains(t, stderr, "panic")
			assert.NotContains(t, stderr, "goroutine ")
		})
	}
}

// testPanicEnv is the variable panickey.go reads, in a binary built with
// the tag; a released binary does not hold the name at all.
const testPanicEnv = "ROSTRA_TEST_PANIC_KEY"

func TestReleasedBinaryHasNoTestPanicKey(t *testing.T) {
	bin, err := os.ReadFile(rostraBin)
	require.NoError(t, err)
	assert.NotContains(t, string(bin), testPanicEnv)
}

func TestReliabilityUIPanicRestoresTheTerminal(t *testing.T) {
	t.Parallel()
	stderr := uiStopped(t, rostraTestPanicBin, "f9", func(s tmuxServer, rostra int) {
		s.run("send-keys", "-t", "ui", "F9")
	}, "1")
	assert.Contains(t, stderr, "rostra test: ROSTRA_TEST_PANIC_KEY f9 pressed")
	assert.Contains(t, stderr, "the terminal UI failed")
}

// uiStopped runs bin's UI on two workers that run until stopped, stops it
// the given way, checks the terminal, the workers and the state, and
// returns what rostra wrote to stderr.
func uiStopped(t *testing.T, bin, panicKey string, stopUI func(s tmuxServer, rostra int), wantCode string) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test needs tmux (apt-get install -y tmux); it never skips")
	}
	ws := runWorkspace(t, `version: 1
name: sig
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: stubborn
    role: stubborn
    provider: shell
    prompt: "trap '' TERM; echo stubborn is up; exec sleep 300"
  - id: piper
    role: piper
    provider: shell
    surfaces: [wrapper]
    prompt: "echo piper is up; exec sleep 300"
`)
	exitFile := filepath.Join(ws, "exit-code")
	s := newTmux(t, "rel-"+panicKey)
	shell := testPanicEnv + "=" + panicKey + " " + bin + " run --no-server rostra.yaml 2>" + filepath.Join(ws, "stderr") + "; echo $? > " + exitFile + "; exec sleep 60"
	s.run("new-session", "-d", "-s", "ui", "-x", "160", "-y", "45", "-c", ws, shell)
	s.waitScreen("the panes open", "stubborn is up", "piper is up", "2 running")

	during := s.paneModes()
	t.Logf("modes while the UI runs: %v", during)
	require.Equal(t, "1", during["alternate_on"], "the UI draws on the alternate screen")
	tty := strings.TrimSpace(s.run("display-message", "-p", "-t", "ui", "#{pane_tty}"))
	sttyDuring, err := exec.Command("stty", "-a", "-F", tty).CombinedOutput()
	require.NoError(t, err, "%s", sttyDuring)
	require.Contains(t, string(sttyDuring), "-icanon", "the UI puts the terminal in raw mode")

	shellPid, err := strconv.Atoi(strings.TrimSpace(s.run("display-message", "-p", "-t", "ui", "#{pane_pid}")))
	require.NoError(t, err)
	rostra := childOf(t, shellPid)
	stopUI(s, rostra)
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(exitFile)
		return err == nil && len(b) > 0
	}, 20*time.Second, 20*time.Millisecond, "rostra did not exit; screen:\n%s", s.screen())
	code, _ := os.ReadFile(exitFile)
	assert.Equal(t, wantCode, strings.TrimSpace(string(code)))

	// The terminal is as the shell left it.
	after := s.paneModes()
	assert.Equal(t, map[string]string{
		"alternate_on": "0", "mouse_any_flag": "0", "mouse_sgr_flag": "0",
		"keypad_flag": "0", "keypad_cursor_flag": "0", "cursor_flag": "1",
	}, after)
	sttyAfter, err := exec.Command("stty", "-a", "-F", tty).CombinedOutput()
	require.NoError(t, err, "%s", sttyAfter)
	for _, mode := range []string{"icanon", "echo", "icrnl", "opost", "isig"} {
		assert.Regexp(t, `(^|\s)`+mode+`(\s|$)`, string(sttyAfter), "%s restored", mode)
	}

	// Workers stopped, state complete.
	st, err := statedir.ReadTeamState(filepath.Join(ws, ".rostra", "sig"))
	require.NoError(t, err)
	assert.Equal(t, statedir.RunInterrupted, st.Status)
	require.Len(t, st.Dispatches, 2)
	for _, d := range st.Dispatches {
		assert.Equal(t, statedir.StatusCancelled, d.Status, d.DispatchID)
		assert.NotNil(t, d.EndedAt, d.DispatchID)
		assert.True(t, groupGone(d.Pid), "%s: group %d is gone (the stubborn one after SIGKILL)", d.DispatchID, d.Pid)
	}
	events, err := statedir.ReadEvents(filepath.Join(ws, ".rostra", "sig", statedir.EventsFile))
	require.NoError(t, err)
	assert.Equal(t, statedir.EventRunInterrupted, events[len(events)-1].Type)
	stderr, _ := os.ReadFile(filepath.Join(ws, "stderr"))
	assert.Contains(t, string(stderr), "rostra: state in "+filepath.Join(ws, ".rostra", "sig"))
	return string(stderr)
}
