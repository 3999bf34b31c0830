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

type writeAudit struct {
	workspace string
	exclude   []string
	before    *WorkspaceSnapshot
}

func startWriteAudit(plan *Plan) (*writeAudit, error) {
	exclude := []string{plan.StateDir}
	before, err := SnapshotWorkspace(plan.Workspace, exclude)
	if err != nil {
		return nil, err
	}
	return &writeAudit{workspace: plan.Workspace, exclude: exclude, before: before}, nil
}

// abandon releases the snapshot of an attempt that will not be audited
// (cancelled or timed out).
func (w *writeAudit) abandon() { w.before.Close() }

// finish returns the violation reason, or "" when the attempt kept to its
// policy. The policy is the one stored on the dispatch row; its digest must
// still match, or the audit cannot be trusted. The attempt's own completion
// files are always its to write; others is what the other workers own.
func (w *writeAudit) finish(d *DispatchRow, failure string, own []string, others WritePolicy) string {
	defer w.before.Close()
	policy := WritePolicy{Globs: d.WritePolicy}
	if policy.Digest() != d.WritePolicyDigest {
		return "write policy digest changed since dispatch (stored " + d.WritePolicyDigest + ", now " + policy.Digest() + ")"
	}
	after, err := SnapshotWorkspace(w.workspace, w.exclude)
	if err != nil {
		return "write audit: snapshot after the attempt: " + err.Error()
	}
	defer after.Close()
	changed := WritePolicyViolations(w.before.Diff(after), policy)
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
