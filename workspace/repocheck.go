// repocheck.go guards the shared repository against an isolated worker
// (docs/isolation.md, "The record of an attempt"): before each attempt its
// refs, its worktree's HEAD and the files of the shared .git that make git
// run programs (config, hooks/, info/, the worktree's config.worktree) are
// snapshotted; at settlement, and again before its work is committed, they
// are compared with now. A worktree HEAD moved off the worker's branch is
// put back on it; a ref moved, made or deleted outside the worker's own is
// put back by compare-and-swap, and what the agent had made it point at is
// kept under refs/rostra/quarantine/<run>/<worker>/<attempt>/…; a changed
// file is named. Any finding fails the attempt (FailureRepository), as the
// write audit does.
//
// Data model: repoState is plain data (ref -> object, HEAD, path ->
// digest); checkRepo returns repoFindings, the sentences of the reason and
// the quarantine refs, and runs git on the worktree's job queue, never on
// the loop.
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rostra-dev/rostra/statedir"
)

// RepoState is the shared repository as an attempt found it.
type RepoState struct {
	refs  map[string]string // every ref of the repository -> its object
	head  string            // the worktree's HEAD: "ref: <ref>" or a commit
	files map[string]string // guarded files (repoFiles) -> digest
	own   string            // the key in files of the worktree's own config.worktree

	// Sandboxed says the attempt's processes ran in the kernel's sandbox
	// (docs/sandbox.md), which lets them write, of the repository, their
	// worktree, its own git folder, the object store and their run's
	// branch folder only: a ref or a shared .git file changed elsewhere
	// was changed by someone else (the user's fetch, commit or config)
	// and is neither put back nor charged to the attempt.
	Sandboxed bool
}

// SnapshotRepo reads the repository's refs, the worktree's HEAD and its
// guarded files.
func (w Worktree) SnapshotRepo() (*RepoState, error) {
	refs, err := listRefs(w.Repo)
	if err != nil {
		return nil, err
	}
	head, err := worktreeHead(w.Path)
	if err != nil {
		return nil, err
	}
	files, err := repoFiles(w.Repo, w.Path)
	if err != nil {
		return nil, err
	}
	own, err := gitDirOf(w.Path, "--git-dir")
	if err != nil {
		return nil, err
	}
	return &RepoState{refs: refs, head: head, files: files, own: displayPath(w.Repo, filepath.Join(own, "config.worktree"))}, nil
}

// listRefs is every ref of repo (for-each-ref: branches, tags, remotes,
// notes, the stash, rostra's own) and its object. A symbolic ref
// (refs/remotes/origin/HEAD) is left out: the ref it names is listed, and
// putting a symbolic ref back by value would write through it.
func listRefs(repo string) (map[string]string, error) {
	out, err := ReadGit(repo).Run("for-each-ref", "--format=%(objectname) %(refname) %(symref)")
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, " ")
		if len(f) == 3 && f[2] == "" {
			refs[f[1]] = f[0]
		}
	}
	return refs, nil
}

// worktreeHead is dir's HEAD: "ref: <ref>" when it names a branch, else
// the commit it is detached at.
func worktreeHead(dir string) (string, error) {
	g := ReadGit(dir)
	if ref, err := g.Line("symbolic-ref", "-q", "HEAD"); err == nil && ref != "" {
		return "ref: " + ref, nil
	}
	return g.Line("rev-parse", "--verify", "-q", "HEAD")
}

// repoFiles digests the files of the shared .git from which git takes
// programs to run or rules for running them: config, every file under
// hooks/ and info/, and, when worktree is not "", that worktree's own
// config.worktree. Keys are the paths as a person finds them: relative to
// repo when inside it.
// GitFiles digests repo's shared config, hooks/ and info/ files, as a run
// records them at its start and its end (TeamState.GitFiles).
func GitFiles(repo string) (map[string]string, error) { return repoFiles(repo, "") }

func repoFiles(repo, worktree string) (map[string]string, error) {
	common, err := gitDirOf(repo, "--git-common-dir")
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	add := func(path string) error {
		return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			files[displayPath(repo, p)] = fileDigest(p, d)
			return nil
		})
	}
	for _, name := range []string{"config", "hooks", "info"} {
		if err := add(filepath.Join(common, name)); err != nil {
			return nil, err
		}
	}
	if worktree != "" {
		own, err := gitDirOf(worktree, "--git-dir")
		if err != nil {
			return nil, err
		}
		if err := add(filepath.Join(own, "config.worktree")); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// gitDirOf is `git rev-parse <which>` in dir as an absolute path.
func gitDirOf(dir, which string) (string, error) {
	p, err := ReadGit(dir).Line("rev-parse", which)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

func displayPath(repo, p string) string {
	if rel, err := filepath.Rel(repo, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// fileDigest is a file's kind, mode and content as one string: a link by
// its target, a file by its SHA-256 (an unreadable one by its error).
func fileDigest(p string, d fs.DirEntry) string {
	info, err := d.Info()
	if err != nil {
		return "error: " + err.Error()
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		return "link " + target
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "error: " + err.Error()
	}
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%v %s", info.Mode(), hex.EncodeToString(sum[:]))
}

// changedFiles lists, sorted, the paths whose digest differs between two
// repoFiles (made, changed or removed).
func changedFiles(before, after map[string]string) []string {
	var paths []string
	for p, d := range after {
		if before[p] != d {
			paths = append(paths, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths
}

// RepoFindings is what checkRepo found and did.
type RepoFindings struct {
	changes     []string // one sentence per ref or HEAD
	files       []string // guarded files that changed
	quarantined []string // refs rostra made to keep what the agent made
	err         error    // git failed: the check could not be made whole
}

// maxChangesNamed bounds the refs a reason names one by one (an agent's
// `git fetch` may make hundreds).
const maxChangesNamed = 10

func (f RepoFindings) Any() bool { return len(f.changes)+len(f.files) > 0 || f.err != nil }

// Reason is the attempt's reason for what was found, "" when nothing.
func (f RepoFindings) Reason() string {
	parts := append([]string(nil), f.changes...)
	if len(parts) > maxChangesNamed {
		parts = append(parts[:maxChangesNamed], fmt.Sprintf("%d more refs, put back the same way", len(f.changes)-maxChangesNamed))
	}
	if len(f.files) > 0 {
		parts = append(parts, "the shared repository's "+listPaths(f.files, 8)+" changed")
	}
	if f.err != nil {
		parts = append(parts, "the check could not finish: "+f.err.Error())
	}
	if len(parts) == 0 {
		return ""
	}
	return "repository changed: " + strings.Join(parts, "; ")
}

// merge adds g's findings to f's.
func (f *RepoFindings) merge(g RepoFindings) {
	f.changes = append(f.changes, g.changes...)
	f.files = append(f.files, g.files...)
	f.quarantined = append(f.quarantined, g.quarantined...)
	if f.err == nil {
		f.err = g.err
	}
}

// CheckRepo compares the repository with before, the state attempt n
// found, and puts back what the agent moved (see the file comment). The
// worker's own branch may move forward (the agent's commits, listed at
// review); the other workers' branches of the run are theirs, checked by
// their own attempts; a move of the branch the workspace has checked out
// that the workspace's index followed was made in the workspace (by a
// person, or a rostra merge) and is left alone.
func (w Worktree) CheckRepo(before *RepoState, n int) RepoFindings {
	var f RepoFindings
	if before == nil {
		return f
	}
	quarantine := func(name, value string) string {
		ref := w.quarantineRef(n, name)
		for i := 2; ; i++ {
			cur, _ := ReadGit(w.Repo).Line("rev-parse", "--verify", "-q", ref)
			if cur == "" {
				break
			}
			if cur == value {
				return ref
			}
			ref = w.quarantineRef(n, name) + fmt.Sprintf("-%d", i)
		}
		if err := w.moveRef(ref, value, ""); err != nil {
			f.err = err
			return ""
		}
		f.quarantined = append(f.quarantined, ref)
		return ref
	}
	kept := func(ref string) string {
		if ref == "" {
			return ""
		}
		return "; kept as " + ref
	}

	// The worktree's HEAD first: a branch it was switched to may be one the
	// refs below delete.
	own := "ref: " + w.ref()
	if head, err := worktreeHead(w.Path); err != nil {
		f.err = err
	} else if head != own && before.head == own {
		was := strings.TrimPrefix(head, "ref: ")
		what := "the worktree's HEAD was moved to " + was
		if !strings.HasPrefix(head, "ref: ") {
			what = "the worktree's HEAD was detached at " + statedir.ShortCommit(head) + kept(quarantine("HEAD", head))
		}
		if _, err := RostraGit(w.Path).Run("symbolic-ref", "-m", "rostra", "HEAD", w.ref()); err != nil {
			f.err = err
			f.changes = append(f.changes, what+" (not put back)")
		} else {
			f.changes = append(f.changes, what+" (put back on "+w.Branch+")")
		}
	}

	after, err := listRefs(w.Repo)
	if err != nil {
		f.err = err
		return f
	}
	var names []string
	for ref := range after {
		names = append(names, ref)
	}
	for ref := range before.refs {
		if _, ok := after[ref]; !ok {
			names = append(names, ref)
		}
	}
	slices.Sort(names)
	run, _, _ := strings.Cut(strings.TrimPrefix(w.Branch, "rostra/"), "/")
	others := "refs/heads/rostra/" + run + "/"
	workspaceBranch, _ := ReadGit(w.Repo).Line("symbolic-ref", "-q", "HEAD")
	for _, ref := range names {
		old, now := before.refs[ref], after[ref]
		if old == now || rostraWrote(w.Repo, ref, now) {
			continue
		}
		if ref == w.ref() && old != "" && now != "" {
			if ahead, err := IsAncestor(w.Repo, old, now); err == nil && ahead {
				continue
			}
		} else if ref != w.ref() && strings.HasPrefix(ref, others) {
			continue
		}
		if ref == workspaceBranch && now != "" && w.workspaceFollowed(old, now) {
			continue
		}
		if before.Sandboxed && ref != w.ref() {
			continue // the kernel kept the agent out of it
		}
		var what string
		switch {
		case old == "":
			what = fmt.Sprintf("%s was made at %s", ref, statedir.ShortCommit(now))
		case now == "":
			what = fmt.Sprintf("%s was deleted (it was at %s)", ref, statedir.ShortCommit(old))
		default:
			what = fmt.Sprintf("%s moved %s..%s", ref, statedir.ShortCommit(old), statedir.ShortCommit(now))
		}
		var keep string
		if now != "" {
			keep = quarantine(strings.TrimPrefix(ref, "refs/"), now)
		}
		if err := w.moveRef(ref, old, now); err != nil {
			f.err = err
			f.changes = append(f.changes, what+" (not put back"+kept(keep)+")")
			continue
		}
		f.changes = append(f.changes, what+" (put back"+kept(keep)+")")
	}

	files, err := repoFiles(w.Repo, w.Path)
	if err != nil {
		f.err = err
		return f
	}
	f.files = changedFiles(before.files, files)
	if before.Sandboxed {
		// Of the guarded files, only the worktree's own config.worktree
		// was the agent's to write.
		f.files = slices.DeleteFunc(f.files, func(p string) bool { return p != before.own })
	}
	return f
}

// workspaceFollowed reports whether the workspace's index holds the tree
// of now, the new tip of its branch, and that tree is not old's: the move
// changed files and the workspace changed with it, as a commit, merge or
// pull made there does. A move to a commit with the old tree (another
// history under the same files) proves nothing and is not taken for one.
func (w Worktree) workspaceFollowed(old, now string) bool {
	g := ReadGit(w.Repo)
	if old != "" {
		oldTree, err1 := g.Line("rev-parse", "--verify", "-q", old+"^{tree}")
		nowTree, err2 := g.Line("rev-parse", "--verify", "-q", now+"^{tree}")
		if err1 != nil || err2 != nil || oldTree == nowTree {
			return false
		}
	}
	followed, err := g.Test("diff-index", "--cached", "--quiet", "--no-ext-diff", now, "--")
	return err == nil && followed
}

// quarantineRef is where the ref name (relative to refs/) that attempt n's
// agent made is kept: refs/rostra/quarantine/<run>/<worker>/<n>/<name>.
func (w Worktree) quarantineRef(n int, name string) string {
	return fmt.Sprintf("refs/rostra/quarantine/%s/%d/%s", strings.TrimPrefix(w.Branch, "rostra/"), n, name)
}
