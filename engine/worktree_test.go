// worktree_test.go checks isolated workers (isolation: worktree) against a
// real git repository each test makes with git init: the exact audit in a
// worktree, clean retries and retry_from: last, the commits of each
// attempt, the run's end (removed when merged or empty, kept otherwise),
// review and merge, and the unattributed reason of the shared workspace.
// Processes are the harness's fakes; what they "write" is written by the
// test into the folder the attempt was started in.
package engine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// gitT runs git in dir for a test, as someone git knows.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = workspace.GitEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// initRepo makes dir a git repository with src/f1.txt..f7.txt and a
// .gitignore of the state dir, committed.
func initRepo(t testing.TB, dir string) string {
	t.Helper()
	gitT(t, dir, "init", "-q")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	for i := 1; i <= 7; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "f"+string(rune('0'+i))+".txt"), []byte("line\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".rostra/\n"), 0o644))
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "base")
	return gitT(t, dir, "rev-parse", "HEAD")
}

// isolated is w in a worktree of its own.
func isolated(w runfile.WorkerSpec) runfile.WorkerSpec {
	w.Isolation = runfile.IsolationWorktree
	if w.RetryFrom == "" {
		w.RetryFrom = runfile.RetryFromBase
	}
	return w
}

// gitPlan is testPlan in a git repository, its isolated workers placed as
// Load places them.
func gitPlan(t testing.TB, workers ...runfile.WorkerSpec) (*runfile.Plan, string) {
	t.Helper()
	p := testPlan(t, workers...)
	ws, err := filepath.EvalSymlinks(p.Workspace)
	require.NoError(t, err)
	p.Workspace, p.StateDir = ws, filepath.Join(ws, ".rostra", "t")
	base := initRepo(t, ws)
	p.PlaceWorktrees(ws, ".")
	return p, base
}

func (h *harness) writeIn(dir, rel, content string) {
	h.t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(h.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(h.t, os.WriteFile(p, []byte(content), 0o644))
}

func appendTo(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// log is the subjects of branch's commits after base, oldest first.
func branchLog(t testing.TB, repo, base, branch string) []string {
	out := gitT(t, repo, "log", "--reverse", "--format=%s", base+".."+branch)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func TestIsolatedWorkersAreAuditedExactly(t *testing.T) {
	var ws []runfile.WorkerSpec
	for _, id := range []string{"polite", "rude", "vandal"} {
		ws = append(ws, isolated(withResult(runfile.WorkerSpec{ID: id, Writes: []string{"out/**"}})))
	}
	plan, base := gitPlan(t, ws...)
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "polite", "rude", "vandal")
	for id, fh := range opened {
		assert.Equal(t, filepath.Join(plan.StateDir, "worktrees", id), fh.spec.Dir, "%s runs in its worktree", id)
		h.writeIn(fh.spec.Dir, "out/"+id+"/result.json", "{}")
	}
	appendTo(t, filepath.Join(opened["rude"].spec.Dir, "src/f1.txt"), "rude\n")
	for i := 2; i <= 7; i++ {
		appendTo(t, filepath.Join(opened["vandal"].spec.Dir, "src", "f"+string(rune('0'+i))+".txt"), "vandal\n")
	}
	for _, fh := range opened {
		fh.finish(0)
	}
	h.event(statedir.EventRunFinished)
	h.sync()

	polite, rude, vandal := h.dispatch("polite#1"), h.dispatch("rude#1"), h.dispatch("vandal#1")
	assert.Equal(t, statedir.StatusCompleted, polite.Status, polite.Reason)
	assert.Equal(t, statedir.StatusError, rude.Status)
	assert.Equal(t, "readonly source changed: src/f1.txt", rude.Reason)
	assert.Equal(t, statedir.FailureWritePolicy, rude.FailureClass)
	assert.Equal(t, "readonly source changed: src/f2.txt, src/f3.txt, src/f4.txt, src/f5.txt, src/f6.txt (+1 more)", vandal.Reason)

	for i := 1; i <= 7; i++ {
		data, err := os.ReadFile(filepath.Join(plan.Workspace, "src", "f"+string(rune('0'+i))+".txt"))
		require.NoError(t, err)
		assert.Equal(t, "line\n", string(data), "the workspace's own src/ is untouched")
	}
	for _, id := range []string{"polite", "rude", "vandal"} {
		d := h.dispatch(id + "#1")
		branch := "rostra/t/" + id
		assert.Equal(t, runfile.IsolationWorktree, d.Isolation)
		assert.Equal(t, filepath.Join(plan.StateDir, "worktrees", id), d.Worktree)
		assert.Equal(t, branch, d.Branch)
		assert.Equal(t, base, d.BaseCommit)
		assert.Equal(t, gitT(t, plan.Workspace, "rev-parse", branch), d.WorkCommit, "the row names the commit of its work")
		assert.Equal(t, []string{"rostra: " + id + " attempt 1 (" + d.Status + ")"}, branchLog(t, plan.Workspace, base, branch))
	}
	assert.Equal(t, "line\nrude\n", gitT(t, plan.Workspace, "show", "rostra/t/rude:src/f1.txt")+"\n")
	assert.Equal(t, statedir.DiffStat{Files: 7, Additions: 7}, h.worker("vandal").DiffStat, "six sources and its result")

	h.shutdown()
	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	for _, wr := range st.Workers {
		assert.Equal(t, statedir.WorktreeKept, wr.WorktreeOutcome, "%s's branch holds unmerged work", wr.WorkerID)
		assert.DirExists(t, wr.Worktree)
	}
}

func TestSharedWorkspaceNamesTheWorkersThatRanAtOnce(t *testing.T) {
	var ws []runfile.WorkerSpec
	for _, id := range []string{"polite", "rude", "vandal"} {
		ws = append(ws, withResult(runfile.WorkerSpec{ID: id, Writes: []string{"out/**"}}))
	}
	h := startHarness(t, testPlan(t, ws...))
	opened := h.openedEach(h.pane, "polite", "rude", "vandal")
	for id := range opened {
		h.write("out/"+id+"/result.json", "{}")
	}
	h.write("src/f1.txt", "rude\n")
	opened["polite"].finish(0)
	ev := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, "polite", ev.WorkerID)
	assert.Equal(t, "readonly source changed (unattributed: 3 workers ran at once: polite, rude, vandal): src/f1.txt", ev.Reason)
	assert.Equal(t, statedir.FailureWritePolicy, h.dispatch("polite#1").FailureClass)
}

func TestSharedWorkspaceAloneIsAttributed(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**"}})))
	fh := h.opened(h.pane)
	h.write("out/a/result.json", "{}")
	h.write("src/x.txt", "x")
	fh.finish(0)
	assert.Equal(t, "readonly source changed: src/x.txt", h.event(statedir.EventWorkerFailed).Reason)
}

func TestIsolatedRetryStartsClean(t *testing.T) {
	plan, base := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 2})))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	dir := fh.spec.Dir
	h.writeIn(dir, "half-done.txt", "attempt 1\n")
	appendTo(t, filepath.Join(dir, "src/f1.txt"), "attempt 1\n")
	fh.finish(1)
	h.event(statedir.EventWorkerRetry)
	h.advance(2 * time.Second)
	fh = h.opened(h.pane)
	assert.NoFileExists(t, filepath.Join(dir, "half-done.txt"), "attempt 2 starts from the base commit")
	data, err := os.ReadFile(filepath.Join(dir, "src/f1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line\n", string(data))
	h.writeIn(dir, "out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventWorkerCompleted)
	h.sync()
	assert.Equal(t, []string{
		"rostra: a attempt 1 (error)",
		"rostra: a attempt 2 starts from the base " + base[:12],
		"rostra: a attempt 2 (completed)",
	}, branchLog(t, plan.Workspace, base, "rostra/t/a"))
	assert.Equal(t, "attempt 1\n", gitT(t, plan.Workspace, "show", "rostra/t/a~2:half-done.txt")+"\n", "attempt 1's work is kept on the branch")
	assert.NotEmpty(t, h.dispatch("a#1").WorkCommit)
	assert.Equal(t, gitT(t, plan.Workspace, "rev-parse", "rostra/t/a"), h.dispatch("a#2").WorkCommit)
	// The branch's diff is the last attempt's work alone.
	assert.Equal(t, "out/a/result.json", gitT(t, plan.Workspace, "diff", "--name-only", base, "rostra/t/a"))
}

// TestRunFinishesAfterTheLastAttemptsWorkIsCommitted: the run is not
// finished while an ended attempt's work is still being committed, however
// slow git is, so run-finished always follows worktree-committed and the
// finished state names the commit (rostra wait, then rostra merge, finds
// the work on the branch).
func TestRunFinishesAfterTheLastAttemptsWorkIsCommitted(t *testing.T) {
	plan, _ := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a"})))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.writeIn(fh.spec.Dir, "out/a/result.json", "{}")

	// git is slow: the worktree's queue is held until the test lets go.
	release := make(chan struct{})
	h.eng.do(func() { h.eng.queueGit(h.eng.byID["a"].iso, func() { <-release }) })
	fh.finish(0)
	h.event(statedir.EventWorkerCompleted)
	h.eng.do(func() {}) // the loop has handled what followed the settlement
	assert.Equal(t, statedir.RunRunning, h.eng.Snapshot().Status, "not finished while the commit waits")

	close(release)
	committed := h.event(statedir.EventWorktreeCommitted)
	h.event(statedir.EventRunFinished) // after it: event() reads the events in order
	st := h.eng.Snapshot()
	assert.Equal(t, statedir.RunFinished, st.Status)
	assert.Equal(t, committed.Commit, h.dispatch("a#1").WorkCommit)
}

func TestRetryFromLastKeepsTheTree(t *testing.T) {
	w := isolated(withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 2}))
	w.RetryFrom = runfile.RetryFromLast
	plan, base := gitPlan(t, w)
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.writeIn(fh.spec.Dir, "half-done.txt", "attempt 1\n")
	fh.finish(1)
	h.event(statedir.EventWorkerRetry) // settled once its repository is checked
	h.advance(2 * time.Second)
	fh = h.opened(h.pane)
	assert.FileExists(t, filepath.Join(fh.spec.Dir, "half-done.txt"), "retry_from: last keeps what attempt 1 left")
	h.writeIn(fh.spec.Dir, "out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventWorkerCompleted)
	h.sync()
	assert.Equal(t, []string{"rostra: a attempt 1 (error)", "rostra: a attempt 2 (completed)"}, branchLog(t, plan.Workspace, base, "rostra/t/a"))
}

func TestLeftoversAfterTheProcessEndedAreCommittedBeforeTheReset(t *testing.T) {
	plan, base := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 2})))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	fh.finish(1)
	h.event(statedir.EventWorkerRetry)
	h.sync() // attempt 1's commit found nothing
	h.writeIn(fh.spec.Dir, "late.txt", "a grandchild wrote this after the exit\n")
	h.advance(2 * time.Second)
	h.opened(h.pane)
	h.sync()
	assert.Equal(t, []string{"rostra: a attempt 1 (error)", "rostra: a attempt 2 starts from the base " + base[:12]},
		branchLog(t, plan.Workspace, base, "rostra/t/a"))
	assert.Equal(t, gitT(t, plan.Workspace, "rev-parse", "rostra/t/a~1"), h.dispatch("a#1").WorkCommit)
}

func TestRunEndRemovesEmptyAndMergedWorktreesAndKeepsTheRest(t *testing.T) {
	plan, _ := gitPlan(t,
		isolated(runfile.WorkerSpec{ID: "idle"}),
		isolated(runfile.WorkerSpec{ID: "merged"}),
		isolated(runfile.WorkerSpec{ID: "kept"}),
	)
	lock, err := statedir.AcquireRunLock(plan.StateDir) // as rostra run holds it
	require.NoError(t, err)
	defer lock.Release()
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "idle", "merged", "kept")
	h.writeIn(opened["merged"].spec.Dir, "src/new.txt", "merged\n")
	h.writeIn(opened["kept"].spec.Dir, "src/other.txt", "kept\n")
	for _, fh := range opened {
		fh.finish(0)
	}
	h.event(statedir.EventRunFinished)
	h.sync()
	st := h.eng.Snapshot()
	res, err := workspace.MergeWorktree(&st, "merged", "")
	require.NoError(t, err)
	assert.False(t, res.Removed, "the run's own end removes it")
	assert.FileExists(t, filepath.Join(plan.Workspace, "src/new.txt"))

	h.shutdown()
	st2, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	outcome := map[string]statedir.WorkerRow{}
	for _, wr := range st2.Workers {
		outcome[wr.WorkerID] = wr
	}
	assert.Equal(t, statedir.WorktreeRemovedEmpty, outcome["idle"].WorktreeOutcome)
	assert.Equal(t, statedir.WorktreeRemovedMerged, outcome["merged"].WorktreeOutcome)
	assert.Equal(t, statedir.WorktreeKept, outcome["kept"].WorktreeOutcome)
	for _, id := range []string{"idle", "merged"} {
		assert.NoDirExists(t, filepath.Join(plan.StateDir, "worktrees", id))
		assert.Empty(t, outcome[id].Worktree)
		assert.Empty(t, gitT(t, plan.Workspace, "branch", "--list", "rostra/t/"+id), "%s's branch is deleted", id)
	}
	assert.DirExists(t, filepath.Join(plan.StateDir, "worktrees", "kept"))
	assert.Equal(t, []string{"kept: rostra/t/kept (+1 −0, 1 file) at " + filepath.Join(plan.StateDir, "worktrees", "kept")}, workspace.KeptWorktrees(st2))
}

// finishedRun runs one isolated worker that changes src/f1.txt and
// completes, and returns the run's state after its end.
func finishedRun(t *testing.T) (*runfile.Plan, *statedir.TeamState) {
	plan, _ := gitPlan(t, isolated(runfile.WorkerSpec{ID: "a"}))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	appendTo(t, filepath.Join(fh.spec.Dir, "src/f1.txt"), "from a\n")
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	h.shutdown()
	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	return plan, st
}

func TestMergeOfACleanBranch(t *testing.T) {
	plan, st := finishedRun(t)
	diff, info, err := workspace.WorktreeDiff(st, "a", false)
	require.NoError(t, err)
	assert.Contains(t, string(diff), "+from a")
	assert.Equal(t, statedir.DiffStat{Files: 1, Additions: 1}, info.Stat)
	assert.NotContains(t, string(diff), "\x1b[")
	colour, _, err := workspace.WorktreeDiff(st, "a", true)
	require.NoError(t, err)
	assert.Contains(t, string(colour), "\x1b[")

	res, err := workspace.MergeWorktree(st, "a", "")
	require.NoError(t, err)
	assert.Equal(t, "main", res.Into)
	assert.True(t, res.Removed, "after the run, a merged worktree is removed")
	data, err := os.ReadFile(filepath.Join(plan.Workspace, "src/f1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line\nfrom a\n", string(data))
	assert.Equal(t, "rostra: merge rostra/t/a (worker a of run t)", gitT(t, plan.Workspace, "log", "-1", "--format=%s"))
	assert.Equal(t, res.Commit, gitT(t, plan.Workspace, "rev-parse", "HEAD"))
	assert.NoDirExists(t, filepath.Join(plan.StateDir, "worktrees", "a"))
	_, err = workspace.MergeWorktree(st, "a", "")
	assert.ErrorIs(t, err, workspace.ErrReview, "the branch is gone now")
}

func TestMergeConflictIsRefusedAndTouchesNothing(t *testing.T) {
	plan, st := finishedRun(t)
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, "src/f1.txt"), []byte("line\nfrom the human\n"), 0o644))
	gitT(t, plan.Workspace, "commit", "-q", "-am", "the human's change")
	head := gitT(t, plan.Workspace, "rev-parse", "HEAD")
	tip := gitT(t, plan.Workspace, "rev-parse", "rostra/t/a")

	_, err := workspace.MergeWorktree(st, "a", "")
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), "rostra/t/a conflicts with main in src/f1.txt")
	assert.Equal(t, head, gitT(t, plan.Workspace, "rev-parse", "HEAD"))
	assert.Equal(t, tip, gitT(t, plan.Workspace, "rev-parse", "rostra/t/a"))
	assert.Empty(t, gitT(t, plan.Workspace, "status", "--porcelain", "--untracked-files=no"), "no merge left half done")
	data, err := os.ReadFile(filepath.Join(plan.Workspace, "src/f1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line\nfrom the human\n", string(data))
	assert.DirExists(t, filepath.Join(plan.StateDir, "worktrees", "a"))
}

func TestMergeIntoADirtyWorkspaceIsRefused(t *testing.T) {
	plan, st := finishedRun(t)
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, "src/f2.txt"), []byte("edited\n"), 0o644))
	head := gitT(t, plan.Workspace, "rev-parse", "HEAD")
	_, err := workspace.MergeWorktree(st, "a", "")
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), "has uncommitted changes (src/f2.txt)")
	assert.Equal(t, head, gitT(t, plan.Workspace, "rev-parse", "HEAD"))
	data, err := os.ReadFile(filepath.Join(plan.Workspace, "src/f2.txt"))
	require.NoError(t, err)
	assert.Equal(t, "edited\n", string(data))
	data, err = os.ReadFile(filepath.Join(plan.Workspace, "src/f1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line\n", string(data))
}

func TestMergeOfAWorkerOfTheSharedWorkspaceIsRefused(t *testing.T) {
	st := &statedir.TeamState{Run: "t", Workspace: t.TempDir(), Workers: []statedir.WorkerRow{{WorkerID: "a"}}}
	_, err := workspace.MergeWorktree(st, "a", "")
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), "isolation: none")
	_, err = workspace.MergeWorktree(st, "nobody", "")
	assert.Contains(t, err.Error(), `run t has no worker "nobody" (its workers: a)`)
}

func TestResumeReusesTheWorktree(t *testing.T) {
	plan, base := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a"})))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.writeIn(fh.spec.Dir, "progress.txt", "half\n")
	h.shutdown() // a quit: the attempt is cancelled, its work committed, the worktree kept
	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	require.Equal(t, statedir.RunInterrupted, st.Status)
	assert.Equal(t, statedir.WorktreeKept, st.Workers[0].WorktreeOutcome)

	// A later commit in the workspace does not move the resumed run's base.
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, "later.txt"), []byte("x"), 0o644))
	gitT(t, plan.Workspace, "add", "later.txt")
	gitT(t, plan.Workspace, "commit", "-q", "-m", "later")
	iso, err := workspace.PrepareIsolation(plan, st, t0)
	require.NoError(t, err)
	assert.Equal(t, base, iso.Base)

	clock := NewFakeClock(t0)
	pane := newFakeSurface(runfile.SurfacePane)
	eng := New(plan, Options{Surfaces: map[runfile.SurfaceKind]Surface{runfile.SurfacePane: pane}, Clock: clock, Environ: []string{}, Resumed: st, Isolation: iso})
	require.NoError(t, eng.Start())
	h2 := &harness{t: t, plan: plan, clock: clock, pane: pane, eng: eng, sub: eng.Subscribe()}
	defer h2.shutdown()
	fh = h2.opened(pane)
	assert.Equal(t, 2, fh.spec.Attempt)
	assert.NoFileExists(t, filepath.Join(fh.spec.Dir, "progress.txt"), "attempt 2 starts from the base")
	h2.sync()
	assert.Equal(t, []string{"rostra: a attempt 1 (cancelled)", "rostra: a attempt 2 starts from the base " + base[:12]},
		branchLog(t, plan.Workspace, base, "rostra/t/a"))
	assert.Equal(t, base, h2.worker("a").BaseCommit)
}

func TestPrepareIsolationRefusesARepositoryWithoutACommit(t *testing.T) {
	p := testPlan(t, isolated(runfile.WorkerSpec{ID: "a"}))
	gitT(t, p.Workspace, "init", "-q")
	p.PlaceWorktrees(p.Workspace, ".")
	_, err := workspace.PrepareIsolation(p, nil, t0)
	require.ErrorIs(t, err, workspace.ErrIsolation)
	assert.Contains(t, err.Error(), "has no commit yet")
}

func TestPrepareIsolationWarnsOfUncommittedChanges(t *testing.T) {
	p, _ := gitPlan(t, isolated(runfile.WorkerSpec{ID: "a"}))
	require.NoError(t, os.WriteFile(filepath.Join(p.Workspace, "src/f1.txt"), []byte("edited\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p.Workspace, "new.txt"), []byte("new\n"), 0o644))
	iso, err := workspace.PrepareIsolation(p, nil, t0)
	require.NoError(t, err)
	assert.Equal(t, "1 changed, 1 untracked", iso.Dirty)
}

func TestANewRunSetsAnEarlierRunsUnmergedBranchAside(t *testing.T) {
	plan, st := finishedRun(t)
	tip := gitT(t, plan.Workspace, "rev-parse", "rostra/t/a")
	require.NoError(t, os.Remove(filepath.Join(plan.StateDir, statedir.TeamStateFile)))
	iso, err := workspace.PrepareIsolation(plan, nil, t0)
	require.NoError(t, err)
	aside := "rostra/t/a-" + t0.Format("20060102T150405Z")
	assert.Equal(t, []string{"an earlier run's unmerged work on rostra/t/a is kept as branch " + aside}, iso.Archived)
	assert.Equal(t, tip, gitT(t, plan.Workspace, "rev-parse", aside))
	assert.NoDirExists(t, st.Workers[0].Worktree)
	assert.Empty(t, gitT(t, plan.Workspace, "branch", "--list", "rostra/t/a"))
}

func TestGitErrorsSayWhatAndWhere(t *testing.T) {
	_, err := workspace.ReadGit(t.TempDir()).Run("rev-parse", "--show-toplevel")
	var ge *workspace.GitError
	require.True(t, errors.As(err, &ge))
	assert.Contains(t, err.Error(), "git rev-parse --show-toplevel (in ")
	assert.Contains(t, err.Error(), "not a git repository")
}

func TestLoadPlacesIsolatedWorkersInTheirWorktrees(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	initRepo(t, repo)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub"), 0o755))
	runFile := filepath.Join(repo, "sub", "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(`version: 1
name: r
defaults: { isolation: worktree }
workers:
  - { id: a, command: ["true"], retry_from: last }
  - { id: b, command: ["true"], isolation: none }
`), 0o644))
	p, err := runfile.Load(runFile)
	require.NoError(t, err)
	assert.Equal(t, repo, p.GitRoot)
	a, b := p.Workers[0], p.Workers[1]
	wt := filepath.Join(repo, "sub", ".rostra", "r", "worktrees", "a")
	assert.Equal(t, runfile.IsolationWorktree, a.Isolation)
	assert.Equal(t, runfile.RetryFromLast, a.RetryFrom)
	assert.Equal(t, wt, a.Worktree)
	assert.Equal(t, "rostra/r/a", a.Branch)
	assert.Equal(t, filepath.Join(wt, "sub"), a.Workspace, "the workspace's place in the repository, in the worktree")
	ap, err := p.Expand(&p.Workers[0], 1)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(wt, "sub"), ap.Dir)
	assert.Equal(t, runfile.IsolationNone, b.Isolation)
	assert.Empty(t, b.Worktree)
	assert.Equal(t, p.Workspace, p.WorkspaceOf(&p.Workers[1]))
}

func TestLoadRefusesIsolationItCannotHave(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"no repository", "defaults: { isolation: worktree }\nworkers:\n  - { id: a, command: [\"true\"] }\n",
			"rostra.yaml:3:24: defaults.isolation: isolation: worktree needs a git repository at <ws>; run `git init` there and commit, or use isolation: none"},
		{"unknown mode", "workers:\n  - { id: a, command: [\"true\"], isolation: container }\n",
			`rostra.yaml:4:44: workers[0].isolation: unknown isolation "container"; use worktree (a git worktree per worker) or none (the shared workspace)`},
		{"retry_from in the shared workspace", "workers:\n  - { id: a, command: [\"true\"], retry_from: last }\n",
			"rostra.yaml:4:45: workers[0].retry_from: retry_from needs isolation: worktree; in the shared workspace a retry starts from whatever is there"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			if runfile.GitRootOf(ws) != "" {
				t.Skipf("the temp folder %s is inside a git repository", ws)
			}
			require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte("version: 1\nname: r\n"+c.body), 0o644))
			old, _ := os.Getwd()
			require.NoError(t, os.Chdir(ws))
			defer os.Chdir(old)
			_, err = runfile.Load("rostra.yaml")
			require.Error(t, err)
			assert.Equal(t, strings.ReplaceAll(c.want, "<ws>", ws), err.Error())
		})
	}
}

func TestMergeWaitsForTheWorkerAndForTheSharedWorkspace(t *testing.T) {
	plan, _ := gitPlan(t, isolated(runfile.WorkerSpec{ID: "a"}), runfile.WorkerSpec{ID: "shared"})
	lock, err := statedir.AcquireRunLock(plan.StateDir)
	require.NoError(t, err)
	defer lock.Release()
	h := startHarness(t, plan)
	opened := h.openedEach(h.pane, "a", "shared")
	appendTo(t, filepath.Join(opened["a"].spec.Dir, "src/f1.txt"), "from a\n")
	h.sync()
	st := h.eng.Snapshot()
	_, err = workspace.MergeWorktree(&st, "a", "")
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), "a is running: its work is not all on rostra/t/a yet")

	opened["a"].finish(0)
	h.event(statedir.EventWorktreeCommitted)
	st = h.eng.Snapshot()
	_, err = workspace.MergeWorktree(&st, "a", "")
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), "shared run in the workspace: a merge now would change files under them")

	opened["shared"].finish(0)
	h.event(statedir.EventRunFinished)
	st = h.eng.Snapshot()
	res, err := workspace.MergeWorktree(&st, "a", "")
	require.NoError(t, err)
	assert.False(t, res.Removed)
}

func TestEnsureChecksOutAWorktreeLeftUnpopulatedAndNeverResetsWork(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	base := initRepo(t, repo)
	wt := workspace.Worktree{Worker: "a", Repo: repo, Path: filepath.Join(repo, ".rostra", "t", "worktrees", "a"), Branch: "rostra/t/a", Base: base}
	require.NoError(t, wt.Register()) // rostra stopped before the checkout
	assert.False(t, wt.Populated())
	require.NoError(t, wt.Ensure())
	assert.True(t, wt.Populated())
	assert.FileExists(t, filepath.Join(wt.Path, "src", "f7.txt"))

	appendTo(t, filepath.Join(wt.Path, "src", "f1.txt"), "work in progress\n")
	require.NoError(t, wt.Ensure())
	data, err := os.ReadFile(filepath.Join(wt.Path, "src", "f1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line\nwork in progress\n", string(data), "a checked-out worktree is left as it is")
}

func TestAWorktreeRemovedByHandIsMadeAgainOnItsBranch(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	base := initRepo(t, repo)
	wt := workspace.Worktree{Worker: "a", Repo: repo, Path: filepath.Join(repo, ".rostra", "t", "worktrees", "a"), Branch: "rostra/t/a", Base: base}
	require.NoError(t, wt.Ensure())
	appendTo(t, filepath.Join(wt.Path, "src", "f1.txt"), "attempt 1\n")
	commit, err := wt.CommitAll(workspace.AttemptMessage("a", 1, statedir.StatusError))
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(filepath.Join(repo, ".rostra"))) // the state dir deleted, worktrees with it
	require.NoError(t, wt.Ensure())
	assert.Equal(t, commit, gitT(t, wt.Path, "rev-parse", "HEAD"), "checked out again on its branch, its commits kept")
	data, err := os.ReadFile(filepath.Join(wt.Path, "src", "f1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "line\nattempt 1\n", string(data))
}

// TestTheLiveDiffStatFollowsOutputNotATimer: a running isolated attempt's
// diff-stat is measured diffStatEvery after it prints (one measurement for
// all the output of that window), never while it is quiet however long,
// and at once when a client asks (RefreshDiffStats).
func TestTheLiveDiffStatFollowsOutputNotATimer(t *testing.T) {
	plan, _ := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a"})))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.sync()
	stat := func() statedir.DiffStat { return h.worker("a").DiffStat }

	h.writeIn(fh.spec.Dir, "one.txt", "1\n")
	h.advance(10 * diffStatEvery)
	assert.Zero(t, stat(), "quiet: not measured, however long")

	fh.output(10)
	h.advance(diffStatEvery / 2)
	fh.output(10) // the same window
	h.writeIn(fh.spec.Dir, "two.txt", "2\n")
	h.advance(diffStatEvery / 2)
	assert.Equal(t, statedir.DiffStat{Files: 2, Additions: 2}, stat(), "measured after the output, once its window is over")

	h.writeIn(fh.spec.Dir, "three.txt", "3\n")
	h.advance(10 * diffStatEvery)
	assert.Equal(t, statedir.DiffStat{Files: 2, Additions: 2}, stat(), "quiet again: not measured")

	select {
	case <-h.eng.RefreshDiffStats():
	case <-time.After(10 * time.Second):
		t.Fatal("RefreshDiffStats did not end")
	}
	assert.Equal(t, statedir.DiffStat{Files: 3, Additions: 3}, h.eng.Snapshot().Workers[0].DiffStat, "a client asked: measured, and published before the answer")

	h.writeIn(fh.spec.Dir, "out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	assert.Equal(t, statedir.DiffStat{Files: 4, Additions: 4}, stat(), "measured when it ends")
}

// A resume that settles an isolated worker's attempt from its completion
// files (its outcome never reached team-state.json nor events.jsonl) looks
// for them in the worker's worktree, where the attempt wrote them.
func TestReconcileFindsAnIsolatedWorkersFilesInItsWorktree(t *testing.T) {
	plan, _ := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a"})))
	require.NoError(t, os.MkdirAll(plan.StateDir, 0o700))
	result := filepath.Join(plan.Workers[0].Workspace, "out", "a", "result.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(result), 0o755))
	require.NoError(t, os.WriteFile(result, []byte("{}\n"), 0o644))
	st := &statedir.TeamState{
		Workers:    []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusRunning, Attempts: 1, ResultPath: "out/a/result.json"}},
		Dispatches: []statedir.DispatchRow{{DispatchID: "a#1", WorkerID: "a", Attempt: 1, Status: statedir.StatusRunning}},
	}
	notes := reconcileUnsettled(plan, st, time.Now())
	require.Len(t, notes, 1, "settled from its files")
	assert.Equal(t, statedir.StatusCompleted, st.Dispatches[0].Status)
	assert.Equal(t, statedir.StatusCompleted, st.Workers[0].Status, "the roster row too: %s", st.Workers[0].Reason)
	_, err := os.Stat(filepath.Join(plan.Workspace, "out"))
	assert.True(t, os.IsNotExist(err), "nothing in the shared workspace to find")
}

// TestRunEndKeepsAWorktreeHoldingIgnoredFiles: an isolated worker whose
// only output is its result, in a folder the repository ignores, commits
// nothing; the run's end must not remove its worktree (git worktree remove
// deletes ignored files too), or the result the roster points at is gone.
func TestRunEndKeepsAWorktreeHoldingIgnoredFiles(t *testing.T) {
	plan, _ := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "reviewer"})))
	appendTo(t, filepath.Join(plan.Workspace, ".gitignore"), "out/\n")
	gitT(t, plan.Workspace, "commit", "-q", "-am", "ignore out/")
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.writeIn(fh.spec.Dir, "out/reviewer/result.json", `{"verdict":"fine"}`)
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	assert.Equal(t, statedir.StatusCompleted, h.dispatch("reviewer#1").Status)
	h.shutdown()

	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	result := filepath.Join(plan.StateDir, "worktrees", "reviewer", "out", "reviewer", "result.json")
	assert.FileExists(t, result, "the worker's result survives the run's end")
	assert.Equal(t, statedir.WorktreeKept, st.Workers[0].WorktreeOutcome)
	kept := h.event(statedir.EventWorktreeKept)
	assert.Contains(t, kept.Reason, "it holds files git ignores (out/)")

	// rostra merge after the run: nothing to merge, and the worktree stays.
	res, err := workspace.MergeWorktree(st, "reviewer", "")
	require.NoError(t, err)
	assert.True(t, res.AlreadyMerged)
	assert.False(t, res.Removed)
	assert.Equal(t, "out/", res.IgnoredKept)
	assert.FileExists(t, result, "the worker's result survives rostra merge")

	// A new run of the same name does not remove it either: it stops, and
	// says what to do, as for uncommitted changes.
	_, err = workspace.PrepareIsolation(plan, nil, t0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds files git ignores (out/)")
	assert.FileExists(t, result, "the worker's result survives a new run")
}

// TestAPlantedWorktreesLinkIsNeverFollowed: <state_dir>/worktrees replaced
// by a link to a folder of the user's (a worker of an earlier run can
// write there); no worktree is made through it: the attempt fails, naming
// the link.
func TestAPlantedWorktreesLinkIsNeverFollowed(t *testing.T) {
	plan, _ := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a"})))
	outside := t.TempDir()
	require.NoError(t, os.MkdirAll(plan.StateDir, 0o700))
	require.NoError(t, os.Symlink(outside, filepath.Join(plan.StateDir, runfile.WorktreesDir)))
	h := startHarness(t, plan)
	failed := h.event(statedir.EventWorkerFailed)
	assert.Contains(t, failed.Reason, filepath.Join(plan.StateDir, runfile.WorktreesDir)+" is a symlink (to "+outside+")")
	made, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, made, "nothing is made through the link")
}
