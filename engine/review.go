// review.go is how a person reviews and takes an isolated worker's work:
// the diff of its worktree against the run's base commit (`rostra diff`,
// the UI's D) and the merge of its branch into the workspace's current
// branch (`rostra merge`, the UI's M). Both work from a TeamState alone,
// so they serve the CLI after the run as well as the UI during it.
//
// A merge changes nothing unless it can succeed: it refuses, leaving the
// workspace and the branch as they were, when the workspace has
// uncommitted changes, has no current branch, when the worker's work is not
// all committed (its attempt runs), when workers of the shared workspace
// are running (the merge would change files under them), and when the
// branch conflicts with the workspace's HEAD (found by `git merge-tree`
// before anything is touched). Like all of rostra's git (git.go), the
// merge runs no program the repository names; the repository's hooks run
// only when asked (MergeOptions.Hooks, `rostra merge --hooks`).
package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrReview is a diff or merge refused for a reason a person can act on
// (errors.Is); ErrNoWorktree, one of them, is a worker that has no branch
// to review.
var (
	ErrReview     = errors.New("refused")
	ErrNoWorktree = errors.New("no worktree")
)

// reviewError is a refusal: its message says why and what to do.
type reviewError struct {
	msg        string
	noWorktree bool
}

func (e *reviewError) Error() string { return e.msg }

func (e *reviewError) Is(target error) bool {
	return target == ErrReview || (e.noWorktree && target == ErrNoWorktree)
}

func refused(format string, args ...any) error {
	return &reviewError{msg: fmt.Sprintf(format, args...)}
}

func noWorktree(format string, args ...any) error {
	return &reviewError{msg: fmt.Sprintf(format, args...), noWorktree: true}
}

// reviewTarget finds worker's worktree in st.
func reviewTarget(st *TeamState, worker string) (worktree, *WorkerRow, error) {
	var wr *WorkerRow
	var ids []string
	for i := range st.Workers {
		ids = append(ids, st.Workers[i].WorkerID)
		if st.Workers[i].WorkerID == worker {
			wr = &st.Workers[i]
		}
	}
	if wr == nil {
		return worktree{}, nil, noWorktree("run %s has no worker %q (its workers: %s)", st.Run, worker, strings.Join(ids, ", "))
	}
	if wr.Isolation != IsolationWorktree || wr.Branch == "" {
		return worktree{}, nil, noWorktree("%s runs in the shared workspace (isolation: none): it has no branch; its changes are in %s already", worker, st.Workspace)
	}
	repo, err := readGit(st.Workspace).line("rev-parse", "--show-toplevel")
	if err != nil {
		return worktree{}, nil, fmt.Errorf("the workspace %s: %w", st.Workspace, err)
	}
	path := wr.Worktree
	if path == "" {
		path = WorktreePath(st.StateDir, worker)
	}
	return worktree{worker: worker, repo: repo, path: path, branch: wr.Branch, base: wr.BaseCommit}, wr, nil
}

// branchGone is the refusal for a worker whose branch the run's end
// removed.
func (w worktree) branchGone() error {
	return noWorktree("%s's branch %s is gone: it was merged or empty when the run ended, and removed", w.worker, w.branch)
}

// DiffInfo says what a diff compared.
type DiffInfo struct {
	Branch   string
	Base     string
	Worktree string // "" when the worktree is gone and the branch was read
	Stat     DiffStat
}

// DiffOptions are a diff's choices.
type DiffOptions struct {
	Color bool // git's colours
	// Text shows every file's lines, those of a file git takes for binary
	// (or an attribute marks binary) included: `git diff --text`.
	Text bool
}

// WorktreeDiff is WorktreeDiffWith with color alone: the UI's diff.
func WorktreeDiff(st *TeamState, worker string, color bool) ([]byte, DiffInfo, error) {
	return WorktreeDiffWith(st, worker, DiffOptions{Color: color})
}

// WorktreeDiffWith is the diff of worker's work against the run's base
// commit: what its worktree holds now (committed or not) while the
// worktree exists, else its branch.
func WorktreeDiffWith(st *TeamState, worker string, opts DiffOptions) ([]byte, DiffInfo, error) {
	wt, _, err := reviewTarget(st, worker)
	if err != nil {
		return nil, DiffInfo{}, err
	}
	info := DiffInfo{Branch: wt.branch, Base: wt.base}
	var tree string
	if wt.exists() {
		info.Worktree = wt.path
		if tree, err = wt.liveTree(); err != nil {
			return nil, info, err
		}
	} else {
		if tree, err = wt.branchTip(); err != nil {
			return nil, info, err
		}
		if tree == "" {
			return nil, info, wt.branchGone()
		}
	}
	if info.Stat, err = wt.diffStat(tree); err != nil {
		return nil, info, err
	}
	args := []string{"diff", "--color=never", "--no-ext-diff", "--no-textconv", "--patch-with-stat"}
	if opts.Color {
		args[1] = "--color=always"
	}
	if opts.Text {
		args = append(args, "--text")
	}
	out, err := readGit(wt.repo).run(append(args, wt.base, tree)...)
	return out, info, err
}

// MergeResult is what a merge did.
type MergeResult struct {
	Branch        string
	Into          string // the workspace's branch
	Commit        string // the merge commit
	Stat          DiffStat
	AlreadyMerged bool // nothing to do: the branch is in the workspace's HEAD
	Removed       bool // the run is over, so the merged worktree and branch were removed
	// IgnoredKept names the files git ignores that kept the merged
	// worktree of a run that is over: removing it would delete them.
	IgnoredKept string
}

// MergeOptions are a merge's choices.
type MergeOptions struct {
	// Hooks runs the repository's hooks (pre-merge-commit, post-merge…)
	// as a plain `git merge` would; without it none runs: a worker may
	// have planted them (docs/isolation.md, "rostra's own git").
	Hooks bool
}

// MergeWorktree is MergeWorktreeWith with no hooks: the UI's merge.
func MergeWorktree(st *TeamState, worker string) (MergeResult, error) {
	return MergeWorktreeWith(st, worker, MergeOptions{})
}

// MergeWorktreeWith merges worker's branch into the workspace's current
// branch with a merge commit (--no-ff), made by the person's git identity
// (rostra's when git knows none), with the repository's hooks only when
// opts.Hooks. It refuses, touching nothing, when the merge cannot be clean
// (see the file comment). After a run has ended, the merged worktree and
// branch are removed.
func MergeWorktreeWith(st *TeamState, worker string, opts MergeOptions) (MergeResult, error) {
	wt, wr, err := reviewTarget(st, worker)
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Branch: wt.branch, Stat: wr.DiffStat}
	live := runDriven(st.StateDir)
	if live {
		if Unsettled(wr.Status) {
			return res, refused("%s is %s: its work is not all on %s yet; merge once it has settled (or cancel it)", worker, wr.Status, wt.branch)
		}
		var shared []string
		for _, o := range st.Workers {
			if o.Isolation != IsolationWorktree && o.Status == StatusRunning {
				shared = append(shared, o.WorkerID)
			}
		}
		if len(shared) > 0 {
			return res, refused("%s run in the workspace: a merge now would change files under them (and their write audits would charge them); merge once they have settled", strings.Join(shared, ", "))
		}
	}
	tip, err := wt.branchTip()
	if err != nil {
		return res, err
	}
	if tip == "" {
		return res, wt.branchGone()
	}
	if wt.exists() {
		if left := uncommitted(wt.path, 5); left != "" {
			return res, refused("%s's worktree %s holds changes not committed on %s (%s); commit them there (or wait for its attempt to settle), then merge", worker, wt.path, wt.branch, left)
		}
	}
	g := userGit(wt.repo, opts.Hooks)
	into, err := g.line("symbolic-ref", "-q", "--short", "HEAD")
	if err != nil || into == "" {
		return res, refused("the workspace %s has no current branch (a detached HEAD); check out the branch to merge into, then merge", wt.repo)
	}
	res.Into = into
	if dirty, err := readGit(wt.repo).run("status", "--porcelain", "-z", "--untracked-files=no"); err != nil {
		return res, err
	} else if len(dirty) > 0 {
		return res, refused("the workspace %s has uncommitted changes (%s); commit or stash them, then merge; nothing was merged", wt.repo, statusPaths(dirty, 5))
	}
	head, err := g.line("rev-parse", "HEAD")
	if err != nil {
		return res, err
	}
	if merged, err := isAncestor(wt.repo, tip, head); err != nil {
		return res, err
	} else if merged {
		res.AlreadyMerged = true
		return res, removeAfterRun(&res, wt, live)
	}
	if conflicts, err := mergeConflicts(wt.repo, wt.branch); err != nil {
		return res, err
	} else if conflicts != "" {
		return res, refused("%s conflicts with %s in %s; nothing was merged: resolve it by hand (git merge %s in %s) or ask the worker again",
			wt.branch, into, conflicts, wt.branch, wt.repo)
	}
	msg := fmt.Sprintf("rostra: merge %s (worker %s of run %s)", wt.branch, worker, st.Run)
	if _, err := g.run("merge", "--no-ff", "--no-edit", "-m", msg, wt.branch); err != nil {
		abortMerge(wt.repo)
		return res, fmt.Errorf("merge %s into %s: %w; the merge was aborted, the workspace is as it was", wt.branch, into, err)
	}
	if res.Commit, err = g.line("rev-parse", "HEAD"); err != nil {
		return res, err
	}
	return res, removeAfterRun(&res, wt, live)
}

// runDriven reports whether a rostra holds the run's lock: the run goes
// on (in the UI, even once every worker has settled: a retry may follow).
func runDriven(stateDir string) bool {
	dir, err := lockDir(stateDir)
	if err != nil {
		var locked *ErrLocked
		return errors.As(err, &locked)
	}
	dir.Close()
	return false
}

// removeAfterRun removes a merged worktree and its branch once no rostra
// drives the run (during a run, the run's end does it).
func removeAfterRun(res *MergeResult, wt worktree, live bool) error {
	if live {
		return nil
	}
	if res.IgnoredKept = wt.ignoredFiles(5); res.IgnoredKept != "" {
		return nil
	}
	if err := wt.remove(); err != nil {
		return fmt.Errorf("merged, but the worktree %s could not be removed: %w", wt.path, err)
	}
	res.Removed = true
	return nil
}

// mergeConflicts lists the files where merging branch into HEAD would
// conflict, "" when it would be clean, without touching the work tree:
// `git merge-tree --write-tree` (git 2.38), else a trial merge that is
// aborted.
func mergeConflicts(repo, branch string) (string, error) {
	out, err := readGit(repo).run("merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", branch)
	var ge *gitError
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &ge) && ge.exitCode() == 1:
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		files := slices.Compact(lines[min(1, len(lines)):])
		return listPaths(files, 5), nil
	case errors.As(err, &ge) && ge.exitCode() == 129:
		// An older git: try the merge and take it back.
		_, err := userGit(repo, false).run("merge", "--no-commit", "--no-ff", branch)
		if err == nil {
			abortMerge(repo)
			return "", nil
		}
		files, _ := readGit(repo).run("diff", "--name-only", "--diff-filter=U")
		abortMerge(repo)
		return listPaths(strings.Fields(string(files)), 5), nil
	}
	return "", err
}

// listPaths words paths for a message: the first max of them, then
// "(+N more)"; "some files" when there are none (git named no file).
func listPaths(paths []string, max int) string {
	if len(paths) == 0 {
		return "some files"
	}
	if len(paths) > max {
		return strings.Join(paths[:max], ", ") + fmt.Sprintf(" (+%d more)", len(paths)-max)
	}
	return strings.Join(paths, ", ")
}

// abortMerge takes back a merge in progress, if there is one.
func abortMerge(repo string) {
	if p, err := gitPath(repo, "MERGE_HEAD"); err == nil {
		if _, err := os.Stat(p); err == nil {
			_, _ = rostraGit(repo).run("merge", "--abort")
		}
	}
}

// userGit runs git in repo as the person: their identity (rostra's when
// git knows none), and their hooks when hooks is set (rostra merge
// --hooks); nothing else the repository names runs (git.go).
func userGit(repo string, hooks bool) gitRunner {
	r := gitRunner{dir: repo, hooks: hooks}
	for _, key := range []string{"user.name", "user.email"} {
		if v, _ := (gitRunner{dir: repo}).line("config", "--get", key); v == "" {
			val := RostraName
			if key == "user.email" {
				val = RostraEmail
			}
			r.config = append(r.config, "-c", key+"="+val)
		}
	}
	return r
}

// KeptWorktrees lists the worktrees a run left with unmerged work that are
// still there: "worker: branch (stat) at path".
func KeptWorktrees(st *TeamState) []string {
	var out []string
	for _, wr := range st.Workers {
		if wr.Isolation != IsolationWorktree || wr.Worktree == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(wr.Worktree, ".git")); err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s (%s) at %s", wr.WorkerID, wr.Branch, wr.DiffStat, wr.Worktree))
	}
	return out
}

// Diff is WorktreeDiff of the run this engine drives, from its current
// state: what the UI shows for an isolated worker.
func (e *Engine) Diff(worker string, color bool) ([]byte, DiffInfo, error) {
	st := e.Snapshot()
	return WorktreeDiff(&st, worker, color)
}

// Merge is MergeWorktree of the run this engine drives, from its current
// state.
func (e *Engine) Merge(worker string) (MergeResult, error) {
	st := e.Snapshot()
	return MergeWorktree(&st, worker)
}
