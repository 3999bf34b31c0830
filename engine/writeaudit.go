// writeaudit.go ties the write-policy audit (SPEC §4.5, audit.go) to an
// attempt: a snapshot of the workspace before the attempt starts, and at
// settlement the check of the policy stored on the dispatch row against the
// files that changed. Workers without `writes` never get here.
package engine

import "fmt"

type writeAudit struct {
	workspace string
	exclude   []string
	before    *WorkspaceSnapshot
}

func startWriteAudit(plan *Plan, globs []string) (*writeAudit, error) {
	exclude := []string{plan.StateDir}
	before, err := SnapshotWorkspace(plan.Workspace, exclude)
	if err != nil {
		return nil, fmt.Errorf("write audit: snapshot before the attempt: %w", err)
	}
	return &writeAudit{workspace: plan.Workspace, exclude: exclude, before: before}, nil
}

// finish returns the violation reason, or "" when the attempt kept to its
// policy. The policy is the one stored on the dispatch row; its digest must
// still match, or the audit cannot be trusted.
func (w *writeAudit) finish(d *DispatchRow, failure string) string {
	policy := WritePolicy{Globs: d.WritePolicy}
	if policy.Digest() != d.WritePolicyDigest {
		return "write policy digest changed since dispatch (stored " + d.WritePolicyDigest + ", now " + policy.Digest() + ")"
	}
	after, err := SnapshotWorkspace(w.workspace, w.exclude)
	if err != nil {
		return "write audit: snapshot after the attempt: " + err.Error()
	}
	violations := WritePolicyViolations(w.before.Diff(after), policy)
	if len(violations) == 0 {
		return ""
	}
	return WritePolicyReason(violations, failure)
}
