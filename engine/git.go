// git.go runs git for the worktrees of isolated workers (worktree.go). Every
// call is a git process started here, never on the engine's loop.
//
// rostra's own commits (an attempt's work on its branch) are made as
// `rostra <rostra@localhost>` with the user's hooks, commit signing,
// automatic gc and fsmonitor turned off for that one command (-c options,
// which also check files out with parallel workers),
// so they work on a machine where git knows no user and never run code from
// the repository. The environment's GIT_* variables are dropped: a rostra
// started from inside a git hook (GIT_DIR, GIT_INDEX_FILE set) must not
// point its git elsewhere. Read-only calls set GIT_OPTIONAL_LOCKS=0 so a
// `git status` does not rewrite an index under a running audit.
package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// RostraIdentity is the author and committer of rostra's own commits.
const (
	RostraName  = "rostra"
	RostraEmail = "rostra@localhost"
)

// rostraGitConfig is what every git command rostra runs for itself sets:
// its identity, and nothing of the repository's that could run code or
// block (hooks, signing, auto gc and maintenance, fsmonitor).
var rostraGitConfig = []string{
	"-c", "user.name=" + RostraName,
	"-c", "user.email=" + RostraEmail,
	"-c", "core.hooksPath=/dev/null",
	"-c", "commit.gpgSign=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "core.fsmonitor=false",
	"-c", "advice.detachedHead=false",
	// Check files out with several workers: on a tree of 20,000 files a
	// checkout waits on the file system far more than on the CPU.
	"-c", "checkout.workers=8",
	"-c", "checkout.thresholdForParallelism=100",
}

// gitEnv is the environment of a git command: rostra's own without GIT_*
// variables, in the C locale (its messages end up in reasons), never
// prompting, plus extra.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "LC_ALL=") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0"), extra...)
}

// gitError is a git command that failed: what it was, where, and what git
// said.
type gitError struct {
	args   []string
	dir    string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	msg = strings.ReplaceAll(msg, "\n", "; ")
	return fmt.Sprintf("git %s (in %s): %s", strings.Join(e.args, " "), e.dir, msg)
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is git's exit code, -1 when it did not run or was killed.
func (e *gitError) exitCode() int {
	var ee *exec.ExitError
	if errors.As(e.err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// gitRunner runs git in one folder with one set of options.
type gitRunner struct {
	dir    string
	config []string // -c options before the subcommand
	env    []string // beyond gitEnv's
}

// rostraGit runs git in dir as rostra, for rostra's own commits.
func rostraGit(dir string) gitRunner { return gitRunner{dir: dir, config: rostraGitConfig} }

// readGit runs git in dir for reading only.
func readGit(dir string) gitRunner {
	return gitRunner{dir: dir, config: rostraGitConfig, env: []string{"GIT_OPTIONAL_LOCKS=0"}}
}

// with is r with more environment (GIT_INDEX_FILE for a scratch index).
func (r gitRunner) with(env ...string) gitRunner {
	r.env = append(append([]string(nil), r.env...), env...)
	return r
}

// run runs git and returns its stdout.
func (r gitRunner) run(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append(append([]string(nil), r.config...), args...)...)
	cmd.Dir = r.dir
	cmd.Env = gitEnv(r.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), &gitError{args: args, dir: r.dir, stderr: errb.String(), err: err}
	}
	return out.Bytes(), nil
}

// line runs git and returns its stdout's first line.
func (r gitRunner) line(args ...string) (string, error) {
	out, err := r.run(args...)
	s, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(s), err
}

// test runs a git command that answers by its exit code: 0 yes, 1 no.
func (r gitRunner) test(args ...string) (bool, error) {
	_, err := r.run(args...)
	var ge *gitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ge) && ge.exitCode() == 1:
		return false, nil
	}
	return false, err
}
