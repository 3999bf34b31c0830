// hook_retry_e2e_test.go: a hook that runs after its attempt was retried
// (a late hook of a CLI being stopped, or one started by a process the
// attempt left) reaches the run's server through `rostra hook` and is
// recorded and ignored; the new attempt's state does not move
// (docs/agents.md, "What rostra gives each agent").
package main

import (
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

// keptClaude says it works through the hook of the --settings file it was
// given, keeps that hook's command and its attempt's variables for the
// test, and waits.
const keptClaude = `#!/bin/sh
settings=
while [ $# -gt 0 ]; do
  case "$1" in --settings) settings=$2; shift ;; esac
  shift
done
hook=$(sed -n 's/^ *"command": "\(.*\)",\{0,1\}$/\1/p' "$settings" | head -n 1)
echo '{"hook_event_name":"UserPromptSubmit"}' | sh -c "$hook"
printf '%s\n' "$hook" > "hook-$ROSTRA_ATTEMPT.cmd.tmp"
env | grep '^ROSTRA_' > "hook-$ROSTRA_ATTEMPT.env"
mv "hook-$ROSTRA_ATTEMPT.cmd.tmp" "hook-$ROSTRA_ATTEMPT.cmd"
exec sleep 300
`

func TestHookPostedAfterItsAttemptWasRetriedIsIgnored(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, "")
	bin := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.WriteFile(bin, []byte(keptClaude), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: late
providers:
  claude: { command: [`+jsonString(bin)+`, "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, timeout: 0 }
workers:
  - { id: a, provider: claude, prompt: go }
`), 0o644))
	detachedRun(t, ws)
	stateDir := filepath.Join(ws, ".rostra", "late")

	// hookOf runs attempt n's hook command as its agent would, with that
	// attempt's variables, giving it payload on stdin.
	hookOf := func(n, payload string) {
		t.Helper()
		cmdFile := filepath.Join(ws, "hook-"+n+".cmd")
		require.Eventually(t, func() bool { _, err := os.Stat(cmdFile); return err == nil }, 30*time.Second, 20*time.Millisecond, "attempt %s never ran", n)
		hook, err := os.ReadFile(cmdFile)
		require.NoError(t, err)
		vars, err := os.ReadFile(filepath.Join(ws, "hook-"+n+".env"))
		require.NoError(t, err)
		cmd := exec.Command("sh", "-c", strings.TrimSpace(string(hook)))
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), strings.Fields(string(vars))...)
		cmd.Stdin = strings.NewReader(payload)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Empty(t, string(out))
	}
	row := func(attempt int) statedir.DispatchRow {
		t.Helper()
		for _, d := range readState(t, stateDir).Dispatches {
			if d.Attempt == attempt {
				return d
			}
		}
		t.Fatalf("no row of attempt %d", attempt)
		return statedir.DispatchRow{}
	}

	hookOf("1", `{"hook_event_name":"Stop"}`) // the variables are kept once the first hook went
	require.Eventually(t, func() bool { return row(1).AgentState == "waiting-input" }, 10*time.Second, 20*time.Millisecond)
	r := runBin(t, ws, "retry", "a")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	hookOf("2", `{"hook_event_name":"UserPromptSubmit"}`)
	require.Eventually(t, func() bool { return row(2).AgentState == "working" }, 10*time.Second, 20*time.Millisecond, "attempt 2's own hook")

	// Attempt 1's hook, late: recorded with why, and nothing changes.
	hookOf("1", `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
	var ignored []statedir.Event
	require.Eventually(t, func() bool {
		ignored = eventsOf(allEvents(t, stateDir), statedir.EventAgentHookIgnored)
		return len(ignored) > 0
	}, 10*time.Second, 20*time.Millisecond, "no agent-hook-ignored event")
	require.Len(t, ignored, 1)
	assert.Equal(t, [3]any{"a", 1, "PermissionRequest"}, [3]any{ignored[0].WorkerID, ignored[0].Attempt, ignored[0].Hook})
	assert.Equal(t, "attempt 1 is not current (the worker's current attempt is 2)", ignored[0].Reason)
	assert.Equal(t, "working", row(2).AgentState, "attempt 2 moved on attempt 1's hook")
	s := runBin(t, ws, "status")
	assert.Regexp(t, `(?m)^a +a +claude +running +2 +working `, s.stdout)

	// The same hook of the live attempt does apply.
	hookOf("2", `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
	require.Eventually(t, func() bool { return row(2).AgentState == "waiting-permission" }, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, "Bash(rm -rf build)", row(2).AgentStateEvidence)
	r = runBin(t, ws, "stop")
	assert.Contains(t, []int{0, 1, 130}, r.code, r.stderr)
}
