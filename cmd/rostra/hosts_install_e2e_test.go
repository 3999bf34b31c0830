// hosts_install_e2e_test.go: a run's host without rostra (docs/remote.md
// §Installing rostra there). Without --install its workers fail
// notStarted saying how to install it, and validate --hosts says so too;
// `rostra validate --hosts --install` and `rostra run --install` copy this
// binary to ~/.cache/rostra/<version>/rostra there, which the part's
// start then uses.
package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

const hostsInstallRunFile = `version: 1
name: spread
hosts:
  bare: { ssh: testhost, workspace: HOSTA/proj }
providers:
  shell: { command: [bash, -c, "{prompt}"] }
defaults: { stop_grace: 1s }
workers:
  - id: on-bare
    provider: shell
    host: bare
    prompt: "mkdir -p out; echo done > {result}"
    completion: { result: "out/{worker}.result" }
`

func TestHostsWithoutRostraAndInstall(t *testing.T) {
	h := newRemoteHost(t, false)
	ws := t.TempDir()
	gitRepo(t, ws)
	out, err := exec.Command("git", "clone", "-q", ws, filepath.Join(h.Home, "proj")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	runFile := filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(strings.NewReplacer("HOSTA", h.Home).Replace(hostsInstallRunFile)), 0o644))
	env := []string{"ROSTRA_SSH=" + h.SSHCommand()}
	v := runBinEnv(t, ws, env, "validate", "--hosts", runFile)
	assert.Equal(t, 2, v.code, v.stdout+v.stderr)
	// The binary's version folder (a build in a git checkout names its
	// commit; this test binary says devel).
	m := regexp.MustCompile(`hosts\.bare: host bare: no rostra there, on PATH nor in ~/\.cache/rostra/([^/ ]+)/rostra`).FindStringSubmatch(v.stderr)
	require.NotNil(t, m, "%s", v.stderr)
	versionDir := m[1]
	copied := filepath.Join(h.Home, ".cache", "rostra", versionDir, "rostra")
	assert.Contains(t, v.stderr, "or give --install to copy this binary there")

	// Without --install: its worker fails notStarted, saying how.
	r := runBinEnv(t, ws, env, "run", "--detach", runFile)
	require.Equal(t, 0, r.code, "run --detach: %s%s", r.stdout, r.stderr)
	t.Cleanup(func() { runBinEnv(t, ws, env, "stop", "--run", runFile) })
	w := runBinEnv(t, ws, env, "wait", "--run", runFile)
	assert.Equal(t, 1, w.code, "wait: %s%s", w.stdout, w.stderr)
	row := rowOf(readSpread(t, ws), "on-bare")
	assert.Equal(t, statedir.StatusError, row.Status)
	assert.Contains(t, row.Reason, "not started on host bare: host bare: no rostra there")
	assert.Contains(t, row.Reason, "give --install")
	assert.NoFileExists(t, copied)

	// run --install copies it there first, and the part runs on the copy.
	r = runBinEnv(t, ws, env, "run", "--detach", "--fresh", "--install", runFile)
	require.Equal(t, 0, r.code, "run --install: %s%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "rostra: host bare: rostra ")
	assert.Contains(t, r.stderr, "copied to ~/.cache/rostra/"+versionDir+"/rostra there")
	w = runBinEnv(t, ws, env, "wait", "--run", runFile)
	require.Equal(t, 0, w.code, "wait: %s%s", w.stdout, w.stderr)
	assert.Equal(t, statedir.StatusCompleted, rowOf(readSpread(t, ws), "on-bare").Status)
	want, err := os.ReadFile(rostraBin)
	require.NoError(t, err)
	got, err := os.ReadFile(copied)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "the copy there is this binary")
	assert.FileExists(t, filepath.Join(h.Home, "proj", ".rostra", "parts", "spread", "tree", "out", "on-bare.result"))

	// validate --hosts --install copies it to a host that has none.
	require.NoError(t, os.RemoveAll(filepath.Join(h.Home, ".cache")))
	v = runBinEnv(t, ws, env, "validate", "--hosts", "--install", runFile)
	require.Equal(t, 0, v.code, "validate --hosts --install: %s%s", v.stdout, v.stderr)
	assert.Contains(t, v.stdout, "1 host(s) reached")
	assert.FileExists(t, copied)
}
