// queue_e2e_test.go checks the prompt queue through a real server and a
// real pty (docs/agents.md §A queue of prompts): a scripted agent that
// reports its state as codex does (OSC 7501 program status) and records
// each line it reads is given the prompts queued with `rostra send
// --queue` one per turn, in order, none while it asks for a permission;
// `rostra queue` lists and edits the queue; a plain command refuses one;
// and a queue survives a SIGKILL of the server and `rostra run --resume`.
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/statedir"
)

// scriptedAgent works on its prompt, then for each line it reads: records
// it in got.txt (with its attempt), reports working, asks for a
// permission when the line says so (blocked for 2 s), works SLOW seconds
// when it says "slow", and waits for input again. "exit" ends it.
const scriptedAgent = `#!/bin/bash
st() { printf '\033]7501;state=%s:app=codex\007' "$1"; }
st working
sleep 1
while :; do
  st idle
  IFS= read -r line || exit 0
  st working
  printf '%s %s\n' "$ROSTRA_ATTEMPT" "$line" >> got.txt
  case "$line" in
  *ask*) st 'blocked:kind=permission'; sleep 2; st working; sleep 0.3 ;;
  *slow*) sleep 60 ;;
  *exit*) mkdir -p out; echo done > out/done.txt; exit 0 ;;
  esac
done
`

func queueWorkspace(t *testing.T) (ws, stateDir string) {
	ws = t.TempDir()
	bin := filepath.Join(t.TempDir(), "agent")
	require.NoError(t, os.WriteFile(bin, []byte(scriptedAgent), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: queued
providers:
  fake: { command: [`+jsonString(bin)+`, "{prompt}"], agent: codex }
  shell: { command: ["sh", "-c", "{prompt}"] }
defaults: { max_attempts: 2, stop_grace: 1s, attention_after: 10m }
workers:
  - { id: a, provider: fake, prompt: go, completion: { result: out/done.txt } }
  - { id: plain, provider: shell, prompt: "sleep 120" }
`), 0o644))
	t.Cleanup(func() {
		stop := runBin(t, ws, "stop")
		_ = stop
	})
	return ws, filepath.Join(ws, ".rostra", "queued")
}

// statusQueues is the "queues" of `rostra status --json` of the queued
// run, checking that the state's own keys are there too.
func statusQueues(t *testing.T, out string) map[string]struct {
	Count   int                     `json:"count"`
	Prompts []statedir.QueuedPrompt `json:"prompts"`
} {
	q := statusQueuesOf(t, out)
	var st struct {
		Run     string `json:"run"`
		Workers []statedir.WorkerRow
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st), out)
	require.Equal(t, "queued", st.Run)
	require.Len(t, st.Workers, 2)
	return q
}

// statusQueuesOf is the "queues" of `rostra status --json`.
func statusQueuesOf(t *testing.T, out string) map[string]struct {
	Count   int                     `json:"count"`
	Prompts []statedir.QueuedPrompt `json:"prompts"`
} {
	var st struct {
		Queues map[string]struct {
			Count   int                     `json:"count"`
			Prompts []statedir.QueuedPrompt `json:"prompts"`
		} `json:"queues"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st), out)
	require.NotNil(t, st.Queues, "no queues key: %s", out)
	return st.Queues
}

// lines are what the scripted agent read, in order.
func lines(ws string) []string {
	b, _ := os.ReadFile(filepath.Join(ws, "got.txt"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestQueuedPromptsReachAScriptedAgentOnePerTurn(t *testing.T) {
	ws, stateDir := queueWorkspace(t)
	detachedRun(t, ws)

	r := runBin(t, ws, "send", "--queue", "plain", "hello")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "plain runs no known agent")
	assert.Contains(t, r.stderr, "rostra send (without --queue)")

	// Queued while it works on its own prompt (1 s).
	for i, p := range []string{"first, ask", "second", "third"} {
		r := runBin(t, ws, "send", "--queue", "a", p)
		require.Equal(t, 0, r.code, r.stderr)
		if i == 0 {
			assert.Contains(t, r.stdout, "a: prompt 1 queued")
		}
	}
	r = runBin(t, ws, "queue", "a")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?s)WORKER +N +QUEUED +PROMPT\na +1 +\S+ +first, ask\na +2 +\S+ +second\na +3 +\S+ +third\n`, r.stdout)
	r = runBin(t, ws, "queue", "rm", "a", "3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^a: prompt 3 removed \([12] left\)\n$`, r.stdout, "prompt 1 may be typed by now")
	r = runBin(t, ws, "queue", "rm", "a", "9")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "a has no queued prompt 9")
	r = runBin(t, ws, "status")
	assert.Regexp(t, `queued prompts: a [12] \(rostra queue lists them\)`, r.stdout)
	r = runBin(t, ws, "status", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	live := statusQueues(t, r.stdout)
	require.Contains(t, live, "a", "live from the server: %s", r.stdout)
	assert.Equal(t, len(live["a"].Prompts), live["a"].Count)
	assert.Equal(t, "second", live["a"].Prompts[len(live["a"].Prompts)-1].Text, "prompt 1 may be typed by now")
	assert.NotContains(t, live, "plain")

	require.Eventually(t, func() bool { return len(lines(ws)) >= 2 }, 30*time.Second, 50*time.Millisecond, "read: %v", lines(ws))
	assert.Equal(t, []string{"1 first, ask", "1 second"}, lines(ws))
	r = runBin(t, ws, "send", "--queue", "a", "exit")
	require.Equal(t, 0, r.code, r.stderr)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(ws, "out", "done.txt"))
		return err == nil
	}, 20*time.Second, 50*time.Millisecond)
	assert.Equal(t, []string{"1 first, ask", "1 second", "1 exit"}, lines(ws))
	require.Eventually(t, func() bool { return readState(t, stateDir).Workers[0].Status == statedir.StatusCompleted }, 20*time.Second, 50*time.Millisecond)

	// rostra's own record: the prompts typed in order, the one after the
	// permission only once the wait for it was over (the agent asked for
	// 2 s; typed during it, its Enter would come within a second).
	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	var sent []int
	var asked, second time.Time
	states := 0
	for _, ev := range events {
		if ev.WorkerID != "a" {
			continue
		}
		switch {
		case ev.Type == statedir.EventAgentState && ev.AgentState == "waiting-permission" && asked.IsZero():
			asked = ev.TS
			states++
		case ev.Type == statedir.EventPromptSent:
			sent = append(sent, ev.PromptID)
			assert.Equal(t, "keys", ev.Delivery, "the script enabled no bracketed paste")
			if ev.PromptID == 2 {
				second = ev.TS
			}
		}
	}
	assert.Equal(t, []int{1, 2, 4}, sent)
	require.Equal(t, 1, states, "the permission was asked")
	assert.Greater(t, second.Sub(asked), 2*time.Second, "prompt 2 typed %v after the permission was asked", second.Sub(asked))
	q, err := statedir.ReadQueue(stateDir, "a")
	require.NoError(t, err)
	assert.Empty(t, q.Prompts)
	assert.Equal(t, 5, q.NextID)
}

func TestAQueueSurvivesAServerSIGKILLAndAResume(t *testing.T) {
	// The killed server comes to this process (a zombie until reaped).
	require.NoError(t, unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
	ws, stateDir := queueWorkspace(t)
	pid := detachedRun(t, ws)
	r := runBin(t, ws, "send", "--queue", "a", "slow")
	require.Equal(t, 0, r.code, r.stderr)
	require.Eventually(t, func() bool { return len(lines(ws)) == 1 && lines(ws)[0] == "1 slow" }, 20*time.Second, 50*time.Millisecond)
	r = runBin(t, ws, "send", "--queue", "a", "after the crash")
	require.Equal(t, 0, r.code, r.stderr)
	r = runBin(t, ws, "send", "--queue", "a", "exit")
	require.Equal(t, 0, r.code, r.stderr)

	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	t.Cleanup(func() {
		var st syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &st, 0, nil)
	})
	require.Eventually(t, func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err == nil && bytes.Contains(b, []byte(") Z "))
	}, 20*time.Second, 20*time.Millisecond)

	r = runBin(t, ws, "queue")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "no server runs")
	assert.Contains(t, r.stderr, "rostra run --resume")
	assert.Regexp(t, `a +2 +\S+ +after the crash\na +3 +\S+ +exit\n`, r.stdout)
	r = runBin(t, ws, "queue", "clear", "a")
	assert.NotEqual(t, 0, r.code, "editing needs the server")
	r = runBin(t, ws, "status", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	files := statusQueues(t, r.stdout)
	require.Contains(t, files, "a", "from the queue files: %s", r.stdout)
	assert.Equal(t, 2, files["a"].Count)
	assert.Equal(t, []int{2, 3}, []int{files["a"].Prompts[0].ID, files["a"].Prompts[1].ID})
	assert.Equal(t, "after the crash", files["a"].Prompts[0].Text)

	detachedRun(t, ws, "--resume")
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(ws, "out", "done.txt"))
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "read: %v", lines(ws))
	assert.Equal(t, []string{"1 slow", "2 after the crash", "2 exit"}, lines(ws))
	q, err := statedir.ReadQueue(stateDir, "a")
	require.NoError(t, err)
	assert.Empty(t, q.Prompts)
}
