// sandbox_e2e_test.go runs sandboxed workers (docs/runfile.md "Sandbox",
// docs/sandbox.md) through the real binary on the real kernel: bash agents
// that try to write where they must not are refused by Landlock, nothing
// outside changes (byte for byte), their allowed writes and results land;
// an isolated one still commits in its worktree but cannot touch the shared
// .git's config or hooks; a retry is sandboxed; a ruleset the kernel
// refuses fails the attempt, or runs it DEGRADED with sandbox_fallback:
// none; a kernel without Landlock is refused at validation.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes"
	"github.com/rostra-dev/rostra/statedir"
)

// needLandlock fails a test on a kernel that cannot sandbox: what it
// checks is the kernel's refusal.
func needLandlock(t *testing.T) {
	t.Helper()
	_, err := panes.LandlockABI()
	require.NoError(t, err, "these tests need a kernel with Landlock (docs/sandbox.md)")
}

// treeDigest is every file and link under root (skip: relative folders left
// out) by its content, so a change anywhere shows.
func treeDigest(t *testing.T, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, s := range skip {
			if rel == s {
				return filepath.SkipDir
			}
		}
		switch {
		case d.IsDir():
			out[rel+"/"] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		default:
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			out[rel] = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		return nil
	}))
	return out
}

func readTeamState(t *testing.T, stateDir string) statedir.TeamState {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(stateDir, statedir.TeamStateFile))
	require.NoError(t, err)
	var st statedir.TeamState
	require.NoError(t, json.Unmarshal(data, &st))
	return st
}

// sandboxWorld is a fake HOME, a folder outside the workspace and the
// workspace, each holding files a sandboxed worker must not change.
type sandboxWorld struct{ root, home, outside, ws, tmpName string }

func newSandboxWorld(t *testing.T) sandboxWorld {
	root := t.TempDir()
	w := sandboxWorld{root: root, home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside"), ws: filepath.Join(root, "ws")}
	w.tmpName = filepath.Join(os.TempDir(), "rostra-sandbox-e2e-"+filepath.Base(root))
	t.Cleanup(func() { os.Remove(w.tmpName) })
	for path, data := range map[string]string{
		filepath.Join(w.home, ".bashrc"):        "# the user's\n",
		filepath.Join(w.outside, "src", "x.go"): "package x\n",
		filepath.Join(w.ws, "readonly.txt"):     "may not be truncated\n",
		filepath.Join(w.ws, "out", "mine.txt"):  "the worker's\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	}
	return w
}

// attackScript tries every write the sandbox refuses, each reported as
// NAME=exit code, then writes what the worker may write.
func (w sandboxWorld) attackScript() string {
	return strings.Join([]string{
		`rm -rf ` + w.outside + `/src; echo "rm=$?"`,
		`echo x > ../outside-file; echo "up=$?"`,
		`echo x >> "$HOME/.bashrc"; echo "bashrc=$?"`,
		`echo x > ` + w.tmpName + `; echo "tmp=$?"`,
		`mv out/mine.txt ` + w.outside + `/moved.txt; echo "mv=$?"`,
		`truncate -s 0 readonly.txt; echo "trunc=$?"`,
		// A daemon (setsid, double fork) is under the same rules; it
		// reports through a fifo its parent reads.
		`mkfifo "$TMPDIR/said"; setsid bash -c '( (echo x > ` + w.outside + `/daemon.txt; echo "daemon=$?" > "$TMPDIR/said") & )'; cat "$TMPDIR/said"`,
		`echo scratch > "$TMPDIR/scratch" && echo "tmpdir=ok $TMPDIR"`,
		`echo "attempt $ROSTRA_ATTEMPT" > out/attempt-$ROSTRA_ATTEMPT.txt`,
		`[ "$ROSTRA_ATTEMPT" = 2 ] || exit 1`,
		`echo "attempt $ROSTRA_ATTEMPT" > out/result.txt`,
	}, "\n")
}

func TestSandboxRefusesWritesOutsideAndARetryIsSandboxed(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	w := newSandboxWorld(t)
	script, err := json.Marshal(w.attackScript())
	require.NoError(t, err)
	runFile := `version: 1
name: sb
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 2, retry_backoff: 0s, stop_grace: 1s }
workers:
  - id: boxed
    provider: shell
    sandbox: writes
    writes: ["out/**"]
    completion: { result: out/result.txt }
    prompt: ` + string(script) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(w.ws, "rostra.yaml"), []byte(runFile), 0o644))
	before := treeDigest(t, w.root, "ws/.rostra", "ws/out")

	r := runBinEnv(t, w.ws, []string{"HOME=" + w.home}, "run", "--headless", "rostra.yaml")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	assert.Equal(t, before, treeDigest(t, w.root, "ws/.rostra", "ws/out"), "nothing outside the worker's folders changed")
	assert.NoFileExists(t, w.tmpName)
	data, err := os.ReadFile(filepath.Join(w.ws, "out", "result.txt"))
	require.NoError(t, err)
	assert.Equal(t, "attempt 2\n", string(data), "its allowed write landed and completed it")
	assert.FileExists(t, filepath.Join(w.ws, "out", "mine.txt"), "not moved out")
	assert.FileExists(t, filepath.Join(w.ws, "out", "attempt-1.txt"), "the first attempt's allowed write landed too")

	stateDir := filepath.Join(w.ws, ".rostra", "sb")
	st := readTeamState(t, stateDir)
	require.Len(t, st.Dispatches, 2)
	for i, d := range st.Dispatches {
		assert.Equal(t, "writes", d.Sandbox, "attempt %d", i+1)
		log, err := os.ReadFile(d.OutputLogPath)
		require.NoError(t, err)
		t.Logf("attempt %d:\n%s", i+1, log)
		for _, name := range []string{"rm", "up", "bashrc", "tmp", "mv", "trunc", "daemon"} {
			assert.Regexp(t, `(?m)^`+name+`=[1-9]`, string(log), "attempt %d: %s is refused", i+1, name)
		}
		assert.Contains(t, string(log), "Permission denied")
		assert.Contains(t, string(log), "tmpdir=ok "+filepath.Join(filepath.Dir(d.OutputLogPath), "tmp"), "its TMPDIR is in its attempt folder")
	}
	assert.Equal(t, statedir.StatusError, st.Dispatches[0].Status)
	assert.Equal(t, statedir.StatusCompleted, st.Dispatches[1].Status)

	s := runBin(t, w.ws, "status", "rostra.yaml")
	require.Equal(t, 0, s.code, s.stderr)
	assert.Contains(t, s.stdout, "SANDBOX")
	assert.Regexp(t, `boxed#2 .* writes `, s.stdout)
}

func TestSandboxedWorktreeCommitsButCannotTouchTheSharedGit(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	ws := t.TempDir()
	gitRepo(t, ws)
	common := filepath.Join(ws, ".git")
	prompt := strings.Join([]string{
		`echo 'from the agent' >> notes.txt`,
		`git add notes.txt && git -c user.name=agent -c user.email=a@localhost commit -qm 'the agent commits'; echo "commit=$?"`,
		`echo '[core] hooksPath = /tmp' >> ` + common + `/config; echo "config=$?"`,
		`echo 'exit 0' > ` + common + `/hooks/pre-commit; echo "hook=$?"`,
		`git update-ref refs/heads/main HEAD; echo "main=$?"`,
	}, "; ")
	script, _ := json.Marshal(prompt)
	runFile := `version: 1
name: wt
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, isolation: worktree, sandbox: writes }
workers:
  - id: editor
    provider: shell
    prompt: ` + string(script) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(runFile), 0o644))
	before := treeDigest(t, common, "objects", "worktrees", "logs", "refs")
	mainBefore := gitOut(t, ws, "rev-parse", "main")

	r := runBin(t, ws, "run", "--headless", "rostra.yaml")
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	st := readTeamState(t, filepath.Join(ws, ".rostra", "wt"))
	require.Len(t, st.Dispatches, 1)
	log, err := os.ReadFile(st.Dispatches[0].OutputLogPath)
	require.NoError(t, err)
	t.Logf("the agent's output:\n%s", log)
	assert.Contains(t, string(log), "commit=0", "git commit works in the worktree")
	for _, name := range []string{"config", "hook", "main"} {
		assert.Regexp(t, `(?m)`+name+`=[1-9]`, string(log), "%s is refused", name)
	}
	assert.Equal(t, "the agent commits", gitOut(t, ws, "log", "-1", "--format=%s", "rostra/wt/editor^{/the agent commits}"))
	assert.Equal(t, mainBefore, gitOut(t, ws, "rev-parse", "main"), "another ref is not moved")
	assert.Equal(t, before, treeDigest(t, common, "objects", "worktrees", "logs", "refs"), "config, hooks, info: byte for byte")
	assert.NoFileExists(t, filepath.Join(common, "hooks", "pre-commit"))
	assert.Equal(t, "writes", st.Dispatches[0].Sandbox)
}

func TestSandboxRulesetErrorFailsTheAttemptOrRunsDegraded(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: fault
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 3, retry_backoff: 0s, stop_grace: 1s, sandbox: writes }
workers:
  - id: strict
    provider: shell
    prompt: "echo ran > strict.txt"
  - id: lenient
    provider: shell
    sandbox_fallback: none
    prompt: "echo ran > lenient.txt"
`)
	r := runBinEnv(t, ws, []string{"ROSTRA_TEST_SANDBOX_FAULT=ruleset"}, "run", "--headless", "rostra.yaml")
	assert.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.NoFileExists(t, filepath.Join(ws, "strict.txt"), "never run unsandboxed")
	assert.FileExists(t, filepath.Join(ws, "lenient.txt"))
	assert.Contains(t, r.stdout+r.stderr, "DEGRADED lenient: sandbox -> none (start bash: sandbox: create the Landlock ruleset")

	st := readTeamState(t, filepath.Join(ws, ".rostra", "fault"))
	var strict, lenient []statedir.DispatchRow
	for _, d := range st.Dispatches {
		if d.WorkerID == "strict" {
			strict = append(strict, d)
		} else {
			lenient = append(lenient, d)
		}
	}
	require.Len(t, strict, 1, "not retried: the kernel would refuse it again")
	assert.Equal(t, statedir.StatusError, strict[0].Status)
	assert.Regexp(t, `^start bash: sandbox: create the Landlock ruleset \(ABI \d+\): invalid argument$`, strict[0].Reason)
	assert.Equal(t, statedir.FailureNotStarted, strict[0].FailureClass)
	require.Len(t, lenient, 1)
	assert.Equal(t, statedir.StatusCompleted, lenient[0].Status)
	assert.Equal(t, "none", lenient[0].Sandbox)
	assert.Contains(t, lenient[0].SandboxDegradedReason, "sandbox: create the Landlock ruleset")

	s := runBin(t, ws, "status", "rostra.yaml")
	assert.Contains(t, s.stdout, "DEGRADED sandbox -> none (start bash: sandbox: create the Landlock ruleset")
}

func TestSandboxWithoutLandlockIsRefusedAtValidation(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: nolandlock
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - id: strict
    provider: shell
    sandbox: writes
  - id: lenient
    provider: shell
    sandbox: writes
    sandbox_fallback: none
`)
	env := []string{"ROSTRA_TEST_SANDBOX_FAULT=no-landlock"}
	for _, args := range [][]string{{"validate", "rostra.yaml"}, {"run", "--headless", "rostra.yaml"}} {
		r := runBinEnv(t, ws, env, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "rostra.yaml:8:14: workers[0].sandbox: sandbox: writes cannot run here: the kernel has no Landlock", args)
		assert.NotContains(t, r.stderr, "workers[1]", "sandbox_fallback: none accepts running without")
	}
	assert.NoDirExists(t, filepath.Join(ws, ".rostra"), "refused before anything ran")
}
