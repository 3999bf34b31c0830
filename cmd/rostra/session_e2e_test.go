// session_e2e_test.go runs each real agent CLI (pinned,
// testdata/agents/install.sh) in a served rostra against the scripted model
// server, kills the server and every worker as a reboot would, and resumes
// the run: the agent is started on its session and its first request to
// the model carries the turns before the crash
// (docs/state.md §Resumed attempts; docs/agents.md §Sessions). And a
// resume whose session was never learnt starts fresh, saying why.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/agenttest"
	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// killLikeAReboot SIGKILLs the run's server and every process group of its
// attempts, and waits until each is gone: nothing of the run is left to
// stop or to finish writing.
func killLikeAReboot(t *testing.T, serverPid int, st *statedir.TeamState) {
	t.Helper()
	require.NoError(t, syscall.Kill(serverPid, syscall.SIGKILL))
	var pids []int
	for _, d := range st.Dispatches {
		if d.Status == statedir.StatusRunning && d.Pid > 0 {
			if pgid, err := syscall.Getpgid(d.Pid); err == nil {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
			_ = syscall.Kill(d.Pid, syscall.SIGKILL)
			pids = append(pids, d.Pid)
		}
	}
	require.Eventually(t, func() bool {
		for _, pid := range append(pids, serverPid) {
			if alive(pid) {
				return false
			}
		}
		// A reboot leaves no listener: a process forked by the server
		// that had not exec'd yet may hold its socket a moment longer.
		if c, err := server.Dial(st.StateDir); err == nil {
			c.Close()
			return false
		}
		return true
	}, 20*time.Second, 20*time.Millisecond, "the server or a worker outlived SIGKILL")
}

// waitRecorded waits until a file below home holds text (an agent CLI's
// record of its conversation) and returns its path.
func waitRecorded(t *testing.T, home, text string, within time.Duration) string {
	t.Helper()
	found := ""
	require.Eventually(t, func() bool {
		_ = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
			if err != nil || found != "" {
				return filepath.SkipDir
			}
			if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 16<<20 {
				return nil
			}
			if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), text) {
				found = path
			}
			return nil
		})
		return found != ""
	}, within, 100*time.Millisecond, "no file below %s records %q", home, text)
	return found
}

// dispatchOf is the dispatch row of worker's attempt n in st, or nil.
func dispatchOf(st *statedir.TeamState, worker string, n int) *statedir.DispatchRow {
	for i := range st.Dispatches {
		if d := &st.Dispatches[i]; d.WorkerID == worker && d.Attempt == n {
			return d
		}
	}
	return nil
}

// waitRow waits until worker's attempt n satisfies ok and returns the state.
func waitRow(t *testing.T, stateDir, worker string, n int, within time.Duration, what string, ok func(*statedir.DispatchRow) bool) *statedir.TeamState {
	t.Helper()
	var st *statedir.TeamState
	require.Eventually(t, func() bool {
		var err error
		st, err = statedir.ReadTeamState(stateDir)
		if err != nil {
			return false
		}
		d := dispatchOf(st, worker, n)
		return d != nil && ok(d)
	}, within, 50*time.Millisecond, "%s#%d: %s; the rows: %+v", worker, n, what, st)
	return st
}

func TestAnAgentsConversationSurvivesACrashOfItsRun(t *testing.T) {
	cases := []struct {
		kind agenttest.Kind
		// command is the provider's, before the prompt: interactive, in
		// the pane, with its shell tool allowed.
		command []string
		// afterTurn: the CLI asks the model once more after its turn
		// ends, offering its tools, before it records the turn (qwen's
		// prompt suggestion, "[SUGGESTION MODE: …").
		afterTurn bool
		// replaysAnswer: its resumed conversation holds the model's
		// closing text of the turn for sure; qwen 0.24.4 replays the
		// prompt, the tool call and its result, and that text in some
		// runs only (docs/agents.md).
		replaysAnswer bool
	}{
		{agenttest.Claude, []string{"--allowedTools", "Bash", "--"}, false, true},
		{agenttest.Qwen, []string{"--approval-mode", "yolo", "--prompt-interactive"}, true, false},
		// As rostra init's gemini-live: the prompt as --prompt-interactive,
		// which the resume leaves out and types instead.
		{agenttest.Gemini, []string{"--approval-mode", "yolo", "--prompt-interactive"}, false, true},
		// codex makes its own session id: rostra reads it from its
		// rollout file once the turn ends (OSC 7501 done).
		{agenttest.Codex, []string{"--dangerously-bypass-approvals-and-sandbox"}, false, true},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			if (c.kind == agenttest.Qwen || c.kind == agenttest.Gemini) && os.Getenv("ROSTRA_TEST_RESUME_ALL") == "" {
				// Not reliable enough for CI (docs/agents.md §Sessions): the
				// resumed qwen 0.24.4 failed 3 of 4 runs here at load 4–36
				// (it answers the resumed turn's tool call with a turn end),
				// gemini 0.61.0 2 of 2 at load 17–38 (its resume still loading
				// when the prompt is typed). claude and codex run always.
				t.Skipf("%s's resume is run with ROSTRA_TEST_RESUME_ALL=1", c.kind)
			}
			t.Parallel()
			turns := []fakemodel.Turn{
				{Shell: "echo one > step1.txt && echo marker-step-one"},
				{Text: "Step one is done."},
			}
			if c.afterTurn {
				turns = append(turns, fakemodel.Turn{Text: "Nothing more."})
			}
			srv := fakemodel.Start(t, fakemodel.Script{Turns: append(turns,
				fakemodel.Turn{Shell: "echo done > result.txt"},
				fakemodel.Turn{Text: "All done."})})
			ws := t.TempDir()
			a := agenttest.New(t, c.kind, srv.URL(), ws)
			var env strings.Builder
			env.WriteString(envYAML(a.Env))
			argv := []string{jsonString(a.Path)}
			for _, arg := range append(append([]string{}, a.Args...), c.command...) {
				argv = append(argv, jsonString(arg))
			}
			if c.kind == agenttest.Claude || c.kind == agenttest.Codex {
				argv = append(argv, `"{prompt}"`)
			} else {
				argv[len(argv)-1] = jsonString("--prompt-interactive={prompt}")
			}
			// max_attempts: 1: the resumed attempt is not counted.
			require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: crash
workspace: .
providers:
  agent: { command: [`+strings.Join(argv, ", ")+`] }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 2s, attention_after: 1h }
workers:
  - id: agent
    provider: agent
    prompt: "do step one, then wait"
    completion: { result: result.txt, settle: on-files }
    env:
`+env.String()), 0o644))
			stateDir := filepath.Join(ws, ".rostra", "crash")
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("requests:\n%s", srv.Summary())
					for _, f := range []string{"attempts/agent/1/output.log", "attempts/agent/2/output.log", "server.log", "events.jsonl"} {
						b, _ := os.ReadFile(filepath.Join(stateDir, f))
						if len(b) > 6000 {
							b = b[len(b)-6000:]
						}
						t.Logf("%s:\n%s", f, b)
					}
				}
			})

			// Two turns: a tool call, then the turn's end.
			server := detachedRun(t, ws)
			srv.WaitMain(2, 3*time.Minute)
			st := waitRow(t, stateDir, "agent", 1, 2*time.Minute, "the turn ends, its session known", func(d *statedir.DispatchRow) bool {
				return d.AgentState == "waiting-input" && d.AgentSession != ""
			})
			first := *dispatchOf(st, "agent", 1)
			if c.kind == agenttest.Codex {
				assert.Equal(t, statedir.SessionFiles, first.AgentSessionSource, "found in its files")
			} else {
				assert.Equal(t, statedir.SessionGiven, first.AgentSessionSource, "given at start")
			}
			require.FileExists(t, filepath.Join(ws, "step1.txt"))
			require.NoFileExists(t, filepath.Join(ws, "result.txt"))

			// What the CLI has recorded is what a resume continues: the
			// turn's answer is waited for in its files (qwen writes it a
			// moment after its Stop hook), and how long that took is said.
			turnEnded := time.Now()
			recorded := waitRecorded(t, a.Home, "Step one is done.", time.Minute)
			t.Logf("%s recorded the turn's answer in %s, %v after its turn ended", c.kind, recorded, time.Since(turnEnded).Round(time.Millisecond))

			killLikeAReboot(t, server, st)

			// Found from the state dir, not from a live socket.
			s := runBin(t, ws, "status")
			assert.Contains(t, s.stdout, "stopped by a crash at ", s.stdout+s.stderr)
			assert.Contains(t, s.stdout, "rostra run --resume "+filepath.Join(ws, "rostra.yaml")+"` continues it")
			ls := runBin(t, ws, "ls")
			assert.Regexp(t, `(?m)^`+stateDir+`\s+crash\s+stopped by a crash at `, ls.stdout, ls.stdout+ls.stderr)

			mainsBefore := len(srv.MainRequests())
			detachedRun(t, ws, "--resume")
			st = waitRow(t, stateDir, "agent", 2, time.Minute, "the resumed attempt runs", func(d *statedir.DispatchRow) bool { return d.Pid > 0 })
			second := *dispatchOf(st, "agent", 2)
			assert.Equal(t, &statedir.ResumedFrom{Attempt: 1, Session: first.AgentSession}, second.ResumedFrom)
			cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", second.Pid))
			require.NoError(t, err)
			args := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
			resumeWord := "--resume "
			if c.kind == agenttest.Codex {
				resumeWord = " resume " // its subcommand
			}
			assert.Contains(t, strings.Join(args, " "), resumeWord+first.AgentSession, "started on its session: %q", args)
			assert.NotContains(t, args, "--session-id")

			// Its first request to the model carries the turns before the crash.
			resumed := srv.WaitMain(mainsBefore+1, 3*time.Minute)
			assert.True(t, resumed.Contains("do step one, then wait"), "the first prompt")
			assert.True(t, resumed.Contains("marker-step-one"), "the tool's result of the first turn")
			if c.replaysAnswer {
				assert.True(t, resumed.Contains("Step one is done."), "the model's closing text of the first turn")
			} else {
				t.Logf("%s's resumed conversation holds the first turn's closing text: %v", c.kind, resumed.Contains("Step one is done."))
			}
			assert.True(t, resumed.Contains(runfile.ResumePrompt), "the prompt that says it was resumed")

			agenttest.WaitFile(t, filepath.Join(ws, "result.txt"), 3*time.Minute)
			st = waitRow(t, stateDir, "agent", 2, time.Minute, "the resumed attempt completes on its file", func(d *statedir.DispatchRow) bool {
				return d.Status == statedir.StatusCompleted
			})
			d1 := dispatchOf(st, "agent", 1)
			assert.Equal(t, statedir.FailureInterrupted, d1.FailureClass)
			var types []string
			evs, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
			require.NoError(t, err)
			for _, ev := range evs {
				if ev.Type == statedir.EventAttemptResumed {
					types = append(types, fmt.Sprintf("%s#%d %s", ev.WorkerID, ev.Attempt, ev.Session))
				}
			}
			assert.Equal(t, []string{"agent#2 " + first.AgentSession}, types)
			s = runBin(t, ws, "status")
			assert.Contains(t, s.stdout, "↻ resumed attempt 1 (session "+first.AgentSession+")")
		})
	}
}

func TestAResumeWhoseSessionWasNeverLearntStartsFresh(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	// An agent behind a wrapper script: rostra cannot place --session-id
	// or its hooks, so it never learns the session.
	wrapper := filepath.Join(ws, "wrapped-claude")
	require.NoError(t, os.WriteFile(wrapper, []byte("#!/bin/sh\nexec sleep 300\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: fresh
providers:
  wrapped: { command: [`+jsonString(wrapper)+`, "{prompt}"], agent: claude, resume: [`+jsonString(wrapper)+`, "--resume", "{session}"] }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s }
workers:
  - id: w
    provider: wrapped
    prompt: "work"
`), 0o644))
	stateDir := filepath.Join(ws, ".rostra", "fresh")
	server := detachedRun(t, ws)
	st := waitRow(t, stateDir, "w", 1, 30*time.Second, "runs", func(d *statedir.DispatchRow) bool { return d.Pid > 0 })
	require.Empty(t, dispatchOf(st, "w", 1).AgentSession)
	killLikeAReboot(t, server, st)

	detachedRun(t, ws, "--resume")
	st = waitRow(t, stateDir, "w", 2, 30*time.Second, "a fresh attempt runs", func(d *statedir.DispatchRow) bool { return d.Pid > 0 })
	d := dispatchOf(st, "w", 2)
	assert.Nil(t, d.ResumedFrom)
	assert.Equal(t, "the session of attempt 1 was never learnt (no id given at start, no hook carried one, none in the CLI's files): the conversation starts over", d.NotResumed)
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", d.Pid))
	require.NoError(t, err)
	assert.NotContains(t, string(cmdline), "--resume")
	s := runBin(t, ws, "status")
	assert.Contains(t, s.stdout, "not resumed: the session of attempt 1 was never learnt")
}

func TestLsAllListsTheRecentRunsWithoutAServer(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_STATE_HOME=" + t.TempDir()} // an index of this test's own
	ws := runWorkspace(t, `version: 1
name: done-run
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - { id: w, provider: shell, prompt: "echo hi" }
`)
	r := runBinEnv(t, ws, env, "run", "--headless")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	stateDir := filepath.Join(ws, ".rostra", "done-run")

	ls := runBinEnv(t, ws, env, "ls")
	assert.NotContains(t, ls.stdout, stateDir, "a finished run is listed by --all only")
	ls = runBinEnv(t, ws, env, "ls", "--all")
	assert.Regexp(t, `(?m)^`+stateDir+`\s+done-run\s+finished\s+1/1 completed\s`, ls.stdout, ls.stdout+ls.stderr)

	require.NoError(t, os.RemoveAll(stateDir))
	ls = runBinEnv(t, ws, env, "ls", "--all")
	assert.NotContains(t, ls.stdout, stateDir, "a state dir that is gone is dropped")
}
