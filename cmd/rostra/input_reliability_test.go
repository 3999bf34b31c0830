// input_reliability_test.go drives the real rostra binary through FAULTS.md's
// input items: a run file that is a device or a FIFO is refused at once
// without growing (`rostra validate /dev/zero` read 15 GB), state files
// that are not regular files are errors rather than hangs, and flags may
// follow the other arguments of every subcommand.
package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// runBounded runs the binary and fails the test if it takes longer than d;
// it returns the result and the peak resident memory in KiB.
func runBounded(t *testing.T, dir string, d time.Duration, args ...string) (result, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, rostraBin, args...)
	cmd.Dir = dir
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "rostra %v did not end within %s", args, d)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

func TestReliabilityRunFileThatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tc := range []struct{ path, what string }{
		{"/dev/zero", "a character device"},
		{"/dev/urandom", "a character device"},
		{fifo, "a named pipe (FIFO)"},
	} {
		for _, cmd := range [][]string{{"validate", tc.path}, {"run", "--headless", tc.path}} {
			// The child's peak RSS includes the test process's own at the
			// exec (os/exec starts children with vfork), which is large
			// under -race with tests running beside it: bound the growth
			// over a `rostra help` started the same way just before.
			_, ref := runBounded(t, dir, 10*time.Second, "help")
			r, rss := runBounded(t, dir, 10*time.Second, cmd...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, "read run file: open "+tc.path+": is "+tc.what+", not a regular file")
			assert.Less(t, rss, ref+int64(64<<10), "rostra %v grew to %d KiB (rostra help: %d KiB)", cmd, rss, ref)
		}
	}
}

func TestReliabilityStateFilesThatAreNotRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, statedir.TeamStateFile), 0o600))
	r, _ := runBounded(t, dir, 10*time.Second, "status", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "rostra status: open "+filepath.Join(dir, statedir.TeamStateFile)+": is a named pipe (FIFO), not a regular file")
	r, _ = runBounded(t, dir, 10*time.Second, "report", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "is a named pipe (FIFO), not a regular file")

	// A run whose state dir holds a FIFO events.jsonl stops at its start
	// with the reason, rather than blocking on the first event.
	ws := runWorkspace(t, "version: 1\nname: fifo\nworkers:\n  - { id: a, command: [\"true\"] }\n")
	stateDir := filepath.Join(ws, ".rostra", "fifo")
	require.NoError(t, os.MkdirAll(stateDir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(stateDir, statedir.MarkerFile), nil, 0o600))
	require.NoError(t, syscall.Mkfifo(filepath.Join(stateDir, statedir.EventsFile), 0o600))
	r, _ = runBounded(t, ws, 10*time.Second, "run", "--headless")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, filepath.Join(stateDir, statedir.EventsFile)+": is a named pipe (FIFO), not a regular file")
}

// TestFlagsMayFollowTheArguments: `rostra run x.yaml --headless`, as people
// type it, for every subcommand that takes flags.
func TestFlagsMayFollowTheArguments(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, "version: 1\nname: late\nworkers:\n  - { id: a, command: [\"true\"] }\n")
	// --resume after the file: there is nothing to resume, and it says so.
	r := runBin(t, ws, "run", "rostra.yaml", "--resume")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "nothing to resume")
	r = runBin(t, ws, "run", "rostra.yaml", "--headless")
	require.Equal(t, 0, r.code, r.stderr)
	stateDir := filepath.Join(ws, ".rostra", "late")
	r = runBin(t, ws, "status", stateDir, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"run": "late"`)
	r = runBin(t, ws, "replay", filepath.Join(stateDir, "attempts", "a", "1", "output.log"), "--size", "10x2")
	require.Equal(t, 0, r.code, r.stderr)
	r = runBin(t, ws, "validate", "rostra.yaml", "--help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "usage: rostra validate [--hosts [--install]] [RUNFILE]")
	// After "--" everything is an argument.
	r = runBin(t, ws, "validate", "--", "--headless")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "read run file: open --headless: no such file or directory")
}
