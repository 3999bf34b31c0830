// writeaudit.go ties the write-policy audit (docs/design.md, workspace/audit.go) to an
// attempt: a snapshot of its workspace before the attempt starts, and at
// settlement the check of the policy stored on the dispatch row against the
// files that changed. Workers without `writes` never get here.
//
// An isolated worker (isolation: worktree) is alone in its worktree: every
// change there outside its policy is its own. Workers of the shared
// workspace run at once, so a diff also shows what the others wrote. A
// change is charged to the audited attempt only when no other worker of the
// shared workspace owns it: files another's current policy allows, or
// that are another's completion files, are left out. What a worker without
// `writes` changes cannot be told apart and is charged; the reason then
// names every worker that ran in the workspace meanwhile (docs/design.md §The write audit).
package engine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// snapshotWorkspace is SnapshotWorkspace; tests replace it to hold a walk.
var snapshotWorkspace = workspace.SnapshotWorkspace

type writeAudit struct {
	workspace string
	exclude   []string
	before    *workspace.WorkspaceSnapshot
}

// startWriteAudit snapshots workspace, less the exclude folders.
func startWriteAudit(workspace string, exclude []string) (*writeAudit, error) {
	before, err := snapshotWorkspace(workspace, exclude)
	if err != nil {
		return nil, err
	}
	return &writeAudit{workspace: workspace, exclude: exclude, before: before}, nil
}

// auditExcludes are the folders an attempt of w's audit leaves out: the
// state dir (which holds the worktrees) and, in a shared workspace that
// is a repository's top folder while isolated workers run, the parts of
// its .git that git writes for their worktrees (objects, the worktrees'
// own records, the rostra/ branches, the refs/rostra/quarantine refs that
// keep what an isolated agent made): rostra's commits, not a worker's
// writes.
func (e *Engine) auditExcludes(w *runfile.WorkerSpec) []string {
	exclude := []string{e.plan.StateDir}
	if w.Isolated() || !e.plan.HasIsolated() || e.plan.GitRoot == "" || runfile.Resolved(e.plan.GitRoot) != runfile.Resolved(e.plan.Workspace) {
		return exclude
	}
	git := filepath.Join(e.plan.Workspace, ".git")
	for _, dir := range []string{"objects", "worktrees", "refs/heads/rostra", "logs/refs/heads/rostra", "refs/rostra", "logs/refs/rostra"} {
		exclude = append(exclude, filepath.Join(git, filepath.FromSlash(dir)))
	}
	return exclude
}

// abandon releases the snapshot of an attempt that will not be audited
// (cancelled, timed out, never started). Stopping its hasher may wait for
// a file being read, so it is done off the loop.
func (w *writeAudit) abandon() { go w.before.Close() }

// auditChanges is the walk after an attempt: what changed in the workspace
// since the snapshot before it, or why the walk failed.
type auditChanges struct {
	changed []string
	err     error
}

// changes walks the workspace again and diffs it against the snapshot taken
// before the attempt. It is the slow part of the audit (O(files)) and runs
// off the loop; it releases both snapshots.
func (w *writeAudit) changes() auditChanges {
	defer w.before.Close()
	after, err := snapshotWorkspace(w.workspace, w.exclude)
	if err != nil {
		return auditChanges{err: err}
	}
	defer after.Close()
	return auditChanges{changed: w.before.Diff(after)}
}

// auditVerdict returns the violation reason, or "" when the attempt kept to
// its policy. The policy is the one stored on the dispatch row; its digest
// must still match, or the audit cannot be trusted. The attempt's own
// completion files are always its to write; others is what the other
// workers own; coRunning, when it names more than one worker, is who ran
// in the workspace meanwhile and may have made the changes.
func auditVerdict(c auditChanges, d *statedir.DispatchRow, failure string, own []string, others runfile.WritePolicy, coRunning []string) string {
	policy := runfile.WritePolicy{Globs: d.WritePolicy}
	if policy.Digest() != d.WritePolicyDigest {
		return "write policy digest changed since dispatch (stored " + d.WritePolicyDigest + ", now " + policy.Digest() + ")"
	}
	if c.err != nil {
		return "write audit: snapshot after the attempt: " + c.err.Error()
	}
	changed := workspace.WritePolicyViolations(c.changed, policy)
	changed = workspace.WritePolicyViolations(changed, literalPolicy(own))
	violations := workspace.WritePolicyViolations(changed, others)
	if len(violations) == 0 {
		return ""
	}
	reason := workspace.WritePolicyReason(violations, failure)
	if len(coRunning) > 1 {
		reason = strings.Replace(reason, "readonly source changed: ",
			fmt.Sprintf("readonly source changed (unattributed: %d workers ran at once: %s): ", len(coRunning), strings.Join(coRunning, ", ")), 1)
	}
	return reason
}

// othersOwn is the policy of everything the workers other than a's own at
// this moment in a's workspace: the current attempts' write globs and
// completion files of the other workers of the shared workspace. An
// isolated attempt shares its worktree with no one.
func (e *Engine) othersOwn(a *attemptRT) runfile.WritePolicy {
	var globs []string
	if a.w.iso != nil {
		return runfile.WritePolicy{Globs: []string{}}
	}
	for _, w := range e.workers {
		if w == a.w || w.cur == nil || w.iso != nil {
			continue
		}
		globs = append(globs, w.cur.plan.Writes...)
		globs = append(globs, literalPolicy(completionTargets(&w.cur.plan)).Globs...)
	}
	return runfile.WritePolicy{Globs: globs}
}

// noteCoRunning records that a, an attempt of the shared workspace that is
// starting, runs at the same time as every other one there still running.
// Only an audited attempt keeps whom it ran with: a map for each attempt
// would grow with the square of the workers
// (docs/performance.md §Memory of a quiet pane).
func (e *Engine) noteCoRunning(a *attemptRT) {
	if a.w.iso != nil {
		return
	}
	a.shared = true
	if a.plan.Writes != nil {
		a.coRunning = map[string]bool{a.w.spec.ID: true}
	}
	for b := range e.live {
		if b == a || !b.shared {
			continue
		}
		if b.coRunning != nil {
			b.coRunning[a.w.spec.ID] = true
		}
		if a.coRunning != nil {
			a.coRunning[b.w.spec.ID] = true
		}
	}
}

// unattributed lists, sorted, the workers that ran in the shared workspace
// while a did (a's own included); one name means a ran alone.
func (e *Engine) unattributed(a *attemptRT) []string {
	var ids []string
	for id := range a.coRunning {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// literalPolicy allows exactly the given paths.
func literalPolicy(paths []string) runfile.WritePolicy {
	p := runfile.WritePolicy{Globs: []string{}}
	for _, path := range paths {
		p.Globs = append(p.Globs, escapeGlob(path))
	}
	return p
}

// escapeGlob makes a literal path a glob that matches only itself.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
