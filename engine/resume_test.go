// Tests of resume.go and session.go over fake surfaces: a run is started,
// "crashes" (its saved state taken while attempts run, marked as
// PrepareStateDir marks a dead rostra's), and is resumed by a new engine.
package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// claudeWorker is a worker of claude with its built-in resume.
func claudeWorker(id string) runfile.WorkerSpec {
	cmd := []string{"claude", "-p", "{prompt}"}
	return runfile.WorkerSpec{ID: id, Agent: "claude", Command: cmd, Prompt: "do the task",
		Resume: []string{"claude", "--resume", "{session}", "-p", "{prompt}"}, ResumeBuiltIn: true}
}

// crashed runs plan until each worker's first attempt is open, then
// returns the state as a dead rostra would leave it, its running attempts
// marked interrupted, and the sessions the attempts were given.
func crashed(t *testing.T, plan *runfile.Plan) *statedir.TeamState {
	t.Helper()
	h := startHarness(t, plan)
	for range plan.Workers {
		h.opened(h.pane)
	}
	h.sync()
	st := h.eng.Snapshot()
	h.shutdown()
	markInterrupted(&st, t0.Add(30*time.Minute)) // found at the resume, half an hour on
	return &st
}

// resumeHarness starts a new engine on plan resuming prev.
func resumeHarness(t *testing.T, plan *runfile.Plan, prev *statedir.TeamState) *harness {
	t.Helper()
	h := &harness{t: t, plan: plan, clock: NewFakeClock(t0.Add(time.Hour)),
		pane: newFakeSurface(runfile.SurfacePane), wrapper: newFakeSurface(runfile.SurfaceWrapper)}
	iso, err := workspace.PrepareIsolation(plan, prev, t0)
	require.NoError(t, err)
	h.eng = New(plan, Options{
		Surfaces:    map[runfile.SurfaceKind]Surface{runfile.SurfacePane: h.pane, runfile.SurfaceWrapper: h.wrapper},
		Clock:       h.clock,
		Environ:     []string{},
		Isolation:   iso,
		HookCommand: testHookExe,
		Resumed:     prev,
	})
	h.sub = h.eng.Subscribe()
	require.NoError(t, h.eng.Start())
	t.Cleanup(func() { h.shutdown() })
	return h
}

func TestACrashedAttemptIsResumedWithItsSession(t *testing.T) {
	plan := testPlan(t, claudeWorker("a"))
	prev := crashed(t, plan)
	first := prev.Dispatches[0]
	require.Equal(t, statedir.SessionGiven, first.AgentSessionSource)
	require.NotEmpty(t, first.AgentSession, "the session is on the row before the process starts")
	saved, err := os.ReadFile(filepath.Join(plan.AttemptDir("a", 1), SessionFile))
	require.NoError(t, err)
	assert.Equal(t, first.AgentSession+"\n", string(saved), "and in the attempt's folder")

	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane)
	require.Equal(t, 2, fh.spec.Attempt)
	assert.Equal(t, []string{"claude", "--settings", filepath.Join(plan.AttemptDir("a", 2), "claude-settings.json"),
		"--resume", first.AgentSession, "-p", runfile.ResumePrompt}, fh.spec.Argv, "continued, not given a new session")
	ev := h.event(statedir.EventAttemptResumed)
	assert.Equal(t, first.AgentSession, ev.Session)
	assert.Equal(t, 2, ev.Attempt)
	d := h.dispatch("a#2")
	assert.Equal(t, &statedir.ResumedFrom{Attempt: 1, Session: first.AgentSession}, d.ResumedFrom)
	assert.Equal(t, first.AgentSession, d.AgentSession)
	assert.Empty(t, d.NotResumed)

	// The hook's word wins: a CLI that forked its conversation.
	h.eng.Hook("a", 2, "SessionStart", map[string]any{"session_id": "forked-1"})
	ev = h.event(statedir.EventAgentSession)
	assert.Equal(t, "forked-1", ev.Session)
	assert.Equal(t, statedir.SessionHook, h.dispatch("a#2").AgentSessionSource)
}

func TestAResumeWithoutASessionStartsFreshAndSaysWhy(t *testing.T) {
	plan := testPlan(t, claudeWorker("a"))
	prev := crashed(t, plan)
	prev.Dispatches[0].AgentSession = "" // as a row saved before the id was learnt
	require.NoError(t, os.Remove(filepath.Join(plan.AttemptDir("a", 1), SessionFile)))

	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane)
	assert.NotContains(t, fh.spec.Argv, "--resume")
	assert.Contains(t, fh.spec.Argv, "do the task", "the worker's own prompt: a fresh start")
	ev := h.event(statedir.EventAttemptNotResumed)
	assert.Contains(t, ev.Reason, "the session of attempt 1 was never learnt")
	d := h.dispatch("a#2")
	assert.Nil(t, d.ResumedFrom)
	assert.Equal(t, ev.Reason, d.NotResumed)
	assert.Equal(t, statedir.SessionGiven, d.AgentSessionSource, "a fresh start gets a session of its own")
	assert.NotEqual(t, prev.Dispatches[0].AgentSession, d.AgentSession)
}

func TestAnUnsavedAttemptIsResumedFromTheIdInItsFolder(t *testing.T) {
	plan := testPlan(t, claudeWorker("a"))
	prev := crashed(t, plan)
	id := prev.Dispatches[0].AgentSession
	// rostra died before the batch that recorded the attempt was saved:
	// recordUnsavedAttempts makes its row from its folder.
	prev.Dispatches = nil
	prev.Workers[0].Attempts = 0
	require.Equal(t, 1, recordUnsavedAttempts(plan, prev, t0))

	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane)
	assert.Contains(t, fh.spec.Argv, id)
	assert.Equal(t, &statedir.ResumedFrom{Attempt: 1, Session: id}, h.dispatch("a#2").ResumedFrom)
}

func TestAtMostThreeResumesInARow(t *testing.T) {
	for _, c := range []struct {
		resumed int // of the rows before the crash, the last ones resumed
		want    bool
	}{{0, true}, {2, true}, {3, false}} {
		plan := testPlan(t, claudeWorker("a"))
		prev := crashed(t, plan)
		row := prev.Dispatches[0]
		prev.Dispatches = nil
		for n := 1; n <= 4; n++ {
			r := row
			r.Attempt, r.DispatchID = n, runfile.DispatchID("a", n)
			r.AgentSession = "s-" + string(rune('0'+n))
			r.Status, r.FailureClass = statedir.StatusError, statedir.FailureInterrupted
			if n > 4-c.resumed {
				r.ResumedFrom = &statedir.ResumedFrom{Attempt: n - 1, Session: "s-" + string(rune('0'+n-1))}
			}
			prev.Dispatches = append(prev.Dispatches, r)
		}
		prev.Workers[0].Attempts = 4

		h := resumeHarness(t, plan, prev)
		fh := h.opened(h.pane)
		require.Equal(t, 5, fh.spec.Attempt)
		d := h.dispatch("a#5")
		if c.want {
			assert.Equal(t, &statedir.ResumedFrom{Attempt: 4, Session: "s-4"}, d.ResumedFrom, "after %d resumes", c.resumed)
			assert.Contains(t, fh.spec.Argv, "s-4")
		} else {
			assert.Nil(t, d.ResumedFrom, "after %d resumes", c.resumed)
			assert.Equal(t, "attempt 4 ended 3 resumes in a row, each cut off by a crash: the conversation starts over", d.NotResumed)
			assert.NotContains(t, fh.spec.Argv, "--resume")
		}
		h.shutdown()
	}
}

func TestAnAttemptAHumanRetriedOrCancelledIsNeverResumed(t *testing.T) {
	for _, what := range []string{statedir.StopAskedRetry, statedir.StopAskedCancel} {
		t.Run(what, func(t *testing.T) {
			plan := testPlan(t, claudeWorker("a"))
			h := startHarness(t, plan)
			fh := h.opened(h.pane)
			fh.mu.Lock()
			fh.ignoreTerm = true
			fh.mu.Unlock()
			if what == statedir.StopAskedRetry {
				require.NoError(t, h.eng.Retry("a"))
			} else {
				require.NoError(t, h.eng.Cancel("a"))
			}
			// rostra dies while the attempt is being stopped (it ignores
			// SIGTERM for its stop_grace).
			h.sync()
			st := h.eng.Snapshot()
			require.Equal(t, statedir.StatusRunning, st.Dispatches[0].Status)
			require.Equal(t, what, st.Dispatches[0].StopAsked, "the human's ask is on the row")
			h.shutdown()
			markInterrupted(&st, t0)

			h2 := resumeHarness(t, plan, &st)
			fh2 := h2.opened(h2.pane)
			assert.NotContains(t, fh2.spec.Argv, "--resume")
			d := h2.dispatch("a#2")
			assert.Nil(t, d.ResumedFrom)
			assert.Equal(t, "attempt 1 was being stopped for a human's "+what+" when rostra died: it is not resumed", d.NotResumed)
		})
	}
	// One that ended cancelled before the crash is not the crash's to
	// resume: nothing to continue, nothing to say.
	plan := testPlan(t, claudeWorker("a"))
	prev := crashed(t, plan)
	prev.Dispatches[0].Status, prev.Dispatches[0].FailureClass = statedir.StatusCancelled, statedir.FailureCancelled
	h := resumeHarness(t, plan, prev)
	h.opened(h.pane)
	d := h.dispatch("a#2")
	assert.Nil(t, d.ResumedFrom)
	assert.Empty(t, d.NotResumed)
}

func TestAResumedAttemptDoesNotCountAgainstMaxAttempts(t *testing.T) {
	w := claudeWorker("a")
	w.MaxAttempts = 2
	plan := testPlan(t, w)
	prev := crashed(t, plan)
	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane) // attempt 2, the resume: attempt 1 again
	require.NotNil(t, h.dispatch("a#2").ResumedFrom)
	fh.finish(1)
	ev := h.event(statedir.EventWorkerRetry)
	assert.Equal(t, "attempt 2 of 2 in 2s", ev.Reason)
	h.advance(2 * time.Second)
	fh = h.opened(h.pane)
	require.Equal(t, 3, fh.spec.Attempt)
	assert.Nil(t, h.dispatch("a#3").ResumedFrom, "a retry after a resume is a fresh attempt")
	assert.Contains(t, fh.spec.Argv, "do the task")
	fh.finish(1)
	h.event(statedir.EventWorkerFailed)
	h.advance(time.Minute)
	h.noneOpened(h.pane)
	assert.Equal(t, statedir.StatusError, h.worker("a").Status)
}

func TestAFailedResumeIsFollowedByAFreshStartThatSaysWhy(t *testing.T) {
	plan := testPlan(t, claudeWorker("a"))
	prev := crashed(t, plan)
	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane)
	require.NotNil(t, h.dispatch("a#2").ResumedFrom)
	fh.finish(1) // "No conversation found with session ID: …"
	h.event(statedir.EventWorkerRetry)
	h.advance(2 * time.Second)
	fh = h.opened(h.pane)
	require.Equal(t, 3, fh.spec.Attempt)
	assert.NotContains(t, fh.spec.Argv, "--resume")
	d := h.dispatch("a#3")
	assert.Nil(t, d.ResumedFrom)
	assert.Equal(t, "attempt 2, which resumed session "+prev.Dispatches[0].AgentSession+", ended error (exited with code 1): the conversation starts over", d.NotResumed)
}

func TestACLIThatCannotResumeStartsFresh(t *testing.T) {
	w := claudeWorker("a")
	w.Resume, w.ResumeBuiltIn = []string{}, false // resume: []
	plan := testPlan(t, w)
	prev := crashed(t, plan)
	h := resumeHarness(t, plan, prev)
	h.opened(h.pane)
	assert.Equal(t, "the CLI of provider shell cannot resume a session (its resume is empty): attempt 1's conversation starts over", h.dispatch("a#2").NotResumed)
}

func TestACodexSessionIsFoundInItsFiles(t *testing.T) {
	home := t.TempDir()
	w := runfile.WorkerSpec{ID: "c", Agent: "codex", Command: []string{"codex", "exec", "{prompt}"}, Prompt: "do it",
		Env: map[string]string{"CODEX_HOME": home}, ResumeBuiltIn: true,
		Resume: []string{"codex", "exec", "resume", "{session}", "{prompt}"}}
	plan := testPlan(t, w)
	prev := crashed(t, plan)
	require.Empty(t, prev.Dispatches[0].AgentSession, "codex takes no id")
	start := prev.Dispatches[0].StartedAt
	id := "019a0000-1111-7222-8333-444455556666"
	day := filepath.Join(home, "sessions", start.Format("2006"), start.Format("01"), start.Format("02"))
	require.NoError(t, os.MkdirAll(day, 0o700))
	meta := func(id, cwd string, at time.Time) string {
		return `{"timestamp":"` + at.Format(time.RFC3339Nano) + `","type":"session_meta","payload":{"id":"` + id + `","timestamp":"` +
			at.Format(time.RFC3339Nano) + `","cwd":"` + cwd + `","originator":"codex_exec"}}` + "\n"
	}
	for name, body := range map[string]string{
		"rollout-a-" + id + ".jsonl": meta(id, plan.Workspace, start.Add(time.Second)),
		"rollout-b-other.jsonl":      meta("other-dir", "/elsewhere", start.Add(time.Second)),
		"rollout-c-earlier.jsonl":    meta("earlier", plan.Workspace, start.Add(-time.Hour)),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(day, name), []byte(body), 0o600))
	}
	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane)
	assert.Equal(t, []string{"codex", "exec", "resume", id, runfile.ResumePrompt}, fh.spec.Argv)
	assert.Equal(t, &statedir.ResumedFrom{Attempt: 1, Session: id}, h.dispatch("c#2").ResumedFrom)
}

// writeRollout lays out a codex rollout file as codex 0.171 writes it
// (internal/agenttest checks the layout with the real CLI).
func writeRollout(t *testing.T, home, id, cwd string, at time.Time) {
	t.Helper()
	day := filepath.Join(home, "sessions", at.Format("2006"), at.Format("01"), at.Format("02"))
	require.NoError(t, os.MkdirAll(day, 0o700))
	body := `{"timestamp":"` + at.Format(time.RFC3339Nano) + `","type":"session_meta","payload":{"id":"` + id + `","timestamp":"` +
		at.Format(time.RFC3339Nano) + `","cwd":"` + cwd + `","originator":"codex_exec"}}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(day, "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl"), []byte(body), 0o600))
}

func TestACodexSessionIsLearntWhenItsTurnEnds(t *testing.T) {
	home := t.TempDir()
	plan := testPlan(t, runfile.WorkerSpec{ID: "c", Agent: "codex", Command: []string{"codex", "{prompt}"}, Prompt: "do it",
		Env: map[string]string{"CODEX_HOME": home}})
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	id := "019a0000-1111-7222-8333-777788889999"
	writeRollout(t, home, id, plan.Workspace, t0.Add(time.Second))
	fh.spec.OnProgramStatus("done", "", "")
	ev := h.event(statedir.EventAgentSession)
	assert.Equal(t, id, ev.Session)
	assert.Equal(t, statedir.SessionFiles, ev.Reason)
	d := h.dispatch("c#1")
	assert.Equal(t, id, d.AgentSession)
	assert.Equal(t, statedir.SessionFiles, d.AgentSessionSource)
}

func TestAResumeCommandWithoutItsPromptHasItTyped(t *testing.T) {
	w := runfile.WorkerSpec{ID: "g", Agent: "gemini", Command: []string{"gemini", "--prompt-interactive={prompt}"}, Prompt: "do it",
		Resume: []string{"gemini", "--resume", "{session}"}, ResumeBuiltIn: true}
	plan := testPlan(t, w)
	prev := crashed(t, plan)
	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane)
	assert.Equal(t, []string{"gemini", "--resume", prev.Dispatches[0].AgentSession}, fh.spec.Argv)
	assert.Equal(t, runfile.ResumePrompt, string(fh.spec.TypePrompt), "typed once gemini is ready")
	assert.True(t, fh.spec.TypeAwaitAgent, "and once gemini's own state says it waits for input (typeready.go)")
}

func TestAPlainCommandIsNotResumed(t *testing.T) {
	plan := testPlan(t, runfile.WorkerSpec{ID: "p", Prompt: "x"})
	prev := crashed(t, plan)
	h := resumeHarness(t, plan, prev)
	fh := h.opened(h.pane)
	assert.True(t, slices.Equal([]string{"agent", "x"}, fh.spec.Argv))
	d := h.dispatch("p#2")
	assert.Nil(t, d.ResumedFrom)
	assert.Empty(t, d.NotResumed)
	assert.Empty(t, d.AgentSession)
}
