// hook_bench_test.go measures `rostra hook`'s own run time, as an agent
// pays it on each hook: start, read the JSON, post it to a live run's
// server and exit (docs/agents.md: the goal is 20 ms at the median).
package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func BenchmarkHookPostsToALiveServer(b *testing.B) {
	ws := runWorkspace(b, `version: 1
name: hookbench
workspace: .
providers:
  claude: { command: ["bash", "-c", "{prompt}"], agent: claude }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s }
workers:
  - { id: a, provider: claude, prompt: "exec sleep 600" }
`)
	r := runBin(&testing.T{}, ws, "run", "--detach")
	require.Equal(b, 0, r.code, "%s%s", r.stdout, r.stderr)
	b.Cleanup(func() { runBin(&testing.T{}, ws, "stop") })
	env := hookEnv(filepath.Join(ws, ".rostra", "hookbench"), "1")
	payload := `{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`
	var took []time.Duration
	for b.Loop() {
		cmd := exec.Command(rostraBin, "hook")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(payload)
		start := time.Now()
		require.NoError(b, cmd.Run())
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	med, p95 := took[len(took)/2], took[len(took)*95/100]
	b.ReportMetric(float64(med.Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95")
	fmt.Printf("rostra hook to a live server: median %s, p95 %s over %d calls (goal: 20 ms median)\n", med.Round(100*time.Microsecond), p95.Round(100*time.Microsecond), len(took))
}
