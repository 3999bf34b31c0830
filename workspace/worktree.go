// worktree.go gives each isolated worker (isolation: worktree) a git
// worktree of its own at <state_dir>/worktrees/<worker>, on the branch
// rostra/<run>/<worker> made from the workspace's HEAD when the run
// started (the base commit), and keeps the branch's history one commit per
// attempt: "rostra: <worker> attempt <n> (<status>)". Before attempt n > 1
// the tree is reset to the base commit (committed as "rostra: <worker>
// attempt <n> starts from the base <commit>") unless retry_from: last.
// Those commits are made by plumbing from the worktree's files onto
// refs/heads/rostra/<run>/<worker>, compare-and-swap, never through the
// worktree's HEAD, which the agent can move (docs/isolation.md).
//
// Data model: a worktree value names the repository (the git work tree
// holding the shared workspace), the worktree's folder, its branch and the
// base commit; its methods run git (git.go) and are slow, so the engine
// calls them only on goroutines of their own, one worker's jobs in the
// order the loop queued them (engine/engine.go, queueGit). PrepareIsolation runs
// before the engine starts: it checks the repository and finds the base
// commit. MergeWorktree and WorktreeDiff serve `rostra merge`, `rostra
// diff` and the UI from a TeamState alone.
package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// repoLocks holds one mutex per repository: git does not make or remove
// two worktrees of one repository at once safely (one reads the other's
// half-made records: "failed to read .git/worktrees/x/commondir"), so
// those steps take it. Commits in different worktrees need no lock.
var repoLocks sync.Map // repository path -> *sync.Mutex

func LockRepo(repo string) (unlock func()) {
	m, _ := repoLocks.LoadOrStore(repo, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// Worktree is one isolated worker's worktree.
type Worktree struct {
	Worker string
	Repo   string // the git work tree that holds the shared workspace
	Path   string // the worktree's folder
	Branch string
	Base   string // the base commit
}

func (w Worktree) Short() string { return statedir.ShortCommit(w.Base) }

// Exists reports whether the worktree's folder is checked out.
func (w Worktree) Exists() bool {
	_, err := os.Lstat(filepath.Join(w.Path, ".git"))
	return err == nil
}

// BranchTip is the branch's commit, "" when the branch does not exist.
func (w Worktree) BranchTip() (string, error) {
	out, err := ReadGit(w.Repo).Run("rev-parse", "--verify", "-q", "refs/heads/"+w.Branch+"^{commit}")
	var ge *GitError
	if errors.As(err, &ge) && ge.exitCode() == 1 {
		return "", nil
	}
	return strings.TrimSpace(string(out)), err
}

// Ensure checks the worktree out when it is not (the first attempt, or a
// resumed run whose worktree was removed): on its branch when the branch
// exists, else on a new branch at the base commit. Only the worktree's
// record is made under the repository's lock; its files are checked out
// after, in parallel with the other workers' (checkout.workers), which on
// a large tree is most of the time.
func (w Worktree) Ensure() error {
	if !w.Exists() {
		if err := w.Register(); err != nil {
			return err
		}
	}
	if w.Populated() {
		return nil
	}
	// A worktree registered but never checked out (rostra stopped in
	// between) has no index yet: nothing in it is anyone's work.
	_, err := RostraGit(w.Path).Run("reset", "--hard", "-q")
	return err
}

// Register makes the worktree's record and branch, without its files.
func (w Worktree) Register() error {
	// The worktrees folder is in the state dir, where workers can write: a
	// link planted there would have the worktree made wherever it points.
	if fi, err := os.Lstat(filepath.Dir(w.Path)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(filepath.Dir(w.Path))
		return fmt.Errorf("%s is a symlink (to %s); rostra never makes a worktree through a link in its state dir: remove it", filepath.Dir(w.Path), target)
	}
	if err := os.MkdirAll(filepath.Dir(w.Path), 0o700); err != nil {
		return fmt.Errorf("make the worktrees folder: %w", err)
	}
	defer LockRepo(w.Repo)()
	tip, err := w.BranchTip()
	if err != nil {
		return err
	}
	// -f: a folder removed by hand is still registered; take its place.
	args := []string{"worktree", "add", "-f", "--quiet", "--no-checkout"}
	if tip != "" {
		args = append(args, w.Path, w.Branch)
	} else {
		args = append(args, "-b", w.Branch, w.Path, w.Base)
	}
	if _, err = RostraGit(w.Repo).Run(args...); err != nil {
		return err
	}
	if tip == "" {
		noteRostraRef(w.Repo, w.ref(), w.Base)
	}
	return nil
}

// Populated reports whether the worktree's files were checked out: it has
// an index. When git cannot say, it counts as checked out: a reset of a
// tree that holds an attempt's work would lose it.
func (w Worktree) Populated() bool {
	index, err := gitPath(w.Path, "index")
	if err != nil {
		return true
	}
	_, err = os.Stat(index)
	return !errors.Is(err, fs.ErrNotExist)
}

// gitPath is where git keeps name (index, MERGE_HEAD) for the work tree in
// dir, as an absolute path (rev-parse --git-path may answer relative to
// dir; --path-format=absolute needs git 2.31).
func gitPath(dir, name string) (string, error) {
	p, err := ReadGit(dir).Line("rev-parse", "--git-path", name)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// CommitAll commits what the worktree's files hold (what .gitignore does
// not ignore) as msg onto the worker's branch, by plumbing: the files are
// staged into a scratch index, written as a tree, committed with the
// branch's tip as the parent, and the branch is moved by compare-and-swap
// from that tip. The worktree's HEAD, its checkout and the branch it may
// have been switched to play no part: the commit lands on
// refs/heads/<branch> or nowhere (docs/isolation.md, "The record of an
// attempt"). It returns the commit, or "" when the files hold nothing
// beyond the tip.
func (w Worktree) CommitAll(msg string) (string, error) {
	tip, err := w.BranchTip()
	if err != nil {
		return "", err
	}
	if tip == "" {
		return "", fmt.Errorf("the branch %s is gone from %s: rostra commits an attempt only onto it; make it again (git branch %s %s) and retry", w.Branch, w.Repo, w.Branch, w.Short())
	}
	tree, index, done, err := w.Stage()
	defer done()
	if err != nil {
		return "", err
	}
	g := RostraGit(w.Repo)
	if tipTree, err := g.Line("rev-parse", "--verify", "-q", tip+"^{tree}"); err != nil {
		return "", err
	} else if tipTree == tree {
		return "", nil
	}
	commit, err := g.Line("commit-tree", tree, "-p", tip, "-m", msg)
	if err != nil {
		return "", err
	}
	if err := w.moveRef(w.ref(), commit, tip); err != nil {
		return "", err
	}
	w.adoptIndex(index)
	return commit, nil
}

// ref is the worker's branch as a full ref name.
func (w Worktree) ref() string { return "refs/heads/" + w.Branch }

// moveRef sets ref to value ("" deletes it) only if it is old now ("" for
// a ref that must not exist yet), and notes that rostra did.
func (w Worktree) moveRef(ref, value, old string) error {
	args := []string{"update-ref", "-m", "rostra", ref, value, old}
	if value == "" {
		args = []string{"update-ref", "-m", "rostra", "-d", ref, old}
	}
	if _, err := RostraGit(w.Repo).Run(args...); err != nil {
		return err
	}
	noteRostraRef(w.Repo, ref, value)
	return nil
}

// rostraRefs remembers the value rostra itself last gave a ref, so the
// check of an attempt's repository (repocheck.go) does not take rostra's
// own writes for the agent's.
var rostraRefs sync.Map // repository + "\x00" + ref -> value ("" deleted)

func noteRostraRef(repo, ref, value string) { rostraRefs.Store(repo+"\x00"+ref, value) }

func rostraWrote(repo, ref, value string) bool {
	v, ok := rostraRefs.Load(repo + "\x00" + ref)
	return ok && v.(string) == value
}

// adoptIndex makes the scratch index that a commit was made from the
// worktree's own, so `git status` there shows the branch clean. It is
// skipped when the worktree's HEAD is not the branch (the index would lie
// about another commit) or git holds the index's lock (a git of the
// agent's still runs there): the index is git's cache, never the record.
func (w Worktree) adoptIndex(scratch string) {
	if head, err := ReadGit(w.Path).Line("symbolic-ref", "-q", "HEAD"); err != nil || head != w.ref() {
		return
	}
	index, err := gitPath(w.Path, "index")
	if err != nil {
		return
	}
	data, err := os.ReadFile(scratch)
	if err != nil || len(data) == 0 {
		return
	}
	lock, err := os.OpenFile(index+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	_, err = lock.Write(data)
	if cerr := lock.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(index+".lock", index)
	}
	if err != nil {
		os.Remove(index + ".lock")
	}
}

// ResetToBase makes the tree the base commit's again, files the attempt
// added included (ignored files stay), and commits that as the start of
// attempt n, so attempt n's own commit holds only its work.
func (w Worktree) ResetToBase(attempt int) (string, error) {
	g := RostraGit(w.Path)
	if _, err := g.Run("read-tree", "-u", "--reset", w.Base); err != nil {
		return "", err
	}
	if _, err := g.Run("clean", "-ffdq"); err != nil {
		return "", err
	}
	return w.CommitAll(fmt.Sprintf("rostra: %s attempt %d starts from the base %s", w.Worker, attempt, w.Short()))
}

// AttemptMessage is the commit message of an attempt's work.
func AttemptMessage(worker string, attempt int, status string) string {
	return fmt.Sprintf("rostra: %s attempt %d (%s)", worker, attempt, status)
}

// LiveTree is the tree of what the worktree holds now, committed or not,
// read through a scratch copy of its index so the worktree's own index is
// never touched; new files are hashed into the repository's objects.
func (w Worktree) LiveTree() (string, error) {
	tree, _, done, err := w.Stage()
	done()
	return tree, err
}

// Stage writes the worktree's files as a tree through a scratch index
// (a copy of the worktree's, so only files whose stat changed are read
// again); done removes the scratch index.
func (w Worktree) Stage() (tree, scratchIndex string, done func(), err error) {
	done = func() {}
	index, err := gitPath(w.Path, "index")
	if err != nil {
		return "", "", done, err
	}
	scratch, err := os.CreateTemp("", "rostra-index-")
	if err != nil {
		return "", "", done, fmt.Errorf("scratch index: %w", err)
	}
	name := scratch.Name()
	done = func() {
		os.Remove(name)
		os.Remove(name + ".lock")
	}
	if src, err := os.Open(index); err == nil {
		_, err = io.Copy(scratch, src)
		src.Close()
		if err != nil {
			scratch.Truncate(0)
		}
	}
	scratch.Close()
	sg := RostraGit(w.Path).with("GIT_INDEX_FILE=" + name)
	if _, err := sg.Run("add", "-A"); err != nil {
		// A copy git cannot use (a split index): start from nothing.
		if err := os.Truncate(name, 0); err != nil {
			return "", "", done, err
		}
		if _, err := sg.Run("add", "-A"); err != nil {
			return "", "", done, err
		}
	}
	tree, err = sg.Line("write-tree")
	return tree, name, done, err
}

// DiffStat measures the diff between the base commit and tree.
func (w Worktree) DiffStat(tree string) (statedir.DiffStat, error) {
	out, err := ReadGit(w.Repo).Run("diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", w.Base, tree)
	if err != nil {
		return statedir.DiffStat{}, err
	}
	return parseNumstat(out), nil
}

// parseNumstat reads `git diff --numstat -z` (without renames): one
// "added\tdeleted\tpath\0" per file, "-" for a binary file's counts.
func parseNumstat(out []byte) statedir.DiffStat {
	var s statedir.DiffStat
	for _, rec := range bytes.Split(out, []byte{0}) {
		fields := strings.SplitN(string(rec), "\t", 3)
		if len(fields) < 3 {
			continue
		}
		s.Files++
		if n, err := strconv.Atoi(fields[0]); err == nil {
			s.Additions += n
		}
		if n, err := strconv.Atoi(fields[1]); err == nil {
			s.Deletions += n
		}
	}
	return s
}

// Remove deletes the worktree and its branch (merged or empty: nothing is
// lost). A folder already gone is pruned from git's list.
func (w Worktree) Remove() error {
	defer LockRepo(w.Repo)()
	g := RostraGit(w.Repo)
	if w.Exists() {
		if _, err := g.Run("worktree", "remove", "--force", w.Path); err != nil {
			return err
		}
	} else if _, err := g.Run("worktree", "prune"); err != nil {
		return err
	}
	if tip, err := w.BranchTip(); err != nil || tip == "" {
		return err
	}
	_, err := g.Run("branch", "-D", "--quiet", w.Branch)
	return err
}

// IgnoredFiles lists up to max of the files git ignores in the worktree
// (a folder of them as the folder), "" when there are none or git cannot
// say: `git worktree remove` deletes them, and a worker's result may be
// one (an ignored out/).
func (w Worktree) IgnoredFiles(max int) string {
	if !w.Exists() {
		return ""
	}
	out, err := ReadGit(w.Path).Run("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--no-empty-directory")
	if err != nil {
		return ""
	}
	return listNames(out, max)
}

// IsAncestor reports whether commit a is reachable from b.
func IsAncestor(repo, a, b string) (bool, error) {
	return ReadGit(repo).Test("merge-base", "--is-ancestor", a, b)
}

// Isolation is what PrepareIsolation found for a run with isolated workers.
type Isolation struct {
	Base string // the base commit
	// Dirty, when not empty, says what uncommitted changes the workspace
	// holds: they are not in the worktrees.
	Dirty string
	// Archived says, one line each, which earlier run's unmerged branches
	// were renamed aside to make room.
	Archived []string
	// GitFiles digests the shared .git's config, hooks/ and info/ as the
	// run found them (TeamState.GitFiles).
	GitFiles map[string]string
}

// ErrIsolation is a run with isolated workers that cannot start (exit 2).
var ErrIsolation = errors.New("isolation: worktree")

// PrepareIsolation checks, before a run with isolated workers starts, that
// git can work in the workspace's repository, and finds the base commit:
// the workspace's HEAD, or for a resumed run the one it started from. A
// fresh run makes room for its branches: an earlier run's branch that is
// merged (or holds nothing) is deleted with its worktree; one with
// unmerged work is renamed to rostra/<run>/<worker>-<UTC time> (its
// worktree removed, its commits kept). It returns nil for a plan without
// isolated workers.
func PrepareIsolation(plan *runfile.Plan, resumed *statedir.TeamState, now time.Time) (*Isolation, error) {
	var isolated []*runfile.WorkerSpec
	for i := range plan.Workers {
		if plan.Workers[i].Isolated() && !plan.Workers[i].Remote() {
			isolated = append(isolated, &plan.Workers[i])
		}
	}
	if len(isolated) == 0 {
		return nil, nil
	}
	fail := func(format string, args ...any) (*Isolation, error) {
		return nil, fmt.Errorf("%w: %s", ErrIsolation, fmt.Sprintf(format, args...))
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fail("isolated workers need git, which is not on PATH (%v); install git or use isolation: none", err)
	}
	g := ReadGit(plan.Workspace)
	top, err := g.Line("rev-parse", "--show-toplevel")
	if err != nil {
		return fail("isolation: worktree needs a git repository at %s: %v", plan.Workspace, err)
	}
	if runfile.Resolved(top) != runfile.Resolved(plan.GitRoot) {
		return fail("git says the repository of %s is %s, not %s; run rostra validate", plan.Workspace, top, plan.GitRoot)
	}
	iso := &Isolation{}
	if resumed != nil {
		for _, wr := range resumed.Workers {
			if wr.BaseCommit != "" {
				iso.Base = wr.BaseCommit
				break
			}
		}
	}
	if iso.Base != "" {
		if _, err := g.Run("cat-file", "-e", iso.Base+"^{commit}"); err != nil {
			return fail("the resumed run's base commit %s is not in the repository %s any more: %v", statedir.ShortCommit(iso.Base), top, err)
		}
	} else if iso.Base, err = g.Line("rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil || iso.Base == "" {
		return fail("the repository %s has no commit yet; isolated workers branch from HEAD: commit something first", top)
	}
	iso.Dirty = dirtySummary(top, plan.StateDir)
	if resumed != nil && resumed.GitFiles != nil {
		iso.GitFiles = resumed.GitFiles
	} else if iso.GitFiles, err = repoFiles(top, ""); err != nil {
		return fail("read the repository's .git config, hooks and info: %v", err)
	}
	if resumed != nil {
		return iso, nil
	}
	for _, w := range isolated {
		wt := Worktree{Worker: w.ID, Repo: top, Path: w.Worktree, Branch: w.Branch, Base: iso.Base}
		note, err := makeRoom(wt, now)
		if err != nil {
			return fail("%v", err)
		}
		if note != "" {
			iso.Archived = append(iso.Archived, note)
		}
	}
	return iso, nil
}

// makeRoom clears the way for a fresh run's worktree: what an earlier run
// of the same name left at its branch and folder.
func makeRoom(wt Worktree, now time.Time) (string, error) {
	tip, err := wt.BranchTip()
	if err != nil {
		return "", err
	}
	if wt.Exists() {
		if changed := uncommitted(wt.Path, 5); changed != "" {
			return "", fmt.Errorf("the worktree %s, left by an earlier run, has changes not committed (%s): commit them on %s or discard them (git worktree remove --force %s), then start the run again",
				wt.Path, changed, wt.Branch, wt.Path)
		}
		// Making room removes the worktree, and with it what git ignores
		// there (a result in an ignored out/).
		if ignored := wt.IgnoredFiles(5); ignored != "" {
			return "", fmt.Errorf("the worktree %s, left by an earlier run, holds files git ignores (%s), which removing it would delete: take what you need, then git worktree remove --force %s, and start the run again",
				wt.Path, ignored, wt.Path)
		}
	} else if _, err := os.Lstat(wt.Path); err == nil {
		return "", fmt.Errorf("%s is in the way of worker %s's worktree and is not one; move it away", wt.Path, wt.Worker)
	}
	if tip == "" {
		if wt.Exists() {
			return "", wt.Remove()
		}
		return "", nil
	}
	head, err := ReadGit(wt.Repo).Line("rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	merged, err := IsAncestor(wt.Repo, tip, head)
	if err != nil {
		return "", err
	}
	if merged {
		return "", wt.Remove()
	}
	aside := wt.Branch + "-" + now.UTC().Format("20060102T150405Z")
	defer LockRepo(wt.Repo)()
	if wt.Exists() {
		if _, err := RostraGit(wt.Repo).Run("worktree", "remove", "--force", wt.Path); err != nil {
			return "", err
		}
	}
	if _, err := RostraGit(wt.Repo).Run("branch", "-m", wt.Branch, aside); err != nil {
		return "", err
	}
	return fmt.Sprintf("an earlier run's unmerged work on %s is kept as branch %s", wt.Branch, aside), nil
}

// dirtySummary says what uncommitted changes the repository holds, the
// state dir left out: "2 changed, 1 untracked", or "".
func dirtySummary(repo, stateDir string) string {
	args := []string{"status", "--porcelain", "-z", "--untracked-files=normal", "--", "."}
	if rel, err := filepath.Rel(runfile.Resolved(repo), runfile.Resolved(stateDir)); err == nil && !strings.HasPrefix(rel, "..") {
		args = append(args, ":(exclude)"+filepath.ToSlash(rel))
	}
	out, err := ReadGit(repo).Run(args...)
	if err != nil {
		return "cannot tell: " + err.Error()
	}
	changed, untracked := 0, 0
	for _, e := range statusEntries(out) {
		if e.xy == "??" {
			untracked++
		} else {
			changed++
		}
	}
	var parts []string
	if changed > 0 {
		parts = append(parts, fmt.Sprintf("%d changed", changed))
	}
	if untracked > 0 {
		parts = append(parts, fmt.Sprintf("%d untracked", untracked))
	}
	return strings.Join(parts, ", ")
}

// uncommitted lists up to max paths with changes not committed in a work
// tree (untracked files included), "" when it is clean.
func uncommitted(dir string, max int) string {
	out, err := ReadGit(dir).Run("status", "--porcelain", "-z", "--untracked-files=normal")
	if err != nil {
		return "cannot tell: " + err.Error()
	}
	return statusPaths(out, max)
}

// statusPaths lists the paths of `git status --porcelain -z` output, at
// most max of them; "" when there are none.
func statusPaths(out []byte, max int) string {
	entries := statusEntries(out)
	if len(entries) == 0 {
		return ""
	}
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.path
	}
	return listPaths(paths, max)
}

// statusEntry is one path of `git status --porcelain -z`: its two status
// letters and the path.
type statusEntry struct{ xy, path string }

// statusEntries parses `git status --porcelain -z` output. A rename or
// copy is one entry, its new path: the source path that follows it is a
// record of its own.
func statusEntries(out []byte) []statusEntry {
	var entries []statusEntry
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 4 {
			continue
		}
		entries = append(entries, statusEntry{xy: string(rec[:2]), path: string(rec[3:])})
		if rec[0] == 'R' || rec[0] == 'C' {
			i++ // the source path
		}
	}
	return entries
}
