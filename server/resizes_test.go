// resizes_test.go checks that a flood of Resize frames is coalesced: the
// client's program takes a handful of sizes, the last one among them; the
// pane's terminal is resized once, to the last size; and keys sent after
// the flood reach the program after the last size, and the pane.
package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/tui"
)

// msgRecorder keeps, in order, the sizes and keys a client's model took.
type msgRecorder struct {
	tea.Model
	mu  *sync.Mutex
	got *[]string
}

func (r msgRecorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		r.mu.Lock()
		*r.got = append(*r.got, fmt.Sprintf("size %d×%d", msg.Width, msg.Height))
		r.mu.Unlock()
	case tea.KeyPressMsg:
		r.mu.Lock()
		*r.got = append(*r.got, "key "+msg.String())
		r.mu.Unlock()
	}
	m, cmd := r.Model.Update(msg)
	r.Model = m
	return r, cmd
}

func TestAResizeFloodIsCoalescedAndKeysComeAfterIt(t *testing.T) {
	var mu sync.Mutex
	var got []string
	h := startServer(t, 1, "", func(_ *harness, c *Config) {
		c.WrapModel = func(m *tui.Model) tea.Model { return msgRecorder{Model: m, mu: &mu, got: &got} }
	})
	c := attachClient(t, h.plan.StateDir, 120, 40)
	c.waitText("attach", "hello from w00")
	w0 := h.surf.handle("w00")
	require.Eventually(t, func() bool { cols, _ := w0.size(); return cols == 118 }, 10*time.Second, 5*time.Millisecond,
		"the pane takes the client's layout")
	w0.mu.Lock()
	resizedBefore := len(w0.sizes)
	w0.mu.Unlock()

	// 10,000 sizes, the last 150×45, then keys: all in one write, as fast
	// as the server reads.
	const flood = 10000
	var b []byte
	for i := range flood - 1 {
		b = AppendFrame(b, FrameResize, AppendResize(nil, 80+i%120, 24+i%30))
	}
	b = AppendFrame(b, FrameResize, AppendResize(nil, 150, 45))
	b = AppendFrame(b, FrameInput, []byte("i"))
	b = AppendFrame(b, FrameInput, []byte("after the flood\r"))
	_, err := c.c.Write(b)
	require.NoError(t, err)

	require.Eventually(t, func() bool { return w0.Typed() == "after the flood\r" }, 10*time.Second, 5*time.Millisecond,
		"the keys sent after the flood reach the pane")
	require.Eventually(t, func() bool { cols, rows := w0.size(); return cols == 148 && rows == 42 }, 10*time.Second, 5*time.Millisecond,
		"the pane's terminal takes the last size")

	mu.Lock()
	log := append([]string{}, got...)
	mu.Unlock()
	sizes, firstKey := 0, -1
	for i, e := range log {
		if strings.HasPrefix(e, "size ") {
			sizes++
		}
		if firstKey < 0 && strings.HasPrefix(e, "key ") {
			firstKey = i
		}
	}
	require.Positive(t, firstKey, "the model got the keys: %q", log)
	assert.Equal(t, "size 150×45", log[firstKey-1], "the last size reaches the program before the keys sent after it")
	assert.LessOrEqual(t, sizes, 10, "sizes the program took for %d resize frames", flood)

	w0.mu.Lock()
	resized := w0.sizes[resizedBefore:]
	w0.mu.Unlock()
	assert.Equal(t, [][2]int{{148, 42}}, resized, "the pane's terminal is resized once, to the last size")
}
