// sandbox.go builds an attempt's sandbox (docs/runfile.md "Sandbox",
// docs/sandbox.md): the folders and files a worker with sandbox: writes may
// write, made ready when its attempt is opened (its folder and worktree
// exist by then), and handed to the surface on LaunchSpec.Sandbox.
//
// Data model: sandboxPlan is what the loop knows when an attempt starts
// (the mode, the fallback, the extra folders, the agent); openJob.Run turns
// it into a SandboxSpec of absolute paths that exist, making the missing
// folders a worker is allowed to write in (its completion files' folders,
// its write globs' folders, its agent's state folders), since the kernel
// can only allow what exists.
package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/workspace"
)

// SandboxSpec is what an attempt's processes may write (panes.Sandbox):
// everything else the kernel refuses.
type SandboxSpec struct {
	Writable      []string // folders, each with everything beneath it
	WritableFiles []string // single files, written in place
	TempDir       string   // the attempt's TMPDIR, made by the surface
}

// SandboxFailed is a surface's Open error when the sandbox could not be
// made or applied: the attempt then fails with it, or runs without the
// sandbox when its worker has sandbox_fallback: none.
type SandboxFailed struct{ Err error }

func (e *SandboxFailed) Error() string { return e.Err.Error() }
func (e *SandboxFailed) Unwrap() error { return e.Err }

// SandboxDegradedFrom is the From of the worker-degraded event of an
// attempt run without its sandbox ("DEGRADED <role>: sandbox -> none").
const SandboxDegradedFrom = "sandbox"

// sandboxPlan is one attempt's sandbox as the loop decides it.
type sandboxPlan struct {
	fallback bool     // sandbox_fallback: none
	extra    []string // sandbox_writes
	home     string   // the attempt's $HOME
	argv     []string // its command, for the agent's state folders
	env      []string // its environment (CODEX_HOME, CLAUDE_CONFIG_DIR)
}

// newSandboxPlan is the sandbox of an attempt of spec with launch l; nil
// for a worker with sandbox: none.
func newSandboxPlan(spec *runfile.WorkerSpec, l LaunchSpec) *sandboxPlan {
	if spec.Sandbox != runfile.SandboxWrites {
		return nil
	}
	return &sandboxPlan{
		fallback: spec.SandboxFallback == runfile.SandboxFallbackNone,
		extra:    spec.SandboxWrites,
		home:     envValue(l.Env, "HOME"),
		argv:     l.Argv,
		env:      l.Env,
	}
}

// envValue is key's value in env (the last one set wins, as for exec).
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// sandboxSpec is the attempt's sandbox with every folder it names made.
func (j openJob) sandboxSpec() (*SandboxSpec, error) {
	sp := j.sandbox
	ap := &j.attempt
	dir := filepath.Dir(ap.StatusFile) // the attempt's own folder
	out := &SandboxSpec{Writable: []string{dir}, TempDir: filepath.Join(dir, "tmp")}
	mkdir := func(what, d string) error {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("sandbox: make %s: %w", what, err)
		}
		out.Writable = append(out.Writable, d)
		return nil
	}
	if j.iso != nil {
		git, err := worktreeGitFolders(j.iso.wt)
		if err != nil {
			return nil, fmt.Errorf("sandbox: the worktree's git folders: %w", err)
		}
		out.Writable = append(out.Writable, j.iso.wt.Path)
		for _, d := range git {
			if err := mkdir("the folder of the worktree's branch", d); err != nil {
				return nil, err
			}
		}
	} else {
		for _, d := range sharedWritable(ap) {
			if err := mkdir("a folder the worker may write", filepath.Join(ap.Workspace, d)); err != nil {
				return nil, err
			}
		}
	}
	dirs, files := agentStateFolders(sp.argv, sp.home, sp.env)
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: make the agent's state folder: %w", err)
		}
		out.Writable = append(out.Writable, d)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			out.WritableFiles = append(out.WritableFiles, f)
		}
	}
	out.Writable = append(out.Writable, sp.extra...)
	slices.Sort(out.Writable)
	out.Writable = slices.Compact(out.Writable)
	return out, nil
}

// sharedWritable are the folders, relative to the workspace, that a worker
// of the shared workspace may write: its write globs' folders (the whole
// workspace without a write policy) and its completion files' folders.
func sharedWritable(ap *runfile.AttemptPlan) []string {
	var dirs []string
	if ap.Writes == nil {
		dirs = append(dirs, ".")
	}
	for _, g := range ap.Writes {
		dirs = append(dirs, globFolder(g))
	}
	for _, p := range append(append([]string{ap.Result}, ap.Aliases...), ap.Paths...) {
		if p != "" {
			dirs = append(dirs, filepath.Dir(filepath.Clean(p)))
		}
	}
	return dirs
}

// globFolder is the folder a write glob allows: the path before its first
// element with a wildcard (out/** and out/*.json: out), or, for a glob
// without one (a file's name), the folder the file is in, since programs
// save a file by renaming a new one over it.
func globFolder(g string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(g)), "/")
	for i, p := range parts {
		if strings.ContainsAny(p, "*?[{\\") {
			return filepath.Join(append([]string{"."}, parts[:i]...)...)
		}
	}
	return filepath.Dir(filepath.Clean(g))
}

// worktreeGitFolders are the folders of the shared repository a worktree's
// own commits write (docs/isolation.md): its admin folder
// (.git/worktrees/<name>: HEAD, index), the object store, and the folders
// of its branch's ref and reflog. Not config, hooks, info or the other refs'
// folders.
func worktreeGitFolders(wt workspace.Worktree) ([]string, error) {
	out, err := workspace.ReadGit(wt.Path).Run("rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("git rev-parse --absolute-git-dir --git-common-dir in %s said %q", wt.Path, out)
	}
	own, common := lines[0], lines[1]
	if !filepath.IsAbs(common) {
		common = filepath.Join(wt.Path, common)
	}
	refDir := filepath.Dir(filepath.Join("refs", "heads", wt.Branch))
	return []string{
		own,
		filepath.Join(common, "objects"),
		filepath.Join(common, refDir),
		filepath.Join(common, "logs", refDir),
	}, nil
}

// agentStateFolders are the folders and files the agent that argv starts
// writes for itself (docs/agents.md, "What a sandboxed attempt of each may
// write"), and npm's cache when a package runner starts it; none for a
// command that is no known agent.
func agentStateFolders(argv []string, home string, env []string) (dirs, files []string) {
	a, ok := agents.Detect(argv)
	if !ok || home == "" {
		return nil, nil
	}
	inHome := func(p string) string { return filepath.Join(home, p) }
	switch a {
	case agents.Claude:
		if d := envValue(env, "CLAUDE_CONFIG_DIR"); d != "" {
			dirs = append(dirs, d)
		} else {
			dirs, files = append(dirs, inHome(".claude")), append(files, inHome(".claude.json"))
		}
	case agents.Codex:
		if d := envValue(env, "CODEX_HOME"); d != "" {
			dirs = append(dirs, d)
		} else {
			dirs = append(dirs, inHome(".codex"))
		}
	case agents.Gemini:
		dirs = append(dirs, inHome(".gemini"))
	case agents.Qwen:
		dirs = append(dirs, inHome(".qwen"))
	}
	if len(argv) > 0 {
		switch filepath.Base(argv[0]) {
		case "npx", "npm", "pnpm", "yarn", "bunx":
			dirs = append(dirs, inHome(".npm"))
		}
	}
	return dirs, files
}
