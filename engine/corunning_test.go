package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// An attempt that is not audited keeps no list of whom it ran with, but an
// audited one still names it among those that may have written what its
// audit found (docs/performance.md §Memory of a quiet pane).
func TestUnauditedCoRunnerIsNamed(t *testing.T) {
	ws := []runfile.WorkerSpec{
		withResult(runfile.WorkerSpec{ID: "free"}), // started first: no write policy
		withResult(runfile.WorkerSpec{ID: "polite", Writes: []string{"out/**"}}),
		withResult(runfile.WorkerSpec{ID: "rude", Writes: []string{"out/**"}}),
	}
	h := startHarness(t, testPlan(t, ws...))
	opened := h.openedEach(h.pane, "free", "polite", "rude")
	for id := range opened {
		h.write("out/"+id+"/result.json", "{}")
	}
	h.write("src/f1.txt", "someone\n")
	opened["polite"].finish(0)
	ev := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, "polite", ev.WorkerID)
	assert.Equal(t, "readonly source changed (unattributed: 3 workers ran at once: free, polite, rude): src/f1.txt", ev.Reason)
}
