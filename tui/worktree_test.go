// worktree_test.go drives the UI's isolated-worker keys against a real git
// repository the test makes: the diff-stat in the pane's title, D showing
// the diff (scrolled and searched like scrollback), and M merging after its
// confirmation.
package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// isolatedRun is fakeRun with its first worker isolated: a repository
// whose worker branch changes parser.go in a worktree.
func isolatedRun(t *testing.T) (*fakeEngine, string, string) {
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "parser.go"), []byte("package parser\n"), 0o644))
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	base := gitIn(t, repo, "rev-parse", "HEAD")
	f := fakeRun(t, 2, 120, 30)
	id := f.plan.Workers[0].ID
	wt := filepath.Join(repo, ".rostra", "golden", "worktrees", id)
	branch := "rostra/golden/" + id
	gitIn(t, repo, "worktree", "add", "-q", "-b", branch, wt, base)
	require.NoError(t, os.WriteFile(filepath.Join(wt, "parser.go"), []byte("package parser\n\n// Count counts the words the agent added.\nfunc Count() int { return 0 }\n"), 0o644))
	gitIn(t, wt, "commit", "-q", "-am", "rostra: "+id+" attempt 1 (completed)")
	f.st.Workspace, f.st.StateDir = repo, filepath.Join(repo, ".rostra", "golden")
	f.setWorker(id, func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Isolation, w.Branch, w.BaseCommit, w.Worktree = runfile.IsolationWorktree, branch, base, wt
		w.DiffStat = statedir.DiffStat{Files: 1, Additions: 3}
		d.Isolation, d.Branch, d.BaseCommit, d.Worktree = runfile.IsolationWorktree, branch, base, wt
	})
	return f, repo, id
}

func TestIsolatedPaneTitleShowsItsDiffStat(t *testing.T) {
	f, _, id := isolatedRun(t)
	m := newModel(t, f, 160, 30)
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, " "+id+" · PTY · attempt 1/3 · running · 40s · +3 −0, 1 file ")
	m = newModel(t, f, 220, 30)
	assert.Contains(t, ansi.Strip(m.Render()), " "+id+" · implementer · claude · PTY · attempt 1/3 · running · 40s · +3 −0, 1 file ")
	other := f.plan.Workers[1].ID
	assert.NotContains(t, lineWith(screen, other), "files", "a worker of the shared workspace has no diff-stat")
}

func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func TestDShowsTheDiffScrollableAndSearchable(t *testing.T) {
	f, _, id := isolatedRun(t)
	m := newModel(t, f, 160, 30)
	runCmd(t, m, press(m, "D"))
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, id+" · PTY · 1/3 (diff) · running · 40s · +3 −0, 1 file")
	assert.Contains(t, screen, "+// Count counts the words the agent added.")
	assert.Contains(t, screen, "parser.go | 3 +++")
	assert.Contains(t, screen, "diff: D back")
	assert.NotContains(t, screen, "["+id+"] step 2/3", "the diff stands in for the screen")

	press(m, "/", "C", "o", "u", "n", "t", "(", "enter")
	assert.Contains(t, m.note, `"Count(": match 1 of 1`)
	press(m, "esc") // out of the search's copy mode

	press(m, "D")
	screen = ansi.Strip(m.Render())
	assert.Contains(t, screen, "["+id+"] step 2/3", "D again: back to the screen")
	assert.NotContains(t, screen, "(diff)")

	press(m, "tab", "D")
	assert.Contains(t, m.note, "runs in the shared workspace (isolation: none)")
}

func TestMMergesAfterItsConfirmation(t *testing.T) {
	f, repo, id := isolatedRun(t)
	m := newModel(t, f, 120, 30)
	press(m, "M")
	assert.Nil(t, m.confirm, "a running worker is not merged")
	assert.Contains(t, m.note, id+" is running: merge once it has settled")

	f.setWorker(id, func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status = statedir.StatusCompleted, statedir.StatusCompleted
	})
	m.refresh()
	press(m, "M")
	require.NotNil(t, m.confirm)
	assert.Contains(t, ansi.Strip(m.Render()), "Merge rostra/golden/"+id+"?")
	assert.Empty(t, gitIn(t, repo, "log", "--oneline", "main..rostra/golden/"+id+"~1"), "nothing merged before the answer")
	runCmd(t, m, press(m, "y"))
	assert.Contains(t, m.note, "merged rostra/golden/"+id+" into main as ")
	data, err := os.ReadFile(filepath.Join(repo, "parser.go"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "func Count()")
}

func TestMRefusesADirtyWorkspaceAndSaysSo(t *testing.T) {
	f, repo, id := isolatedRun(t)
	f.setWorker(id, func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status = statedir.StatusCompleted, statedir.StatusCompleted
	})
	require.NoError(t, os.WriteFile(filepath.Join(repo, "parser.go"), []byte("edited by hand\n"), 0o644))
	m := newModel(t, f, 120, 30)
	press(m, "M")
	runCmd(t, m, press(m, "y"))
	assert.Contains(t, m.note, "not merged: the workspace "+repo+" has uncommitted changes (parser.go)")
	data, err := os.ReadFile(filepath.Join(repo, "parser.go"))
	require.NoError(t, err)
	assert.Equal(t, "edited by hand\n", string(data))
}
