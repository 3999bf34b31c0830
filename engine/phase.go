// phase.go holds an attempt's phase: the one step of its life it is at
// (docs/design.md, "An attempt's life"), the steps it may take from each,
// and what happens when code asks for a step the life does not have.
//
// The phases are ordered: a guard asks "has it got this far?"
// (phase.atLeast) rather than reading a flag per step. The facts that are
// not steps of that life stay flags on attemptRT: its process has ended
// (an attempt that settles on its files is decided while its process
// still runs), a stop was sent, it holds a pane slot, it was cancelled or
// timed out, and what follows it (afterward).
package engine

import "fmt"

// phase is a step of an attempt's life, in the order they come.
type phase int

const (
	// phaseOpening: its folder, worktree, audit snapshot and process are
	// being made off the loop. An attempt is opening from the moment its
	// row is recorded.
	phaseOpening phase = iota
	// phaseRunning: its process was started and its outcome is not decided.
	phaseRunning
	// phaseSettling: its outcome waits for its write audit's walk and, for
	// an isolated worker, the check of the shared repository (repocheck.go).
	phaseSettling
	// phaseDecided: its outcome is on its row; its process may still run
	// (settled on its files), and an isolated worker's work is not yet
	// committed.
	phaseDecided
	// phaseCommitting: its work is being committed on its worktree's branch.
	phaseCommitting
	// phaseDone: decided, its process ended (or never started), its work
	// committed: nothing of it is left to do.
	phaseDone
)

var phaseNames = [...]string{
	phaseOpening:    "opening",
	phaseRunning:    "running",
	phaseSettling:   "settling",
	phaseDecided:    "decided",
	phaseCommitting: "committing",
	phaseDone:       "done",
}

func (p phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("phase(%d)", int(p))
	}
	return phaseNames[p]
}

// atLeast reports whether an attempt at p has got as far as q.
func (p phase) atLeast(q phase) bool { return p >= q }

// phaseSteps is every step an attempt's life has; any other is refused.
var phaseSteps = map[phase][]phase{
	// Opened, or it never started a process (its outcome is then written
	// at once, with nothing to commit).
	phaseOpening: {phaseRunning, phaseDone},
	// Settled: audited, or decided at once.
	phaseRunning:  {phaseSettling, phaseDecided},
	phaseSettling: {phaseDecided},
	// Its process has ended: an isolated worker's work is committed;
	// anyone else's attempt is over.
	phaseDecided:    {phaseCommitting, phaseDone},
	phaseCommitting: {phaseDone},
}

// canGo reports whether an attempt at p may step to q.
func (p phase) canGo(q phase) bool {
	for _, next := range phaseSteps[p] {
		if next == q {
			return true
		}
	}
	return false
}

// strictPhases makes an illegal step panic. The engine's tests set it
// (phase_test.go), so a step the life does not have fails the test that
// took it. A running rostra leaves it off: panicking would bring the loop
// down with every worker's attempt and the unsaved state, so the step is
// refused instead (the attempt stays where it was and the caller does not
// do what the step would have done) and the refusal is written on the
// attempt's row, where whoever reads the run's state or report sees it.
var strictPhases = false

// advance steps a to phase to and reports whether it did: a step its life
// does not have is refused (strictPhases).
func (e *Engine) advance(a *attemptRT, to phase) bool {
	from := a.phase
	if from.canGo(to) {
		a.phase = to
		return true
	}
	why := fmt.Sprintf("rostra fault: attempt %d of %s cannot go from %s to %s; the step was refused (please report it)",
		a.plan.Attempt, a.w.spec.ID, from, to)
	if strictPhases {
		panic(why)
	}
	if a.idx >= 0 && a.idx < len(e.st.Dispatches) {
		d := &e.st.Dispatches[a.idx]
		d.Reason = joinReason(d.Reason, why)
		e.dirty = true
	}
	return false
}

// afterward is what follows an attempt once its outcome is decided: asked
// for by a human while it ran or settled, and independent of its phase.
type afterward int

const (
	// afterPolicy: its worker's retry policy decides.
	afterPolicy afterward = iota
	// afterManual: a manual attempt starts (Retry).
	afterManual
	// afterNoRetry: no automatic retry (Cancel while it was settling,
	// when only a retry was left to cancel).
	afterNoRetry
)
