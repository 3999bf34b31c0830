// resume.go continues, on `rostra run --resume`, the conversations a crash
// cut off (docs/state.md §Resumed attempts). For each worker whose last
// attempt the dead rostra left running (rundir.go marked it interrupted),
// Start decides once, before the worker's next attempt opens:
//
//   - resume: the worker's CLI can resume (runfile WorkerSpec.Resume) and
//     the attempt's session is known (its row, the id rostra wrote in its
//     folder, or codex's files): the next attempt runs the resume command
//     with that session, its row says resumedFrom: {attempt, session}, an
//     attempt-resumed event is sent, and it does not count against
//     max_attempts (a crash is not the worker's failure);
//   - fresh: anything else about an agent's attempt (no resume command, no
//     session learnt, resumed maxResumesInARow times in a row already, a
//     human had asked it to stop) starts fresh as before, the reason on
//     the new row (notResumed) and in an attempt-not-resumed event. So
//     does the attempt after a resumed one that failed (the CLI did not
//     know the session, say).
//
// A worker that runs no agent, or whose last attempt was not cut off by
// the crash, starts fresh with nothing to say.
package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// maxResumesInARow bounds the resumes of one worker with no attempt of
// its own between them: a conversation that crashes its rostra each time
// is started over.
const maxResumesInARow = 3

// resumePlan is what a worker's first attempt of a resumed run does.
type resumePlan struct {
	from    int    // the attempt it continues
	session string // and that attempt's session
	fresh   string // not "": it starts fresh, for this reason
}

// decideResume is the plan of w's next attempt in a run resumed from the
// rows of prev, nil when there is nothing to continue or to say.
func (e *Engine) decideResume(w *workerRT, prev []statedir.DispatchRow) *resumePlan {
	var rows []statedir.DispatchRow
	for _, d := range prev {
		if d.WorkerID == w.spec.ID {
			rows = append(rows, d)
		}
	}
	slices.SortStableFunc(rows, func(a, b statedir.DispatchRow) int { return a.Attempt - b.Attempt })
	if len(rows) == 0 {
		return nil
	}
	last := rows[len(rows)-1]
	if last.FailureClass != statedir.FailureInterrupted || last.Agent == "" && w.spec.Agent == "" {
		return nil
	}
	fresh := func(format string, args ...any) *resumePlan {
		return &resumePlan{from: last.Attempt, fresh: fmt.Sprintf(format, args...)}
	}
	if last.StopAsked != "" {
		return fresh("attempt %d was being stopped for a human's %s when rostra died: it is not resumed", last.Attempt, last.StopAsked)
	}
	if !w.spec.CanResume() {
		return fresh("the CLI of provider %s cannot resume a session (its resume is empty): attempt %d's conversation starts over", w.spec.Provider, last.Attempt)
	}
	inARow := 0
	for i := len(rows) - 1; i >= 0 && rows[i].ResumedFrom != nil; i-- {
		inARow++
	}
	if inARow >= maxResumesInARow {
		return fresh("attempt %d ended %d resumes in a row, each cut off by a crash: the conversation starts over", last.Attempt, inARow)
	}
	session := last.AgentSession
	if session == "" {
		session = savedSession(e.plan.AttemptDir(w.spec.ID, last.Attempt))
	}
	if session == "" && (last.Agent == string(agents.Codex) || w.spec.Agent == string(agents.Codex)) {
		session = e.codexSessionOf(w, last)
	}
	if session == "" {
		return fresh("the session of attempt %d was never learnt (no id given at start, no hook carried one, none in the CLI's files): the conversation starts over", last.Attempt)
	}
	return &resumePlan{from: last.Attempt, session: session}
}

// codexSessionOf looks for the session of codex attempt d of w in the
// session files of the CODEX_HOME it ran with.
func (e *Engine) codexSessionOf(w *workerRT, d statedir.DispatchRow) string {
	ap, err := e.plan.Expand(w.spec, d.Attempt)
	if err != nil {
		return ""
	}
	env := slices.Clone(e.opts.Environ)
	for _, k := range slices.Sorted(maps.Keys(ap.Env)) {
		env = append(env, k+"="+ap.Env[k])
	}
	end := d.StartedAt
	if d.EndedAt != nil {
		end = *d.EndedAt
	}
	return codexSession(codexHome(env), ap.Dir, d.StartedAt, end)
}

// expandAttempt is attempt n's plan: the resume command's when w's plan
// is to resume (taken once), else the worker's own.
func (e *Engine) expandAttempt(w *workerRT, n int) (runfile.AttemptPlan, *resumePlan, error) {
	rp := w.resume
	w.resume = nil
	if i := e.lastRowOf(w); rp == nil && i >= 0 {
		// A resume the CLI refused (a session it does not know) or that
		// failed otherwise: the next attempt starts over, and says so.
		if d := e.st.Dispatches[i]; d.ResumedFrom != nil && d.Status != statedir.StatusCompleted && d.FailureClass != statedir.FailureInterrupted {
			rp = &resumePlan{from: d.Attempt, fresh: fmt.Sprintf("attempt %d, which resumed session %s, ended %s (%s): the conversation starts over",
				d.Attempt, d.ResumedFrom.Session, d.Status, d.Reason)}
		}
	}
	if rp != nil && rp.fresh == "" {
		ap, err := e.plan.ExpandResume(w.spec, n, rp.session)
		return ap, rp, err
	}
	ap, err := e.plan.Expand(w.spec, n)
	return ap, rp, err
}

// noteResume records on a new attempt's row what rp decided, and says it.
func (e *Engine) noteResume(a *attemptRT, row *statedir.DispatchRow, rp *resumePlan) {
	if rp == nil {
		return
	}
	ev := statedir.Event{WorkerID: a.w.spec.ID, Attempt: a.plan.Attempt}
	if rp.fresh != "" {
		row.NotResumed = rp.fresh
		ev.Type, ev.Reason = statedir.EventAttemptNotResumed, rp.fresh
	} else {
		row.ResumedFrom = &statedir.ResumedFrom{Attempt: rp.from, Session: rp.session}
		row.AgentSession, row.AgentSessionSource = rp.session, statedir.SessionGiven
		a.w.resumed++
		ev.Type, ev.Session = statedir.EventAttemptResumed, rp.session
		ev.Reason = fmt.Sprintf("continues attempt %d's conversation (session %s)", rp.from, rp.session)
	}
	e.emit(ev)
}

// planResumes decides, for a resumed run, each worker's next attempt and
// counts the resumed attempts it had, which max_attempts does not count.
func (e *Engine) planResumes(prev *statedir.TeamState) {
	for _, w := range e.workers {
		for _, d := range prev.Dispatches {
			if d.WorkerID == w.spec.ID && d.ResumedFrom != nil {
				w.resumed++
			}
		}
		if w.spec.ResumeBuiltIn {
			// The command may be the one recorded for the run (Start):
			// the built-in resume follows it.
			if a, ok := agents.Parse(w.spec.Agent); ok {
				w.spec.Resume = agents.ResumeCommand(a, w.spec.Command)
			}
		}
		if e.st.Workers[w.idx].Status != statedir.StatusCompleted {
			w.resume = e.decideResume(w, prev.Dispatches)
		}
	}
}

// attemptsLeft reports whether a's worker may have another attempt under
// max_attempts; its resumed attempts are not counted.
func (e *Engine) attemptsLeft(a *attemptRT) bool {
	return a.plan.Attempt-a.w.resumed < a.w.spec.MaxAttempts
}

// noteStopAsked records on a running attempt's row that a human asked it
// to end (Retry, Cancel): were rostra to die before it ends, it is not
// resumed.
func (e *Engine) noteStopAsked(a *attemptRT, what string) {
	d := &e.st.Dispatches[a.idx]
	if d.StopAsked == "" {
		d.StopAsked = what
		e.dirty = true
	}
}

// typeResumePrompt has a resumed attempt's prompt typed into its pane
// when its resume command does not pass it ({prompt}, {prompt_file}): a
// CLI resumed without a prompt waits at its own for one.
func typeResumePrompt(spec *runfile.WorkerSpec, rp *resumePlan, ap *runfile.AttemptPlan, l *LaunchSpec) {
	if rp == nil || rp.fresh != "" || spec.Delivery == runfile.DeliveryType {
		return
	}
	for _, word := range spec.Resume {
		if strings.Contains(word, "{prompt}") || strings.Contains(word, "{prompt_file}") {
			return
		}
	}
	l.Stdin = []byte(ap.Prompt)
	l.TypePrompt = []byte(ap.Prompt)
	l.TypeQuiet = TypeQuiet
	l.TypeAwaitAgent = awaitsAgentReady(spec)
	l.PromptFile = ap.PromptFile
}
