// zoomend_test.go checks a finished pane's view after zooming in and out:
// it shows its last lines from a line's start, not mid-line over empty
// room.
package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/statedir"
)

func TestZoomTwiceKeepsAFinishedPanesView(t *testing.T) {
	f := fakeRun(t, 2, 80, 24)
	h := f.handles["claude-implementer"]
	cols, rows := h.term.Size()
	h.term = vt.New(cols, rows, vt.Options{})
	var out strings.Builder
	// Lines that fill the pane once the long ones wrap at its width,
	// and need fewer rows when it is zoomed.
	for i := range rows - 3 {
		fmt.Fprintf(&out, "[claude] step %d/8 editing files\r\n", i+1)
	}
	out.WriteString("done: added Count to src/parser.go, wrote out/claude-implementer/result.json\r\n")
	_, _ = h.term.Write([]byte(out.String()))
	ended := testNow.Add(-time.Second)
	f.setWorker("claude-implementer", func(w *statedir.WorkerRow, d *statedir.DispatchRow) {
		w.Status, d.Status, d.EndedAt = statedir.StatusCompleted, statedir.StatusCompleted, &ended
	})
	m := newModel(t, f, 80, 24)
	resize := func() { // the resize's debounce over
		if c := m.applySizes(true); c != nil {
			c()
		}
	}
	resize()
	before := ansi.Strip(m.Render())
	press(m, "z")
	resize()
	press(m, "z")
	resize()
	after := ansi.Strip(m.Render())
	t.Logf("before:\n%s\nafter:\n%s", before, after)
	require.Equal(t, before, after)
}
