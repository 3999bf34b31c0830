// runfile_fuzz_test.go fuzzes Load over the bytes of a run file: whatever
// the YAML, Load returns a *ValidationError with well-formed problems or a
// plan that keeps every promise of docs/runfile.md (and that expands), never a panic
// and never another kind of error. The seed corpus is testdata/runfiles plus
// the valid examples of runfile_test.go.
//
//	go test ./engine -run '^$' -fuzz FuzzLoad -fuzztime 60s
package runfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzLoad(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join(runfilesDir, "*.yaml"))
	require.NoError(f, err)
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(specExample))
	f.Add([]byte("version: 1\nname: demo\nworkers:\n  - id: only\n    command: [echo, hi]\n"))
	f.Add([]byte("version: 1\nname: a\nx-b: &b {command: [x]}\nworkers: [{<<: *b, id: a}, {<<: [*b], id: b, prompt: \"{worker}\"}]\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "rostra.yaml")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		p, err := Load(path)
		if err != nil {
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Load returned %T, not a *ValidationError: %v", err, err)
			}
			require.Nil(t, p)
			checkProblems(t, path, verr)
			return
		}
		checkPlan(t, p)
	})
}

func checkProblems(t *testing.T, path string, verr *ValidationError) {
	require.NotEmpty(t, verr.Problems)
	for i, pr := range verr.Problems {
		require.Equal(t, path, pr.File)
		require.GreaterOrEqual(t, pr.Line, 1)
		require.GreaterOrEqual(t, pr.Col, 1)
		require.NotEmpty(t, pr.Message)
		if i > 0 {
			prev := verr.Problems[i-1]
			require.True(t, prev.Line < pr.Line || prev.Line == pr.Line && prev.Col <= pr.Col, "problems out of order")
		}
	}
	require.Len(t, strings.Split(verr.Error(), "\n"), len(verr.Problems), "one line per problem")
}

// checkPlan asserts what the engine relies on in a plan Load accepted.
func checkPlan(t *testing.T, p *Plan) {
	require.Equal(t, 1, p.Version)
	require.True(t, validName(p.Name), "name %q", p.Name)
	require.True(t, filepath.IsAbs(p.RunFile) && filepath.IsAbs(p.Workspace) && filepath.IsAbs(p.StateDir))
	require.GreaterOrEqual(t, p.PanesMax, 0)
	require.GreaterOrEqual(t, p.AttentionAfter, 0*p.AttentionAfter)
	for name, pr := range p.Providers {
		require.NotEmpty(t, pr.Command, "provider %s", name)
		require.Contains(t, []string{DeliveryArgs, DeliveryType}, pr.Delivery)
	}
	require.NotEmpty(t, p.Workers)
	var ids []string
	for i := range p.Workers {
		w := &p.Workers[i]
		require.True(t, validName(w.ID), "id %q", w.ID)
		require.NotContains(t, ids, w.ID, "duplicate worker id")
		ids = append(ids, w.ID)
		require.NotEmpty(t, w.Command, "worker %s has no command", w.ID)
		require.NotEmpty(t, w.Role)
		require.NotEmpty(t, w.Provider)
		require.Contains(t, []string{DeliveryArgs, DeliveryType}, w.Delivery)
		require.Contains(t, []string{SettleOnExit, SettleOnFiles}, w.Completion.Settle)
		require.NotEmpty(t, w.Surfaces)
		for j, s := range w.Surfaces {
			require.Contains(t, []SurfaceKind{SurfacePane, SurfaceWrapper}, s)
			require.False(t, slices.Contains(w.Surfaces[:j], s), "surface listed twice")
		}
		require.GreaterOrEqual(t, w.MaxAttempts, 1)
		for _, d := range []int64{int64(w.Timeout), int64(w.IdleTimeout), int64(w.RetryBackoff), int64(w.StopGrace), int64(w.Completion.Stable)} {
			require.GreaterOrEqual(t, d, int64(0))
		}
		require.True(t, inside(w.Cwd), "cwd %q", w.Cwd)

		ap, err := p.Expand(w, 1)
		require.NoError(t, err, "a loaded plan must expand")
		for _, path := range append(append([]string{ap.Result}, ap.Aliases...), ap.Paths...) {
			require.True(t, inside(path), "completion path %q leaves the workspace", path)
		}
		for _, g := range ap.Writes {
			require.True(t, inside(g), "write glob %q leaves the workspace", g)
		}
	}
}

// inside: "" (none) or a relative path that stays under the workspace.
func inside(path string) bool {
	if path == "" {
		return true
	}
	c := filepath.Clean(path)
	return !filepath.IsAbs(c) && c != ".." && !strings.HasPrefix(c, ".."+string(filepath.Separator))
}
