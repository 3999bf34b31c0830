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
