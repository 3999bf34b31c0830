// worktree_e2e_test.go reviews and merges an isolated worker's work through
// the real binary's UI in tmux, as a person would: the diff-stat in its
// title, D for the diff (searched with /), M and its confirmation, then the
// merged file in the workspace; and the CLI's refusals with their exit
// codes.
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
)

const worktreeRunFile = `version: 1
name: wt
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 2s, attention_after: 1h, isolation: worktree }
workers:
  - id: editor
    provider: shell
    prompt: "echo 'hello from the agent' >> notes.txt; echo edited; exec sleep 300"
    writes: ["notes.txt"]
    completion: { paths: [notes.txt], settle: on-files, stable: 200ms }
  - id: bystander
    provider: shell
    isolation: none
    prompt: "echo idle; exit 0"
`

// gitRepo makes dir a git repository with notes.txt committed.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".rostra/\nrostra.yaml\n"), 0o644))
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@localhost"}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
}

func TestUIReviewsAndMergesAWorktreeInTmux(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	gitRepo(t, ws)
	runFile := filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(worktreeRunFile), 0o644))

	s := newTmux(t, "e2e-wt")
	shell := rostraBin + " run --no-server " + runFile + " 2>" + filepath.Join(ws, "stderr") + "; echo $? > " + filepath.Join(ws, "exit-code") + "; sleep 60"
	s.run("new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "-c", ws, shell)

	s.waitScreen("the editor completes in its worktree",
		"editor · shell · PTY · attempt 1/1 · completed", "+1 −0, 1 file", "edited")

	s.keys("D")
	screen := s.waitScreen("D shows the diff", "(diff)", "+hello from the agent", "notes.txt | 1 +", "diff: D back")
	t.Logf("the diff:\n%s", screen)
	s.keys("/")
	s.keys("-l", "hello")
	s.keys("Enter")
	s.waitScreen("the diff is searched", `"hello" (any case): match 1 of 1`)
	s.keys("Escape") // out of the search's copy mode, before the next key (else it reads Alt-D)
	require.Eventually(t, func() bool { return !strings.Contains(s.screen(), "COPY") }, 15*time.Second, 50*time.Millisecond,
		"Esc leaves copy mode: %s", s.screen())
	s.keys("D")
	s.waitScreen("D again: the screen", "edited")

	s.keys("M")
	s.waitScreen("M asks", "Merge rostra/wt/editor?", "y yes · n no")
	data, err := os.ReadFile(filepath.Join(ws, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "notes\n", string(data), "nothing is merged before the answer")
	s.keys("y")
	s.waitScreen("merged", "merged rostra/wt/editor into main as")
	data, err = os.ReadFile(filepath.Join(ws, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "notes\nhello from the agent\n", string(data))

	s.keys("Tab", "M")
	s.waitScreen("a shared worker has nothing to merge", "bystander runs in the shared workspace (isolation: none)")
	s.keys("q") // every worker has settled: no question
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(filepath.Join(ws, "exit-code"))
		return err == nil && strings.TrimSpace(string(b)) != ""
	}, 30*time.Second, 50*time.Millisecond)
	assert.NoDirExists(t, filepath.Join(ws, ".rostra", "wt", "worktrees", "editor"), "merged: removed when the run ended")
}

func TestReviewCommandsSayWhyAndExitWithTheirCodes(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	gitRepo(t, ws)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(strings.ReplaceAll(worktreeRunFile, "exec sleep 300", "exit 0")), 0o644))
	r := runBin(t, ws, "run", "--headless", "rostra.yaml")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "editor worktree kept: +1 −0, 1 file")

	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown worker", []string{"diff", "nobody"}, 2, `run wt has no worker "nobody" (its workers: editor, bystander)`},
		{"a worker of the shared workspace", []string{"merge", "bystander"}, 2, "bystander runs in the shared workspace (isolation: none)"},
		{"no worker named", []string{"merge"}, 2, "usage: rostra merge"},
		{"a bad --color", []string{"diff", "--color", "sometimes", "editor"}, 2, "--color is auto, always or never"},
	}
	for _, c := range cases {
		got := runBin(t, ws, c.args...)
		assert.Equal(t, c.code, got.code, "%s: %s", c.name, got.stderr)
		assert.Contains(t, got.stderr, c.want, c.name)
	}

	d := runBin(t, ws, "diff", "--color", "always", "--run", filepath.Join(ws, ".rostra", "wt"), "editor")
	require.Equal(t, 0, d.code, d.stderr)
	assert.Contains(t, d.stdout, "hello from the agent")
	assert.Contains(t, d.stdout, "\x1b[32m+", "coloured as asked")

	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("changed by hand\n"), 0o644))
	m := runBin(t, ws, "merge", "editor")
	assert.Equal(t, 1, m.code)
	assert.Contains(t, m.stderr, "has uncommitted changes (notes.txt); commit or stash them, then merge; nothing was merged")
	data, err := os.ReadFile(filepath.Join(ws, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "changed by hand\n", string(data))
}
