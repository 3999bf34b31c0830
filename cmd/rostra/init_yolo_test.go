// init_yolo_test.go checks the <cli>-yolo providers rostra init writes
// (init.go): each CLI's permission prompts off, marked sandbox_required, so
// a worker that uses one without sandbox: writes is refused at validation
// with file:line:col, and one with it validates.
package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
)

func TestInitWritesYoloProvidersThatRequireTheSandbox(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	path := agentPath(t, "claude", "codex", "gemini", "qwen")
	r := runBinEnv(t, ws, []string{path}, "init")
	require.Equal(t, 0, r.code, r.stderr)
	runFile := filepath.Join(ws, "rostra.yaml")
	plan, err := runfile.Load(runFile)
	require.NoError(t, err)
	for cli, want := range map[string][]string{
		"claude": {"claude", "-p", "--dangerously-skip-permissions", "--", "{prompt}"},
		"codex":  {"codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--", "{prompt}"},
		"gemini": {"gemini", "--skip-trust", "--approval-mode", "yolo", "--prompt={prompt}"},
		"qwen":   {"qwen", "--approval-mode", "yolo", "--prompt={prompt}"},
	} {
		pr, ok := plan.Providers[cli+"-yolo"]
		require.True(t, ok, cli)
		assert.Equal(t, want, pr.Command, cli)
		assert.True(t, pr.SandboxRequired, cli)
		assert.False(t, plan.Providers[cli].SandboxRequired, cli)
	}

	// The worker's commented alternative, taken without its sandbox line,
	// is refused where the worker is; with it, the file validates.
	data, err := os.ReadFile(runFile)
	require.NoError(t, err)
	text := strings.Replace(string(data), "    # provider: claude-yolo\n", "    provider: claude-yolo\n", 1)
	require.NotEqual(t, string(data), text, "the worker offers claude-yolo")
	require.NoError(t, os.WriteFile(runFile, []byte(text), 0o644))
	v := runBin(t, ws, "validate")
	assert.Equal(t, 2, v.code)
	assert.Regexp(t, regexp.MustCompile(`rostra\.yaml:\d+:\d+: workers\[0\]\.provider: provider claude-yolo runs the agent with its permission prompts off \(sandbox_required: true\), so its workers need sandbox: writes`), v.stderr)

	text = strings.Replace(text, "    # sandbox: writes\n", "    sandbox: writes\n", 1)
	require.NoError(t, os.WriteFile(runFile, []byte(text), 0o644))
	v = runBin(t, ws, "validate")
	assert.Equal(t, 0, v.code, v.stderr)
}
