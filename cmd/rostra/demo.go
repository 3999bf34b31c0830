// demo.go wires `rostra demo [--detach]`: the embedded demo roster copied
// into a fresh temp workspace, made a git repository with one commit (its
// implementer runs in a worktree), and run there as `rostra run` runs a
// roster (a server, attached to; headless without a terminal); the
// workspace's path is printed on exit so its state files and branches can
// be read afterwards.
package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rostra-dev/rostra"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

func runDemo(args []string, stdout, stderr io.Writer) int {
	const usage = "usage: rostra demo [--detach]\n"
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(stdout, usage)
		return 0 // as every command's -h
	}
	detach := len(args) == 1 && args[0] == "--detach"
	if len(args) > 0 && !detach {
		fmt.Fprint(stderr, usage)
		return 2
	}
	ws, err := copyDemo()
	if err != nil {
		fmt.Fprintf(stderr, "rostra demo: %v\n", err)
		return 1
	}
	file := filepath.Join(ws, "rostra.yaml")
	plan, err := runfile.Load(file)
	if err != nil {
		fmt.Fprintf(stderr, "rostra demo: %v\n", err)
		return 2
	}
	var code int
	switch {
	case detach || isTerminal(stdout):
		// As `rostra run`: a server, attached to unless --detach.
		code = runServed(file, runRef{ref: file, stateDir: plan.StateDir, name: plan.Name}, plan, false, detach, stdout, stderr)
	default:
		code = supervised(plan, stderr, func() int { return runHeadless(plan, false, stdout, stderr) })
	}
	fmt.Fprintf(stderr, "rostra demo: the demo workspace is %s\n", ws)
	if st, err := statedir.ReadTeamState(plan.StateDir); err == nil {
		for _, wr := range st.Workers {
			if wr.WorktreeOutcome == statedir.WorktreeKept {
				fmt.Fprintf(stderr, "rostra demo: %s's work is on branch %s: cd %s, then rostra diff %s (and rostra merge %s)\n",
					wr.WorkerID, wr.Branch, ws, wr.WorkerID, wr.WorkerID)
			}
		}
	}
	return code
}

// copyDemo writes the embedded demo into a new temp folder.
func copyDemo() (string, error) {
	ws, err := os.MkdirTemp("", "rostra-demo-")
	if err != nil {
		return "", fmt.Errorf("create the demo workspace: %w", err)
	}
	sub, err := fs.Sub(rostra.Demo, rostra.DemoRoot)
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(ws, sub); err != nil {
		return "", fmt.Errorf("copy the demo into %s: %w", ws, err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".rostra/\n"), 0o644); err != nil {
		return "", fmt.Errorf("write the demo's .gitignore: %w", err)
	}
	if err := initDemoRepo(ws); err != nil {
		return "", err
	}
	return ws, nil
}

// initDemoRepo makes the demo workspace a git repository and commits what
// it holds, as rostra (a machine may have no git identity), with no hooks
// or templates of the person's.
func initDemoRepo(ws string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("the demo needs git (its implementer works in a git worktree of the demo workspace): %w", err)
	}
	for _, args := range [][]string{
		{"init", "-q", "--template=", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "--no-verify", "-m", "rostra demo: the workspace before the run"},
	} {
		cmd := exec.Command("git", append([]string{
			"-c", "user.name=" + workspace.RostraName, "-c", "user.email=" + workspace.RostraEmail,
			"-c", "core.hooksPath=/dev/null", "-c", "commit.gpgSign=false",
		}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("make the demo workspace %s a git repository: git %s: %v: %s", ws, args[0], err, out)
		}
	}
	return nil
}
