// firsthour_test.go drives the real binary where a new user trips in the
// first hour: each command that cannot act names the one that will (no
// run file, an unsupported provider, a finished run to retry, a stopped
// run to start over), validate and init as README's quick start uses them,
// and a run found when its run file no longer loads.
package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateDefaultsToRostraYAML(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, "version: 1\nname: dflt\nworkers:\n  - { id: one, command: [\"true\"] }\n")
	r := runBin(t, ws, "validate")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "rostra.yaml: valid: run dflt, 1 worker(s)")

	empty := runBin(t, t.TempDir(), "validate")
	assert.Equal(t, 2, empty.code)
	assert.Contains(t, empty.stderr, "no rostra.yaml here: name the run file (rostra validate RUNFILE), or write one with rostra init")
}

func TestRunWithoutARunFileSuggestsInit(t *testing.T) {
	t.Parallel()
	r := runBin(t, t.TempDir(), "run", "--headless")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "rostra run: no rostra.yaml here: rostra init writes one for the agent CLIs on PATH, or name your run file (rostra run RUNFILE)\n", r.stderr)
}

func TestUnsupportedProviderSaysWhereToAddIt(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte("version: 1\nname: x\nworkers:\n  - id: aider-coder\n    role: coder\n"), 0o644))
	r := runBin(t, ws, "validate")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "unsupported worker(s): aider-coder (provider aider) (run supports: none): add the provider under providers: (aider: { command: [argv..., {prompt}] })")
}
