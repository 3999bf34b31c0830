// firstrun_test.go drives the real binary through a new user's first five
// minutes: `rostra init` with agent CLIs on PATH (fake executables that
// record how they were called and write their result), the run file it
// writes run to the end, `status` and `report` without arguments, `rostra
// version`, and the shell completion scripts, which bash parses and
// completes with.
package main

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
)

// fakeAgent is a stand-in for an agent CLI: it records its arguments, one
// per line, then writes the worker's summary where the run file asks.
const fakeAgent = `#!/bin/sh
printf '%s\n' "$@" > "argv-$(basename "$0")"
mkdir -p "out/$ROSTRA_WORKER" && echo done > "out/$ROSTRA_WORKER/summary.md"
`

// agentPath is a PATH holding fake agent CLIs named names and the few
// programs the fakes and a run need, and nothing else: a real agent CLI
// installed on the machine (in /usr/bin, say) must not count.
func agentPath(t *testing.T, names ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, n := range names {
		require.NoError(t, os.WriteFile(filepath.Join(bin, n), []byte(fakeAgent), 0o755))
	}
	for _, tool := range []string{"sh", "bash", "mkdir", "basename"} {
		p, err := exec.LookPath(tool)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(p, filepath.Join(bin, tool)))
	}
	return "PATH=" + bin
}

func TestInitWritesAWorkerForEachAgentCLIOnPath(t *testing.T) {
	t.Parallel()
	ws := filepath.Join(t.TempDir(), "My Project")
	require.NoError(t, os.Mkdir(ws, 0o755))
	path := agentPath(t, "claude", "gemini")

	r := runBinEnv(t, ws, []string{path}, "init")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "wrote rostra.yaml with 2 worker(s): claude-agent, gemini-agent.")
	data, err := os.ReadFile(filepath.Join(ws, "rostra.yaml"))
	require.NoError(t, err)
	text := string(data)
	assert.Contains(t, text, "# Not found on PATH: codex, qwen")
	assert.Contains(t, text, "\nname: \"my-project\"\n")
	for _, p := range []string{"claude:", "claude-live:", "gemini:", "gemini-live:"} {
		assert.Contains(t, text, "\n  "+p+" { command: [", "provider %s", p)
	}
	assert.NotContains(t, text, "codex:")

	plan, err := runfile.Load(filepath.Join(ws, "rostra.yaml"))
	require.NoError(t, err)
	require.Len(t, plan.Workers, 2)
	assert.Equal(t, "claude", plan.Workers[0].Provider)
	assert.Equal(t, "gemini", plan.Workers[1].Provider)
	assert.Contains(t, text, `, agent: claude,`+"\n"+`    resume: ["claude", "--resume", "{session}", "-p", `)
	assert.Equal(t, []string{"gemini", "--resume", "{session}", "--skip-trust", "--approval-mode", "auto_edit"}, plan.Providers["gemini-live"].Resume,
		"its prompt typed, not --prompt-interactive (docs/agents.md §Sessions)")
	assert.Equal(t, "claude", plan.Providers["claude-live"].Agent)
	assert.Equal(t, "gemini", plan.Workers[1].Agent)
	assert.Equal(t, []string{"claude", "--permission-mode", "acceptEdits", "--", "{prompt}"}, plan.Providers["claude-live"].Command)
	assert.Equal(t, []string{"gemini", "--skip-trust", "--approval-mode", "auto_edit", "--prompt-interactive={prompt}"}, plan.Providers["gemini-live"].Command)

	// It runs as written: each CLI is called headless with the prompt as
	// one argument that no CLI reads as a flag.
	run := runBinEnv(t, ws, []string{path}, "run", "--headless")
	require.Equal(t, 0, run.code, run.stdout+run.stderr)
	prompt := "Describe the task here. When you are done, write a short summary of what you did to out/%s/summary.md."
	// rostra gives each its session id (docs/agents.md §Sessions), as its
	// row records it.
	session := map[string]string{}
	for _, d := range readState(t, filepath.Join(ws, ".rostra", "my-project")).Dispatches {
		session[d.Agent] = d.AgentSession
	}
	for cli, want := range map[string][]string{
		// rostra gives claude its hooks for the attempt (docs/agents.md).
		"claude": {"--session-id", session["claude"], "--settings", filepath.Join(ws, ".rostra", "my-project", "attempts", "claude-agent", "1", "claude-settings.json"), "-p", "--permission-mode", "acceptEdits", "--", strings.ReplaceAll(prompt, "%s", "claude-agent")},
		"gemini": {"--session-id", session["gemini"], "--skip-trust", "--approval-mode", "auto_edit", "--prompt=" + strings.ReplaceAll(prompt, "%s", "gemini-agent")},
	} {
		argv, err := os.ReadFile(filepath.Join(ws, "argv-"+cli))
		require.NoError(t, err, cli)
		assert.Equal(t, want, strings.Split(strings.TrimSuffix(string(argv), "\n"), "\n"), cli)
	}

	// status and report find the run through ./rostra.yaml.
	s := runBin(t, ws, "status")
	require.Equal(t, 0, s.code, s.stderr)
	assert.Contains(t, s.stdout, "run my-project: finished")
	s = runBin(t, ws, "status", "--json", "rostra.yaml")
	require.Equal(t, 0, s.code, s.stderr)
	assert.Contains(t, s.stdout, `"run": "my-project"`)
	rep := runBin(t, ws, "report")
	require.Equal(t, 0, rep.code, rep.stderr)
	assert.Contains(t, rep.stderr, filepath.Join(ws, ".rostra", "my-project", "reports", "report-"))

	// A second init refuses to overwrite.
	before, err := os.ReadFile(filepath.Join(ws, "rostra.yaml"))
	require.NoError(t, err)
	again := runBinEnv(t, ws, []string{path}, "init")
	assert.Equal(t, 2, again.code)
	assert.Contains(t, again.stderr, "rostra.yaml already exists; rostra init never overwrites a file")
	after, err := os.ReadFile(filepath.Join(ws, "rostra.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

func TestInitWithoutAgentCLIsWritesAShellWorker(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	r := runBinEnv(t, ws, []string{"PATH=" + t.TempDir()}, "init", "other.yaml")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "none of claude, codex, gemini, qwen is on PATH")
	plan, err := runfile.Load(filepath.Join(ws, "other.yaml"))
	require.NoError(t, err)
	require.Len(t, plan.Workers, 1)
	assert.Equal(t, "shell", plan.Workers[0].Provider)
}

func TestStatusWithoutARunFileSaysWhatToPass(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, cmd := range []string{"status", "report"} {
		r := runBin(t, ws, cmd)
		assert.Equal(t, 2, r.code, cmd)
		assert.Contains(t, r.stderr, "no rostra.yaml here: name the run file or its state dir (--run PATH)", cmd)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	v := runBin(t, t.TempDir(), "version")
	require.Equal(t, 0, v.code, v.stderr)
	dash := runBin(t, t.TempDir(), "--version")
	require.Equal(t, 0, dash.code, dash.stderr)
	assert.Equal(t, v.stdout, dash.stdout)
	assert.Regexp(t, `^rostra \S+ \(github.com/rostra-dev/rostra, .*go1\.\d+.*, `+runtime.GOOS+`/`+runtime.GOARCH+`\)\n$`, v.stdout)
	// The binary is built with -buildvcs=auto (TestMain): from a git
	// checkout it names the commit it was built from; elsewhere (a
	// tarball, a git worktree, which go build does not stamp) it does not.
	bi, err := buildinfo.ReadFile(rostraBin)
	require.NoError(t, err)
	rev := ""
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			rev = s.Value
		}
	}
	if rev == "" {
		t.Logf("the test binary has no VCS stamp: %s", v.stdout)
		assert.NotContains(t, v.stdout, "commit ")
		return
	}
	assert.Contains(t, v.stdout, "commit "+rev)
}

func TestVersionLineSaysWhatTheBuildKnows(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rostra-dev/rostra", Version: "(devel)"}}
	assert.Equal(t, "rostra devel (github.com/rostra-dev/rostra, go1.26.8, "+runtime.GOOS+"/"+runtime.GOARCH+")", versionLine("devel", bi))
	bi.Settings = []debug.BuildSetting{
		{Key: "vcs.revision", Value: "bf02cc967278eb037388120281390877376bddf4"},
		{Key: "vcs.time", Value: "2026-11-30T14:06:19Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	assert.Equal(t, "rostra bf02cc967278+dirty (github.com/rostra-dev/rostra, commit bf02cc967278eb037388120281390877376bddf4 of 2026-11-30T14:06:19Z, modified, go1.26.8, "+
		runtime.GOOS+"/"+runtime.GOARCH+")", versionLine("bf02cc967278+dirty", bi))
}

// bashComplete sources the bash completion script and completes line
// (the words typed so far, the last one being completed) in dir.
func bashComplete(t *testing.T, script, dir string, line ...string) []string {
	t.Helper()
	var words strings.Builder
	for _, w := range line {
		words.WriteString(" '" + w + "'")
	}
	prog := script + "\nCOMP_WORDS=(" + words.String() + ")\nCOMP_CWORD=" + strconv.Itoa(len(line)-1) +
		"\n_rostra\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	return got
}

func TestBashCompletionParsesAndCompletes(t *testing.T) {
	t.Parallel()
	r := runBin(t, t.TempDir(), "completion", "bash")
	require.Equal(t, 0, r.code, r.stderr)
	script := r.stdout
	out, err := exec.Command("bash", "-n", "-c", script).CombinedOutput()
	require.NoError(t, err, "bash -n: %s", out)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "team.yaml"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "state"), 0o755))

	all := bashComplete(t, script, dir, "rostra", "")
	for _, c := range commands {
		if c.group != groupHidden {
			assert.Contains(t, all, c.name)
		}
	}
	assert.ElementsMatch(t, []string{"replay", "report", "retry", "run"}, bashComplete(t, script, dir, "rostra", "r"))
	assert.NotContains(t, all, serverMode, "rostra's own server command is not offered")
	assert.ElementsMatch(t, []string{"--json", "--run"}, bashComplete(t, script, dir, "rostra", "status", "--"))
	assert.ElementsMatch(t, []string{"state", "team.yaml"}, bashComplete(t, script, dir, "rostra", "stop", "--run", ""), "--run takes a run file or a state dir")
	assert.Equal(t, []string{"--headless"}, bashComplete(t, script, dir, "rostra", "run", "--h"))
	assert.ElementsMatch(t, []string{"state", "team.yaml"}, bashComplete(t, script, dir, "rostra", "run", ""), "a run file or a folder to look in")
	assert.ElementsMatch(t, []string{"state", "team.yaml"}, bashComplete(t, script, dir, "rostra", "status", ""))
	assert.ElementsMatch(t, []string{"notes.txt", "state", "team.yaml"}, bashComplete(t, script, dir, "rostra", "replay", ""))
	assert.Empty(t, bashComplete(t, script, dir, "rostra", "replay", "--size", ""), "a size is typed, not completed")
	assert.Equal(t, []string{"bash", "zsh", "fish"}, bashComplete(t, script, dir, "rostra", "completion", ""))
}

// Each command's own usage line is the synopsis the command table (and so
// the completion) holds: a flag added to a command and its usage but not
// to the table fails here.
func TestCommandTableMatchesEachUsage(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		if c.name == "help" || c.group == groupHidden {
			continue
		}
		r := runBin(t, t.TempDir(), c.name, "--help")
		first, _, _ := strings.Cut(r.stdout+r.stderr, "\n")
		want := strings.TrimSpace("usage: rostra " + c.name + " " + c.synopsis)
		assert.Equal(t, want, first, "rostra %s --help", c.name)
		assert.Equal(t, 0, r.code, "rostra %s --help is not an error", c.name)
	}
}

func TestZshAndFishCompletionsParse(t *testing.T) {
	t.Parallel()
	for shell, check := range map[string][]string{"zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}} {
		r := runBin(t, t.TempDir(), "completion", shell)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "rostra")
		if _, err := exec.LookPath(check[0]); err != nil {
			t.Logf("%s is not installed: its script is not parsed here (bash's is, always)", shell)
			continue
		}
		f := filepath.Join(t.TempDir(), "rostra."+shell)
		require.NoError(t, os.WriteFile(f, []byte(r.stdout), 0o644))
		out, err := exec.Command(check[0], append(check[1:], f)...).CombinedOutput()
		assert.NoError(t, err, "%s: %s", shell, out)
	}
	assert.Equal(t, 2, runBin(t, t.TempDir(), "completion", "tcsh").code)
}
