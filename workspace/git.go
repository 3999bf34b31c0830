// git.go runs git for the worktrees of isolated workers (worktree.go) and
// for review and merge (review.go). Every call is a git process started
// here, never on the engine's loop, and every one is built here: this is
// the one place that decides what rostra's git may run (docs/isolation.md,
// "rostra's own git").
//
// A repository names programs for git to run in many places a worker can
// write: hooks in the shared .git/hooks or core.hooksPath (shared config or
// a worktree's config.worktree), filter, diff and merge drivers in the
// config chosen by .gitattributes or info/attributes, core.fsmonitor,
// core.sshCommand and remotes (a partial clone fetches missing blobs during
// a checkout), pagers, editors, askpass and credential helpers, gpg.program.
// rostra's git runs none of them:
//
//   - fixed -c options (safeGitConfig) turn off hooks, fsmonitor, signing,
//     auto gc and maintenance, submodule recursion, pagers, editors,
//     askpass and credential helpers, and an environment (gitEnv) that
//     allows no transport at all (GIT_ALLOW_PROTOCOL empty) and names
//     `false` as editor, ssh and askpass;
//   - a driver cannot be turned off by one option: git runs the driver an
//     attribute names when the config defines it, and .gitattributes can
//     name any. So right before each command, rostra reads the names the
//     config defines (`git config --get-regexp`, with the same files git
//     will read: includes, includeIf and config.worktree) and overrides
//     each one with a harmless value (DriverOverrides), through
//     GIT_CONFIG_KEY_n so that no name can be misread as key=value.
//
// rostra's own commits (an attempt's work on its branch) are made as
// `rostra <rostra@localhost>`, so they work on a machine where git knows
// no user. The environment's GIT_* variables are dropped: a rostra started
// from inside a git hook (GIT_DIR, GIT_INDEX_FILE set) must not point its
// git elsewhere. Read-only calls set GIT_OPTIONAL_LOCKS=0 so a `git status`
// does not rewrite an index under a running audit.
package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// RostraIdentity is the author and committer of rostra's own commits.
const (
	RostraName  = "rostra"
	RostraEmail = "rostra@localhost"
)

// safeGitConfig is what every git command rostra runs sets, whoever it
// runs as: nothing of the repository's that could run a program or block.
// A -c option wins over every config file, a worktree's own included.
var safeGitConfig = []string{
	"--no-pager",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "core.editor=false",
	"-c", "sequence.editor=false",
	"-c", "core.sshCommand=false",
	"-c", "core.askPass=",
	// An empty helper empties the list of credential helpers.
	"-c", "credential.helper=",
	"-c", "protocol.allow=never",
	"-c", "submodule.recurse=false",
	// Signing and checking signatures run gpg.program, which the
	// repository's config may name.
	"-c", "commit.gpgSign=false",
	"-c", "merge.verifySignatures=false",
	"-c", "gpg.program=false",
	"-c", "gpg.ssh.program=false",
	"-c", "gpg.x509.program=false",
	"-c", "diff.external=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "advice.detachedHead=false",
}

// noHooksConfig turns every hook off: git looks for /dev/null/<hook>,
// which cannot exist.
var noHooksConfig = []string{"-c", "core.hooksPath=/dev/null"}

// rostraGitConfig is what git commands rostra runs as itself add: its
// identity, and parallel checkouts.
var rostraGitConfig = []string{
	"-c", "user.name=" + RostraName,
	"-c", "user.email=" + RostraEmail,
	// Check files out with several workers: on a tree of 20,000 files a
	// checkout waits on the file system far more than on the CPU.
	"-c", "checkout.workers=8",
	"-c", "checkout.thresholdForParallelism=100",
}

// GitEnv is the environment of a git command: rostra's own without GIT_*
// variables, in the C locale (its messages end up in reasons), never
// prompting, with no transport allowed and `false` for every program git
// could ask for (an editor, ssh, askpass), plus extra.
func GitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "LC_ALL=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0",
		// Empty: no protocol is allowed, whatever protocol.<name>.allow
		// says (a partial clone's lazy fetch would run core.sshCommand).
		"GIT_ALLOW_PROTOCOL=",
		"GIT_SSH_COMMAND=false", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_EDITOR=false", "GIT_SEQUENCE_EDITOR=false", "GIT_MERGE_AUTOEDIT=no",
		"GIT_PAGER=cat")
	return append(env, extra...)
}

// driverValues is what each driver of the repository's config is
// overridden with, by section: no filter (and not required, so a file is
// taken as it is), a textconv that gives the bytes, an external diff that
// fails loudly rather than show nothing, and git's own text merge.
var driverValues = map[string][][2]string{
	"filter": {{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}},
	"diff":   {{"textconv", "cat"}, {"command", "false"}},
	"merge":  {{"driver", "git merge-file --marker-size=%L %A %O %B"}},
}

// driverFreeCommands read or write refs and objects only: they read no
// index and no work tree, so no driver can run, and the config need not
// be read first. (write-tree is not one: writing a racily clean index
// hashes the work tree's files again, through their clean filter.)
var driverFreeCommands = map[string]bool{
	"rev-parse": true, "symbolic-ref": true, "merge-base": true, "config": true,
	"for-each-ref": true, "show-ref": true, "update-ref": true,
	"commit-tree": true, "mktree": true,
}

// DriverOverrides reads the filter, diff and merge drivers the config of
// the repository at dir defines, as git run there with env would see them,
// and returns the environment that overrides each (GIT_CONFIG_COUNT and
// GIT_CONFIG_KEY_n/VALUE_n). A worker that rewrites the config between this
// read and git's own still gets its driver in (docs/isolation.md measures
// it): with sandbox: writes it cannot write the shared config at all.
func DriverOverrides(dir string, env []string) ([]string, error) {
	cmd := exec.Command("git", "--no-pager", "config", "-z", "--get-regexp", `^(filter|diff|merge)\.`)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 { // 1: none
			return nil, &GitError{args: cmd.Args[2:], dir: dir, stderr: errb.String(), err: err}
		}
	}
	seen := map[string]bool{}
	var keys, values []string
	for _, rec := range strings.Split(out.String(), "\x00") {
		key, _, _ := strings.Cut(rec, "\n")
		section, rest, ok := strings.Cut(key, ".")
		last := strings.LastIndexByte(rest, '.')
		if !ok || last < 0 {
			continue // diff.renames: no driver
		}
		name := section + "." + rest[:last]
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, kv := range driverValues[section] {
			keys, values = append(keys, name+"."+kv[0]), append(values, kv[1])
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	envs := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(keys))}
	for i := range keys {
		n := strconv.Itoa(i)
		envs = append(envs, "GIT_CONFIG_KEY_"+n+"="+keys[i], "GIT_CONFIG_VALUE_"+n+"="+values[i])
	}
	return envs, nil
}

// GitError is a git command that failed: what it was, where, and what git
// said.
type GitError struct {
	args   []string
	dir    string
	stderr string
	err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	msg = strings.ReplaceAll(msg, "\n", "; ")
	return fmt.Sprintf("git %s (in %s): %s", strings.Join(e.args, " "), e.dir, msg)
}

func (e *GitError) Unwrap() error { return e.err }

// exitCode is git's exit code, -1 when it did not run or was killed.
func (e *GitError) exitCode() int {
	var ee *exec.ExitError
	if errors.As(e.err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// GitRunner runs git in one folder with one set of options.
type GitRunner struct {
	dir    string
	config []string // -c options before the subcommand
	env    []string // beyond gitEnv's
	hooks  bool     // the repository's hooks run (rostra merge --hooks)
}

// RostraGit runs git in dir as rostra, for rostra's own commits.
func RostraGit(dir string) GitRunner { return GitRunner{dir: dir, config: rostraGitConfig} }

// ReadGit runs git in dir for reading only.
func ReadGit(dir string) GitRunner {
	return GitRunner{dir: dir, config: rostraGitConfig, env: []string{"GIT_OPTIONAL_LOCKS=0"}}
}

// with is r with more environment (GIT_INDEX_FILE for a scratch index).
func (r GitRunner) with(env ...string) GitRunner {
	r.env = append(append([]string(nil), r.env...), env...)
	return r
}

// Run runs git and returns its stdout.
func (r GitRunner) Run(args ...string) ([]byte, error) {
	opts := append([]string(nil), safeGitConfig...)
	if !r.hooks {
		opts = append(opts, noHooksConfig...)
	}
	opts = append(opts, r.config...)
	env := GitEnv(r.env...)
	if len(args) == 0 || !driverFreeCommands[args[0]] {
		overrides, err := DriverOverrides(r.dir, env)
		if err != nil {
			return nil, err
		}
		env = append(env, overrides...)
	}
	cmd := exec.Command("git", append(opts, args...)...)
	cmd.Dir = r.dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), &GitError{args: args, dir: r.dir, stderr: errb.String(), err: err}
	}
	return out.Bytes(), nil
}

// Line runs git and returns its stdout's first line.
func (r GitRunner) Line(args ...string) (string, error) {
	out, err := r.Run(args...)
	s, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(s), err
}

// Test runs a git command that answers by its exit code: 0 yes, 1 no.
func (r GitRunner) Test(args ...string) (bool, error) {
	_, err := r.Run(args...)
	var ge *GitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ge) && ge.exitCode() == 1:
		return false, nil
	}
	return false, err
}
