// worktree_bench_test.go measures isolated workers on a repository of
// 20,000 files (200 folders of 100): making 16 worktrees at once, as a run
// of 16 isolated workers does when it starts, and one attempt's write audit,
// commit and diff-stat in such a worktree. Rerun on an idle machine with
//
//	go test ./engine -run '^$' -bench 'Worktree' -benchtime 3x
package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

const (
	benchRepoFolders = 200
	benchRepoFiles   = 100 // per folder
)

// benchRepo makes a committed repository of 20,000 small source files.
func benchRepo(b *testing.B) (repo, base string) {
	b.Helper()
	repo = b.TempDir()
	gitT(b, repo, "init", "-q")
	line := strings.Repeat("x", 60) + "\n"
	for d := range benchRepoFolders {
		dir := filepath.Join(repo, "src", fmt.Sprintf("pkg%03d", d))
		require.NoError(b, os.MkdirAll(dir, 0o755))
		for f := range benchRepoFiles {
			require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte("package p\n"+line), 0o644))
		}
	}
	require.NoError(b, os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".rostra/\n"), 0o644))
	gitT(b, repo, "add", "-A")
	gitT(b, repo, "commit", "-q", "-m", "base")
	return repo, gitT(b, repo, "rev-parse", "HEAD")
}

// BenchmarkWorktreesMake16 makes 16 worktrees of the repository at once
// (ensure, as 16 workers' first attempts do) and removes them again; the
// time is for all 16.
func BenchmarkWorktreesMake16(b *testing.B) {
	repo, base := benchRepo(b)
	b.ResetTimer()
	for i := range b.N {
		var wts []workspace.Worktree
		for w := range 16 {
			id := fmt.Sprintf("w%02d", w)
			wts = append(wts, workspace.Worktree{Worker: id, Repo: repo, Path: filepath.Join(repo, ".rostra", "b", "worktrees", id),
				Branch: fmt.Sprintf("rostra/b%d/%s", i, id), Base: base})
		}
		var wg sync.WaitGroup
		errs := make([]error, len(wts))
		for j, wt := range wts {
			wg.Go(func() { errs[j] = wt.Ensure() })
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(b, err)
		}
		b.StopTimer()
		for _, wt := range wts {
			require.NoError(b, wt.Remove())
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/16, "ms/worktree")
}

// BenchmarkWorktreeAttemptAudit is one attempt of an audited isolated worker
// in a worktree of 20,000 files that changes 10 of them: the snapshot before
// it, the walk and diff after it, the commit of its work and the diff-stat.
func BenchmarkWorktreeAttemptAudit(b *testing.B) {
	repo, base := benchRepo(b)
	wt := workspace.Worktree{Worker: "w", Repo: repo, Path: filepath.Join(repo, ".rostra", "b", "worktrees", "w"), Branch: "rostra/b/w", Base: base}
	require.NoError(b, wt.Ensure())
	exclude := []string{filepath.Join(repo, ".rostra", "b")}
	b.ResetTimer()
	for i := range b.N {
		audit, err := startWriteAudit(wt.Path, exclude)
		require.NoError(b, err)
		for f := range 10 {
			path := filepath.Join(wt.Path, "src", fmt.Sprintf("pkg%03d", f), "file000.go")
			require.NoError(b, os.WriteFile(path, []byte(fmt.Sprintf("package p\n// attempt %d\n", i)), 0o644))
		}
		changes := audit.changes()
		require.NoError(b, changes.err)
		require.Len(b, changes.changed, 10)
		_, err = wt.CommitAll(workspace.AttemptMessage("w", i+1, statedir.StatusCompleted))
		require.NoError(b, err)
		_, err = measure(wt)
		require.NoError(b, err)
	}
}

// BenchmarkWorktreeAuditWalk is the audit's part of an attempt alone
// (snapshot before, walk and diff after) in the same worktree, for
// comparison with the shared workspace's audit of the same tree.
func BenchmarkWorktreeAuditWalk(b *testing.B) {
	repo, base := benchRepo(b)
	wt := workspace.Worktree{Worker: "w", Repo: repo, Path: filepath.Join(repo, ".rostra", "b", "worktrees", "w"), Branch: "rostra/b/w", Base: base}
	require.NoError(b, wt.Ensure())
	exclude := []string{filepath.Join(repo, ".rostra", "b")}
	b.ResetTimer()
	for range b.N {
		audit, err := startWriteAudit(wt.Path, exclude)
		require.NoError(b, err)
		changes := audit.changes()
		require.NoError(b, changes.err)
	}
}

// BenchmarkWorktreeDiffStat is one diff-stat of a running attempt's
// worktree of 20,000 files that changed 10 of them and added one: what a
// pane's title costs at most every diffStatEvery while the attempt prints.
func BenchmarkWorktreeDiffStat(b *testing.B) {
	repo, base := benchRepo(b)
	wt := workspace.Worktree{Worker: "w", Repo: repo, Path: filepath.Join(repo, ".rostra", "b", "worktrees", "w"), Branch: "rostra/b/w", Base: base}
	require.NoError(b, wt.Ensure())
	for f := range 10 {
		path := filepath.Join(wt.Path, "src", fmt.Sprintf("pkg%03d", f), "file000.go")
		require.NoError(b, os.WriteFile(path, []byte("package p\n// changed\n"), 0o644))
	}
	require.NoError(b, os.WriteFile(filepath.Join(wt.Path, "new.go"), []byte("package p\n"), 0o644))
	b.ResetTimer()
	for range b.N {
		stat, err := measure(wt)
		require.NoError(b, err)
		require.Equal(b, 11, stat.Files)
	}
}
