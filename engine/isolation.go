// isolation.go is the engine's side of isolated workers (worktree.go holds
// the git): the worktree is made ready before each attempt (the last
// attempt's leftovers committed, the tree reset to the base commit, the
// shared repository snapshotted), the repository is checked when it settles
// and again before its work is committed (workspace/repocheck.go), an attempt's work
// is committed once it has settled and its process ended,
// its diff-stat is measured while it runs, and when the engine stops each
// worktree is committed one last time, then removed when its branch is
// merged or holds nothing, or kept.
//
// Data model: every git step of one worktree runs off the loop, in the
// order the loop queued it (queueGit): each job waits for the one queued
// before it, so a commit of attempt n always comes before the reset for
// attempt n+1. isoRT.holder, the attempt the tree was last made ready for,
// is read and written only inside those jobs; a commit job for an attempt
// that no longer holds the tree commits nothing (the next attempt's
// preparation did). Results come back to the loop as closures, like every
// other slow job's (engine.go).
package engine

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// diffStatEvery is how long after output a running isolated attempt's
// diff-stat is measured for its pane's title (at most this often).
var diffStatEvery = 5 * time.Second

// isoRT is an isolated worker's worktree at run time.
type isoRT struct {
	wt       workspace.Worktree
	tail     chan struct{} // the loop's: closed when the last job queued is done
	statBusy bool          // the loop's: a diff-stat job is queued
	// statAgain: measure again once it is done (asked while it ran), then
	// close statNext.
	statAgain bool
	statNext  []chan struct{}
	holder    int // the jobs': the attempt the tree was made ready for
}

func (e *Engine) newIsoRT(spec *runfile.WorkerSpec) *isoRT {
	return &isoRT{wt: workspace.Worktree{
		Worker: spec.ID,
		Repo:   e.plan.GitRoot,
		Path:   spec.Worktree,
		Branch: spec.Branch,
		Base:   e.opts.Isolation.Base,
	}}
}

// queueGit runs job on a goroutine of its own once every job queued for
// the worktree before it is done. It is called on the loop.
func (e *Engine) queueGit(iso *isoRT, job func()) {
	prev := iso.tail
	done := make(chan struct{})
	iso.tail = done
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		job()
	}()
}

// announceIsolation says, when the run starts, where the isolated workers
// branch from, and what the workspace holds that their worktrees do not.
func (e *Engine) announceIsolation() {
	iso := e.opts.Isolation
	if iso == nil {
		return
	}
	var ids []string
	for _, w := range e.workers {
		if w.iso != nil {
			ids = append(ids, w.spec.ID)
		}
	}
	e.emit(statedir.Event{Type: statedir.EventWorktreeBase, Commit: iso.Base,
		Reason: fmt.Sprintf("%s work in worktrees under %s, each on its branch rostra/%s/<worker> from %s",
			strings.Join(ids, ", "), runfile.WorktreePath(e.plan.StateDir, ""), e.plan.Name, statedir.ShortCommit(iso.Base))})
	if iso.Dirty != "" {
		e.emit(statedir.Event{Type: statedir.EventWorkspaceDirty, Commit: iso.Base,
			Reason: "the workspace has uncommitted changes (" + iso.Dirty + "): they are not in the worktrees, which start from " + statedir.ShortCommit(iso.Base)})
	}
	for _, note := range iso.Archived {
		e.emit(statedir.Event{Type: statedir.EventWorktreeArchived, Reason: note})
	}
}

// lastRowOf is the index of w's latest dispatch row, -1 when it has none.
func (e *Engine) lastRowOf(w *workerRT) int {
	for i := len(e.st.Dispatches) - 1; i >= 0; i-- {
		if e.st.Dispatches[i].WorkerID == w.spec.ID {
			return i
		}
	}
	return -1
}

// prepareWorktree makes the worktree ready for the job's attempt: checked
// out, what the previous attempt left committed, the tree reset to the base
// commit unless retry_from: last, and the worker's folder present (an
// untracked or empty folder is not in a fresh checkout). It returns the
// commit of the previous attempt's leftovers, if any, and the shared
// repository as the attempt starts (workspace/repocheck.go). It runs in the
// worktree's job queue.
func (j openJob) prepareWorktree() (string, *workspace.RepoState, error) {
	wt := j.iso.wt
	if err := wt.Ensure(); err != nil {
		return "", nil, err
	}
	var commit string
	if j.prev > 0 {
		c, err := wt.CommitAll(workspace.AttemptMessage(wt.Worker, j.prev, j.prevStatus))
		if err != nil {
			return "", nil, fmt.Errorf("commit what attempt %d left: %w", j.prev, err)
		}
		commit = c
		if j.reset {
			if _, err := wt.ResetToBase(j.attempt.Attempt); err != nil {
				return commit, nil, fmt.Errorf("reset to the base commit %s: %w", wt.Short(), err)
			}
		}
	}
	j.iso.holder = j.attempt.Attempt
	if err := os.MkdirAll(j.attempt.Dir, 0o755); err != nil {
		return commit, nil, fmt.Errorf("make the worker's folder in its worktree: %w", err)
	}
	before, err := wt.SnapshotRepo()
	if err != nil {
		return commit, nil, fmt.Errorf("snapshot the repository's refs and .git files: %w", err)
	}
	return commit, before, nil
}

// checkAttempt is the check of a's shared repository against what a found
// (nothing for an attempt that is not isolated). It runs off the loop.
func (iso *isoRT) checkAttempt(a *attemptRT) workspace.RepoFindings {
	if iso == nil || a.repoBefore == nil {
		return workspace.RepoFindings{}
	}
	return iso.wt.CheckRepo(a.repoBefore, a.plan.Attempt)
}

// repositoryChanged publishes what a's check found and did (why is the
// attempt's reason; the event's type says "repository changed").
func (e *Engine) repositoryChanged(a *attemptRT, why string) {
	why = strings.Replace(why, "repository changed: ", "", 1)
	e.emit(statedir.Event{Type: statedir.EventRepositoryChanged, WorkerID: a.w.spec.ID, Attempt: a.plan.Attempt, Branch: a.w.iso.wt.Branch, Reason: why})
}

// recordPrevCommit notes on the previous attempt's row the commit that took
// its leftovers, made while this attempt was being prepared.
func (e *Engine) recordPrevCommit(a *attemptRT, commit string) {
	if commit == "" {
		return
	}
	for i := a.idx - 1; i >= 0; i-- {
		d := &e.st.Dispatches[i]
		if d.WorkerID == a.w.spec.ID {
			d.WorkCommit = commit
			e.dirty = true
			e.emit(statedir.Event{Type: statedir.EventWorktreeCommitted, WorkerID: d.WorkerID, Attempt: d.Attempt, Commit: commit, Branch: a.w.iso.wt.Branch,
				Reason: "what it left after it ended"})
			return
		}
	}
}

// commitWork commits an isolated attempt's work on its branch once its
// outcome is written and its process has ended, and measures the branch;
// an attempt of the shared workspace is then done.
func (e *Engine) commitWork(a *attemptRT) {
	if a.phase != phaseDecided || !a.exited {
		return
	}
	iso := a.w.iso
	if iso == nil || a.handle == nil {
		// Nothing to commit: the attempt is over.
		e.advance(a, phaseDone)
		return
	}
	e.advance(a, phaseCommitting)
	e.commitsDue++
	d := e.st.Dispatches[a.idx]
	n, status, before := d.Attempt, d.Status, a.repoBefore
	e.startBackground()
	e.queueGit(iso, func() {
		var commit string
		var err error
		var late workspace.RepoFindings
		if iso.holder == n {
			// What the process did between its settlement and its end
			// (settled on files) is found and put back before the commit.
			late = iso.wt.CheckRepo(before, n)
			commit, err = iso.wt.CommitAll(workspace.AttemptMessage(iso.wt.Worker, n, status))
		}
		stat, serr := measure(iso.wt)
		e.post(func() {
			defer e.endBackground()
			w := a.w
			if why := late.Reason(); why != "" {
				why = "after it settled, " + why // the status stays: it was decided
				d := &e.st.Dispatches[a.idx]
				d.Reason = joinReason(d.Reason, why)
				e.dirty = true
				e.repositoryChanged(a, why)
			}
			if err != nil {
				e.emit(statedir.Event{Type: statedir.EventWorktreeFailed, WorkerID: w.spec.ID, Attempt: n, Branch: iso.wt.Branch,
					Reason: "its work is not committed (the next attempt tries again before it resets anything): " + err.Error()})
			}
			if commit != "" {
				e.st.Dispatches[a.idx].WorkCommit = commit
				e.dirty = true
				e.emit(statedir.Event{Type: statedir.EventWorktreeCommitted, WorkerID: w.spec.ID, Attempt: n, Commit: commit, Branch: iso.wt.Branch, Reason: status})
			}
			if serr == nil {
				e.setDiffStat(w, stat)
			}
			e.advance(a, phaseDone)
			e.commitsDue--
			e.checkFinished()
		})
	})
}

// measure is what the worktree holds beyond the base commit, committed or not.
func measure(wt workspace.Worktree) (statedir.DiffStat, error) {
	tree, err := wt.LiveTree()
	if err != nil {
		return statedir.DiffStat{}, err
	}
	return wt.DiffStat(tree)
}

func (e *Engine) setDiffStat(w *workerRT, stat statedir.DiffStat) {
	wr := &e.st.Workers[w.idx]
	if wr.DiffStat != stat {
		wr.DiffStat = stat
		e.dirty = true
	}
}

// measureWhileRunning follows a running isolated attempt's output for its
// pane's diff-stat: output asks for a measurement diffStatEvery later (all
// the output of that window makes one), so a quiet attempt costs no git
// call, and one that prints is measured at most once per diffStatEvery.
// commitWork measures when the attempt ends, RefreshDiffStats when a
// client asks.
func (e *Engine) measureWhileRunning(a *attemptRT) {
	if a.w.iso == nil {
		return
	}
	e.armOutputWake(a)
}

// armOutputWake asks a's surface to tell the loop of a's next output.
func (e *Engine) armOutputWake(a *attemptRT) {
	a.handle.NotifyOutput(func() {
		e.post(func() {
			if a.w.iso != nil {
				e.outputCame(a)
			}
			e.agentOutput(a) // agentstate.go
		})
	})
}

func (e *Engine) outputCame(a *attemptRT) {
	if a.statTimer != nil || !e.measurable(a) {
		return
	}
	a.statTimer = e.clock.AfterFunc(diffStatEvery, func() {
		e.post(func() {
			a.statTimer = nil
			e.measureRunning(a, nil)
		})
	})
}

// measurable: a is its worker's running attempt, its diff-stat live.
func (e *Engine) measurable(a *attemptRT) bool {
	return a != nil && a.handle != nil && a.phase == phaseRunning && !a.exited && !e.shuttingDown && a.w.cur == a
}

// measureRunning measures a's diff-stat now, or right after the
// measurement under way (which may have begun before what is asked for);
// waiters are closed once the result is saved and published (at once when
// a is no longer running).
func (e *Engine) measureRunning(a *attemptRT, waiters []chan struct{}) {
	if !e.measurable(a) {
		e.afterBatch = append(e.afterBatch, waiters...)
		return
	}
	iso := a.w.iso
	if iso.statBusy {
		iso.statAgain = true
		iso.statNext = append(iso.statNext, waiters...)
		return
	}
	iso.statBusy = true
	// Output from now on asks for the next one.
	e.armOutputWake(a)
	e.startBackground()
	e.queueGit(iso, func() {
		stat, err := measure(iso.wt)
		e.post(func() {
			iso.statBusy = false
			if err == nil && a.w.cur == a && !a.phase.atLeast(phaseDecided) {
				e.setDiffStat(a.w, stat)
			}
			e.afterBatch = append(e.afterBatch, waiters...)
			if iso.statAgain {
				next := iso.statNext
				iso.statAgain, iso.statNext = false, nil
				e.measureRunning(a.w.cur, next)
			}
			e.endBackground()
		})
	})
}

// RefreshDiffStats measures the diff-stat of every running isolated
// attempt now, for a client that asked for the roster; the channel is
// closed once the new figures are published.
func (e *Engine) RefreshDiffStats() <-chan struct{} {
	all := make(chan struct{})
	e.post(func() {
		var waits []chan struct{}
		for _, w := range e.workers {
			if w.iso == nil || !e.measurable(w.cur) {
				continue
			}
			c := make(chan struct{})
			waits = append(waits, c)
			e.measureRunning(w.cur, []chan struct{}{c})
		}
		go func() {
			for _, c := range waits {
				select {
				case <-c:
				case <-e.loopDone:
				}
			}
			close(all)
		}()
	})
	return all
}

// endWorktrees starts the run's end for every isolated worker once nothing
// runs any more: what is left is committed, then the worktree and branch
// are removed when the branch is merged into the workspace's HEAD or holds
// nothing beyond the base commit, else kept. It reports whether jobs were
// started (maybeFinishShutdown is called again when they are done).
func (e *Engine) endWorktrees() bool {
	if e.worktreesEnd {
		return false
	}
	e.worktreesEnd = true
	started := false
	repo := ""
	for _, w := range e.workers {
		if w.iso != nil {
			repo = w.iso.wt.Repo
			break
		}
	}
	if e.st.GitFiles != nil && repo != "" {
		// The shared .git as the run leaves it: merge judges the run's
		// window and not what the user does afterwards
		// (docs/isolation.md §Review and merge).
		started = true
		e.startBackground()
		go func() {
			files, err := workspace.GitFiles(repo)
			e.post(func() {
				defer e.endBackground()
				if err == nil {
					e.st.GitFilesAtEnd = files
					e.dirty = true
				}
			})
		}()
	}
	for _, w := range e.workers {
		iso := w.iso
		if iso == nil {
			continue
		}
		statuses := map[int]string{}
		last := 0
		for _, d := range e.st.Dispatches {
			if d.WorkerID == w.spec.ID {
				statuses[d.Attempt] = d.Status
				last = d.Attempt
			}
		}
		started = true
		e.startBackground()
		e.queueGit(iso, func() {
			n := iso.holder
			if n == 0 {
				n = last
			}
			end := finishWorktree(iso.wt, n, statuses[n])
			e.post(func() {
				defer e.endBackground()
				e.worktreeEnded(w, n, end)
			})
		})
	}
	return started
}

// worktreeEnd is what finishWorktree did.
type worktreeEnd struct {
	commit  string // the last leftovers' commit
	stat    statedir.DiffStat
	outcome string // Worktree*; "" when there was no worktree nor branch
	err     error
	// ignored names the files git ignores that kept a merged or empty
	// worktree: removing it would have deleted them.
	ignored string
}

// finishWorktree commits what attempt n left and removes the worktree and
// branch when the branch is merged or empty.
func finishWorktree(wt workspace.Worktree, n int, status string) worktreeEnd {
	var end worktreeEnd
	if wt.Exists() && n > 0 {
		if end.commit, end.err = wt.CommitAll(workspace.AttemptMessage(wt.Worker, n, status)); end.err != nil {
			end.outcome = statedir.WorktreeKept
			return end
		}
	}
	tip, err := wt.BranchTip()
	if err != nil || tip == "" {
		end.err = err
		if wt.Exists() {
			end.outcome = statedir.WorktreeKept
		}
		return end
	}
	end.stat, _ = measure(wt)
	head, err := workspace.ReadGit(wt.Repo).Line("rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		end.err, end.outcome = err, statedir.WorktreeKept
		return end
	}
	merged, err := workspace.IsAncestor(wt.Repo, tip, head)
	switch {
	case err != nil:
		end.err, end.outcome = err, statedir.WorktreeKept
		return end
	case tip == wt.Base:
		end.outcome = statedir.WorktreeRemovedEmpty
	case merged:
		end.outcome = statedir.WorktreeRemovedMerged
	default:
		end.outcome = statedir.WorktreeKept
		return end
	}
	if end.ignored = wt.IgnoredFiles(5); end.ignored != "" {
		end.outcome = statedir.WorktreeKept
		return end
	}
	if end.err = wt.Remove(); end.err != nil {
		end.outcome = statedir.WorktreeKept
	}
	return end
}

// worktreeEnded records a worker's worktree at the run's end.
func (e *Engine) worktreeEnded(w *workerRT, n int, end worktreeEnd) {
	iso := w.iso
	wr := &e.st.Workers[w.idx]
	e.dirty = true
	if end.commit != "" {
		for i := len(e.st.Dispatches) - 1; i >= 0; i-- {
			if d := &e.st.Dispatches[i]; d.WorkerID == w.spec.ID && d.Attempt == n {
				d.WorkCommit = end.commit
			}
		}
		e.emit(statedir.Event{Type: statedir.EventWorktreeCommitted, WorkerID: w.spec.ID, Attempt: n, Commit: end.commit, Branch: iso.wt.Branch, Reason: "what it left when the run ended"})
	}
	if end.err != nil {
		e.emit(statedir.Event{Type: statedir.EventWorktreeFailed, WorkerID: w.spec.ID, Branch: iso.wt.Branch, Reason: "the run's end: " + end.err.Error()})
	}
	wr.WorktreeOutcome = end.outcome
	switch end.outcome {
	case statedir.WorktreeKept:
		wr.DiffStat = end.stat
		why := fmt.Sprintf("%s, not merged: kept at %s (rostra diff %s, rostra merge %s)", end.stat, iso.wt.Path, w.spec.ID, w.spec.ID)
		if end.ignored != "" {
			why = fmt.Sprintf("kept at %s: it holds files git ignores (%s), which removing it would delete; take what you need, then git worktree remove --force %s",
				iso.wt.Path, end.ignored, iso.wt.Path)
		}
		e.emit(statedir.Event{Type: statedir.EventWorktreeKept, WorkerID: w.spec.ID, Branch: iso.wt.Branch, Reason: why})
	case statedir.WorktreeRemovedMerged, statedir.WorktreeRemovedEmpty:
		why := "merged into the workspace"
		if end.outcome == statedir.WorktreeRemovedEmpty {
			why = "nothing beyond the base commit"
		}
		wr.Worktree = ""
		e.emit(statedir.Event{Type: statedir.EventWorktreeRemoved, WorkerID: w.spec.ID, Branch: iso.wt.Branch, Reason: why + ": the worktree and its branch are removed"})
	}
}
