//go:build linux

// typeline_test.go tests TypeLine on real ptys: a child that enabled
// bracketed paste gets the text as one paste and then Enter, one that did
// not gets keys and Enter, and an attempt that has ended refuses it.
package panes

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTypeLineIsAPasteAndThenEnter(t *testing.T) {
	scr, newScreen := newRecScreen()
	p, err := StartPTY(newLaunch(t, sh(`printf '\033[?2004hready\n'; `+readLoop)), PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, "ready", 5*time.Second)
	how, err := p.TypeLine("two\nlines", nil)
	require.NoError(t, err)
	assert.Equal(t, "paste", how)
	// The line discipline cuts the paste at its CR; the child's read sees
	// the markers around the whole text, then the Enter after it.
	scr.waitFor(t, "got:\x1b\\[200~two\r\n(.|\n)*got:lines\x1b\\[201~\r\n", 5*time.Second)
	assert.Equal(t, 2, strings.Count(scr.String(), "got:"), "one Enter, after the paste")
}

func TestTypeLineAsKeysWithoutBracketedPaste(t *testing.T) {
	scr, newScreen := newRecScreen()
	p, err := StartPTY(newLaunch(t, sh(`echo ready; `+readLoop)), PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, "ready", 5*time.Second)
	entered := false
	how, err := p.TypeLine("hello there", func() { entered = true })
	require.NoError(t, err)
	assert.True(t, entered, "told before Enter")
	assert.Equal(t, "keys", how)
	scr.waitFor(t, "got:hello there\r\n", 5*time.Second)

	_, err = p.Write([]byte{4})
	require.NoError(t, err)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	_, err = p.TypeLine("late", nil)
	assert.ErrorIs(t, err, os.ErrClosed)
}

// TestTypePromptAwaitsTheAgentsWord: a pane whose typing awaits its
// agent's readiness (Launch.TypeAwaitAgent) does not type into a child
// that looks ready to the pty (raw, bracketed paste, quiet) until
// AgentReady, and then does, once.
func TestTypePromptAwaitsTheAgentsWord(t *testing.T) {
	l := newLaunch(t, []string{"bash", "-c", `stty raw -echo; printf '\033[?2004hdrawn\r\n'; read -r -t 1.5 -n 100000 early; printf 'early:%s\r\n' "$early"; head -c 19 | od -An -c; stty sane`})
	l.TypePrompt = []byte("say hi")
	l.TypeQuiet = 100 * time.Millisecond
	l.TypeAwaitAgent = true
	p, err := StartPTY(l, PTYOptions{NewScreen: paneTerm})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scrText := func() string { b, _ := os.ReadFile(l.OutputLog); return string(b) }
	require.Eventually(t, func() bool { return strings.Contains(scrText(), "early:") }, 10*time.Second, 20*time.Millisecond)
	select {
	case how := <-p.PromptDelivered():
		t.Fatalf("typed (%s) before the agent said it was ready", how)
	default:
	}
	p.AgentReady()
	p.AgentReady() // a second word changes nothing
	assert.Equal(t, "paste", waitDelivered(t, p, 10*time.Second, "never typed after AgentReady"))
	log := endedLog(t, p, l.OutputLog, 10*time.Second)
	assert.Contains(t, string(log), "early:\r\n", "nothing typed before the agent's word")
	assert.Regexp(t, `033\s+\[\s+2\s+0\s+0\s+~\s+s\s+a\s+y\s+h\s+i\s+033\s+\[\s+2\s+0\s+1\s+~\s+\\r`, string(log))
}

// TestTypePromptAwaitingAnAgentStillHasItsLimit: an agent that never says
// it is ready gets its prompt after TypeReadyLimit, as any child does.
func TestTypePromptAwaitingAnAgentStillHasItsLimit(t *testing.T) {
	l := newLaunch(t, []string{"bash", "-c", `stty raw -echo; printf '\033[?2004hdrawn\r\n'; head -c 19 | od -An -c; stty sane`})
	l.TypePrompt = []byte("say hi")
	l.TypeQuiet = 100 * time.Millisecond
	l.TypeReadyLimit = time.Second
	l.TypeAwaitAgent = true
	p, err := StartPTY(l, PTYOptions{NewScreen: paneTerm})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, "paste", waitDelivered(t, p, 10*time.Second, "never typed"))
	log := endedLog(t, p, l.OutputLog, 10*time.Second)
	assert.Regexp(t, `s\s+a\s+y\s+h\s+i`, string(log))
}
