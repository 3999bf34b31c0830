// mergedsince.go answers, for the run report (report.WriteReport), which
// worktrees the run's end kept have been merged into the workspace since:
// the state files of an ended run are not written again, so git is asked.
package workspace

import (
	"time"

	"github.com/rostra-dev/rostra/statedir"
)

// KeptMergedSince is the outcome the report shows for a worktree the run's
// end kept and whose branch has been merged since. It is never saved: the
// state files of an ended run are not written again.
const KeptMergedSince = "kept, merged since"

// MarkMergedSince marks, in st, the kept worktrees whose work is in the
// workspace's HEAD now: their branch is an ancestor of it, or, once
// rostra merge has removed the branch, HEAD's history holds the merge
// commit rostra merge made for it after the run started.
func MarkMergedSince(st *statedir.TeamState) {
	var repo string
	for i := range st.Workers {
		w := &st.Workers[i]
		if w.WorktreeOutcome != statedir.WorktreeKept || w.Branch == "" {
			continue
		}
		if repo == "" {
			top, err := ReadGit(st.Workspace).Line("rev-parse", "--show-toplevel")
			if err != nil {
				return // not a repository any more: kept is all that is known
			}
			repo = top
		}
		g := ReadGit(repo)
		if tip, err := g.Line("rev-parse", "--verify", "-q", "refs/heads/"+w.Branch); err == nil && tip != "" {
			if ok, err := IsAncestor(repo, tip, "HEAD"); err == nil && ok {
				w.WorktreeOutcome = KeptMergedSince
			}
			continue
		}
		out, err := g.Line("log", "-1", "--format=%H", "--fixed-strings", "--grep="+mergeMessage(w.Branch, w.WorkerID, st.Run),
			"--since="+st.StartedAt.UTC().Format(time.RFC3339), "HEAD")
		if err == nil && out != "" {
			w.WorktreeOutcome = KeptMergedSince
		}
	}
}
