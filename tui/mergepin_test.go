// mergepin_test.go checks that the UI's M after a D merges the commit D
// showed or nothing (docs/isolation.md, "Review and merge"): a branch that
// moved after the diff was read is refused, the workspace untouched.
package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

func TestMMergesTheCommitDShowedOrNothing(t *testing.T) {
	f, repo, id := isolatedRun(t)
	f.setWorker(id, func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status = statedir.StatusCompleted, statedir.StatusCompleted
	})
	m := newModel(t, f, 160, 30)
	runCmd(t, m, press(m, "D"))
	shown := gitIn(t, repo, "rev-parse", "rostra/golden/"+id)
	assert.Equal(t, shown, m.focused().diff.info.Commit, "D read the branch's tip")
	press(m, "D")

	wt := filepath.Join(repo, ".rostra", "golden", "worktrees", id)
	require.NoError(t, os.WriteFile(filepath.Join(wt, "late.go"), []byte("package parser\n"), 0o644))
	gitIn(t, wt, "add", "late.go")
	gitIn(t, wt, "commit", "-q", "-m", "after the review")
	main := gitIn(t, repo, "rev-parse", "main")

	m.refresh()
	press(m, "M")
	require.NotNil(t, m.confirm)
	runCmd(t, m, press(m, "y"))
	assert.Contains(t, m.note, "not merged: rostra/golden/"+id+" moved since it was reviewed")
	assert.Equal(t, main, gitIn(t, repo, "rev-parse", "main"))
	assert.NoFileExists(t, filepath.Join(repo, "late.go"))
}
