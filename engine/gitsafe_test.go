// gitsafe_test.go checks that rostra's own git runs nothing a repository
// names (docs/isolation.md, "rostra's own git"): for each mechanism, a real
// repository is given a planted program (a hook, a filter, a diff or merge
// driver, an fsmonitor, ssh, gpg) that records each run in a marker file,
// as a hostile worker would plant it in the shared .git or its worktree,
// and a real run's settlement, diff and merge must leave the marker empty.
package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// planted is a folder of programs that each record their runs in one
// marker file, one line each: "name args <- the command line that ran it".
type planted struct{ dir, marker string }

func newPlanted(t *testing.T) *planted {
	dir := t.TempDir()
	return &planted{dir: dir, marker: filepath.Join(dir, "marker")}
}

// prog writes the program name and returns its path.
func (p *planted) prog(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	script := "#!/bin/sh\necho \"" + name + " $* <- $(tr \"\\\\0\" \" \" </proc/$PPID/cmdline)\" >> '" + p.marker + "'\n"
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// hooks writes each hook into dir.
func (p *planted) hooks(t *testing.T, dir string, names ...string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, name := range names {
		require.NoError(t, os.Symlink(p.prog(t, name), filepath.Join(dir, name)))
	}
}

// ran is what ran, "" when nothing did.
func (p *planted) ran(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(p.marker)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(data)
}

// hostileRun runs one isolated worker "a" that appends "from a" to
// src/f1.txt; before runs on the repository before the run starts, during
// while the worker's attempt runs (in its worktree, as the worker would).
// It returns the run's state after its end: the branch kept, unmerged.
func hostileRun(t *testing.T, before func(repo string), during func(repo, wt string)) (*runfile.Plan, *statedir.TeamState) {
	t.Helper()
	plan, _ := gitPlan(t, isolated(runfile.WorkerSpec{ID: "a"}))
	if before != nil {
		before(plan.Workspace)
	}
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	appendTo(t, filepath.Join(fh.spec.Dir, "src/f1.txt"), "from a\n")
	if during != nil {
		during(plan.Workspace, fh.spec.Dir)
	}
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	h.shutdown()
	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	return plan, st
}

// reviewAndMerge is what a person does after the run: the diff, coloured
// and not, then the merge; it returns the merge's error.
func reviewAndMerge(t *testing.T, st *statedir.TeamState, opts workspace.MergeOptions) error {
	t.Helper()
	for _, color := range []bool{false, true} {
		diff, _, err := workspace.WorktreeDiffWith(st, "a", workspace.DiffOptions{Color: color, Text: color})
		require.NoError(t, err)
		assert.Contains(t, string(diff), "from a")
	}
	_, err := workspace.MergeWorktreeWith(st, "a", opts)
	return err
}

// fileIn reads rel in dir.
func fileIn(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	require.NoError(t, err)
	return string(data)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// commonDir is the repository's shared .git.
func commonDir(repo string) string { return filepath.Join(repo, ".git") }

// TestRostrasGitRunsNoFilterTheRepositoryNames: a worker writes a
// clean/smudge filter into the shared config and names it in its
// worktree's .gitattributes; rostra's commit of the attempt (git add),
// its diff and the merge into the workspace (a checkout) run neither, and
// the bytes committed and merged are the worker's.
func TestRostrasGitRunsNoFilterTheRepositoryNames(t *testing.T) {
	p := newPlanted(t)
	plan, st := hostileRun(t, func(repo string) {
		gitT(t, repo, "config", "filter.pwn.clean", p.prog(t, "clean"))
		gitT(t, repo, "config", "filter.pwn.smudge", p.prog(t, "smudge"))
		gitT(t, repo, "config", "filter.pwn.required", "true")
		writeFile(t, filepath.Join(commonDir(repo), "info", "attributes"), "*.txt filter=pwn\n")
	}, nil)
	assert.Equal(t, "line\nfrom a\n", gitT(t, plan.Workspace, "cat-file", "-p", "rostra/t/a:src/f1.txt")+"\n", "the worker's bytes, not a filter's")
	require.NoError(t, reviewAndMerge(t, st, workspace.MergeOptions{}))
	assert.Empty(t, p.ran(t), "a filter ran")
	assert.Equal(t, "line\nfrom a\n", fileIn(t, plan.Workspace, "src/f1.txt"))
}

// TestAFilterPlantedDuringTheRunRunsNowhere: the same filter written into
// the shared config while the attempt runs, named by its worktree's
// .gitattributes: rostra's commit of the attempt and its diff run neither
// side, and the merge is refused (the repository's config and the branch's
// .gitattributes changed during the run, docs/isolation.md) with nothing
// run either.
func TestAFilterPlantedDuringTheRunRunsNowhere(t *testing.T) {
	p := newPlanted(t)
	plan, st := hostileRun(t, nil, func(repo, wt string) {
		gitT(t, repo, "config", "filter.pwn.clean", p.prog(t, "clean"))
		gitT(t, repo, "config", "filter.pwn.smudge", p.prog(t, "smudge"))
		gitT(t, repo, "config", "filter.pwn.process", p.prog(t, "process"))
		writeFile(t, filepath.Join(wt, ".gitattributes"), "*.txt filter=pwn\n")
	})
	assert.Equal(t, "line\nfrom a\n", gitT(t, plan.Workspace, "cat-file", "-p", "rostra/t/a:src/f1.txt")+"\n", "the worker's bytes, not a filter's")
	err := reviewAndMerge(t, st, workspace.MergeOptions{})
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), ".git/config")
	assert.Empty(t, p.ran(t), "a filter ran")
	assert.Equal(t, "line\n", fileIn(t, plan.Workspace, "src/f1.txt"), "nothing merged")
}

// TestRostrasGitRunsNoProcessFilter: the same with a long-running filter
// (filter.<driver>.process).
func TestRostrasGitRunsNoProcessFilter(t *testing.T) {
	p := newPlanted(t)
	plan, st := hostileRun(t, func(repo string) {
		gitT(t, repo, "config", "filter.pwn.process", p.prog(t, "process"))
		writeFile(t, filepath.Join(commonDir(repo), "info", "attributes"), "*.txt filter=pwn\n")
	}, nil)
	require.NoError(t, reviewAndMerge(t, st, workspace.MergeOptions{}))
	assert.Empty(t, p.ran(t), "a process filter ran")
	assert.Equal(t, "line\nfrom a\n", fileIn(t, plan.Workspace, "src/f1.txt"))
}

// TestRostrasGitRunsNoDiffDriver: textconv, an external diff driver and
// diff.external in the shared config, named for every file by the
// shared info/attributes: the diff shows the bytes, the merge's stat
// runs nothing.
func TestRostrasGitRunsNoDiffDriver(t *testing.T) {
	p := newPlanted(t)
	_, st := hostileRun(t, func(repo string) {
		gitT(t, repo, "config", "diff.pwn.textconv", p.prog(t, "textconv"))
		gitT(t, repo, "config", "diff.pwn.command", p.prog(t, "diff-command"))
		gitT(t, repo, "config", "diff.external", p.prog(t, "diff-external"))
		writeFile(t, filepath.Join(commonDir(repo), "info", "attributes"), "* diff=pwn\n")
	}, nil)
	require.NoError(t, reviewAndMerge(t, st, workspace.MergeOptions{}))
	assert.Empty(t, p.ran(t), "a diff driver ran")
}

// TestRostrasGitRunsNoMergeDriver: a merge driver in the shared config,
// named by the shared info/attributes, where both the person and the
// worker changed a file: rostra's conflict check (merge-tree) and merge
// use git's own text merge.
func TestRostrasGitRunsNoMergeDriver(t *testing.T) {
	p := newPlanted(t)
	plan, st := hostileRun(t, func(repo string) {
		gitT(t, repo, "config", "merge.pwn.driver", p.prog(t, "merge-driver")+" %A %O %B")
		writeFile(t, filepath.Join(commonDir(repo), "info", "attributes"), "*.txt merge=pwn\n")
	}, nil)
	writeFile(t, filepath.Join(plan.Workspace, "src/f1.txt"), "top\nline\n")
	gitT(t, plan.Workspace, "commit", "-q", "-am", "the person's change")
	require.NoError(t, reviewAndMerge(t, st, workspace.MergeOptions{}))
	assert.Empty(t, p.ran(t), "a merge driver ran")
	assert.Equal(t, "top\nline\nfrom a\n", fileIn(t, plan.Workspace, "src/f1.txt"), "both changes, merged as git merges text")
}

// TestRostrasGitRunsNoFSMonitor: core.fsmonitor in the shared config and
// in the worktree's own config.worktree.
func TestRostrasGitRunsNoFSMonitor(t *testing.T) {
	p := newPlanted(t)
	_, st := hostileRun(t, func(repo string) {
		gitT(t, repo, "config", "extensions.worktreeConfig", "true")
		gitT(t, repo, "config", "core.fsmonitor", p.prog(t, "fsmonitor-shared"))
	}, func(repo, wt string) {
		gitT(t, wt, "config", "--worktree", "core.fsmonitor", p.prog(t, "fsmonitor-worktree"))
	})
	require.NoError(t, reviewAndMerge(t, st, workspace.MergeOptions{}))
	assert.Empty(t, p.ran(t), "an fsmonitor ran")
}

// everyHook is the hooks a worker plants: those a merge, a commit, a
// checkout and a ref update run.
var everyHook = []string{"post-merge", "pre-merge-commit", "pre-commit", "prepare-commit-msg",
	"commit-msg", "post-commit", "post-checkout", "reference-transaction", "pre-auto-gc"}

// TestRostrasGitRunsNoHook: hooks planted in the shared .git/hooks before
// the run (the worktree's checkout) and during it, core.hooksPath in the
// shared config and in the worktree's config.worktree: neither rostra's
// commits, nor the diff, nor the merge, nor the removal of the merged
// branch runs one.
func TestRostrasGitRunsNoHook(t *testing.T) {
	p := newPlanted(t)
	_, st := hostileRun(t, func(repo string) {
		p.hooks(t, filepath.Join(commonDir(repo), "hooks"), everyHook...)
		gitT(t, repo, "config", "extensions.worktreeConfig", "true")
		shared := filepath.Join(t.TempDir(), "shared-hooks")
		p.hooks(t, shared, "post-merge", "pre-merge-commit", "reference-transaction")
		gitT(t, repo, "config", "core.hooksPath", shared)
	}, func(repo, wt string) {
		own := filepath.Join(t.TempDir(), "worktree-hooks")
		p.hooks(t, own, "pre-commit", "post-commit", "reference-transaction")
		gitT(t, wt, "config", "--worktree", "core.hooksPath", own)
	})
	require.NoError(t, reviewAndMerge(t, st, workspace.MergeOptions{}))
	assert.Empty(t, p.ran(t), "a hook ran")
}

// TestRostrasGitRunsNoHookFromTheWorktreesConfig: core.hooksPath in the
// worktree's config.worktree alone, at rostra's commit of the attempt.
func TestRostrasGitRunsNoHookFromTheWorktreesConfig(t *testing.T) {
	p := newPlanted(t)
	hostileRun(t, nil, func(repo, wt string) {
		gitT(t, repo, "config", "extensions.worktreeConfig", "true")
		own := filepath.Join(t.TempDir(), "worktree-hooks")
		p.hooks(t, own, everyHook...)
		gitT(t, wt, "config", "--worktree", "core.hooksPath", own)
	})
	assert.Empty(t, p.ran(t), "a hook ran")
}

// TestMergeRunsTheUsersHooksOnlyWhenAsked: with Hooks (rostra merge
// --hooks) the merge runs the repository's hooks as `git merge` does; the
// rest of rostra's git still runs none.
func TestMergeRunsTheUsersHooksOnlyWhenAsked(t *testing.T) {
	p := newPlanted(t)
	plan, st := hostileRun(t, func(repo string) {
		p.hooks(t, filepath.Join(commonDir(repo), "hooks"), everyHook...)
	}, nil)
	require.NoError(t, reviewAndMerge(t, st, workspace.MergeOptions{Hooks: true}))
	ran := p.ran(t)
	assert.Contains(t, ran, "pre-merge-commit")
	assert.Contains(t, ran, "post-merge")
	assert.NotContains(t, ran, "post-checkout", "the worktree's checkout is rostra's own")
	assert.NotContains(t, ran, "post-commit", "the attempt's commit is rostra's own")
	assert.Equal(t, "line\nfrom a\n", fileIn(t, plan.Workspace, "src/f1.txt"))
}

// TestRostrasGitSignsNothing: commit signing in the shared config runs
// gpg.program, which the config names.
func TestRostrasGitSignsNothing(t *testing.T) {
	p := newPlanted(t)
	_, st := hostileRun(t, func(repo string) {
		gitT(t, repo, "config", "gpg.program", p.prog(t, "gpg"))
		gitT(t, repo, "config", "commit.gpgSign", "true")
	}, nil)
	err := reviewAndMerge(t, st, workspace.MergeOptions{})
	assert.Empty(t, p.ran(t), "gpg.program ran")
	require.NoError(t, err)
}

// TestRostrasGitFetchesNothing: in a partial clone, checking a worktree
// out fetches the blobs it lacks from the promisor remote, through
// core.sshCommand for an ssh URL; rostra's checkout fetches nothing and
// says why.
func TestRostrasGitFetchesNothing(t *testing.T) {
	p := newPlanted(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	origin := filepath.Join(root, "origin")
	require.NoError(t, os.Mkdir(origin, 0o755))
	initRepo(t, origin)
	gitT(t, origin, "config", "uploadpack.allowFilter", "true")
	clone := exec.Command("git", "-c", "protocol.file.allow=always", "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+origin, "clone")
	clone.Dir = root
	clone.Env = workspace.GitEnv("GIT_ALLOW_PROTOCOL=file")
	out, err := clone.CombinedOutput()
	require.NoError(t, err, "%s", out)
	repo := filepath.Join(root, "clone")
	assert.Contains(t, gitT(t, repo, "rev-list", "--objects", "--missing=print", "HEAD"), "?", "the clone lacks blobs")
	gitT(t, repo, "config", "remote.origin.url", "ssh://example.invalid/x")
	gitT(t, repo, "config", "core.sshCommand", p.prog(t, "ssh"))

	base := gitT(t, repo, "rev-parse", "HEAD")
	wt := workspace.Worktree{Worker: "a", Repo: repo, Path: filepath.Join(root, "wt"), Branch: "rostra/t/a", Base: base}
	err = wt.Ensure()
	assert.Empty(t, p.ran(t), "core.sshCommand ran")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not allowed")
}

// TestDriverOverridesReadEveryName: a driver name git can hold but -c
// could not (an = in it) and one from an included file are overridden.
func TestDriverOverridesReadEveryName(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	initRepo(t, repo)
	inc := filepath.Join(repo, ".git", "more.config")
	writeFile(t, inc, "[filter \"inc\"]\n\tclean = x\n")
	gitT(t, repo, "config", "include.path", inc)
	gitT(t, repo, "config", "filter.a=b.smudge", "x")
	gitT(t, repo, "config", "diff.renames", "true")
	env, err := workspace.DriverOverrides(repo, workspace.GitEnv())
	require.NoError(t, err)
	joined := strings.Join(env, "\n")
	assert.Contains(t, joined, "=filter.inc.clean\n")
	assert.Contains(t, joined, "=filter.a=b.smudge\n")
	assert.NotContains(t, joined, "diff.renames")
}
