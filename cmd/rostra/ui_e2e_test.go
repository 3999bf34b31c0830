// ui_e2e_test.go uses the real binary's terminal UI as a person would, in a
// tmux server of its own (private socket, no config, 200×50): it checks the
// panes, their titles and the DEGRADED line, types into a pane running cat
// and sees the echo, cancels a worker, quits, and reads team-state.json.
// tmux is required (.ci/run installs it): without it the test fails.
package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/tmuxtest"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

const e2eRunFile = `version: 1
name: e2e
workspace: .
panes: { max: 2 }
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 2s, attention_after: 1h }
workers:
  - id: cat-echo
    role: echo
    provider: shell
    prompt: "echo cat is ready; exec cat"
    completion: { result: out/cat.txt }
  - id: sleeper
    role: waiter
    provider: shell
    prompt: "echo sleeping; exec sleep 300"
    completion: { result: out/sleep.txt }
  - id: piper
    role: piper
    provider: shell
    prompt: "echo on a pipe; exec sleep 300"
    completion: { result: out/pipe.txt }
`

// tmuxServer is a tmux server of a test's own, driven as a person would
// drive the terminal rostra runs in: send-keys in, capture-pane out.
type tmuxServer struct {
	t      *testing.T
	socket string
}

var tmuxSeq atomic.Int64 // parallel tests make servers at once

// newTmux makes a tmux server for the test (it fails without tmux: these
// tests never skip) and kills it when the test ends.
func newTmux(t *testing.T, name string) tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test needs tmux (apt-get install -y tmux); it never skips")
	}
	// A socket of its own per test: a server being killed by the test
	// before may still be exiting under its name.
	s := tmuxServer{t: t, socket: "rostra-" + name + "-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(tmuxSeq.Add(1), 10)}
	stop, err := tmuxtest.Guard(s.socket)
	require.NoError(t, err)
	t.Cleanup(stop)
	return s
}

func (s tmuxServer) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	require.NoError(s.t, err, "tmux %v: %s", args, out)
	return string(out)
}

func (s tmuxServer) screen() string { return s.run("capture-pane", "-p", "-t", "ui") }

// waitScreen waits until the screen shows every one of want.
func (s tmuxServer) waitScreen(what string, want ...string) string {
	s.t.Helper()
	return s.waitScreenFor(what, 15*time.Second, want...)
}

// waitScreenFor is waitScreen waiting up to d (a real agent's steps take
// minutes under load).
func (s tmuxServer) waitScreenFor(what string, d time.Duration, want ...string) string {
	s.t.Helper()
	var last string
	ok := assert.Eventually(s.t, func() bool {
		last = s.screen()
		for _, w := range want {
			if !strings.Contains(last, w) {
				return false
			}
		}
		return true
	}, d, 50*time.Millisecond)
	if !ok {
		s.t.Fatalf("%s: the screen never showed %q; it shows:\n%s", what, want, last)
	}
	return last
}

func (s tmuxServer) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", "ui"}, keys...)...)
}

func TestUIEndToEndInTmux(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, e2eRunFile)
	runFile := filepath.Join(ws, "rostra.yaml")
	exitFile := filepath.Join(ws, "exit-code")

	s := newTmux(t, "e2e")
	shell := rostraBin + " run " + runFile + " 2>" + filepath.Join(ws, "stderr") + "; echo $? > " + exitFile + "; sleep 60"
	s.run("new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "-c", ws, shell)

	screen := s.waitScreen("the panes open",
		"cat-echo · echo · shell · PTY · attempt 1/1 · running",
		"sleeper · waiter · shell · PTY · attempt 1/1 · running",
		"piper · shell · WRAPPER · attempt 1/1 · running",
		"DEGRADED pane -> wrapper: pane limit reached (2 of 2 in use)",
		"cat is ready", "sleeping", "on a pipe", "3 running")
	t.Logf("first screen:\n%s", screen)

	// Type into the cat pane (focused first) and see the echo: once from the
	// pty's line discipline, once from cat.
	s.keys("i")
	s.waitScreen("input mode", "INPUT → cat-echo")
	s.keys("-l", "hello rostra")
	s.keys("Enter")
	s.waitScreen("cat echoes", "hello rostra")
	require.Eventually(t, func() bool { return strings.Count(s.screen(), "hello rostra") == 2 }, 10*time.Second, 50*time.Millisecond,
		"the typed line and cat's copy of it: %s", s.screen())
	s.keys("C-]")
	s.waitScreen("normal mode", "Tab focus")

	// Cancel the sleeper, confirming.
	s.keys("Tab")
	s.keys("x")
	s.waitScreen("the confirmation", "Cancel sleeper?", "y yes · n no")
	s.keys("y")
	s.waitScreen("the sleeper is cancelled", "sleeper · waiter · shell · PTY · attempt 1/1 · cancelled", "1 cancelled")

	// Quit while cat and the piper run: rostra asks whether to detach or
	// stop the run, then stops them.
	s.keys("q")
	s.waitScreen("the quit question", "Leave rostra?", "2 worker(s) are still running", "d detach · s stop the run · Esc stay")
	s.keys("s")
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(exitFile)
		return err == nil && len(b) > 0
	}, 20*time.Second, 50*time.Millisecond, "rostra did not exit; screen:\n%s", s.screen())
	code, _ := os.ReadFile(exitFile)
	assert.Equal(t, "130", strings.TrimSpace(string(code)), "quitting while workers run is an interruption")

	raw, err := os.ReadFile(filepath.Join(ws, ".rostra", "e2e", "team-state.json"))
	require.NoError(t, err)
	var st statedir.TeamState
	require.NoError(t, json.Unmarshal(raw, &st))
	assert.Equal(t, statedir.RunInterrupted, st.Status)
	status := map[string]string{}
	for _, w := range st.Workers {
		status[w.WorkerID] = w.Status
	}
	assert.Equal(t, statedir.StatusCancelled, status["sleeper"])
	assert.NotEqual(t, statedir.StatusRunning, status["cat-echo"])
	assert.NotEqual(t, statedir.StatusRunning, status["piper"])
	require.Len(t, st.Dispatches, 3)
	for _, d := range st.Dispatches {
		assert.NotNil(t, d.EndedAt, "%s has ended", d.DispatchID)
		if d.WorkerID == "piper" {
			assert.Equal(t, runfile.SurfaceWrapper, d.Surface)
			assert.Equal(t, "pane limit reached (2 of 2 in use)", d.DegradedReason)
		}
		assert.ErrorIs(t, syscall.Kill(d.Pid, 0), syscall.ESRCH, "%s (pid %d) is gone", d.DispatchID, d.Pid)
	}
	stderr, _ := os.ReadFile(filepath.Join(ws, "stderr"))
	assert.Contains(t, string(stderr), "rostra: state in "+filepath.Join(ws, ".rostra", "e2e"))
}
