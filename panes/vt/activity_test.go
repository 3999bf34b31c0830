// activity_test.go: a Terminal of a run counts its own bells and wakes
// every UI listening to the run's Activity, coalescing a burst into one
// wake-up, and answers colour queries from the Activity's Colors.
package vt

import (
	stdcolor "image/color"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// woken reports whether c has a wake-up waiting, taking it.
func woken(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestActivityWakesEveryListenerOncePerBurst(t *testing.T) {
	act := NewActivity()
	a, stopA := act.Listen()
	b, stopB := act.Listen()
	defer stopB()
	tm := New(20, 3, Options{Activity: act})
	feedString(t, tm, "one")
	feedString(t, tm, "two")
	assert.True(t, woken(a), "a listener is woken by a write")
	assert.False(t, woken(a), "two writes before it looked: one wake-up")
	assert.True(t, woken(b), "every listener is woken")

	stopA()
	stopA() // twice is harmless
	feedString(t, tm, "three")
	assert.False(t, woken(a), "a stopped listener is not woken")
	assert.True(t, woken(b))

	plain := New(20, 3, Options{})
	feedString(t, plain, "x")
	assert.False(t, woken(b), "a terminal of no run wakes nobody")
}

func TestTerminalCountsBellsNotOSCEnds(t *testing.T) {
	tm := New(20, 3, Options{})
	assert.Zero(t, tm.Bells())
	feedString(t, tm, "ring\a\x1b]0;title\x07")
	feedString(t, tm, "\a")
	assert.Equal(t, int64(2), tm.Bells(), "two BELs; the one ending the OSC is no bell")
}

func TestTerminalOfARunAnswersWithItsColours(t *testing.T) {
	act := NewActivity()
	act.Colors.SetBackground(stdcolor.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff})
	var replies []string
	tm := New(20, 3, Options{Activity: act, OnReply: func(b []byte) { replies = append(replies, string(b)) }})
	feedString(t, tm, "\x1b]11;?\x07")
	tm.FlushReplies()
	require.Len(t, replies, 1)
	assert.Equal(t, "\x1b]11;rgb:ffff/ffff/ffff\x07", replies[0])
}
