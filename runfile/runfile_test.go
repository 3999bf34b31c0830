// runfile_test.go checks Load (runfile.go): the defaults and overrides a
// valid run file gets, provider resolution, symlink escapes made at test
// time, and one golden error output per kind of bad run file in
// ../testdata/runfiles, kept in testdata/TestLoadGolden/<file>.golden through
// x/exp/golden (go test ./engine -run TestLoadGolden -update rewrites them).
package runfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runfilesDir holds the bad run files (their fuzz seeds too).
const runfilesDir = "../testdata/runfiles"

// writeRunFile writes a run file named rostra.yaml into dir and returns its path.
func writeRunFile(t *testing.T, dir, yaml string) string {
	t.Helper()
	path := filepath.Join(dir, "rostra.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	return path
}

// loadOK loads a run file that must be valid.
func loadOK(t *testing.T, yaml string) (*Plan, string) {
	t.Helper()
	dir := t.TempDir()
	p, err := Load(writeRunFile(t, dir, yaml))
	require.NoError(t, err)
	require.NotNil(t, p)
	return p, dir
}

// loadProblems loads a run file that must be refused and returns its problems.
func loadProblems(t *testing.T, dir, yaml string) []Problem {
	t.Helper()
	p, err := Load(writeRunFile(t, dir, yaml))
	require.Nil(t, p)
	var verr *ValidationError
	require.ErrorAs(t, err, &verr)
	require.NotEmpty(t, verr.Problems)
	return verr.Problems
}

func messages(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Path + ": " + p.Message
	}
	return out
}

func TestLoadMinimalGetsEveryDefault(t *testing.T) {
	p, dir := loadOK(t, `
version: 1
name: demo
workers:
  - id: only
    command: [echo, hi]
`)
	dir, err := filepath.Abs(dir)
	require.NoError(t, err)
	assert.Equal(t, &Plan{
		Version:        1,
		Name:           "demo",
		RunFile:        filepath.Join(dir, "rostra.yaml"),
		Workspace:      dir,
		StateDir:       filepath.Join(dir, ".rostra", "demo"),
		PanesMax:       8,
		AttentionAfter: 30 * time.Second,
		Theme:          "auto",
		Notify:         DefaultNotify(),
		Providers:      map[string]Provider{},
		Workers: []WorkerSpec{{
			ID:          "only",
			Role:        "only",
			Provider:    "only",
			Command:     []string{"echo", "hi"},
			Delivery:    DeliveryArgs,
			Completion:  Completion{Settle: SettleOnExit, Stable: 500 * time.Millisecond},
			Surfaces:    []SurfaceKind{SurfacePane, SurfaceWrapper},
			MaxAttempts: 3,
			Timeout:     30 * time.Minute,
			IdleTimeout: 0,
			// Writes nil: not audited.
			RetryBackoff: 2 * time.Second,
			StopGrace:    5 * time.Second,
			Isolation:    IsolationNone,
			Sandbox:      SandboxNone,
		}},
	}, p)
}

// specExample is a run file using most keys, with the flow lists that hold
// placeholders quoted (YAML reads an unquoted {worker} inside [ ] as a mapping).
const specExample = `version: 1
name: demo                 # [a-z0-9._-]{1,64}
workspace: .
state_dir: .rostra/demo
panes:
  max: 8
providers:
  claude: { command: ["claude", "-p", "{prompt}"], no_result_exit_code: 3 }
  claude-live: { command: ["claude"], delivery: type }
  shell:  { command: ["bash", "-c", "{prompt}"] }
defaults:
  surfaces: [pane, wrapper]
  max_attempts: 3
  timeout: 30m
  idle_timeout: 0
  retry_backoff: 2s
  stop_grace: 5s
  attention_after: 30s
workers:
  - id: claude-implementer
    role: implementer
    prompt: "Implement {worker} attempt {attempt}; write {result}"
    cwd: sub/dir
    env: { KEY: value }
    completion:
      result: out/{worker}/result.json
      aliases: ["out/{worker}/result.md"]
      paths: ["out/{worker}/notes.md"]
      settle: on-exit
      stable: 500ms
    writes: ["out/**"]
    surfaces: [pane, wrapper]
    max_attempts: 3
    timeout: 10m
    idle_timeout: 2m
`

func TestLoadSpecExample(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub", "dir"), 0o755))
	p, err := Load(writeRunFile(t, dir, specExample))
	require.NoError(t, err)
	three := 3
	assert.Equal(t, map[string]Provider{
		"claude":      {Command: []string{"claude", "-p", "{prompt}"}, NoResultExitCode: &three, Delivery: DeliveryArgs, Agent: "claude"},
		"claude-live": {Command: []string{"claude"}, Delivery: DeliveryType, Agent: "claude"},
		"shell":       {Command: []string{"bash", "-c", "{prompt}"}, Delivery: DeliveryArgs},
	}, p.Providers)
	require.Len(t, p.Workers, 1)
	w := p.Workers[0]
	assert.Equal(t, WorkerSpec{
		ID:               "claude-implementer",
		Role:             "implementer",
		Provider:         "claude",
		Prompt:           "Implement {worker} attempt {attempt}; write {result}",
		Command:          []string{"claude", "-p", "{prompt}"},
		Delivery:         DeliveryArgs,
		Agent:            "claude",
		NoResultExitCode: &three,
		Cwd:              filepath.Join("sub", "dir"),
		Env:              map[string]string{"KEY": "value"},
		Completion: Completion{
			Result:  "out/{worker}/result.json",
			Aliases: []string{"out/{worker}/result.md"},
			Paths:   []string{"out/{worker}/notes.md"},
			Settle:  SettleOnExit,
			Stable:  500 * time.Millisecond,
		},
		Writes:       []string{"out/**"},
		Surfaces:     []SurfaceKind{SurfacePane, SurfaceWrapper},
		MaxAttempts:  3,
		Timeout:      10 * time.Minute,
		IdleTimeout:  2 * time.Minute,
		RetryBackoff: 2 * time.Second,
		StopGrace:    5 * time.Second,
		Isolation:    IsolationNone,
		Sandbox:      SandboxNone,
	}, w)

	ap, err := p.Expand(&p.Workers[0], 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"claude", "-p", "Implement claude-implementer attempt 2; write out/claude-implementer/result.json"}, ap.Argv)
	assert.Equal(t, filepath.Join(p.Workspace, "sub", "dir"), ap.Dir)
}

func TestLoadProviderResolution(t *testing.T) {
	const providers = `version: 1
name: prov
providers:
  claude: { command: [claude, -p, "{prompt}"], no_result_exit_code: 3, delivery: args }
  grok: { command: [grok, "{prompt_file}"], delivery: type }
  verifier: { command: [never-the-role] }
workers:
`
	three := 3
	for _, tc := range []struct {
		name, worker string
		provider     string
		command      []string
		delivery     string
		noResult     *int
		role         string
	}{
		{"role suffix is stripped", `{id: grok-verifier, role: verifier}`,
			"grok", []string{"grok", "{prompt_file}"}, DeliveryType, nil, "verifier"},
		{"id without the suffix is the provider", `{id: claude, role: implementer}`,
			"claude", []string{"claude", "-p", "{prompt}"}, DeliveryArgs, &three, "implementer"},
		{"no role: the id", `{id: claude}`,
			"claude", []string{"claude", "-p", "{prompt}"}, DeliveryArgs, &three, "claude"},
		{"provider key wins over the id", `{id: grok-verifier, role: verifier, provider: claude}`,
			"claude", []string{"claude", "-p", "{prompt}"}, DeliveryArgs, &three, "verifier"},
		{"the role is never the provider", `{id: grok-verifier, role: grok-verifier, command: [x]}`,
			"grok-verifier", []string{"x"}, DeliveryArgs, nil, "grok-verifier"},
		{"suffix only at the end", `{id: verifier-grok, role: verifier, command: [x]}`,
			"verifier-grok", []string{"x"}, DeliveryArgs, nil, "verifier"},
		{"worker command overrides, delivery still from provider", `{id: grok-verifier, role: verifier, command: [grok, --fast]}`,
			"grok", []string{"grok", "--fast"}, DeliveryType, nil, "verifier"},
		{"unknown provider with a command", `{id: local, provider: mine, command: [make, test]}`,
			"mine", []string{"make", "test"}, DeliveryArgs, nil, "local"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := loadOK(t, providers+"  - "+tc.worker+"\n")
			w := p.Workers[0]
			assert.Equal(t, tc.provider, w.Provider)
			assert.Equal(t, tc.command, w.Command)
			assert.Equal(t, tc.delivery, w.Delivery)
			assert.Equal(t, tc.noResult, w.NoResultExitCode)
			assert.Equal(t, tc.role, w.Role)
		})
	}
}

func TestProviderName(t *testing.T) {
	for _, tc := range []struct{ id, role, want string }{
		{"grok-verifier", "verifier", "grok"},
		{"grok-verifier", "", "grok-verifier"},
		{"verifier", "verifier", "verifier"},
		{"-verifier", "verifier", "-verifier"},
		{"a-b-c", "b-c", "a"},
		{"claude", "implementer", "claude"},
	} {
		assert.Equal(t, tc.want, ProviderName(tc.id, tc.role), "%s role %s", tc.id, tc.role)
	}
}

func TestLoadOverrides(t *testing.T) {
	const head = `version: 1
name: over
defaults:
  surfaces: [wrapper]
  max_attempts: 5
  timeout: 1h
  idle_timeout: 90s
  retry_backoff: 0
  stop_grace: 250ms
  attention_after: 1m
workers:
`
	for _, tc := range []struct {
		name   string
		worker string
		check  func(t *testing.T, w WorkerSpec)
	}{
		{"defaults apply", `{id: a, command: [x]}`, func(t *testing.T, w WorkerSpec) {
			assert.Equal(t, []SurfaceKind{SurfaceWrapper}, w.Surfaces)
			assert.Equal(t, 5, w.MaxAttempts)
			assert.Equal(t, time.Hour, w.Timeout)
			assert.Equal(t, 90*time.Second, w.IdleTimeout)
			assert.Equal(t, time.Duration(0), w.RetryBackoff)
			assert.Equal(t, 250*time.Millisecond, w.StopGrace)
		}},
		{"worker fields win", `{id: a, command: [x], surfaces: [pane], max_attempts: 1, timeout: 0, idle_timeout: "0", retry_backoff: 10s, stop_grace: 1s}`,
			func(t *testing.T, w WorkerSpec) {
				assert.Equal(t, []SurfaceKind{SurfacePane}, w.Surfaces)
				assert.Equal(t, 1, w.MaxAttempts)
				assert.Equal(t, time.Duration(0), w.Timeout)
				assert.Equal(t, time.Duration(0), w.IdleTimeout)
				assert.Equal(t, 10*time.Second, w.RetryBackoff)
				assert.Equal(t, time.Second, w.StopGrace)
			}},
		{"completion settle and stable", `{id: a, command: [x], completion: {result: r.json, settle: on-files, stable: 2s}}`,
			func(t *testing.T, w WorkerSpec) {
				assert.Equal(t, Completion{Result: "r.json", Settle: SettleOnFiles, Stable: 2 * time.Second}, w.Completion)
			}},
		{"empty writes is audited and allows nothing", `{id: a, command: [x], writes: []}`,
			func(t *testing.T, w WorkerSpec) {
				assert.NotNil(t, w.Writes)
				assert.Empty(t, w.Writes)
			}},
		{"missing prompt is empty", `{id: a, command: [x], prompt: }`,
			func(t *testing.T, w WorkerSpec) { assert.Equal(t, "", w.Prompt) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := loadOK(t, head+"  - "+tc.worker+"\n")
			assert.Equal(t, time.Minute, p.AttentionAfter)
			tc.check(t, p.Workers[0])
		})
	}
}

func TestLoadPanesMaxZeroIsAllowed(t *testing.T) {
	p, _ := loadOK(t, "version: 1\nname: z\npanes: {max: 0}\nworkers: [{id: a, command: [x]}]\n")
	assert.Equal(t, 0, p.PanesMax)
}

func TestLoadUITheme(t *testing.T) {
	for _, theme := range Themes {
		p, _ := loadOK(t, "version: 1\nname: z\nui: {theme: "+theme+"}\nworkers: [{id: a, command: [x]}]\n")
		assert.Equal(t, theme, p.Theme)
	}
	p, _ := loadOK(t, "version: 1\nname: z\nui: {}\nworkers: [{id: a, command: [x]}]\n")
	assert.Equal(t, "auto", p.Theme, "an empty ui mapping keeps the default")
}

func TestLoadWorkspaceAndStateDir(t *testing.T) {
	base := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(base, "ws"), 0o755))
	abs, err := filepath.Abs(base)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, lines         string
		workspace, stateDir string
	}{
		{"relative workspace, default state dir", "workspace: ws\n",
			filepath.Join(abs, "ws"), filepath.Join(abs, "ws", ".rostra", "sd")},
		{"relative state dir is inside the workspace", "workspace: ws\nstate_dir: state/here\n",
			filepath.Join(abs, "ws"), filepath.Join(abs, "ws", "state", "here")},
		{"absolute state dir", "state_dir: " + filepath.Join(abs, "elsewhere") + "\n",
			abs, filepath.Join(abs, "elsewhere")},
		{"absolute workspace", "workspace: " + filepath.Join(abs, "ws") + "\n",
			filepath.Join(abs, "ws"), filepath.Join(abs, "ws", ".rostra", "sd")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load(writeRunFile(t, base, "version: 1\nname: sd\n"+tc.lines+"workers: [{id: a, command: [x]}]\n"))
			require.NoError(t, err)
			assert.Equal(t, tc.workspace, p.Workspace)
			assert.Equal(t, tc.stateDir, p.StateDir)
			assert.Equal(t, filepath.Join(abs, "rostra.yaml"), p.RunFile)
		})
	}
}

// TestLoadRefusesAStateDirThatHoldsOthers is FAULTS.md 26: a state dir
// is archived into previous/ by the next run, so one that is (or holds)
// the workspace, the home folder or the root is refused where it is written.
func TestLoadRefusesAStateDirThatHoldsOthers(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home", "me")
	ws := filepath.Join(home, "project")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.Symlink(ws, filepath.Join(base, "link-to-ws")))
	t.Setenv("HOME", home)
	const tail = "; rostra archives the files of a finished run inside its state dir, so it needs a folder of its own: leave state_dir out for <workspace>/.rostra/<name>, or name a new folder"
	for _, tc := range []struct{ stateDir, want string }{
		{".", ws + " is the workspace"},
		{"./", ws + " is the workspace"},
		{"..", home + " is the home folder"},
		{"../..", filepath.Join(base, "home") + " is a folder that holds the home folder (" + home + ")"},
		{"/", "/ is the root folder"},
		{home, home + " is the home folder"},
		{filepath.Join(base, "link-to-ws"), filepath.Join(base, "link-to-ws") + " is the workspace"},
		{"src/..", ws + " is the workspace"},
	} {
		t.Run(tc.stateDir, func(t *testing.T) {
			yaml := "version: 1\nname: sd\nstate_dir: \"" + tc.stateDir + "\"\nworkers: [{id: a, command: [x]}]\n"
			_, err := Load(writeRunFile(t, ws, yaml))
			var verr *ValidationError
			require.ErrorAs(t, err, &verr)
			require.Len(t, verr.Problems, 1)
			assert.Equal(t, Problem{File: filepath.Join(ws, "rostra.yaml"), Line: 3, Col: 12, Path: "state_dir",
				Message: tc.want + tail}, verr.Problems[0])
		})
	}
	for _, ok := range []string{".rostra", "state/here", filepath.Join(base, "elsewhere"), filepath.Join(home, ".rostra-states", "x")} {
		_, err := Load(writeRunFile(t, ws, "version: 1\nname: sd\nstate_dir: "+ok+"\nworkers: [{id: a, command: [x]}]\n"))
		assert.NoError(t, err, ok)
	}
}

func TestLoadAnchorsAndMergeKeys(t *testing.T) {
	p, _ := loadOK(t, `version: 1
name: anchors
x-base: &base
  command: [bash, -c, "{prompt}"]
  timeout: 5m
workers:
  - <<: *base
    id: a
  - <<: *base
    id: b
    timeout: 1m
`)
	require.Len(t, p.Workers, 2)
	assert.Equal(t, []string{"bash", "-c", "{prompt}"}, p.Workers[0].Command)
	assert.Equal(t, 5*time.Minute, p.Workers[0].Timeout)
	assert.Equal(t, []string{"bash", "-c", "{prompt}"}, p.Workers[1].Command)
	assert.Equal(t, time.Minute, p.Workers[1].Timeout, "a key the worker sets wins over the merged one")
}

func TestLoadUnsupportedWorkersExactText(t *testing.T) {
	ps := loadProblems(t, t.TempDir(), `version: 1
name: unsup
providers:
  shell: { command: [bash, -c, "{prompt}"] }
  claude: { command: [claude, -p, "{prompt}"] }
workers:
  - id: claude-implementer
    role: implementer
  - id: grok-verifier
    role: verifier
  - id: codex
  - id: own
    provider: nowhere
    command: [make]
`)
	require.Len(t, ps, 1)
	assert.Equal(t, "workers", ps[0].Path)
	assert.Equal(t, "unsupported worker(s): grok-verifier (provider grok), codex (provider codex) (run supports: claude, shell): "+
		"add the provider under providers: (grok: { command: [argv..., {prompt}] }), give the worker a command: of its own, or set its provider: to one the run has", ps[0].Message)
	assert.Equal(t, 9, ps[0].Line)
}

func TestLoadSymlinkEscape(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "out")))
	require.NoError(t, os.Symlink("../../nowhere", filepath.Join(ws, "dangling")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "real", "dir"), 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(ws, "inside")))
	require.NoError(t, os.Symlink(filepath.Join(ws, "real"), filepath.Join(ws, "absolute")))

	ps := loadProblems(t, ws, `version: 1
name: links
workers:
  - id: a
    command: [x]
    cwd: out
    completion:
      result: out/{worker}/result.json
      aliases: [dangling/r.md]
      paths: [inside/dir/ok.md, inside/notes.md]
  - id: b
    command: [x]
    cwd: inside/dir
    completion: {result: inside/r.json}
  - id: c
    command: [x]
    completion: {result: absolute/r.json}
`)
	assert.Equal(t, []string{
		"workers[0].cwd: out resolves outside the workspace through the symlink out -> " + outside + "; keep it inside the workspace",
		"workers[0].completion.result: out/a/result.json resolves outside the workspace through the symlink out -> " + outside + "; keep it inside the workspace",
		"workers[0].completion.aliases[0]: dangling/r.md resolves outside the workspace through the symlink dangling -> ../../nowhere; keep it inside the workspace",
		"workers[2].completion.result: absolute/r.json goes through the symlink absolute -> " + filepath.Join(ws, "real") +
			", and an absolute symlink target counts as outside the workspace; make the link relative or keep the path inside the workspace",
	}, messages(ps))
	assert.Equal(t, 6, ps[0].Line)
	assert.Equal(t, 10, ps[0].Col)
}

func TestLoadFileErrorsAreNotValidationErrors(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "missing.yaml"))
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var verr *ValidationError
	assert.False(t, errors.As(err, &verr))
}

func TestValidationErrorIsSortedOneLinePerProblem(t *testing.T) {
	dir := t.TempDir()
	path := writeRunFile(t, dir, `workers:
  - id: BAD
    command: [x]
    timeout: 3 hours
name: Not Valid
version: 2
`)
	_, err := Load(path)
	var verr *ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Equal(t, strings.Join([]string{
		path + ":2:9: workers[0].id: \"BAD\" is not a valid worker id; use 1-64 of a-z, 0-9, '.', '_' and '-'",
		path + ":4:14: workers[0].timeout: \"3 hours\" is not a duration; write it like 30m, 90s or 500ms",
		path + ":5:7: name: \"Not Valid\" is not a valid name; use 1-64 of a-z, 0-9, '.', '_' and '-'",
		path + ":6:10: version: unsupported version 2; this rostra reads version 1",
	}, "\n"), verr.Error())
	assert.Equal(t, Problem{File: path, Line: 6, Col: 10, Path: "version", Message: "unsupported version 2; this rostra reads version 1"}, verr.Problems[3])
}

// TestLoadGolden loads every bad run file in ../testdata/runfiles and
// compares the error with testdata/TestLoadGolden/<file>.golden. The
// absolute folder of the run files is written as <runfiles> so the goldens
// do not depend on the checkout.
func TestLoadGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(runfilesDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	absDir, err := filepath.Abs(runfilesDir)
	require.NoError(t, err)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			p, err := Load(file)
			require.Nil(t, p, "a bad run file must not give a plan")
			var verr *ValidationError
			require.ErrorAs(t, err, &verr)
			golden.RequireEqual(t, strings.ReplaceAll(verr.Error(), absDir, "<runfiles>")+"\n")
		})
	}
}

// TestLoadRefusesPathologicalInput keeps Load fast on input built to make a
// parser or an alias expansion blow up.
func TestLoadRefusesPathologicalInput(t *testing.T) {
	var merges strings.Builder
	merges.WriteString("version: 1\nname: m\nx-a0: &a0 {command: [x]}\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&merges, "x-a%d: &a%d {<<: [*a%d, *a%d, *a%d, *a%d]}\n", i, i, i-1, i-1, i-1, i-1)
	}
	merges.WriteString("workers: [{<<: *a12, id: w}]\n")
	for _, tc := range []struct{ name, yaml, want string }{
		{"deep brackets", strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
			"[ ] and { } nest 5000 deep; a run file needs a few levels, at most 1000"},
		{"too big", "version: 1\n#" + strings.Repeat("x", maxRunFileSize),
			fmt.Sprintf("the run file is %d bytes; a run file is at most %d bytes", maxRunFileSize+12, maxRunFileSize)},
		{"a mapping that merges itself", "version: 1\nname: s\nworkers:\n  - &w {id: a, command: [x], <<: *w}\n",
			"workers[0]: merge keys nest too deeply (a mapping that merges itself?); write the keys out"},
		{"exponential merges", merges.String(),
			"workers[0]: merge keys bring in more than 10000 mappings; write the keys out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := loadProblems(t, t.TempDir(), tc.yaml)
			var got []string
			for _, p := range ps {
				got = append(got, strings.TrimPrefix(p.Path+": "+p.Message, ": "))
			}
			assert.Contains(t, got, strings.TrimPrefix(tc.want, ": "))
		})
	}
}

func TestLoadProviderAgent(t *testing.T) {
	p, _ := loadOK(t, `
version: 1
name: agents
providers:
  claude: { command: ["claude", "-p", "{prompt}"] }
  wrapped: { command: ["./my-claude.sh", "{prompt}"], agent: codex }
  npx-gemini: { command: ["npx", "-y", "@google/gemini-cli@0.61.0", "-p", "{prompt}"] }
  lookalike: { command: ["claude", "{prompt}"], agent: none }
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - { id: a, provider: claude }
  - { id: b, provider: wrapped }
  - { id: c, provider: npx-gemini }
  - { id: d, provider: lookalike }
  - { id: e, provider: shell }
  - { id: f, provider: shell, command: ["qwen", "{prompt}"] }
  - { id: g, provider: claude, command: ["bash", "-c", "{prompt}"] }
`)
	want := map[string]string{"a": "claude", "b": "codex", "c": "gemini", "d": "", "e": "", "f": "qwen", "g": ""}
	for id, agent := range want {
		w, ok := p.Worker(id)
		require.True(t, ok, id)
		assert.Equal(t, agent, w.Agent, "worker %s", id)
	}
	assert.Equal(t, "codex", p.Providers["wrapped"].Agent)

	ps := loadProblems(t, t.TempDir(), `
version: 1
name: agents
providers:
  x: { command: ["x"], agent: grok }
workers:
  - { id: w, provider: x }
`)
	assert.Contains(t, strings.Join(messages(ps), "\n"), `unknown agent "grok"; use one of: claude, codex, gemini, qwen, or none`)
}
