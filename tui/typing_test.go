// typing_test.go checks what reaches a pane's child besides the keys
// themselves: a burst of typed keys goes to the child without a frame per
// key (Filter), a paste of megabytes goes in whole and in order while the
// UI answers, the focus comes and goes as CSI I / CSI O, and Ctrl-Z
// suspends only outside typing.
package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitTyped waits until the child has been sent want (the writer runs on
// its own goroutine).
func waitTyped(t *testing.T, h *fakeHandle, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return h.Typed() == want }, 5*time.Second, time.Millisecond,
		"the child got %d bytes, want %d", len(h.Typed()), len(want))
}

// A key typed into a live pane is sent by the filter and never reaches
// Update (no frame is drawn for it); Ctrl-] and keys that change the
// screen do.
func TestFilterSendsTypedKeysWithoutAFrame(t *testing.T) {
	f := fakeRun(t, 2, 120, 30)
	m := newModel(t, f, 120, 30)
	h := f.handles["claude-implementer"]
	press(m, "i")
	require.Equal(t, modeInput, m.mode)
	for _, r := range "hello" {
		assert.Nil(t, m.Filter(m, keyMsg(string(r))), "a typed key draws no frame")
	}
	assert.Nil(t, m.Filter(m, keyMsg("ctrl+c")))
	waitTyped(t, h, "hello\x03")

	assert.NotNil(t, m.Filter(m, keyMsg("ctrl+]")), "Ctrl-] is rostra's")
	_, _ = h.term.Write([]byte(strings.Repeat("line\r\n", 100)))
	m.focused().scrollBy(-1, 0)
	require.NotEqual(t, -1, m.focused().top)
	assert.NotNil(t, m.Filter(m, keyMsg("x")), "a key brings a scrolled pane back to live: a frame")
	assert.NotNil(t, m.Filter(m, tea.PasteMsg{Content: "p"}), "only keys are filtered")
	press(m, "ctrl+]")
	assert.NotNil(t, m.Filter(m, keyMsg("x")), "not typing: the key is the UI's")
}

// 200 KB typed as keys (a paste into a terminal without bracketed paste)
// reach the child whole and in order, and the UI stays live.
func TestABurstOfKeysReachesTheChildWhole(t *testing.T) {
	f := fakeRun(t, 2, 120, 30)
	m := newModel(t, f, 120, 30)
	h := f.handles["claude-implementer"]
	press(m, "i")
	var want strings.Builder
	for i := range 200_000 {
		c := string(rune('a' + i%26))
		want.WriteString(c)
		if msg := m.Filter(m, keyMsg(c)); msg != nil {
			m.Update(msg)
		}
	}
	waitTyped(t, h, want.String())
	press(m, "ctrl+]")
	assert.Equal(t, modeNormal, m.mode)
	assert.Empty(t, m.note, "no key was dropped")
}

// A paste of 2 MB goes to the child in order, as one queue entry.
func TestABigPasteReachesTheChildWhole(t *testing.T) {
	f := fakeRun(t, 1, 120, 30)
	m := newModel(t, f, 120, 30)
	h := f.handles["claude-implementer"]
	press(m, "i")
	paste := strings.Repeat("0123456789abcdef", 2<<20/16)
	m.Update(tea.PasteMsg{Content: paste})
	press(m, "z")
	waitTyped(t, h, paste+"z")
}

// A child that enabled focus events (mode 1004) hears when its pane gains
// and loses the focus, and when the outer terminal does for the focused
// pane; a child that did not hears nothing.
func TestFocusEventsReachTheChildThatAskedForThem(t *testing.T) {
	f := fakeRun(t, 3, 120, 30)
	m := newModel(t, f, 120, 30)
	a, b, c := f.handles["claude-implementer"], f.handles["codex-tester"], f.handles["gemini-reviewer"]
	_, _ = a.term.Write([]byte("\x1b[?1004h"))
	_, _ = b.term.Write([]byte("\x1b[?1004h"))
	press(m, "tab") // a -> b
	waitTyped(t, a, "\x1b[O")
	waitTyped(t, b, "\x1b[I")
	m.Update(tea.BlurMsg{})
	waitTyped(t, b, "\x1b[I\x1b[O")
	press(m, "tab") // b -> c while the terminal has no focus: nothing
	m.Update(tea.FocusMsg{})
	press(m, "shift+tab") // c -> b
	waitTyped(t, b, "\x1b[I\x1b[O\x1b[I")
	assert.Equal(t, "\x1b[O", a.Typed())
	assert.Empty(t, c.Typed(), "c did not ask for focus events")
	assert.True(t, m.View().ReportFocus, "the UI asks the outer terminal for focus events")
}

func TestCtrlZSuspendsOnlyOutsideTyping(t *testing.T) {
	f := fakeRun(t, 1, 120, 30)
	m := newModel(t, f, 120, 30)
	cmd := m.onKey(keyMsg("ctrl+z"))
	require.NotNil(t, cmd)
	assert.Equal(t, tea.SuspendMsg{}, cmd())
	press(m, "i")
	assert.Nil(t, m.Filter(m, keyMsg("ctrl+z")), "typing: Ctrl-Z is the child's")
	waitTyped(t, f.handles["claude-implementer"], "\x1a")
}
