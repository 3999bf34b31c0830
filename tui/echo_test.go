package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// echoModel is a UI of two panes on one Activity, typing into the first
// while the second streams; now is its clock.
func echoModel(t *testing.T) (m *Model, typed, other *vt.Terminal, now *time.Time) {
	f := fakeRun(t, 2, 120, 30)
	act := vt.NewActivity()
	typed, other = vt.New(58, 26, vt.Options{Activity: act}), vt.New(58, 26, vt.Options{Activity: act})
	f.handles["claude-implementer"].term, f.handles["claude-implementer"].screen = typed, typed
	f.handles["codex-tester"].term, f.handles["codex-tester"].screen = other, other
	clock := testNow
	m = New(f, Options{Now: func() time.Time { return clock }, Activity: act})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	press(m, "i")
	require.Equal(t, modeInput, m.mode)
	return m, typed, other, &clock
}

// A key typed while another pane streams, its frame due later, is drawn
// as soon as its pane echoes it; the other pane's output does not count.
func TestAKeysEchoIsDrawnAtOnceWhileAnotherPaneStreams(t *testing.T) {
	m, typed, other, now := echoModel(t)
	_, _ = other.Write([]byte("line 1\r\n"))
	m.Update(frameMsg{})
	*now = now.Add(5 * time.Millisecond)
	_, _ = other.Write([]byte("line 2\r\n"))
	_, tick := m.Update(wakeMsg{})
	require.NotNil(t, tick, "the stream's next frame is due a frame after the last")
	drawn := m.lastFrame

	msg := m.Filter(m, keyMsg("x"))
	require.Equal(t, echoWatchMsg{}, msg, "the key asks for its echo's watcher")
	_, watch := m.Update(msg)
	require.NotNil(t, watch)
	assert.Nil(t, m.Filter(m, keyMsg("y")), "one watcher at a time: the next key draws nothing")
	got := make(chan tea.Msg, 1)
	go func() { got <- watch() }()
	_, _ = other.Write([]byte("line 3\r\n"))
	select {
	case msg := <-got:
		t.Fatalf("the other pane's output ended the watch: %#v", msg)
	case <-time.After(20 * time.Millisecond):
	}
	_, _ = typed.Write([]byte("x"))
	select {
	case msg = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the echo never ended the watch")
	}
	require.Equal(t, echoedMsg{}, msg)
	*now = now.Add(time.Millisecond)
	m.Update(msg)
	assert.True(t, m.lastFrame.After(drawn), "the echo is drawn at once, not at the frame's tick")
	assert.Equal(t, echoWait{}, m.echo, "the watch is over")
	assert.Equal(t, echoWatchMsg{}, m.Filter(m, keyMsg("z")), "the next key has a watcher of its own")
}

// A key whose pane never echoes (a child reading without echo) ends its
// watch after echoWindow and draws nothing for it.
func TestAnUnansweredKeysWatchEnds(t *testing.T) {
	m, _, _, _ := echoModel(t)
	msg := m.Filter(m, keyMsg("x"))
	require.Equal(t, echoWatchMsg{}, msg)
	_, watch := m.Update(msg)
	drawn := m.lastFrame
	start := time.Now()
	got := watch()
	assert.Equal(t, echoedMsg{timedOut: true}, got)
	assert.GreaterOrEqual(t, time.Since(start), echoWindow)
	_, cmd := m.Update(got)
	assert.Nil(t, cmd)
	assert.Equal(t, drawn, m.lastFrame, "no frame for a key with no echo")
	assert.Equal(t, echoWatchMsg{}, m.Filter(m, keyMsg("y")), "the next key is watched")
}

// A frame an echo drew early leaves the stream's tick armed: the next
// wake-up arms no second one (each would keep a chain of ticks alive).
func TestAnEchosFrameLeavesOneFrameTickArmed(t *testing.T) {
	m, typed, other, now := echoModel(t)
	_, _ = other.Write([]byte("line 1\r\n"))
	m.Update(frameMsg{})
	*now = now.Add(5 * time.Millisecond)
	require.NotNil(t, m.frameWhenDue(), "the stream's next frame is armed")
	msg := m.Filter(m, keyMsg("x"))
	_, watch := m.Update(msg)
	_, _ = typed.Write([]byte("x"))
	m.Update(watch())
	*now = now.Add(time.Millisecond)
	assert.Nil(t, m.frameWhenDue(), "a tick is armed already")
	*now = now.Add(frameInterval)
	m.Update(frameMsg{})
	assert.False(t, m.frameArmed, "the armed tick, due, drew its frame")
}
