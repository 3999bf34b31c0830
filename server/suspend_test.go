// suspend_test.go: a client that suspends (its Suspend frame) gets its
// terminal back at once, nothing is drawn to it while it is stopped, and
// when it resumes it gets the whole frame and every key it types after.
package server

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestASuspendedClientGetsItsTerminalBackAndEveryKeyAfterItResumes(t *testing.T) {
	h := startServer(t, 1, "")
	c := attachClient(t, h.plan.StateDir, 120, 40)
	c.waitText("attach", "hello from w00")
	h.srv.mu.Lock()
	sessions := h.srv.sessionList()
	h.srv.mu.Unlock()
	require.Len(t, sessions, 1)
	ss := sessions[0]

	// waitOutput waits for want in what the client received after mark.
	waitOutput := func(what string, mark int, want string) int {
		t.Helper()
		var at int
		ok := assert.Eventually(t, func() bool {
			at = strings.Index(c.rawOutput()[mark:], want)
			return at >= 0
		}, 10*time.Second, time.Millisecond)
		if !ok {
			t.Fatalf("%s: the client never received %q after byte %d", what, want, mark)
		}
		return mark + at + len(want)
	}

	for round := range 3 {
		mark := len(c.rawOutput())
		c.send(FrameSuspend, nil)
		suspended := waitOutput("suspend", mark, ansi.ResetModeAltScreenSaveCursor)
		// The terminal is given back once the program's input reader has
		// ended, not abandoned in a read (bubbletea waits 500 ms for a read
		// it cannot interrupt, and the stale reader takes the next key).
		assert.Zero(t, ss.in.readers(), "round %d: the terminal was given back while the program's input was still read", round)

		c.send(FrameResume, AppendResize(nil, 120, 40))
		resumed := waitOutput("resume", suspended, ansi.SetModeAltScreenSaveCursor)
		waitOutput("the whole frame after resume", resumed, "hello from w00")
		assert.NotContains(t, c.rawOutput()[mark:suspended], "Leave rostra?")

		// The first key after the resume reaches the UI.
		c.keys("q")
		c.waitText("q after resume", "Leave rostra?")
		c.keys("\x1b")
		require.Eventually(t, func() bool { return !strings.Contains(c.text(), "Leave rostra?") }, 10*time.Second, time.Millisecond,
			"Esc closes the question; the screen:\n%s", c.text())
	}
}
