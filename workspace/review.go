// review.go is how a person reviews and takes an isolated worker's work:
// the diff of its branch's tip against the run's base commit (`rostra
// diff`, the UI's D) and the merge of that same tip, by id, into the
// workspace's current branch (`rostra merge`, the UI's M; --commit pins
// the tip reviewed). Both name the tip and list the commits on the branch
// rostra did not make (docs/isolation.md, "Review and merge"). Both work
// from a TeamState alone, so they serve the CLI after the run as well as
// the UI during it.
//
// A merge changes nothing unless it can succeed: it refuses, leaving the
// workspace and the branch as they were, when the workspace has
// uncommitted changes, has no current branch, when the worker's work is not
// all committed (its attempt runs), when workers of the shared workspace
// are running (the merge would change files under them), when the
// repository's .git config, hooks or info/ changed during the run or the
// branch changes a .gitattributes (git would run what they name), and when
// the branch conflicts with the workspace's HEAD (found by `git merge-tree`
// before anything is touched). Like all of rostra's git (git.go), the
// merge runs no program the repository names; the repository's hooks run
// only when asked (MergeOptions.Hooks, `rostra merge --hooks`).
package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
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
func reviewTarget(st *statedir.TeamState, worker string) (Worktree, *statedir.WorkerRow, error) {
	var wr *statedir.WorkerRow
	var ids []string
	for i := range st.Workers {
		ids = append(ids, st.Workers[i].WorkerID)
		if st.Workers[i].WorkerID == worker {
			wr = &st.Workers[i]
		}
	}
	if wr == nil {
		return Worktree{}, nil, noWorktree("run %s has no worker %q (its workers: %s)", st.Run, worker, strings.Join(ids, ", "))
	}
	if wr.Isolation != runfile.IsolationWorktree || wr.Branch == "" {
		return Worktree{}, nil, noWorktree("%s runs in the shared workspace (isolation: none): it has no branch; its changes are in %s already", worker, st.Workspace)
	}
	repo, err := ReadGit(st.Workspace).Line("rev-parse", "--show-toplevel")
	if err != nil {
		return Worktree{}, nil, fmt.Errorf("the workspace %s: %w", st.Workspace, err)
	}
	path := wr.Worktree
	if path == "" {
		path = runfile.WorktreePath(st.StateDir, worker)
	}
	return Worktree{Worker: worker, Repo: repo, Path: path, Branch: wr.Branch, Base: wr.BaseCommit}, wr, nil
}

// branchGone is the refusal for a worker whose branch the run's end
// removed.
func (w Worktree) branchGone() error {
	return noWorktree("%s's branch %s is gone: it was merged or empty when the run ended, and removed", w.Worker, w.Branch)
}

// DiffInfo says what a diff compared.
type DiffInfo struct {
	Branch string
	Base   string
	// Commit is the branch's tip the diff shows, Subject its subject: what
	// `rostra merge --commit` pins.
	Commit   string
	Subject  string
	Worktree string // "" when the worktree is gone
	Stat     statedir.DiffStat
	// Foreign lists the commits on the branch that rostra did not make
	// ("<id> <subject> (<author>)"): the agent's own, or anyone's.
	Foreign []string
	// Uncommitted names what the worktree holds that is not on the branch
	// (not in the diff, and not merged): an attempt still running, or git
	// work of the agent's rostra has not committed yet.
	Uncommitted string
}

// DiffOptions are a diff's choices.
type DiffOptions struct {
	Color bool // git's colours
	// Text shows every file's lines, those of a file git takes for binary
	// (or an attribute marks binary) included: `git diff --text`.
	Text bool
	// Escaped is the diff as a terminal may show it: every control
	// character of the worker's names and contents escaped (\e, \x07),
	// tabs and newlines kept, coloured by rostra itself when Color is set,
	// so a file cannot hide a line from the person reviewing it
	// (docs/design.md, "Nothing raw reaches a terminal").
	Escaped bool
}

// WorktreeDiff is the UI's diff: every file's lines, escaped, coloured when
// color is set.
func WorktreeDiff(st *statedir.TeamState, worker string, color bool) ([]byte, DiffInfo, error) {
	return WorktreeDiffWith(st, worker, DiffOptions{Color: color, Text: true, Escaped: true})
}

// WorktreeDiffWith is the diff of worker's branch, at its tip, against the
// run's base commit: exactly the commit `rostra merge` takes, never the
// worktree's HEAD, which the agent can move (docs/isolation.md, "Review and
// merge").
func WorktreeDiffWith(st *statedir.TeamState, worker string, opts DiffOptions) ([]byte, DiffInfo, error) {
	wt, _, err := reviewTarget(st, worker)
	if err != nil {
		return nil, DiffInfo{}, err
	}
	info := DiffInfo{Branch: wt.Branch, Base: wt.Base}
	if err := wt.describeTip(st, &info); err != nil {
		return nil, info, err
	}
	args := []string{"diff", "--color=never", "--no-ext-diff", "--no-textconv", "--patch-with-stat"}
	if opts.Color && !opts.Escaped {
		args[1] = "--color=always"
	}
	if opts.Text {
		args = append(args, "--text")
	}
	out, err := ReadGit(wt.Repo).Run(append(args, wt.Base, info.Commit)...)
	if err == nil && opts.Escaped {
		out = escapedDiff(out, opts.Color)
	}
	return out, info, err
}

// SGR colours of escapedDiff, as git's defaults: meta lines bold, hunk
// headers cyan, removed lines red, added lines green.
const (
	sgrMeta  = "\x1b[1m"
	sgrFrag  = "\x1b[36m"
	sgrOld   = "\x1b[31m"
	sgrNew   = "\x1b[32m"
	sgrReset = "\x1b[m"
)

// escapedDiff is a diff (git diff --patch-with-stat, uncoloured) as a
// terminal may show it (DiffOptions.Escaped): every control character but tab and newline
// escaped, in file names and contents alike, then coloured by rostra when
// color is set, so the only escape sequences left are its own SGR.
func escapedDiff(diff []byte, color bool) []byte {
	var b bytes.Buffer
	b.Grow(len(diff) + len(diff)/8)
	header := false // between "diff --git" and the first hunk
	lines := strings.SplitAfter(string(diff), "\n")
	for _, line := range lines {
		text, nl := strings.CutSuffix(line, "\n")
		shown := escapeKeepingTabs(text)
		sgr := ""
		switch {
		case strings.HasPrefix(text, "diff --git "):
			header, sgr = true, sgrMeta
		case strings.HasPrefix(text, "@@"):
			header, sgr = false, sgrFrag
		case header:
			sgr = sgrMeta
		case strings.HasPrefix(text, "+"):
			sgr = sgrNew
		case strings.HasPrefix(text, "-"):
			sgr = sgrOld
		}
		if color && sgr != "" && text != "" {
			shown = sgr + shown + sgrReset
		}
		b.WriteString(shown)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// escapeKeepingTabs is printable.String with tabs kept: a diff of source
// code is full of them, and a tab moves the cursor, nothing more.
func escapeKeepingTabs(s string) string {
	parts := strings.Split(s, "\t")
	for i, p := range parts {
		parts[i] = printable.String(p)
	}
	return strings.Join(parts, "\t")
}

// describeTip fills info with the branch's tip: its id and subject, its
// diff-stat against the base, the commits on it rostra did not make, and
// what the worktree holds beyond it.
func (w Worktree) describeTip(st *statedir.TeamState, info *DiffInfo) error {
	tip, err := w.BranchTip()
	if err != nil {
		return err
	}
	if tip == "" {
		return w.branchGone()
	}
	info.Commit = tip
	g := ReadGit(w.Repo)
	if info.Subject, err = g.Line("log", "-1", "--format=%s", tip); err != nil {
		return err
	}
	if info.Stat, err = w.DiffStat(tip); err != nil {
		return err
	}
	if info.Foreign, err = w.foreignCommits(st, tip); err != nil {
		return err
	}
	if w.Exists() {
		info.Worktree = w.Path
		tree, err := w.LiveTree()
		if err != nil {
			return err
		}
		out, err := g.Run("diff", "--name-only", "-z", "--no-renames", tip, tree)
		if err != nil {
			return err
		}
		info.Uncommitted = listNames(out, 5)
	}
	return nil
}

// listNames words NUL-separated paths as listPaths does, "" for none.
func listNames(out []byte, max int) string {
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return ""
	}
	return listPaths(paths, max)
}

// foreignCommits lists the commits between the base and tip that rostra
// did not make. rostra's are authored and committed as rostra and are
// either in the run's record (a dispatch row's workCommit) or an attempt's
// start from the base (their tree is the base's): an author line alone can
// be forged.
func (w Worktree) foreignCommits(st *statedir.TeamState, tip string) ([]string, error) {
	recorded := map[string]bool{}
	for _, d := range st.Dispatches {
		if d.WorkerID == w.Worker && d.WorkCommit != "" {
			recorded[d.WorkCommit] = true
		}
	}
	g := ReadGit(w.Repo)
	baseTree, err := g.Line("rev-parse", w.Base+"^{tree}")
	if err != nil {
		return nil, err
	}
	out, err := g.Run("log", "-z", "--reverse", "--format=%H%x01%T%x01%an <%ae>%x01%cn <%ce>%x01%s", w.Base+".."+tip)
	if err != nil {
		return nil, err
	}
	rostra := RostraName + " <" + RostraEmail + ">"
	var foreign []string
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.SplitN(strings.TrimPrefix(rec, "\n"), "\x01", 5)
		if len(f) < 5 {
			continue
		}
		if f[2] == rostra && f[3] == rostra && (recorded[f[0]] || f[1] == baseTree) {
			continue
		}
		foreign = append(foreign, fmt.Sprintf("%s %s (%s)", statedir.ShortCommit(f[0]), f[4], f[2]))
	}
	return foreign, nil
}

// MergeResult is what a merge did.
type MergeResult struct {
	Branch string
	Into   string // the workspace's branch
	Commit string // the merge commit
	// Merged is the branch's tip that was merged (what `rostra diff`
	// showed), Subject its subject; Foreign the commits on it rostra did
	// not make (DiffInfo.Foreign).
	Merged        string
	Subject       string
	Foreign       []string
	Stat          statedir.DiffStat
	AlreadyMerged bool // nothing to do: the branch is in the workspace's HEAD
	Removed       bool // the run is over, so the merged worktree and branch were removed
	// IgnoredKept names the files git ignores that kept the merged
	// worktree of a run that is over: removing it would delete them.
	IgnoredKept string
}

// MergeOptions are a merge's choices.
type MergeOptions struct {
	// Pin, when not "", is the commit the person reviewed (DiffInfo.Commit,
	// a prefix of it will do): the merge is refused when the tip is another.
	Pin string
	// Hooks runs the repository's hooks (pre-merge-commit, post-merge…)
	// as a plain `git merge` would; without it none runs: a worker may
	// have planted them (docs/isolation.md, "rostra's own git").
	Hooks bool
}

// MergeWorktree is MergeWorktreeWith pinned to pin, with no hooks: the
// UI's merge.
func MergeWorktree(st *statedir.TeamState, worker, pin string) (MergeResult, error) {
	return MergeWorktreeWith(st, worker, MergeOptions{Pin: pin})
}

// MergeWorktreeWith merges worker's branch, at its tip, into the
// workspace's current branch with a merge commit (--no-ff), made by the
// person's git identity (rostra's when git knows none), with the
// repository's hooks only when opts.Hooks. It refuses, touching nothing,
// when the merge cannot be clean (see the file comment) or the tip is not
// opts.Pin. After a run has ended, the merged worktree and branch are
// removed.
func MergeWorktreeWith(st *statedir.TeamState, worker string, opts MergeOptions) (MergeResult, error) {
	wt, wr, err := reviewTarget(st, worker)
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Branch: wt.Branch, Stat: wr.DiffStat}
	live := runDriven(st.StateDir)
	if live {
		if statedir.Unsettled(wr.Status) {
			return res, refused("%s is %s: its work is not all on %s yet; merge once it has settled (or cancel it)", worker, wr.Status, wt.Branch)
		}
		var shared []string
		for _, o := range st.Workers {
			if o.Isolation != runfile.IsolationWorktree && o.Status == statedir.StatusRunning {
				shared = append(shared, o.WorkerID)
			}
		}
		if len(shared) > 0 {
			return res, refused("%s run in the workspace: a merge now would change files under them (and their write audits would charge them); merge once they have settled", strings.Join(shared, ", "))
		}
	}
	var info DiffInfo
	if err := wt.describeTip(st, &info); err != nil {
		return res, err
	}
	tip := info.Commit
	res.Merged, res.Subject, res.Foreign, res.Stat = tip, info.Subject, info.Foreign, info.Stat
	if pin := opts.Pin; pin != "" && !strings.HasPrefix(tip, strings.ToLower(pin)) {
		return res, refused("%s moved since it was reviewed: its tip is %s, not %s; nothing was merged: look at it again (rostra diff %s), then merge with --commit %s",
			wt.Branch, statedir.ShortCommit(tip), pin, worker, statedir.ShortCommit(tip))
	}
	if info.Uncommitted != "" {
		return res, refused("%s's worktree %s holds changes not committed on %s (%s); wait for its attempt to settle (its work is committed then), then merge", worker, wt.Path, wt.Branch, info.Uncommitted)
	}
	g := userGit(wt.Repo, opts.Hooks)
	into, err := g.Line("symbolic-ref", "-q", "--short", "HEAD")
	if err != nil || into == "" {
		return res, refused("the workspace %s has no current branch (a detached HEAD); check out the branch to merge into, then merge", wt.Repo)
	}
	res.Into = into
	if dirty, err := ReadGit(wt.Repo).Run("status", "--porcelain", "-z", "--untracked-files=no"); err != nil {
		return res, err
	} else if len(dirty) > 0 {
		return res, refused("the workspace %s has uncommitted changes (%s); commit or stash them, then merge; nothing was merged", wt.Repo, statusPaths(dirty, 5))
	}
	head, err := g.Line("rev-parse", "HEAD")
	if err != nil {
		return res, err
	}
	if merged, err := IsAncestor(wt.Repo, tip, head); err != nil {
		return res, err
	} else if merged {
		res.AlreadyMerged = true
		return res, removeAfterRun(&res, wt, live)
	}
	if err := guardRepository(st, wt, tip); err != nil {
		return res, err
	}
	if conflicts, err := mergeConflicts(wt.Repo, tip); err != nil {
		return res, err
	} else if conflicts != "" {
		return res, refused("%s conflicts with %s in %s; nothing was merged: resolve it by hand (git merge %s in %s) or ask the worker again",
			wt.Branch, into, conflicts, wt.Branch, wt.Repo)
	}
	msg := mergeMessage(wt.Branch, worker, st.Run)
	if _, err := g.Run("merge", "--no-ff", "--no-edit", "-m", msg, tip); err != nil {
		abortMerge(wt.Repo)
		return res, fmt.Errorf("merge %s into %s: %w; the merge was aborted, the workspace is as it was", wt.Branch, into, err)
	}
	if res.Commit, err = g.Line("rev-parse", "HEAD"); err != nil {
		return res, err
	}
	return res, removeAfterRun(&res, wt, live)
}

// mergeMessage is the message of the merge commit rostra merge makes; the
// report finds the commit by it once the branch is removed.
func mergeMessage(branch, worker, run string) string {
	return fmt.Sprintf("rostra: merge %s (worker %s of run %s)", branch, worker, run)
}

// guardRepository refuses a merge when the shared repository's config,
// hooks or info/ (attributes) changed since the run started, or the branch
// changes a .gitattributes: git would run what they name during the merge
// (docs/isolation.md, "Review and merge").
func guardRepository(st *statedir.TeamState, wt Worktree, tip string) error {
	if st.GitFiles != nil {
		// A run that has ended is judged on its window: what changed
		// after its workers were gone is the user's own.
		now, err := repoFiles(wt.Repo, "")
		if err != nil {
			return err
		}
		changed, since := changedFiles(st.GitFiles, now), "since run %s started"
		if st.GitFilesAtEnd != nil {
			// Of what differs now, what the run had already changed by its
			// end; a file put back as the run found it is not.
			during := changedFiles(st.GitFiles, st.GitFilesAtEnd)
			changed = slices.DeleteFunc(changed, func(p string) bool { return !slices.Contains(during, p) })
			since = "during run %s"
		}
		if len(changed) > 0 {
			return refused("the repository's %s changed "+since+" (an agent may have planted what git runs during a merge); nothing was merged: read them, put them back, or merge by hand (git merge %s) once you trust them",
				listPaths(changed, 8), st.Run, statedir.ShortCommit(tip))
		}
	}
	out, err := ReadGit(wt.Repo).Run("diff", "--name-only", "-z", "--no-renames", wt.Base, tip)
	if err != nil {
		return err
	}
	var attrs []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p == ".gitattributes" || strings.HasSuffix(p, "/.gitattributes") {
			attrs = append(attrs, p)
		}
	}
	if len(attrs) > 0 {
		return refused("%s changes %s, which tells git what to run on files (filters, diff and merge drivers); nothing was merged: read it (git diff %s %s -- %s), then merge by hand (git merge %s) if you trust it",
			wt.Branch, strings.Join(attrs, ", "), statedir.ShortCommit(wt.Base), statedir.ShortCommit(tip), strings.Join(attrs, " "), statedir.ShortCommit(tip))
	}
	return nil
}

// runDriven reports whether a rostra holds the run's lock: the run goes
// on (in the UI, even once every worker has settled: a retry may follow).
func runDriven(stateDir string) bool {
	dir, err := statedir.LockDir(stateDir)
	if err != nil {
		var locked *statedir.ErrLocked
		return errors.As(err, &locked)
	}
	dir.Close()
	return false
}

// removeAfterRun removes a merged worktree and its branch once no rostra
// drives the run (during a run, the run's end does it).
func removeAfterRun(res *MergeResult, wt Worktree, live bool) error {
	if live {
		return nil
	}
	if res.IgnoredKept = wt.IgnoredFiles(5); res.IgnoredKept != "" {
		return nil
	}
	if err := wt.Remove(); err != nil {
		return fmt.Errorf("merged, but the worktree %s could not be removed: %w", wt.Path, err)
	}
	res.Removed = true
	return nil
}

// mergeConflicts lists the files where merging branch into HEAD would
// conflict, "" when it would be clean, without touching the work tree:
// `git merge-tree --write-tree` (git 2.38), else a trial merge that is
// aborted.
func mergeConflicts(repo, branch string) (string, error) {
	out, err := ReadGit(repo).Run("merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", branch)
	var ge *GitError
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &ge) && ge.exitCode() == 1:
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		files := slices.Compact(lines[min(1, len(lines)):])
		return listPaths(files, 5), nil
	case errors.As(err, &ge) && ge.exitCode() == 129:
		// An older git: try the merge and take it back.
		_, err := userGit(repo, false).Run("merge", "--no-commit", "--no-ff", branch)
		if err == nil {
			abortMerge(repo)
			return "", nil
		}
		files, _ := ReadGit(repo).Run("diff", "--name-only", "--diff-filter=U")
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
			_, _ = RostraGit(repo).Run("merge", "--abort")
		}
	}
}

// userGit runs git in repo as the person: their identity (rostra's when
// git knows none), and their hooks when hooks is set (rostra merge
// --hooks); nothing else the repository names runs (git.go).
func userGit(repo string, hooks bool) GitRunner {
	r := GitRunner{dir: repo, hooks: hooks}
	for _, key := range []string{"user.name", "user.email"} {
		if v, _ := (GitRunner{dir: repo}).Line("config", "--get", key); v == "" {
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
func KeptWorktrees(st *statedir.TeamState) []string {
	var out []string
	for _, wr := range st.Workers {
		if wr.Isolation != runfile.IsolationWorktree || wr.Worktree == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(wr.Worktree, ".git")); err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s (%s) at %s", wr.WorkerID, wr.Branch, wr.DiffStat, wr.Worktree))
	}
	return out
}
