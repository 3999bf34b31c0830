package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/statedir"
)

// A resumed attempt says so in its pane's title (docs/state.md §Resumed attempts).
func TestAResumedAttemptsTitleSaysSo(t *testing.T) {
	f := fakeRun(t, 2, 120, 30)
	id := f.plan.Workers[0].ID
	f.setWorker(id, func(_ *statedir.WorkerRow, d *statedir.DispatchRow) {
		d.Attempt = 2
		d.ResumedFrom = &statedir.ResumedFrom{Attempt: 1, Session: "0b7e4a3c-9f21-4d6a-8c55-3e2f1a0b9c8d"}
	})
	m := newModel(t, f, 160, 30)
	screen := ansi.Strip(m.Render())
	assert.Contains(t, lineWith(screen, id), " "+id+" · PTY · attempt 2/3 ↻ resumed · running ")
	assert.Contains(t, lineWith(screen, f.plan.Workers[1].ID), " · attempt 1/3 · running", "another pane's is not")
}
