// sandbox_test.go checks the sandbox keys (sandbox.go): defaults and
// per-worker values, ~/ in sandbox_writes, the problems of bad values and of
// a sandbox_required provider's unsandboxed worker at file:line:col, and
// CheckSandbox's report when the kernel cannot sandbox.
package runfile

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSandboxKeysFromDefaultsAndWorkers(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	p, _ := loadOK(t, `
version: 1
name: sb
defaults: { sandbox: writes, sandbox_writes: ["~/.cache/tool", /opt/shared] }
workers:
  - id: boxed
    command: [echo]
  - id: open
    command: [echo]
    sandbox: none
  - id: lenient
    command: [echo]
    sandbox_writes: []
    sandbox_fallback: none
`)
	boxed, open, lenient := p.Workers[0], p.Workers[1], p.Workers[2]
	assert.Equal(t, SandboxWrites, boxed.Sandbox)
	assert.Equal(t, []string{filepath.Join(home, ".cache/tool"), "/opt/shared"}, boxed.SandboxWrites)
	assert.Equal(t, "", boxed.SandboxFallback)
	assert.Equal(t, 4, boxed.SandboxAt.Line, "where defaults set it")
	assert.Equal(t, "defaults.sandbox", boxed.SandboxAt.Path)
	assert.Equal(t, SandboxNone, open.Sandbox)
	assert.Equal(t, SandboxWrites, lenient.Sandbox)
	assert.Empty(t, lenient.SandboxWrites)
	assert.Equal(t, SandboxFallbackNone, lenient.SandboxFallback)
}

func TestSandboxBadValuesAreProblemsWhereWritten(t *testing.T) {
	ps := loadProblems(t, t.TempDir(), `
version: 1
name: sb
workers:
  - id: a
    command: [echo]
    sandbox: yes-please
    sandbox_writes: [relative/dir]
    sandbox_fallback: pane
`)
	got := make([]string, len(ps))
	for i, p := range ps {
		got[i] = p.String()[len(p.File):]
	}
	assert.Equal(t, []string{
		`:7:14: workers[0].sandbox: unknown sandbox "yes-please"; use writes (the kernel refuses writes outside the worker's folders) or none`,
		`:8:22: workers[0].sandbox_writes[0]: "relative/dir" is not an absolute path; write /path/to/folder or ~/folder`,
		`:9:23: workers[0].sandbox_fallback: unknown sandbox_fallback "pane"; use none (run without the sandbox, shown DEGRADED, when the kernel cannot sandbox) or leave the key out (such an attempt fails)`,
	}, got)
}

const yoloRunFile = `
version: 1
name: sb
providers:
  claude-yolo: { command: [claude, --dangerously-skip-permissions, "{prompt}"], sandbox_required: true }
workers:
  - id: claude-yolo
  - id: explicit
    provider: claude-yolo
    sandbox: none
  - id: boxed
    provider: claude-yolo
    sandbox: writes
`

func TestSandboxRequiredProviderRefusesUnsandboxedWorkers(t *testing.T) {
	ps := loadProblems(t, t.TempDir(), yoloRunFile)
	require.Len(t, ps, 2, "%v", messages(ps))
	assert.Equal(t, [2]int{7, 9}, [2]int{ps[0].Line, ps[0].Col}, "at the worker whose provider it is (its id)")
	assert.Equal(t, "workers[0].id", ps[0].Path)
	assert.Contains(t, ps[0].Message, "provider claude-yolo runs the agent with its permission prompts off (sandbox_required: true), so its workers need sandbox: writes")
	assert.Equal(t, [2]int{10, 14}, [2]int{ps[1].Line, ps[1].Col}, "at the sandbox: none that breaks the rule")
	assert.Equal(t, "workers[1].sandbox", ps[1].Path)

	ps = loadProblems(t, t.TempDir(), `
version: 1
name: sb
providers:
  p: { command: [x], sandbox_required: "yes" }
workers:
  - id: p
`)
	assert.Contains(t, messages(ps)[0], "providers.p.sandbox_required:")
}

func TestCheckSandboxReportsWhereTheSandboxWasAskedFor(t *testing.T) {
	p, _ := loadOK(t, `
version: 1
name: sb
defaults: { sandbox: writes }
workers:
  - id: a
    command: [echo]
  - id: b
    command: [echo]
  - id: c
    command: [echo]
    sandbox: writes
  - id: accepts
    command: [echo]
    sandbox_fallback: none
  - id: open
    command: [echo]
    sandbox: none
`)
	calls := 0
	noLandlock := func() error { calls++; return errors.New("the kernel has no Landlock") }
	err := p.CheckSandbox(noLandlock)
	var verr *ValidationError
	require.ErrorAs(t, err, &verr)
	require.Len(t, verr.Problems, 2, "once for the defaults a and b share, once for c: %v", err)
	assert.Equal(t, "defaults.sandbox", verr.Problems[0].Path)
	assert.Equal(t, 4, verr.Problems[0].Line)
	assert.Equal(t, "workers[2].sandbox", verr.Problems[1].Path)
	assert.Contains(t, verr.Problems[1].String(), ":12:14: workers[2].sandbox: sandbox: writes cannot run here: the kernel has no Landlock; ")
	assert.Equal(t, 1, calls, "the kernel is asked once")

	assert.NoError(t, p.CheckSandbox(func() error { return nil }))
	for i := range p.Workers {
		if p.Workers[i].ID != "accepts" {
			p.Workers[i].Sandbox = SandboxNone
		}
	}
	assert.NoError(t, p.CheckSandbox(noLandlock), "sandbox_fallback: none accepts running without")
}
