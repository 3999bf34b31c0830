// writeaudit.go ties the write-policy audit (SPEC §4.5, audit.go) to an
// attempt: a snapshot of the workspace before the attempt starts, and at
// settlement the check of the policy stored on the dispatch row against the
// files that changed. Workers without `writes` never get here.
//
// Workers share one workspace and run at once, so a diff also shows what
// the others wrote. A change is charged to the audited attempt only when no
// other worker owns it: files another worker's current policy allows, or
// that are another worker's completion files, are left out. What a worker
// without `writes` changes cannot be told apart and is charged (README).
package engine

import (
	"strings"
)

// snapshotWorkspace is SnapshotWorkspace; tests replace it to hold a walk.
var snapshotWorkspace = SnapshotWorkspace

type writeAudit struct {
	workspace string
	exclude   []string
	before    *WorkspaceSnapshot
}

func startWriteAudit(plan *Plan) (*writeAudit, error) {
	exclude := []string{plan.StateDir}
	before, err := snapshotWorkspace(plan.Workspace, exclude)
	if err != nil {
		return nil, err
	}
	return &writeAudit{workspace: plan.Workspace, exclude: exclude, before: before}, nil
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
// workers own.
func auditVerdict(c auditChanges, d *DispatchRow, failure string, own []string, others WritePolicy) string {
	policy := WritePolicy{Globs: d.WritePolicy}
	if policy.Digest() != d.WritePolicyDigest {
		return "write policy digest changed since dispatch (stored " + d.WritePolicyDigest + ", now " + policy.Digest() + ")"
	}
	if c.err != nil {
		return "write audit: snapshot after the attempt: " + c.err.Error()
	}
	changed := WritePolicyViolations(c.changed, policy)
	changed = WritePolicyViolations(changed, literalPolicy(own))
	violations := WritePolicyViolations(changed, others)
	if len(violations) == 0 {
		return ""
	}
	return WritePolicyReason(violations, failure)
}

// othersOwn is the policy of everything the workers other than a's own at
// this moment: their current attempts' write globs and completion files.
func (e *Engine) othersOwn(a *attemptRT) WritePolicy {
	var globs []string
	for _, w := range e.workers {
		if w == a.w || w.cur == nil {
			continue
		}
		globs = append(globs, w.cur.plan.Writes...)
		globs = append(globs, literalPolicy(completionTargets(&w.cur.plan)).Globs...)
	}
	return WritePolicy{Globs: globs}
}

// literalPolicy allows exactly the given paths.
func literalPolicy(paths []string) WritePolicy {
	p := WritePolicy{Globs: []string{}}
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
