//go:build linux

// screen_test.go: every attempt feeds a screen of its own, a vt.Terminal
// panes makes: on a pane it answers the child's queries through the pty,
// and with the run's vt.Activity its output wakes the UIs and its bells
// are counted where the UI reads them.
package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// waitWoken waits up to d for a wake-up on c.
func waitWoken(t *testing.T, c <-chan struct{}, d time.Duration) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(d):
		require.FailNow(t, "no wake-up", "after %s", d)
	}
}

func TestAPaneFeedsItsOwnTerminal(t *testing.T) {
	act := vt.NewActivity()
	wake, stop := act.Listen()
	defer stop()
	// The child asks for the cursor position and reads the answer, which
	// only the pane's own emulator can give.
	l := newLaunch(t, []string{"bash", "-c", `IFS= read -rs -d R -p $'\e[6n' pos; printf 'pos:%s\a\r\n' "${pos#*[}"`})
	l.Cols, l.Rows = 40, 5
	p, err := StartPTY(l, PTYOptions{Activity: act})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	term, ok := p.Screen().(*vt.Terminal)
	require.True(t, ok, "the pane's screen is a vt.Terminal, got %T", p.Screen())
	waitWoken(t, wake, 5*time.Second)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	assert.Contains(t, term.Text(false), "pos:1;1")
	assert.Equal(t, int64(1), term.Bells(), "the bell is counted on the pane's terminal")
	c, r := term.Size()
	assert.Equal(t, [2]int{40, 5}, [2]int{c, r})
}

func TestAWrapperFeedsItsOwnTerminal(t *testing.T) {
	act := vt.NewActivity()
	wake, stop := act.Listen()
	defer stop()
	p, err := StartWrapper(newLaunch(t, sh(`printf 'one\ntwo\n'`)), WrapperOptions{Activity: act})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	term, ok := p.Screen().(*vt.Terminal)
	require.True(t, ok, "the wrapper's screen is a vt.Terminal, got %T", p.Screen())
	waitWoken(t, wake, 5*time.Second)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	assert.True(t, strings.HasPrefix(term.Text(false), "one\ntwo\n"), "lone newlines shown as a tty would: %q", term.Text(false))
}

func TestAPaneTellsWhatTheChildReportsOfItself(t *testing.T) {
	notes := make(chan vt.Notification, 4)
	states := make(chan vt.AgentState, 4)
	l := newLaunch(t, sh(`printf '\033]7501;state=blocked:app=codex:kind=permission\007\033]9;Approve rm?\007'`))
	l.OnNotify = func(n vt.Notification) { notes <- n }
	l.OnAgentState = func(s vt.AgentState) { states <- s }
	p, err := StartPTY(l, PTYOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	select {
	case s := <-states:
		assert.Equal(t, "blocked", s.State)
		assert.Equal(t, "permission", s.Kind)
	case <-time.After(5 * time.Second):
		require.FailNow(t, "no program status from the pane")
	}
	select {
	case n := <-notes:
		assert.Equal(t, "Approve rm?", n.Body)
	case <-time.After(5 * time.Second):
		require.FailNow(t, "no notification from the pane")
	}
	waitDone(t, p, 5*time.Second)
}
