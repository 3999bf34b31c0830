// repocheck_test.go plays a hostile agent in an isolated worker's worktree
// against a real git repository (docs/isolation.md, "The record of an
// attempt"): it moves the worktree's HEAD onto the user's branch, commits
// onto that branch, makes branches, and writes the shared .git's config and
// hooks, all with real git run in the worktree while the attempt's fake
// process runs. Each time the user's branches end where they were, the
// work is on the worker's branch or in quarantine, and the attempt fails
// saying what was changed.
package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// startHostileAttempt starts one isolated worker whose attempt is open, and returns
// its worktree.
func startHostileAttempt(t *testing.T) (*harness, *fakeHandle, *runfile.Plan, string, string) {
	t.Helper()
	plan, base := gitPlan(t, isolated(runfile.WorkerSpec{ID: "a"}))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	return h, fh, plan, plan.Workers[0].Worktree, base
}

// The attack as it was found: the agent's `git checkout -B main` made
// rostra commit its work onto the user's main, and the branch was removed
// as empty.
func TestCheckoutOfTheUsersBranchInTheWorktreeLeavesItAlone(t *testing.T) {
	h, fh, plan, wt, base := startHostileAttempt(t)
	require.NoError(t, os.WriteFile(filepath.Join(wt, "c.txt"), []byte("work\n"), 0o644))
	gitT(t, wt, "checkout", "-B", "main")
	gitT(t, wt, "reset", "--hard")
	fh.finish(0)

	changed := h.event(statedir.EventRepositoryChanged)
	assert.Contains(t, changed.Reason, "the worktree's HEAD was moved to refs/heads/main (put back on rostra/t/a)")
	failed := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, statedir.FailureRepository, failed.FailureClass)
	assert.Contains(t, failed.Reason, "repository changed: the worktree's HEAD was moved to refs/heads/main")
	committed := h.event(statedir.EventWorktreeCommitted)
	assert.Equal(t, "rostra/t/a", committed.Branch, "the event names where the commit went")
	h.sync()

	assert.Equal(t, base, gitT(t, plan.Workspace, "rev-parse", "main"), "the user's main is where it was")
	assert.Equal(t, committed.Commit, gitT(t, plan.Workspace, "rev-parse", "rostra/t/a"))
	assert.Equal(t, "work", gitT(t, plan.Workspace, "show", "rostra/t/a:c.txt"))
	assert.Equal(t, "rostra <rostra@localhost>", gitT(t, plan.Workspace, "log", "-1", "--format=%an <%ae>", "rostra/t/a"))
	assert.Empty(t, gitT(t, plan.Workspace, "status", "--porcelain"), "the user's workspace shows nothing staged")
	assert.Equal(t, "refs/heads/rostra/t/a", gitT(t, wt, "symbolic-ref", "HEAD"), "the worktree is back on its branch")
	assert.Empty(t, gitT(t, wt, "status", "--porcelain"), "and its index follows the commit")

	h.shutdown()
	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.WorktreeKept, st.Workers[0].WorktreeOutcome, "its work is not taken for nothing beyond the base")
}

// The agent commits onto the user's branch from its worktree: the branch
// is put back, the agent's commit kept in quarantine and named.
func TestACommitOntoTheUsersBranchIsPutBackAndKeptInQuarantine(t *testing.T) {
	h, fh, plan, wt, base := startHostileAttempt(t)
	gitT(t, wt, "checkout", "-q", "-B", "main")
	require.NoError(t, os.WriteFile(filepath.Join(wt, "evil.txt"), []byte("evil\n"), 0o644))
	gitT(t, wt, "add", "evil.txt")
	gitT(t, wt, "commit", "-q", "-m", "evil")
	evil := gitT(t, wt, "rev-parse", "HEAD")
	gitT(t, wt, "tag", "v-evil")
	fh.finish(0)

	failed := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, statedir.FailureRepository, failed.FailureClass)
	quarantine := "refs/rostra/quarantine/t/a/1/heads/main"
	assert.Contains(t, failed.Reason, "refs/heads/main moved "+base[:12]+".."+evil[:12]+" (put back; kept as "+quarantine+")")
	assert.Contains(t, failed.Reason, "refs/tags/v-evil was made at "+evil[:12]+" (put back; kept as refs/rostra/quarantine/t/a/1/tags/v-evil)")
	h.event(statedir.EventWorktreeCommitted)
	h.sync()

	assert.Equal(t, base, gitT(t, plan.Workspace, "rev-parse", "main"))
	assert.Equal(t, evil, gitT(t, plan.Workspace, "rev-parse", quarantine), "nothing the agent made is lost")
	assert.Empty(t, gitT(t, plan.Workspace, "tag", "--list"))
	assert.Empty(t, gitT(t, plan.Workspace, "status", "--porcelain"))
	assert.Equal(t, "evil", gitT(t, plan.Workspace, "show", "rostra/t/a:evil.txt"), "the worktree's files are the attempt's record")
	assert.Equal(t, statedir.StatusError, h.dispatch("a#1").Status)
}

// A person who commits on their branch in the workspace while an isolated
// attempt runs has not been attacked: nothing is put back.
func TestTheUsersOwnCommitDuringTheAttemptIsLeftAlone(t *testing.T) {
	h, fh, plan, wt, _ := startHostileAttempt(t)
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, "src/f2.txt"), []byte("the human's\n"), 0o644))
	gitT(t, plan.Workspace, "commit", "-q", "-am", "the human's change")
	mine := gitT(t, plan.Workspace, "rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(wt, "src/f1.txt"), []byte("the agent's\n"), 0o644))
	fh.finish(0)

	completed := h.event(statedir.EventWorkerCompleted)
	assert.Empty(t, completed.Reason)
	h.sync()
	assert.Equal(t, mine, gitT(t, plan.Workspace, "rev-parse", "main"))
}

// The agent makes and switches branches, commits on its own branch and
// rewrites the shared .git's config and hooks: each is named, the files by
// their paths as the write audit names them.
func TestTheSharedGitIsNotTheAgents(t *testing.T) {
	h, fh, plan, wt, _ := startHostileAttempt(t)
	require.NoError(t, os.WriteFile(filepath.Join(wt, "app.py"), []byte("ok\n"), 0o644))
	gitT(t, wt, "add", "app.py")
	gitT(t, wt, "commit", "-q", "-m", "the agent's own commit on its branch")
	gitT(t, wt, "config", "filter.pwn.clean", "cat")
	hook := filepath.Join(plan.Workspace, ".git", "hooks", "post-merge")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(plan.Workspace, ".git", "info"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plan.Workspace, ".git", "info", "attributes"), []byte("*.none filter=pwn\n"), 0o644))
	fh.finish(0)

	failed := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, statedir.FailureRepository, failed.FailureClass)
	assert.Contains(t, failed.Reason, "the shared repository's .git/config, .git/hooks/post-merge, .git/info/attributes changed")
	assert.NotContains(t, failed.Reason, "refs/heads/rostra/t/a", "its own branch moving forward is its own")
	h.sync()
	assert.Equal(t, "the agent's own commit on its branch", gitT(t, plan.Workspace, "log", "-1", "--format=%s", "rostra/t/a"),
		"nothing beyond its commit was left to commit")
}

// A branch made and switched to in the worktree is deleted (kept in
// quarantine) after the HEAD is put back.
func TestABranchMadeInTheWorktreeIsQuarantined(t *testing.T) {
	h, fh, plan, wt, base := startHostileAttempt(t)
	gitT(t, wt, "switch", "-q", "-c", "decoy-branch", base)
	require.NoError(t, os.WriteFile(filepath.Join(wt, "DOC.md"), []byte("harmless\n"), 0o644))
	fh.finish(0)

	failed := h.event(statedir.EventWorkerFailed)
	assert.Contains(t, failed.Reason, "the worktree's HEAD was moved to refs/heads/decoy-branch (put back on rostra/t/a)")
	assert.Contains(t, failed.Reason, "refs/heads/decoy-branch was made at "+base[:12]+" (put back; kept as refs/rostra/quarantine/t/a/1/heads/decoy-branch)")
	h.event(statedir.EventWorktreeCommitted)
	h.sync()
	assert.Empty(t, gitT(t, plan.Workspace, "branch", "--list", "decoy-branch"))
	assert.Equal(t, "harmless", gitT(t, plan.Workspace, "show", "rostra/t/a:DOC.md"))
}

// A hook planted in the shared .git during the run, or a .gitattributes
// the branch brings, would have git run the agent's programs in the merge:
// the merge refuses, naming them, and touches nothing.
func TestMergeRefusesWhatGitWouldRunFromTheRepository(t *testing.T) {
	// The agent plants a hook in the shared .git while its attempt runs.
	plan, _ := gitPlan(t, isolated(runfile.WorkerSpec{ID: "a"}))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	appendTo(t, filepath.Join(fh.spec.Dir, "src/f1.txt"), "from a\n")
	ran := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(plan.Workspace, ".git", "hooks", "pre-merge-commit")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+ran+"\n"), 0o755))
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	h.shutdown()
	st, err := statedir.ReadTeamState(plan.StateDir)
	require.NoError(t, err)
	require.NotEmpty(t, st.GitFiles, "the run recorded the repository's .git files at its start")
	require.NotEmpty(t, st.GitFilesAtEnd, "and at its end")
	head := gitT(t, plan.Workspace, "rev-parse", "HEAD")

	_, err = workspace.MergeWorktree(st, "a", "")
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), "the repository's .git/hooks/pre-merge-commit changed during run t")
	assert.Equal(t, head, gitT(t, plan.Workspace, "rev-parse", "HEAD"))
	assert.NoFileExists(t, ran)
	// Put back as the run found it (the hook removed), the merge goes on.
	require.NoError(t, os.Remove(hook))
	_, err = workspace.MergeWorktree(st, "a", "")
	require.NoError(t, err, "the hook the run planted is gone")
	assert.NoFileExists(t, ran)

	// A run whose end recorded the .git files as it found them at the start:
	// the user's own hook, added after the run's end, does not stop a merge.
	plan2, st2 := finishedRun(t)
	require.Equal(t, st2.GitFiles, st2.GitFilesAtEnd)
	mine := filepath.Join(plan2.Workspace, ".git", "hooks", "post-merge")
	require.NoError(t, os.WriteFile(mine, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	_, err = workspace.MergeWorktree(st2, "a", "")
	require.NoError(t, err, "a hook the user added after the run is theirs")
}

func TestMergeRefusesAnAttributesChange(t *testing.T) {
	plan, st := finishedRun(t)
	head := gitT(t, plan.Workspace, "rev-parse", "HEAD")
	wt := filepath.Join(plan.StateDir, "worktrees", "a")
	require.NoError(t, os.WriteFile(filepath.Join(wt, ".gitattributes"), []byte("*.txt filter=pwn\n"), 0o644))
	gitT(t, wt, "add", ".gitattributes")
	gitT(t, wt, "commit", "-q", "-m", "attributes")
	_, err := workspace.MergeWorktree(st, "a", "")
	require.ErrorIs(t, err, workspace.ErrReview)
	assert.Contains(t, err.Error(), "rostra/t/a changes .gitattributes, which tells git what to run on files")
	assert.Equal(t, head, gitT(t, plan.Workspace, "rev-parse", "HEAD"))
}

// An attempt settled on its files goes on running: what it moves after its
// settlement is found before its work is committed, put back, and added to
// its reason; its outcome, decided, stays.
func TestARefMovedAfterTheSettlementIsPutBackBeforeTheCommit(t *testing.T) {
	w := isolated(withResult(runfile.WorkerSpec{ID: "a"}))
	w.Completion.Settle = runfile.SettleOnFiles
	w.Completion.Stable = 500 * time.Millisecond
	plan, base := gitPlan(t, w)
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	wt := plan.Workers[0].Worktree
	h.writeIn(fh.spec.Dir, "out/a/result.json", "{}")
	require.Eventually(t, func() bool { h.sync(); return h.clock.Pending() > 0 && h.stableArmed("a") }, 5*time.Second, 5*time.Millisecond)
	h.advance(500 * time.Millisecond)
	h.event(statedir.EventWorkerCompleted)

	late := gitT(t, wt, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "after the settlement")
	gitT(t, wt, "update-ref", "refs/heads/main", late)
	fh.finish(0)
	changed := h.event(statedir.EventRepositoryChanged)
	assert.Equal(t, "after it settled, refs/heads/main moved "+base[:12]+".."+late[:12]+" (put back; kept as refs/rostra/quarantine/t/a/1/heads/main)", changed.Reason)
	h.event(statedir.EventWorktreeCommitted)
	h.sync()
	assert.Equal(t, base, gitT(t, plan.Workspace, "rev-parse", "main"))
	d := h.dispatch("a#1")
	assert.Equal(t, statedir.StatusCompleted, d.Status)
	assert.Contains(t, d.Reason, "after it settled, repository changed: refs/heads/main moved")
}

// startSandboxedAttempt is startHostileAttempt for a worker under the
// kernel's sandbox (the fake surface runs nothing; the row says writes).
func startSandboxedAttempt(t *testing.T) (*harness, *fakeHandle, *runfile.Plan, string, string) {
	t.Helper()
	plan, base := gitPlan(t, isolated(runfile.WorkerSpec{ID: "a", Sandbox: runfile.SandboxWrites}))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	require.Equal(t, runfile.SandboxWrites, h.dispatch("a#1").Sandbox)
	return h, fh, plan, plan.Workers[0].Worktree, base
}

// While a sandboxed attempt runs, the user fetches (new remote refs, a
// tag), commits on another branch and sets a config: the sandbox kept the
// agent out of all of it, so none of it is put back or charged.
func TestTheUsersGitDuringASandboxedAttemptIsLeftAlone(t *testing.T) {
	h, fh, plan, wt, base := startSandboxedAttempt(t)
	ws := plan.Workspace
	gitT(t, ws, "update-ref", "refs/remotes/origin/main", base)
	gitT(t, ws, "tag", "v1")
	gitT(t, ws, "checkout", "-q", "-b", "feature")
	require.NoError(t, os.WriteFile(filepath.Join(ws, "src/f2.txt"), []byte("the human's\n"), 0o644))
	gitT(t, ws, "commit", "-q", "-am", "the human's change")
	feature := gitT(t, ws, "rev-parse", "HEAD")
	gitT(t, ws, "checkout", "-q", "main")
	gitT(t, ws, "config", "user.nickname", "me")
	require.NoError(t, os.WriteFile(filepath.Join(wt, "src/f1.txt"), []byte("the agent's\n"), 0o644))
	fh.finish(0)

	completed := h.event(statedir.EventWorkerCompleted)
	assert.Empty(t, completed.Reason)
	h.sync()
	assert.Equal(t, feature, gitT(t, ws, "rev-parse", "feature"))
	assert.Equal(t, base, gitT(t, ws, "rev-parse", "origin/main"))
	assert.Equal(t, "v1", gitT(t, ws, "tag", "--list"))
	assert.Empty(t, gitT(t, ws, "for-each-ref", "refs/rostra/quarantine"))
	assert.Equal(t, statedir.StatusCompleted, h.dispatch("a#1").Status)
}

// What a sandboxed agent can write is still checked: its worktree's HEAD
// moved off its branch is put back and the attempt fails.
func TestASandboxedAttemptsOwnHeadIsStillChecked(t *testing.T) {
	h, fh, _, wt, _ := startSandboxedAttempt(t)
	gitT(t, wt, "checkout", "-q", "--detach")
	fh.finish(0)

	failed := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, statedir.FailureRepository, failed.FailureClass)
	assert.Contains(t, failed.Reason, "the worktree's HEAD was detached at")
	h.sync()
	assert.Equal(t, "refs/heads/rostra/t/a", gitT(t, wt, "symbolic-ref", "HEAD"))
}
