// repocheck_bench_test.go measures what the repository check costs an
// isolated attempt (workspace/repocheck.go): the snapshot at its start and the check
// at its settlement, in a repository with 1,000 tags and 100 branches, with
// nothing moved. Rerun with
//
//	go test ./engine -run '^$' -bench 'RepoCheck' -benchtime 20x
package engine

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/workspace"
)

func BenchmarkRepoCheck(b *testing.B) {
	repo := b.TempDir()
	base := initRepo(b, repo)
	var refs strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&refs, "create refs/tags/t%04d %s\n", i, base)
	}
	for i := range 100 {
		fmt.Fprintf(&refs, "create refs/heads/b%03d %s\n", i, base)
	}
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = repo, workspace.GitEnv(), strings.NewReader(refs.String())
	out, err := cmd.CombinedOutput()
	require.NoError(b, err, "%s", out)
	wt := workspace.Worktree{Worker: "w", Repo: repo, Path: filepath.Join(repo, ".rostra", "b", "worktrees", "w"), Branch: "rostra/b/w", Base: base}
	require.NoError(b, wt.Ensure())
	b.ResetTimer()
	for range b.N {
		before, err := wt.SnapshotRepo()
		require.NoError(b, err)
		f := wt.CheckRepo(before, 1)
		require.False(b, f.Any(), f.Reason())
	}
}
