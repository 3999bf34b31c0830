// review.go answers the UI's review of an isolated worker from the run this
// engine drives: its diff and its merge, through the workspace package
// (docs/isolation.md, "Review and merge").
package engine

import "github.com/rostra-dev/rostra/workspace"

// Diff is WorktreeDiff of the run this engine drives, from its current
// state: what the UI shows for an isolated worker.
func (e *Engine) Diff(worker string, color bool) ([]byte, workspace.DiffInfo, error) {
	st := e.Snapshot()
	return workspace.WorktreeDiff(&st, worker, color)
}

// Merge is MergeWorktree of the run this engine drives, from its current
// state; pin as MergeWorktree's.
func (e *Engine) Merge(worker, pin string) (workspace.MergeResult, error) {
	st := e.Snapshot()
	return workspace.MergeWorktree(&st, worker, pin)
}
