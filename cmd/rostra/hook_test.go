// hook_test.go checks `rostra hook` (hook.go) as an agent's hook runs it:
// with no server it exits 0 at once and says nothing; a hook that is
// never given its end of input still returns in time; and the hooks a
// scripted claude runs from the --settings file rostra gave it reach the
// run's state, a stale attempt's recorded and ignored.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// hookEnv is an attempt's environment as rostra gives it.
func hookEnv(stateDir string, attempt string) []string {
	return append(os.Environ(), "ROSTRA_STATE_DIR="+stateDir, "ROSTRA_WORKER=a", "ROSTRA_ATTEMPT="+attempt)
}

func TestHookWithTheServerGoneExitsAtOnceAndSaysNothing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		env   []string
		input string
	}{
		{"no server", hookEnv(t.TempDir(), "1"), `{"hook_event_name":"PermissionRequest","tool_name":"Bash"}`},
		{"not in an attempt", os.Environ(), `{"hook_event_name":"Stop"}`},
		{"not JSON", hookEnv(t.TempDir(), "1"), `hello`},
	} {
		cmd := exec.Command(rostraBin, "hook")
		cmd.Env = c.env
		cmd.Stdin = strings.NewReader(c.input)
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		require.NoError(t, err, c.name)
		assert.Empty(t, out, "%s: a hook's stdout is the agent's to read", c.name)
		assert.Less(t, took, time.Second, c.name)
	}
}

func TestHookWhoseInputNeverEndsReturnsInTime(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(rostraBin, "hook")
	cmd.Env = hookEnv(t.TempDir(), "1")
	w, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer w.Close()
	start := time.Now()
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Empty(t, out)
	assert.Less(t, time.Since(start), 1200*time.Millisecond)
}

// fakeClaude runs the hook of the --settings file it is given as claude
// would through one turn: a prompt, a permission asked for, the turn's
// end; and once more as if from an attempt that was retried.
const fakeClaude = `#!/bin/sh
settings=
while [ $# -gt 0 ]; do
  case "$1" in --settings) settings=$2; shift ;; esac
  shift
done
hook=$(sed -n 's/^ *"command": "\(.*\)",\{0,1\}$/\1/p' "$settings" | head -n 1)
echo '{"hook_event_name":"UserPromptSubmit","session_id":"s1"}' | sh -c "$hook" > hook-out.txt
echo '{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}' | sh -c "$hook" >> hook-out.txt
echo '{"hook_event_name":"Stop"}' | ROSTRA_ATTEMPT=7 sh -c "$hook" >> hook-out.txt
echo '{"hook_event_name":"Stop"}' | sh -c "$hook" >> hook-out.txt
mkdir -p out && echo done > out/result.txt
`

func TestHooksOfAnAgentReachItsRunsState(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	bin := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.WriteFile(bin, []byte(fakeClaude), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: hooks
providers:
  claude: { command: [`+jsonString(bin)+`, "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: a
    provider: claude
    prompt: go
    completion: { result: out/result.txt }
`), 0o644))
	detachedRun(t, ws)
	r := runBin(t, ws, "wait")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	out, err := os.ReadFile(filepath.Join(ws, "hook-out.txt"))
	require.NoError(t, err)
	assert.Empty(t, string(out), "rostra hook printed on the agent's stdout")

	type seen struct{ typ, state, source, reason, hook, session string }
	var got []seen
	f, err := os.Open(filepath.Join(ws, ".rostra", "hooks", statedir.EventsFile))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev statedir.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		if strings.HasPrefix(ev.Type, "agent-") {
			if ev.Type == statedir.EventAgentSession && ev.Reason == statedir.SessionGiven {
				ev.Session = "<given>" // a new UUID each run
			}
			got = append(got, seen{ev.Type, ev.AgentState, ev.AgentStateSource, ev.Reason, ev.Hook, ev.Session})
		}
	}
	assert.Equal(t, []seen{
		// The session rostra gave, then the one the hook carries (the
		// script's own, s1: docs/agents.md §Sessions).
		{statedir.EventAgentSession, "", "", "given", "", "<given>"},
		{statedir.EventAgentSession, "", "", "hook", "", "s1"},
		{statedir.EventAgentState, "working", "hook", "", "", ""},
		{statedir.EventAgentState, "waiting-permission", "hook", "Bash(rm -rf build)", "", ""},
		{statedir.EventAgentHookIgnored, "", "", "attempt 7 is not current (the worker's current attempt is 1)", "Stop", ""},
		{statedir.EventAgentState, "waiting-input", "hook", "turn ended", "", ""},
		{statedir.EventAgentState, "exited", "process", "exited with code 0", "", ""},
	}, got)

	// rostra status shows it: the columns, and the row's fields in --json.
	s := runBin(t, ws, "status")
	require.Equal(t, 0, s.code, s.stderr)
	lines := strings.Split(s.stdout, "\n")
	require.Greater(t, len(lines), 3, s.stdout)
	assert.Regexp(t, `^WORKER +ROLE +PROVIDER +STATUS +ATTEMPTS +STATE +SINCE +WHY +REASON`, lines[2])
	assert.Regexp(t, `^a +a +claude +completed +1 +exited +\d+s +process: exited with code 0 `, lines[3])
	j := runBin(t, ws, "status", "--json")
	require.Equal(t, 0, j.code, j.stderr)
	var st statedir.TeamState
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &st))
	require.Len(t, st.Dispatches, 1)
	d := st.Dispatches[0]
	assert.Equal(t, [4]string{"claude", "exited", "process", "exited with code 0"}, [4]string{d.Agent, d.AgentState, d.AgentStateSource, d.AgentStateEvidence})
	assert.NotNil(t, d.AgentStateSince)
	assert.Contains(t, j.stdout, `"agentStateSince": "`)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// askingClaude asks for a permission through its hook, then waits there.
const askingClaude = `#!/bin/sh
settings=
while [ $# -gt 0 ]; do
  case "$1" in --settings) settings=$2; shift ;; esac
  shift
done
hook=$(sed -n 's/^ *"command": "\(.*\)",\{0,1\}$/\1/p' "$settings" | head -n 1)
echo '{"hook_event_name":"UserPromptSubmit"}' | sh -c "$hook"
[ -e ask ] || exec sleep 300
echo '{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}' | sh -c "$hook"
exec sleep 300
`

func TestWaitUntilNeedsYouReturnsOnceAnAgentAsks(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	bin := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.WriteFile(bin, []byte(askingClaude), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: asks
providers:
  claude: { command: [`+jsonString(bin)+`, "{prompt}"] }
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, timeout: 0 }
workers:
  - { id: a, provider: claude, prompt: go }
  - { id: plain, provider: shell, prompt: "exec sleep 300" }
`), 0o644))
	detachedRun(t, ws)

	r := runBin(t, ws, "wait", "--until", "needs-you", "plain")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "plain runs no known agent")
	r = runBin(t, ws, "wait", "--until", "soon")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "usage: rostra wait")

	// The agent works until the test lets it ask.
	done := make(chan result, 1)
	go func() { done <- runBin(t, ws, "wait", "--until", "needs-you", "a") }()
	select {
	case r := <-done:
		t.Fatalf("wait returned before the agent asked: %+v", r)
	case <-time.After(500 * time.Millisecond):
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "ask"), nil, 0o644))
	r = runBin(t, ws, "retry", "a") // the next attempt asks
	require.Equal(t, 0, r.code, r.stderr)
	select {
	case r := <-done:
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Regexp(t, `^a#2 waiting-permission since \d\d:\d\d:\d\d: Bash\(rm -rf build\)\n$`, r.stdout)
	case <-time.After(10 * time.Second):
		t.Fatal("rostra wait --until needs-you did not return once the agent asked")
	}
}
