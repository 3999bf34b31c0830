// sandbox_test.go checks an attempt's sandbox (sandbox.go) on fake
// surfaces: the folders a worker of the shared workspace may write (its
// write globs' and completion files' folders, made before it starts), its
// attempt folder and TMPDIR, its agent's state folders and sandbox_writes;
// a sandbox a surface cannot apply fails the attempt without a retry or a
// next surface, or, with sandbox_fallback: none, runs it without, DEGRADED.
package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// refusingSurface fails every Open that asks for a sandbox, as a kernel
// without Landlock does.
type refusingSurface struct {
	*fakeSurface
	why error
}

func (s refusingSurface) Open(l LaunchSpec) (Handle, error) {
	if l.Sandbox != nil {
		return nil, &SandboxFailed{Err: s.why}
	}
	return s.fakeSurface.Open(l)
}

func startRefusingHarness(t *testing.T, plan *runfile.Plan, why error) *harness {
	t.Helper()
	h := &harness{t: t, plan: plan, clock: NewFakeClock(t0),
		pane: newFakeSurface(runfile.SurfacePane), wrapper: newFakeSurface(runfile.SurfaceWrapper)}
	iso, err := workspace.PrepareIsolation(plan, nil, t0)
	require.NoError(t, err)
	h.eng = New(plan, Options{
		Surfaces: map[runfile.SurfaceKind]Surface{
			runfile.SurfacePane:    refusingSurface{h.pane, why},
			runfile.SurfaceWrapper: refusingSurface{h.wrapper, why},
		},
		Clock: h.clock, Environ: []string{}, Isolation: iso,
	})
	h.sub = h.eng.Subscribe()
	require.NoError(t, h.eng.Start())
	t.Cleanup(func() { h.shutdown() })
	return h
}

func TestSandboxOfASharedWorkerListsItsFolders(t *testing.T) {
	home, extra := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, ".claude.json"), []byte("{}"), 0o600))
	w := withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**", "src/*.go", "docs/notes.txt"},
		Command: []string{"claude", "-p", "{prompt}"}, Env: map[string]string{"HOME": home},
		Sandbox: runfile.SandboxWrites, SandboxWrites: []string{extra}})
	w.Completion.Paths = []string{"reports/{worker}.md"}
	plan := testPlan(t, w)
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	sb := fh.spec.Sandbox
	require.NotNil(t, sb)
	ws, dir := plan.Workspace, plan.AttemptDir("a", 1)
	assert.ElementsMatch(t, []string{
		dir, filepath.Join(home, ".claude"), extra,
		filepath.Join(ws, "out"), filepath.Join(ws, "out", "a"), filepath.Join(ws, "src"),
		filepath.Join(ws, "docs"), filepath.Join(ws, "reports"),
	}, sb.Writable)
	assert.Equal(t, []string{filepath.Join(home, ".claude.json")}, sb.WritableFiles)
	assert.Equal(t, filepath.Join(dir, "tmp"), sb.TempDir)
	for _, d := range sb.Writable {
		assert.DirExists(t, d, "the kernel allows only what exists")
	}
	assert.NotContains(t, sb.Writable, ws, "not the whole workspace")
	assert.Equal(t, runfile.SandboxWrites, h.dispatch("a#1").Sandbox)
	fh.finish(1)
	h.event(statedir.EventWorkerFailed)
	h.event(statedir.EventWorkerRetry)
	h.advance(plan.Workers[0].RetryBackoff)
	again := h.opened(h.pane)
	require.NotNil(t, again.spec.Sandbox, "a retry is sandboxed")
	assert.Contains(t, again.spec.Sandbox.Writable, plan.AttemptDir("a", 2))
}

func TestSandboxOfAWorkerWithoutAPolicyIsTheWorkspace(t *testing.T) {
	plan := testPlan(t, runfile.WorkerSpec{ID: "a", Sandbox: runfile.SandboxWrites})
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	require.NotNil(t, fh.spec.Sandbox)
	assert.ElementsMatch(t, []string{plan.Workspace, plan.AttemptDir("a", 1)}, fh.spec.Sandbox.Writable)

	plan = testPlan(t, runfile.WorkerSpec{ID: "b"})
	h = startHarness(t, plan)
	assert.Nil(t, h.opened(h.pane).spec.Sandbox, "sandbox: none")
	assert.Equal(t, runfile.SandboxNone, h.dispatch("b#1").Sandbox)
}

func TestGlobFolder(t *testing.T) {
	for g, want := range map[string]string{
		"out/**": "out", "out/*.json": "out", "**/*.go": ".", "a/b/c.txt": "a/b", "notes.txt": ".",
		"src/{a,b}/x": "src", "x/[ab].go": "x",
	} {
		assert.Equal(t, want, globFolder(g), g)
	}
}

func TestSandboxThatCannotBeMadeFailsTheAttemptOnce(t *testing.T) {
	plan := testPlan(t, runfile.WorkerSpec{ID: "a", Sandbox: runfile.SandboxWrites})
	h := startRefusingHarness(t, plan, errors.New("start agent: sandbox: the kernel has no Landlock"))
	ev := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, "start agent: sandbox: the kernel has no Landlock", ev.Reason)
	d := h.dispatch("a#1")
	assert.Equal(t, statedir.StatusError, d.Status)
	assert.Equal(t, statedir.FailureNotStarted, d.FailureClass)
	h.event(statedir.EventRunFinished)
	h.noneOpened(h.pane)
	h.noneOpened(h.wrapper) // never run on another surface, or unsandboxed
	assert.Equal(t, 1, h.worker("a").Attempts, "not retried")
}

func TestSandboxFallbackNoneRunsDegraded(t *testing.T) {
	plan := testPlan(t, runfile.WorkerSpec{ID: "a", Sandbox: runfile.SandboxWrites, SandboxFallback: runfile.SandboxFallbackNone})
	h := startRefusingHarness(t, plan, errors.New("start agent: sandbox: the kernel has no Landlock"))
	fh := h.opened(h.pane)
	assert.Nil(t, fh.spec.Sandbox)
	ev := h.event(statedir.EventWorkerDegraded)
	assert.Equal(t, runfile.SurfaceKind("sandbox"), ev.From)
	assert.Equal(t, runfile.SurfaceKind("none"), ev.To)
	assert.Equal(t, "start agent: sandbox: the kernel has no Landlock", ev.Reason)
	assert.Equal(t, "DEGRADED implementer: sandbox -> none (start agent: sandbox: the kernel has no Landlock)", ev.Describe("implementer", plan.StateDir))
	d := h.dispatch("a#1")
	assert.Equal(t, runfile.SurfacePane, d.Surface, "on its planned surface")
	assert.Empty(t, d.DegradedFrom)
	assert.Equal(t, runfile.SandboxNone, d.Sandbox)
	assert.Equal(t, "start agent: sandbox: the kernel has no Landlock", d.SandboxDegradedReason)
}
