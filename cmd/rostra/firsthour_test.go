// firsthour_test.go drives the real binary where a new user trips in the
// first hour: each command that cannot act names the one that will (no
// run file, an unsupported provider, a finished run to retry, a stopped
// run to start over), validate and init as README's quick start uses them,
// and a run found when its run file no longer loads.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
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

// A run file edited into something that does not load mid-run, or whose
// worker's cwd: is gone, does not hide its run: the control commands find
// it and say how.
func TestControlCommandsFindTheRunOfARunFileThatNoLongerLoads(t *testing.T) {
	ws := runWorkspace(t, `version: 1
name: served
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - { id: sleeper, provider: shell, prompt: "echo sleeping; exec sleep 300" }
  - { id: inside, provider: shell, cwd: sub, prompt: "exec sleep 300" }
`)
	require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	detachedRun(t, ws)
	stateDir := filepath.Join(ws, ".rostra", "served")
	runFile := filepath.Join(ws, "rostra.yaml")

	// The worker's cwd: removed under it: the file is valid YAML, its
	// name names the state dir.
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "sub")))
	require.Equal(t, 2, runBin(t, ws, "validate").code, "the run file no longer loads")
	for _, cmd := range [][]string{{"status"}, {"retry", "sleeper"}} {
		r := runBin(t, ws, cmd...)
		assert.Equal(t, 0, r.code, "%v: %s", cmd, r.stderr)
		assert.Contains(t, r.stderr, "note: rostra.yaml does not load (rostra validate rostra.yaml lists why); using the state dir "+
			stateDir+", from its name read as text", "%v", cmd)
	}

	// Not YAML at all: the top-level lines are read as text.
	require.NoError(t, os.WriteFile(runFile, []byte("version: 1\nname: \"served\"   # the run\nworkers: [\n  - {id: oops\n"), 0o644))
	r := runBin(t, ws, "status")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "using the state dir "+stateDir+", from its name read as text")
	assert.Contains(t, r.stdout, "sleeper")

	// Renamed and broken: the run the live server serves from this file.
	require.NoError(t, os.WriteFile(runFile, []byte("version: 1\nname: renamed\nbogus: 1\n"), 0o644))
	r = runBin(t, ws, "logs", "sleeper")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "using the run rostra ls lists for it: "+stateDir+" (server pid ")
	r = runBin(t, ws, "stop")
	assert.Equal(t, 130, r.code, r.stderr)
	assert.Contains(t, r.stderr, "using the run rostra ls lists for it: "+stateDir)

	// No server left: the run whose state names this file.
	r = runBin(t, ws, "status")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "using the run whose state names it: "+stateDir)
	assert.Contains(t, r.stdout, "run served: interrupted")
}

const endsRunFile = `version: 1
name: ends
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - { id: fine, provider: shell, prompt: "true" }
  - { id: flaky, provider: shell, prompt: "exit 3" }
`

// rostra wait returns once the server has exited, with the run's code, so
// that the next command finds the run free; on an ended run it exits with
// the code recorded; a retry there names the command that retries.
func TestWaitAndRetryOnAnEndedRun(t *testing.T) {
	ws := runWorkspace(t, endsRunFile)
	detachedRun(t, ws)
	w := runBin(t, ws, "wait")
	assert.Equal(t, 1, w.code, w.stderr)
	// At once: the server that served the run has exited.
	detachedRun(t, ws, "--resume")
	w = runBin(t, ws, "wait")
	assert.Equal(t, 1, w.code, w.stderr)

	// No server now: the run's recorded code.
	w = runBin(t, ws, "wait")
	assert.Equal(t, 1, w.code, w.stderr)
	assert.Contains(t, w.stdout, "the run ends finished (no server runs for it); exit code 1, as recorded in "+filepath.Join(ws, ".rostra", "ends", "team-state.json"))

	r := runBin(t, ws, "retry", "flaky")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "run ends finished, and flaky did not complete in it (error): rostra run --resume retries it (a new attempt of each worker that did not complete)")
	r = runBin(t, ws, "retry", "fine")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "and fine completed in it: rostra run --resume gives only the workers that did not complete a new attempt; rostra run --fresh starts the whole run over")
}

// A new run over a stopped one names --resume and --fresh; --fresh
// archives the stopped run to previous/ and starts over.
func TestRunFreshArchivesAStoppedRunAndStartsOver(t *testing.T) {
	ws := runWorkspace(t, `version: 1
name: over
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - { id: waits, provider: shell, prompt: "test -f go || exec sleep 300" }
`)
	detachedRun(t, ws)
	require.Equal(t, 130, runBin(t, ws, "stop").code)
	stateDir := filepath.Join(ws, ".rostra", "over")

	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "continue it with `rostra run --resume "+filepath.Join(ws, "rostra.yaml")+
		"`, or start over with `rostra run --fresh "+filepath.Join(ws, "rostra.yaml")+"` (the run is archived to previous/)")
	assert.Equal(t, 2, runBin(t, ws, "run", "--fresh", "--resume").code)

	require.NoError(t, os.WriteFile(filepath.Join(ws, "go"), nil, 0o644))
	r = runBin(t, ws, "run", "--headless", "--fresh")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "rostra: the run in "+stateDir+" was archived to "+filepath.Join(stateDir, "previous"))
	st := readState(t, stateDir)
	assert.Equal(t, statedir.RunFinished, st.Status)
	require.Len(t, st.Dispatches, 1, "a new run: the stopped attempt is not in it")
	olds, err := filepath.Glob(filepath.Join(stateDir, "previous", "*", statedir.TeamStateFile))
	require.NoError(t, err)
	require.Len(t, olds, 1)
	old, err := statedir.ReadTeamState(filepath.Dir(olds[0]))
	require.NoError(t, err)
	assert.Equal(t, statedir.RunInterrupted, old.Status)
}

// isSubsequence reports whether every line of old stands in new, in order.
func isSubsequence(old, new string) bool {
	nl := strings.Split(new, "\n")
	j := 0
	for _, l := range strings.Split(old, "\n") {
		for j < len(nl) && nl[j] != l {
			j++
		}
		if j == len(nl) {
			return false
		}
		j++
	}
	return true
}

func TestInitAddAddsTheAgentCLIsTheFileLacksAndKeepsItsText(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	file := filepath.Join(ws, "rostra.yaml")
	r := runBinEnv(t, ws, []string{agentPath(t, "claude")}, "init")
	require.Equal(t, 0, r.code, r.stderr)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), "# Not found on PATH: codex, gemini, qwen (once installed, `rostra init --add` adds them).")
	// The person's own edits and comments.
	edited := strings.Replace(string(data), "Describe the task here.", "Fix the parser.", 1) + "  # my own note, kept\n"
	require.NoError(t, os.WriteFile(file, []byte(edited), 0o644))

	// init again refuses, naming --add.
	again := runBinEnv(t, ws, []string{agentPath(t, "claude", "gemini")}, "init")
	assert.Equal(t, 2, again.code)
	assert.Contains(t, again.stderr, "rostra init --add adds the agent CLIs on PATH it lacks")

	add := runBinEnv(t, ws, []string{agentPath(t, "claude", "gemini")}, "init", "--add")
	require.Equal(t, 0, add.code, add.stderr)
	assert.Equal(t, "added to rostra.yaml: the providers of gemini and the worker(s) gemini-agent.\nWrite their task in the prompts, then: rostra run rostra.yaml\n", add.stdout)
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.True(t, isSubsequence(edited, string(after)), "every line of the file stays, in order:\n%s", after)
	assert.Contains(t, string(after), "  # Added by `rostra init --add`:\n")
	plan, err := runfile.Load(file)
	require.NoError(t, err)
	require.Len(t, plan.Workers, 2)
	assert.Equal(t, "claude-agent", plan.Workers[0].ID)
	assert.Equal(t, "gemini-agent", plan.Workers[1].ID)
	assert.Contains(t, plan.Workers[0].Prompt, "Fix the parser.")
	assert.Contains(t, plan.Providers, "gemini-live")

	// Nothing left to add.
	none := runBinEnv(t, ws, []string{agentPath(t, "claude", "gemini")}, "init", "--add")
	require.Equal(t, 0, none.code, none.stderr)
	assert.Contains(t, none.stdout, "already has a provider for each agent CLI on PATH (claude, gemini); nothing to add")
	same, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(after), string(same))
}

// A file init wrote before it knew the sandbox has claude's providers but
// not claude-yolo: --add adds that one provider, and no worker.
func TestInitAddAddsTheYoloProviderAnOlderFileLacks(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	file := filepath.Join(ws, "rostra.yaml")
	r := runBinEnv(t, ws, []string{agentPath(t, "claude")}, "init")
	require.Equal(t, 0, r.code, r.stderr)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	// The provider is two lines: "claude-yolo: { command: …," and "resume: … }".
	old := regexp.MustCompile(`(?m)^ *claude-yolo: \{.*\n.*\}\n`).ReplaceAllString(string(data), "")
	old = strings.Replace(old, "    # provider: claude-yolo\n", "", 1)
	require.NotEqual(t, string(data), old, "the file without its yolo provider")
	require.NoError(t, os.WriteFile(file, []byte(old), 0o644))
	plan, err := runfile.Load(file)
	require.NoError(t, err, "%s", old)
	require.NotContains(t, plan.Providers, "claude-yolo")

	add := runBinEnv(t, ws, []string{agentPath(t, "claude")}, "init", "--add")
	require.Equal(t, 0, add.code, add.stderr)
	assert.Equal(t, "added to rostra.yaml: the providers of claude-yolo, then: rostra run rostra.yaml\n", add.stdout)
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.True(t, isSubsequence(old, string(after)), "every line of the file stays, in order:\n%s", after)
	plan, err = runfile.Load(file)
	require.NoError(t, err, "%s", after)
	require.Contains(t, plan.Providers, "claude-yolo")
	assert.True(t, plan.Providers["claude-yolo"].SandboxRequired)
	require.Len(t, plan.Workers, 1, "no second worker")

	none := runBinEnv(t, ws, []string{agentPath(t, "claude")}, "init", "--add")
	require.Equal(t, 0, none.code, none.stderr)
	assert.Contains(t, none.stdout, "nothing to add")
}

// A file written by hand: workers at the left margin, no providers: key.
func TestInitAddToAHandWrittenFile(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	file := filepath.Join(ws, "team.yaml")
	hand := "version: 1\nname: hand\nworkers:\n- id: mine   # keep me\n  command: [\"true\"]\n# the end"
	require.NoError(t, os.WriteFile(file, []byte(hand), 0o600))
	add := runBinEnv(t, ws, []string{agentPath(t, "codex")}, "init", "--add", "team.yaml")
	require.Equal(t, 0, add.code, add.stderr)
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.True(t, isSubsequence(hand, string(after)), "%s", after)
	plan, err := runfile.Load(file)
	require.NoError(t, err, "%s", after)
	require.Len(t, plan.Workers, 2)
	assert.Equal(t, "codex-agent", plan.Workers[1].ID)
	fi, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "its mode stays")

	flow := filepath.Join(ws, "flow.yaml")
	require.NoError(t, os.WriteFile(flow, []byte("version: 1\nname: flow\nproviders: {}\nworkers: [{id: a, command: [\"true\"]}]\n"), 0o644))
	r := runBinEnv(t, ws, []string{agentPath(t, "codex")}, "init", "--add", "flow.yaml")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "its providers: is written on one line ({}); write it as a block")
}

// The report of an ended run knows that a kept worktree has been merged
// since: rostra merge removes its branch, and the state files are not
// written again.
func TestReportAfterMergeSaysMerged(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: iso
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - id: maker
    provider: shell
    isolation: worktree
    prompt: "echo made > made.txt && mkdir -p out && echo ok > {result}"
    completion: { result: "out/{worker}.txt" }
`)
	gitRepo(t, ws)
	r := runBin(t, ws, "run", "--headless")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	stateDir := filepath.Join(ws, ".rostra", "iso")
	report := func() string {
		t.Helper()
		rep := runBin(t, ws, "report")
		require.Equal(t, 0, rep.code, rep.stderr)
		paths, err := filepath.Glob(filepath.Join(stateDir, "reports", "report-*.md"))
		require.NoError(t, err)
		require.NotEmpty(t, paths)
		slices.Sort(paths)
		md, err := os.ReadFile(paths[len(paths)-1])
		require.NoError(t, err)
		require.NoError(t, os.RemoveAll(filepath.Join(stateDir, "reports")))
		return rep.stdout + string(md)
	}
	before := report()
	assert.Contains(t, before, "1 kept with work not merged")
	assert.Contains(t, before, `"worktreesKept": 1`)

	m := runBin(t, ws, "merge", "maker")
	require.Equal(t, 0, m.code, m.stderr)
	after := report()
	assert.NotContains(t, after, "not merged")
	assert.Contains(t, after, "| kept, merged since |")
	assert.Contains(t, after, "1 kept at the run's end and merged into the workspace since (`rostra merge`).")
	assert.Contains(t, after, `"worktreesKept": 0`)
}

// rostra logs <Tab> completes the run's worker ids: from its run file
// before it ran, from its state after, and of the run --run names.
func TestBashCompletionCompletesWorkerIDs(t *testing.T) {
	t.Parallel()
	ws := runWorkspace(t, `version: 1
name: names
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - { id: alpha, provider: shell, prompt: "true" }
  - { id: beta, provider: shell, prompt: "true" }
`)
	script := runBin(t, ws, "completion", "bash").stdout
	complete := func(dir string, line ...string) []string {
		t.Helper()
		var words strings.Builder
		for _, w := range line {
			words.WriteString(" '" + w + "'")
		}
		prog := script + "\nCOMP_WORDS=(" + words.String() + ")\nCOMP_CWORD=" + strconv.Itoa(len(line)-1) +
			"\n_rostra\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(rostraBin)+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.Fields(string(out))
	}
	assert.Equal(t, []string{"alpha", "beta"}, complete(ws, "rostra", "logs", ""), "from the run file")
	assert.Equal(t, []string{"beta"}, complete(ws, "rostra", "retry", "b"))
	assert.Empty(t, complete(ws, "rostra", "send", "alpha", ""), "TEXT is typed")

	require.Equal(t, 0, runBin(t, ws, "run", "--headless").code)
	// The run file changed since: the ids are the run's, from its state.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte("broken: ["), 0o644))
	other := t.TempDir()
	stateDir := filepath.Join(ws, ".rostra", "names")
	assert.Equal(t, []string{"alpha", "beta"}, complete(other, "rostra", "logs", "--run", stateDir, ""))
	assert.Equal(t, []string{"alpha"}, complete(ws, "rostra", "cancel", "a"), "a run file that no longer loads: its state")
	assert.Empty(t, complete(other, "rostra", "logs", ""), "no run here")
}

// README's quick start, as written, with a fake claude on PATH for init to
// find: every rostra line of it runs, `rostra run` as `rostra run
// --detach` (the test has no terminal to attach), and each does what its
// comment says.
func TestReadmeQuickStartAsWritten(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "## Your own roster in five minutes\n")
	require.True(t, ok, "README has its quick start")
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")
	var cmds [][]string
	for _, line := range strings.Split(block, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "rostra" {
			continue // go install, cd, $EDITOR: the test stands in for them
		}
		cmds = append(cmds, f[1:])
	}
	var names []string
	for _, c := range cmds {
		names = append(names, strings.Join(c, " "))
	}
	require.Equal(t, []string{"init", "validate", "run", "status", "stop"}, names, "the quick start this test runs")

	// A claude that works until it is stopped, as a real one on a long task.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nmkdir -p \"out/$ROSTRA_WORKER\"\necho working\nexec sleep 300\n"), 0o755))
	for _, tool := range []string{"sh", "mkdir", "sleep"} {
		p, err := exec.LookPath(tool)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(p, filepath.Join(bin, tool)))
	}
	env := []string{"PATH=" + bin}
	ws := runWorkspace(t, "") // its cleanup stops a run the test leaves
	require.NoError(t, os.Remove(filepath.Join(ws, "rostra.yaml")))

	for _, c := range cmds {
		args := c
		if c[0] == "run" {
			args = append([]string{"run", "--detach"}, c[1:]...)
		}
		r := runBinEnv(t, ws, env, args...)
		switch c[0] {
		case "init":
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "wrote rostra.yaml with 1 worker(s): claude-agent.")
		case "validate":
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "rostra.yaml: valid: run ")
		case "run":
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "goes on in the background")
			// Its pid: the run's server is stopped by the last line.
			m := serverPidRx.FindStringSubmatch(r.stdout)
			require.NotNil(t, m, r.stdout)
			pid, _ := strconv.Atoi(m[1])
			t.Cleanup(func() { stopServer(t, ws, pid) })
		case "status":
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "claude-agent")
			assert.Contains(t, r.stdout, "running")
		case "stop":
			assert.Equal(t, 130, r.code, "stopped while its worker ran: %s", r.stderr)
		}
	}
	st := readState(t, filepath.Join(ws, ".rostra", runNameFor(ws)))
	assert.Equal(t, statedir.RunInterrupted, st.Status)
}

// rostra logs of an attempt still opening, whose row is out before its
// pane made output.log, prints no output yet rather than failing; an
// attempt that ended without one still fails.
func TestLogsOfAnAttemptWithNoOutputLogYet(t *testing.T) {
	dir := t.TempDir()
	row := &statedir.DispatchRow{WorkerID: "w", Attempt: 2, OutputLogPath: filepath.Join(dir, "output.log")}
	var out, errs strings.Builder
	assert.Equal(t, 0, copyLog(row, &out, &errs), errs.String())
	assert.Empty(t, out.String())
	ended := time.Now()
	row.EndedAt = &ended
	assert.Equal(t, 1, copyLog(row, &out, &errs))
	assert.Contains(t, errs.String(), "no such file or directory")
}
