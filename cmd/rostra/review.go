// review.go wires `rostra diff WORKER` and `rostra merge WORKER`: an
// isolated worker's work against the run's base commit, and its branch
// merged into the workspace's current branch (workspace/review.go). Each
// takes the run as --run PATH (a run file or a state dir; default
// ./rostra.yaml) and reads its team-state.json, so both work during a run
// and after it. Exit codes: 0 done, 1 refused (a dirty workspace, a
// conflict, a worker still running) or git failed, 2 bad input (no such
// run or worker, a worker without a worktree).
//
// What a worker wrote is outside text: on a terminal, `rostra diff` shows
// every file's lines (binary ones too, as `git diff --text` does, so an
// attribute cannot hide a file from review) with their control characters
// escaped, and colours them itself: no escape sequence from a file's
// content or name reaches the terminal (docs/design.md, "Nothing raw
// reaches a terminal"). Into a pipe it writes git's bytes.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

const diffUsage = `usage: rostra diff [--run PATH] [--color auto|always|never] WORKER

Prints the diff of an isolated worker's branch (isolation: worktree), at its
tip, against the commit the branch was made from: exactly what rostra merge
takes. It names the tip (merge --commit pins it), lists the commits on the
branch rostra did not make, and says what the worktree holds that is not
committed yet (not shown). On a terminal it is coloured, shows binary
files' lines too (git diff --text) and shows control characters escaped
(\e, \x07); into a pipe it is git's diff as it is. PATH is the run file or
its state dir (default ./rostra.yaml).
`

const mergeUsage = `usage: rostra merge [--run PATH] [--commit ID] [--hooks] WORKER

Merges an isolated worker's branch (rostra/<run>/<worker>), at its tip,
into the workspace's current branch with a merge commit. With --commit ID
(the commit rostra diff named), refuses when the tip is another. Refuses,
changing nothing, when the workspace has uncommitted changes, when the
branch conflicts with it, while the worker (or a worker of the shared
workspace) runs, and when the repository's config, hooks or info/ changed
during the run or the branch changes a .gitattributes. After the run, the
merged worktree and branch are removed. PATH is the run file or its state
dir (default ./rostra.yaml).

The merge runs no program the repository names (hooks, filters, merge
drivers, fsmonitor: a worker could have planted them); --hooks runs the
repository's hooks as git merge does.
`

func runDiff(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("diff", diffUsage, stderr)
	color := c.fs.String("color", "auto", "auto, always or never")
	rest, code, ok := c.parse(args, 1)
	if !ok {
		return code
	}
	useColor := false
	switch *color {
	case "auto":
		useColor = isTerminal(stdout)
	case "always":
		useColor = true
	case "never":
	default:
		fmt.Fprintf(stderr, "rostra diff: --color is auto, always or never, not %q\n", *color)
		return 2
	}
	st, code := c.reviewRun()
	if st == nil {
		return code
	}
	onTerminal := isTerminal(stdout)
	opts := workspace.DiffOptions{Color: useColor}
	if onTerminal {
		opts = workspace.DiffOptions{Color: useColor, Text: true, Escaped: true}
	}
	diff, info, err := workspace.WorktreeDiffWith(st, rest[0], opts)
	if err != nil {
		return reviewFailed("diff", err, stderr)
	}
	fmt.Fprintf(stderr, "rostra diff: %s at %.12s %s against its base %.12s: %s\n", info.Branch, info.Commit, printable.String(info.Subject), info.Base, info.Stat)
	printForeign(stderr, "diff", info.Foreign)
	if info.Uncommitted != "" {
		fmt.Fprintf(stderr, "rostra diff: its worktree %s holds changes not committed on the branch, not shown and not merged: %s\n", printable.String(info.Worktree), printable.String(info.Uncommitted))
	}
	if _, err := stdout.Write(diff); err != nil {
		fmt.Fprintf(stderr, "rostra diff: stdout: %v\n", err)
		return 1
	}
	return 0
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("merge", mergeUsage, stderr)
	pin := c.fs.String("commit", "", "merge only if the branch's tip is this commit (the one rostra diff named)")
	hooks := c.fs.Bool("hooks", false, "run the repository's hooks as git merge does")
	rest, code, ok := c.parse(args, 1)
	if !ok {
		return code
	}
	st, code := c.reviewRun()
	if st == nil {
		return code
	}
	res, err := workspace.MergeWorktreeWith(st, rest[0], workspace.MergeOptions{Pin: *pin, Hooks: *hooks})
	if err != nil {
		return reviewFailed("merge", err, stderr)
	}
	switch {
	case res.AlreadyMerged:
		fmt.Fprintf(stdout, "%s is merged into %s already: nothing to do\n", res.Branch, res.Into)
	default:
		fmt.Fprintf(stdout, "merged %s into %s as %.12s (%s): its tip %.12s %s\n", res.Branch, res.Into, res.Commit, res.Stat, res.Merged, printable.String(res.Subject))
		printForeign(stdout, "merge", res.Foreign)
	}
	if res.Removed {
		fmt.Fprintf(stdout, "the run is over: its worktree and branch %s are removed\n", res.Branch)
	}
	if res.IgnoredKept != "" {
		fmt.Fprintf(stdout, "its worktree is kept: it holds files git ignores (%s), which removing it would delete\n", printable.String(res.IgnoredKept))
	}
	return 0
}

// printForeign lists the commits on a branch that rostra did not make.
func printForeign(w io.Writer, cmd string, foreign []string) {
	if len(foreign) == 0 {
		return
	}
	fmt.Fprintf(w, "rostra %s: %d commit(s) on the branch were not made by rostra (read them before you trust them):\n", cmd, len(foreign))
	for _, c := range foreign {
		fmt.Fprintf(w, "  %s\n", printable.String(c))
	}
}

// reviewRun reads the state files of the run --run names (they are
// written after every change, so they are as fresh as a server's answer).
func (c *controlCmd) reviewRun() (*statedir.TeamState, int) {
	r, code, ok := c.run()
	if !ok {
		return nil, code
	}
	st, err := r.readState(c.name, c.stderr)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(c.stderr, "rostra %s: %s has no %s: no run has started there\n", c.name, r.stateDir, statedir.TeamStateFile)
		return nil, 2
	case err != nil:
		fmt.Fprintf(c.stderr, "rostra %s: %v\n", c.name, err)
		return nil, 2
	}
	return st, 0
}

// reviewFailed reports a refused or failed diff or merge: 2 when there is
// nothing to review, 1 otherwise.
func reviewFailed(cmd string, err error, stderr io.Writer) int {
	// The reason may quote git, which names the worker's files.
	fmt.Fprintf(stderr, "rostra %s: %s\n", cmd, printable.String(err.Error()))
	if errors.Is(err, workspace.ErrNoWorktree) {
		return 2
	}
	return 1
}

// printWorktrees is `rostra status`'s table of the isolated workers'
// worktrees: where each is, its branch and diff-stat, and what became of
// it when the run ended.
func printWorktrees(w io.Writer, st *statedir.TeamState) {
	var rows []statedir.WorkerRow
	for _, wr := range st.Workers {
		if wr.Isolation == runfile.IsolationWorktree {
			rows = append(rows, wr)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := newTable(w)
	fmt.Fprintln(tw, "WORKTREE\tBRANCH\tDIFF\tSTATE\tPATH")
	for _, wr := range rows {
		state, path := wr.WorktreeOutcome, wr.Worktree
		switch {
		case state == "":
			state = "in use"
		case path != "" && !exists(path):
			state = "kept, since merged or removed"
		}
		if path == "" {
			path = "-"
		}
		esc := printable.String // a branch or path may hold what an agent wrote
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", esc(wr.WorkerID), esc(wr.Branch), wr.DiffStat, esc(state), esc(path))
	}
	tw.Flush()
	if kept := workspace.KeptWorktrees(st); len(kept) > 0 && st.Status != statedir.RunRunning {
		fmt.Fprintf(w, "\n%d worktree(s) kept with unmerged work: rostra diff WORKER shows it, rostra merge WORKER takes it\n", len(kept))
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
