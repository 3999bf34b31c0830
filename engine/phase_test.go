// phase_test.go drives every step between an attempt's phases, the legal
// and the illegal, and follows real attempts (fake surfaces and clock) to
// the phase each path of their life ends in.
package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// Every engine test runs with illegal steps panicking, so a step the life
// does not have fails whichever test took it.
func init() { strictPhases = true }

var allPhases = []phase{phaseOpening, phaseRunning, phaseSettling, phaseDecided, phaseCommitting, phaseDone}

// phaseTable is every (from, to) pair and whether the step is legal.
var phaseTable = []struct {
	from, to phase
	legal    bool
}{
	{phaseOpening, phaseOpening, false},
	{phaseOpening, phaseRunning, true}, // its process started
	{phaseOpening, phaseSettling, false},
	{phaseOpening, phaseDecided, false},
	{phaseOpening, phaseCommitting, false},
	{phaseOpening, phaseDone, true}, // no process started: its outcome is written at once

	{phaseRunning, phaseOpening, false},
	{phaseRunning, phaseRunning, false},
	{phaseRunning, phaseSettling, true}, // audited: the walk is under way
	{phaseRunning, phaseDecided, true},  // not audited, or its audit abandoned
	{phaseRunning, phaseCommitting, false},
	{phaseRunning, phaseDone, false},

	{phaseSettling, phaseOpening, false},
	{phaseSettling, phaseRunning, false},
	{phaseSettling, phaseSettling, false},
	{phaseSettling, phaseDecided, true}, // the walk is back
	{phaseSettling, phaseCommitting, false},
	{phaseSettling, phaseDone, false},

	{phaseDecided, phaseOpening, false},
	{phaseDecided, phaseRunning, false},
	{phaseDecided, phaseSettling, false},
	{phaseDecided, phaseDecided, false},
	{phaseDecided, phaseCommitting, true}, // isolated, its process ended
	{phaseDecided, phaseDone, true},       // shared workspace, its process ended

	{phaseCommitting, phaseOpening, false},
	{phaseCommitting, phaseRunning, false},
	{phaseCommitting, phaseSettling, false},
	{phaseCommitting, phaseDecided, false},
	{phaseCommitting, phaseCommitting, false},
	{phaseCommitting, phaseDone, true}, // the commit is back

	{phaseDone, phaseOpening, false},
	{phaseDone, phaseRunning, false},
	{phaseDone, phaseSettling, false},
	{phaseDone, phaseDecided, false},
	{phaseDone, phaseCommitting, false},
	{phaseDone, phaseDone, false},
}

func TestPhaseTableCoversEveryPair(t *testing.T) {
	seen := map[[2]phase]bool{}
	for _, c := range phaseTable {
		key := [2]phase{c.from, c.to}
		require.False(t, seen[key], "%s → %s twice in the table", c.from, c.to)
		seen[key] = true
	}
	assert.Len(t, seen, len(allPhases)*len(allPhases))
}

// bareAttempt is an attempt at p with a dispatch row, on an engine that is
// not running: enough for advance.
func bareAttempt(p phase) (*Engine, *attemptRT) {
	e := &Engine{}
	e.st.Dispatches = []statedir.DispatchRow{{DispatchID: "a#1", WorkerID: "a", Attempt: 1, Reason: "exited with code 1"}}
	a := &attemptRT{w: &workerRT{spec: &runfile.WorkerSpec{ID: "a"}}, plan: runfile.AttemptPlan{Attempt: 1}, phase: p}
	return e, a
}

func TestPhaseSteps(t *testing.T) {
	for _, c := range phaseTable {
		t.Run(fmt.Sprintf("%s→%s", c.from, c.to), func(t *testing.T) {
			assert.Equal(t, c.legal, c.from.canGo(c.to))

			// In the engine's tests an illegal step panics.
			e, a := bareAttempt(c.from)
			if c.legal {
				require.True(t, e.advance(a, c.to))
				assert.Equal(t, c.to, a.phase)
				assert.Equal(t, "exited with code 1", e.st.Dispatches[0].Reason)
				return
			}
			assert.PanicsWithValue(t, fmt.Sprintf("rostra fault: attempt 1 of a cannot go from %s to %s; the step was refused (please report it)", c.from, c.to),
				func() { e.advance(a, c.to) })
			assert.Equal(t, c.from, a.phase)

			// In a running rostra it is refused: the attempt stays where
			// it was and the row says so.
			strictPhases = false
			defer func() { strictPhases = true }()
			e, a = bareAttempt(c.from)
			require.False(t, e.advance(a, c.to))
			assert.Equal(t, c.from, a.phase)
			assert.Equal(t, fmt.Sprintf("exited with code 1; rostra fault: attempt 1 of a cannot go from %s to %s; the step was refused (please report it)", c.from, c.to),
				e.st.Dispatches[0].Reason)
			assert.True(t, e.dirty)
		})
	}
}

func TestPhaseOrderAndNames(t *testing.T) {
	for i, p := range allPhases {
		for j, q := range allPhases {
			assert.Equal(t, i >= j, p.atLeast(q), "%s at least %s", p, q)
		}
	}
	assert.Equal(t, "opening running settling decided committing done",
		fmt.Sprint(phaseOpening, " ", phaseRunning, " ", phaseSettling, " ", phaseDecided, " ", phaseCommitting, " ", phaseDone))
	assert.Equal(t, "phase(6)", phase(6).String())
	var zero attemptRT
	assert.Equal(t, phaseOpening, zero.phase, "an attempt is opening from the moment its row is recorded")
}

// phaseOf is the phase of worker's current attempt, read on the loop.
func (h *harness) phaseOf(worker string) phase {
	var p phase
	h.eng.do(func() { p = h.eng.byID[worker].cur.phase })
	return p
}

func TestAnAttemptOnExitIsDoneOnceItsOutcomeIsWritten(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a"})))
	fh := h.opened(h.pane)
	h.event(statedir.EventWorkerDispatched) // the loop has taken the open surface
	assert.Equal(t, phaseRunning, h.phaseOf("a"))
	h.write("out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	assert.Equal(t, phaseDone, h.phaseOf("a"))
}

func TestAnAuditedAttemptSettlesThenIsDone(t *testing.T) {
	h := startHarness(t, testPlan(t, withResult(runfile.WorkerSpec{ID: "a", Writes: []string{"out/**"}})))
	fh := h.opened(h.pane)
	h.write("out/a/result.json", "{}")
	entered, release := holdSnapshots(t)
	fh.finish(0)
	waitFor(t, entered, "the audit's walk")
	assert.Equal(t, phaseSettling, h.phaseOf("a"))
	release()
	h.event(statedir.EventRunFinished)
	assert.Equal(t, phaseDone, h.phaseOf("a"))
}

func TestAnAttemptDecidedOnItsFilesIsDoneWhenItsProcessEnds(t *testing.T) {
	w := withResult(runfile.WorkerSpec{ID: "a"})
	w.Completion.Settle = runfile.SettleOnFiles
	h := startHarness(t, testPlan(t, w))
	h.opened(h.pane)
	// Written whole, then renamed into place: a plain write's create and
	// write events may reach the engine apart, and the second would
	// restart the window after the clock was advanced.
	h.write("out/a/result.json.tmp", "{}")
	require.NoError(t, os.Rename(filepath.Join(h.plan.Workspace, "out/a/result.json.tmp"), filepath.Join(h.plan.Workspace, "out/a/result.json")))
	require.Eventually(t, func() bool { h.sync(); return h.clock.Pending() > 0 && h.stableArmed("a") }, 5*time.Second, 5*time.Millisecond)
	h.advance(500 * time.Millisecond)
	h.event(statedir.EventWorkerCompleted)
	assert.Equal(t, phaseDecided, h.phaseOf("a"), "decided while its process still runs")
	h.advance(5 * time.Second) // stop_grace, then SIGTERM ends it
	// The fake process's end reaches the loop as a real one's does: after
	// the signal, on a goroutine of its own.
	assert.Eventually(t, func() bool { return h.phaseOf("a") == phaseDone }, 5*time.Second, 5*time.Millisecond)
}

func TestAnIsolatedAttemptIsCommittingUntilItsWorkIsOnItsBranch(t *testing.T) {
	plan, _ := gitPlan(t, isolated(withResult(runfile.WorkerSpec{ID: "a"})))
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.writeIn(fh.spec.Dir, "out/a/result.json", "{}")
	release := make(chan struct{})
	h.eng.do(func() { h.eng.queueGit(h.eng.byID["a"].iso, func() { <-release }) })
	fh.finish(0)
	h.event(statedir.EventWorkerCompleted)
	assert.Equal(t, phaseCommitting, h.phaseOf("a"))
	close(release)
	h.event(statedir.EventRunFinished)
	assert.Equal(t, phaseDone, h.phaseOf("a"))
}

func TestAnAttemptThatNeverStartedIsDone(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 1}))
	h := startHarnessWith(t, plan, func(pane, wrapper *fakeSurface) {
		pane.fail = errNoPty
		wrapper.fail = os.ErrPermission
	})
	h.event(statedir.EventRunFinished)
	assert.Equal(t, phaseDone, h.phaseOf("a"))
}
