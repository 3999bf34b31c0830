// sandbox_claude_e2e_test.go runs the real claude CLI (internal/agenttest's
// pin) with its permission prompts off, as the claude-yolo provider rostra
// init writes does, under rostra's sandbox (docs/sandbox.md), against the
// scripted model server of internal/fakemodel: the model has it write its
// result in its worktree, then a file in the user's home; the first lands,
// the second is refused by the kernel, and the model is shown the refusal.
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/agenttest"
	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/statedir"
)

func TestSandboxedClaudeYoloWritesItsResultButNotTheHome(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	srv := fakemodel.Start(t, fakemodel.Script{Turns: []fakemodel.Turn{
		{Shell: "mkdir -p out && echo done > out/result.txt && echo marker-wrote-result"},
		{Shell: `echo pwned > "$HOME/escape.txt"; echo "home=$?"`},
		{Text: "All done."},
	}})
	ws := t.TempDir()
	gitRepo(t, ws)
	a := agenttest.New(t, agenttest.Claude, srv.URL(), filepath.Join(ws, ".rostra", "yolo", "worktrees", "claude-yolo"))
	// claude takes --dangerously-skip-permissions from root only when told
	// it runs in a sandbox (the tests run as root).
	a.SetEnv("IS_SANDBOX", "1")
	runFile := `version: 1
name: yolo
providers:
  claude-yolo: { command: [` + quoteYAML(a.Path) + `, "-p", "--dangerously-skip-permissions", "--output-format", "text", "--", "{prompt}"], sandbox_required: true }
defaults: { max_attempts: 1, stop_grace: 2s, timeout: 3m, isolation: worktree, sandbox: writes, surfaces: [wrapper] }
workers:
  - id: claude-yolo
    prompt: "write the result file"
    completion: { result: out/result.txt }
`
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(runFile), 0o644))
	// claude's own state is what it may write there: ~/.claude/ and
	// ~/.claude.json (docs/agents.md).
	homeOf := func() map[string]string {
		d := treeDigest(t, a.Home, ".claude")
		delete(d, ".claude.json")
		// rostra's own index of runs, in the user's state home (rostra
		// writes it, outside the sandbox: docs/state.md §The index of runs).
		others := 0
		for k := range d {
			if strings.HasPrefix(k, ".local/state/rostra/") {
				delete(d, k)
			} else if strings.HasPrefix(k, ".local/") && k != ".local/" && k != ".local/state/" {
				others++
			}
		}
		if others == 0 {
			delete(d, ".local/")
			delete(d, ".local/state/")
		}
		return d
	}
	homeBefore := homeOf()

	cmd := exec.Command(rostraBin, "run", "--headless", "rostra.yaml")
	cmd.Dir, cmd.Env = ws, a.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("rostra:\n%s\nrequests:\n%s", out.String(), srv.Summary())
	require.NoError(t, err)

	st := readTeamState(t, filepath.Join(ws, ".rostra", "yolo"))
	require.Len(t, st.Dispatches, 1)
	d := st.Dispatches[0]
	log, _ := os.ReadFile(d.OutputLogPath)
	t.Logf("claude's output:\n%s", log)
	assert.Equal(t, statedir.StatusCompleted, d.Status)
	assert.Equal(t, "writes", d.Sandbox)
	data, err := os.ReadFile(filepath.Join(d.Worktree, "out", "result.txt"))
	require.NoError(t, err, "its result landed in its worktree")
	assert.Equal(t, "done\n", string(data))

	assert.NoFileExists(t, filepath.Join(a.Home, "escape.txt"), "refused in the user's home")
	assert.Equal(t, homeBefore, homeOf(), "nothing in the home changed but claude's own state")
	third := srv.WaitMain(3, 10*time.Second)
	assert.True(t, third.Contains("Permission denied"), "the model is shown the kernel's refusal")
	assert.True(t, third.Contains("home=1"))
	assert.Contains(t, string(log), "All done.")
}

func quoteYAML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
