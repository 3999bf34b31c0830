// copymode_test.go checks copy mode: golden screens (SGR kept, ESC as \e)
// of the cursor and of each kind of selection, the text each copies to the
// clipboard (the OSC 52 command bubbletea is given), the motions, the
// frozen view, and mouse drags that stay inside their pane.
package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// copyOutput is what the copy-mode scenes' pane shows: colours, wide
// characters, a line too long for the pane (it wraps), trailing spaces.
const copyOutput = "$ make test\r\n" +
	"ok   pkg/a  0.2s\r\n" +
	"\x1b[31mFAIL\x1b[m pkg/b: expected 中文 got 日本\r\n" +
	"a very long line that goes past the edge of the pane and wraps onto the next row\r\n" +
	"trailing spaces   \r\n" +
	"done\r\n"

// copyScene is one pane at 60×12 (58×9 inside) showing copyOutput.
func copyScene(t *testing.T) (*Model, *fakeHandle) {
	t.Helper()
	f := fakeRun(t, 1, 60, 12)
	h := f.handles["claude-implementer"]
	cols, rows := h.term.Size()
	h.term = vt.New(cols, rows, vt.Options{})
	_, _ = h.term.Write([]byte(copyOutput))
	return newModel(t, f, 60, 12), h
}

// clipboardOf runs cmd as bubbletea would, feeding its messages back to
// m, and returns what it sets the clipboard to (the OSC 52 bubbletea
// writes), failing when it sets none.
func clipboardOf(t *testing.T, m *Model, cmd tea.Cmd) string {
	t.Helper()
	s, ok := findClipboard(m, cmd)
	require.True(t, ok, "the command sets no clipboard")
	return s
}

// findClipboard runs cmd: a batch's commands and a sequence's in order
// (bubbletea's sequenceMsg, by reflection), the copy's note fed to m.
// It checks that the copy's note comes only after the clipboard is set:
// bubbletea writes the OSC 52 with the frame that shows the note.
func findClipboard(m *Model, cmd tea.Cmd) (text string, ok bool) {
	if cmd == nil {
		return "", false
	}
	var walk func(msg tea.Msg)
	walk = func(msg tea.Msg) {
		switch {
		case msg == nil:
		case fmt.Sprintf("%T", msg) == "tea.setClipboardMsg":
			text, ok = reflect.ValueOf(msg).String(), true
		case fmt.Sprintf("%T", msg) == "tea.sequenceMsg", fmt.Sprintf("%T", msg) == "tea.BatchMsg":
			v := reflect.ValueOf(msg)
			for i := range v.Len() {
				if c, _ := v.Index(i).Interface().(tea.Cmd); c != nil {
					walk(c())
				}
			}
		default:
			if _, copied := msg.(copiedMsg); copied {
				if !ok {
					panic("the copy's note comes before its OSC 52")
				}
				m.Update(msg)
			}
		}
	}
	walk(cmd())
	return text, ok
}

func TestGoldenCopyCursor(t *testing.T) {
	m, _ := copyScene(t)
	press(m, "c")
	require.Equal(t, modeCopy, m.mode)
	assert.Equal(t, vt.Pos{Line: 7, Col: 0}, m.copy.cur, "copy mode starts at the program's cursor")
	press(m, "k", "k", "k", "k", "w", "w")
	assert.Equal(t, vt.Pos{Line: 3, Col: 7}, m.copy.cur)
	requireGoldenANSI(t, m)
	assert.Contains(t, ansi.Strip(m.Render()), "COPY 4/9", "the border says where the cursor is")
}

func TestGoldenCopySelectCharacters(t *testing.T) {
	m, _ := copyScene(t)
	press(m, "c", "g", "j", "j", "v", "e", "e", "e", "e")
	requireGoldenANSI(t, m)
	assert.Equal(t, "FAIL pkg/b", copySelected(t, m))
}

func TestGoldenCopySelectLines(t *testing.T) {
	m, _ := copyScene(t)
	press(m, "c", "g", "j", "j", "l", "V", "j", "j")
	requireGoldenANSI(t, m)
	assert.Equal(t, "FAIL pkg/b: expected 中文 got 日本\n"+
		"a very long line that goes past the edge of the pane and wraps onto the next row\n",
		copySelected(t, m), "whole lines, the wrapped one joined")

	// As in tmux, the cursor's end takes its row, not the rest of a
	// wrapped line.
	press(m, "c", "g", "j", "j", "V", "j")
	assert.Equal(t, "FAIL pkg/b: expected 中文 got 日本\na very long line that goes past the edge of the pane and w", copySelected(t, m))
}

func TestGoldenCopySelectBlock(t *testing.T) {
	m, _ := copyScene(t)
	press(m, "c", "g", "j", "l", "l", "ctrl+v", "j", "j", "l", "l", "l")
	requireGoldenANSI(t, m)
	assert.Equal(t, "   p\nIL p\nvery", copySelected(t, m))
}

// copySelected presses y and returns what went to the clipboard, checking
// that copy mode is left.
func copySelected(t *testing.T, m *Model) string {
	t.Helper()
	s := clipboardOf(t, m, press(m, "y"))
	assert.Equal(t, modeNormal, m.mode, "y leaves copy mode")
	assert.Nil(t, m.copy)
	assert.Contains(t, m.note, "to the clipboard (OSC 52)")
	return s
}

func TestCopyWideCharactersAndTrailingSpaces(t *testing.T) {
	m, _ := copyScene(t)
	press(m, "c", "g", "j", "j", "$")
	cm := m.copy
	assert.Equal(t, vt.Pos{Line: 2, Col: 34}, cm.cur, "$ goes past the last character")
	press(m, "h")
	assert.Equal(t, 32, cm.cur.Col, "h steps over the right half of 本")
	press(m, "v", "h", "h", "h", "h", "h")
	assert.Equal(t, 26, cm.cur.Col)
	assert.Equal(t, "got 日本", clipboardOf(t, m, press(m, "y")))

	press(m, "c", "g", "j", "j", "j", "j", "j", "v", "$")
	assert.Equal(t, "trailing spaces\n", clipboardOf(t, m, press(m, "y")), "trailing spaces dropped; past the end, the newline comes")
}

func TestCopyMotions(t *testing.T) {
	m, _ := copyScene(t)
	press(m, "c")
	cm := m.copy
	for _, c := range []struct {
		keys []string
		want vt.Pos
	}{
		{[]string{"g"}, vt.Pos{Line: 0, Col: 0}},
		{[]string{"G"}, vt.Pos{Line: 8, Col: 0}},
		{[]string{"g", "j", "j", "j", "j", "$"}, vt.Pos{Line: 4, Col: 22}},
		{[]string{"0"}, vt.Pos{Line: 3, Col: 0}},
		{[]string{"end"}, vt.Pos{Line: 4, Col: 22}},
		{[]string{"home"}, vt.Pos{Line: 3, Col: 0}},
		{[]string{"w", "w", "w"}, vt.Pos{Line: 3, Col: 12}},
		{[]string{"e"}, vt.Pos{Line: 3, Col: 15}},
		{[]string{"b", "b"}, vt.Pos{Line: 3, Col: 7}},
		{[]string{"g", "w", "w"}, vt.Pos{Line: 0, Col: 7}},
		{[]string{"H"}, vt.Pos{Line: 0, Col: 7}},
		{[]string{"L"}, vt.Pos{Line: 8, Col: 7}},
		{[]string{"M"}, vt.Pos{Line: 4, Col: 7}},
		{[]string{"ctrl+u"}, vt.Pos{Line: 0, Col: 7}},
		{[]string{"ctrl+d"}, vt.Pos{Line: 4, Col: 7}},
		{[]string{"g", "j", "j", "j", "j", "j", "j", "^"}, vt.Pos{Line: 6, Col: 0}},
		{[]string{"g", "5", "l", "l"}, vt.Pos{Line: 0, Col: 2}},
	} {
		press(m, c.keys...)
		assert.Equal(t, c.want, cm.cur, "after %v", c.keys)
	}
	press(m, "g", "v", "j", "o")
	assert.Equal(t, vt.Pos{Line: 0, Col: 0}, cm.cur, "o goes to the other end")
	assert.Equal(t, vt.Pos{Line: 1, Col: 0}, cm.anchor)
	press(m, "v")
	assert.False(t, cm.selecting, "v again stops selecting")
}

func TestCopyModeIsFrozenAndScrollsBack(t *testing.T) {
	f := fakeRun(t, 1, 60, 12)
	h := f.handles["claude-implementer"]
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	_, _ = h.term.Write([]byte(b.String()))
	m := newModel(t, f, 60, 12)
	press(m, "c")
	_, _ = h.term.Write([]byte("printed during copy mode\r\n"))
	m.refresh()
	assert.NotContains(t, ansi.Strip(m.Render()), "printed during copy mode", "copy mode shows the pane as it was")
	press(m, "pgup", "pgup")
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "line 76")
	assert.NotContains(t, screen, "line 99")
	press(m, "g")
	assert.Contains(t, ansi.Strip(m.Render()), "$ claude --task", "g goes to the oldest line")
	press(m, "esc")
	assert.Equal(t, modeNormal, m.mode)
	assert.Contains(t, ansi.Strip(m.Render()), "printed during copy mode", "leaving copy mode shows the live screen")
}

func TestCopyNothingSelectedSaysSo(t *testing.T) {
	m, _ := copyScene(t)
	press(m, "c")
	_, ok := findClipboard(m, press(m, "y"))
	assert.False(t, ok)
	assert.Equal(t, modeCopy, m.mode)
	assert.Contains(t, m.note, "nothing is selected: v starts a selection")
	press(m, "q")
	assert.Equal(t, modeNormal, m.mode)
}

func TestCopyNeedsAScreen(t *testing.T) {
	f := fakeRun(t, 1, 60, 12)
	delete(f.handles, "claude-implementer")
	m := newModel(t, f, 60, 12)
	press(m, "c")
	assert.Equal(t, modeNormal, m.mode)
	assert.Contains(t, m.note, "nothing to copy from in claude-implementer yet")
}

func mouse(m *Model, msg tea.MouseMsg) tea.Cmd {
	_, cmd := m.Update(msg)
	return cmd
}

func TestMouseDragSelectsInsideItsPaneAndCopies(t *testing.T) {
	f := fakeRun(t, 2, 120, 12)
	h := f.handles["claude-implementer"]
	cols, rows := h.term.Size()
	h.term = vt.New(cols, rows, vt.Options{})
	_, _ = h.term.Write([]byte(copyOutput))
	m := newModel(t, f, 120, 12)
	vis := m.visible()
	in := vis[0].r.inner()
	// Press on "FAIL" (row 2), drag right past the pane's edge into the
	// next pane and down a row, release.
	mouse(m, tea.MouseClickMsg{X: in.x, Y: in.y + 2, Button: tea.MouseLeft})
	assert.Nil(t, m.copy, "a press alone is a click")
	mouse(m, tea.MouseMotionMsg{X: in.x + 3, Y: in.y + 2, Button: tea.MouseLeft})
	require.NotNil(t, m.copy, "a drag starts copy mode")
	mouse(m, tea.MouseMotionMsg{X: vis[1].r.x + 5, Y: in.y + 3, Button: tea.MouseLeft})
	assert.Equal(t, vt.Pos{Line: 3, Col: in.w - 1}, m.copy.cur, "the drag stays inside its pane")
	requireGoldenANSI(t, m)
	text := clipboardOf(t, m, mouse(m, tea.MouseReleaseMsg{X: vis[1].r.x + 5, Y: in.y + 3, Button: tea.MouseLeft}))
	assert.Equal(t, "FAIL pkg/b: expected 中文 got 日本\na very long line that goes past the edge of the pane and w", text)
	assert.NotContains(t, text, "│", "never a frame")
	assert.Nil(t, m.copy, "the release copies and leaves copy mode")
}

func TestMouseClickDoesNotCopy(t *testing.T) {
	m, _ := copyScene(t)
	in := m.visible()[0].r.inner()
	mouse(m, tea.MouseClickMsg{X: in.x + 2, Y: in.y + 1, Button: tea.MouseLeft})
	_, ok := findClipboard(m, mouse(m, tea.MouseReleaseMsg{X: in.x + 2, Y: in.y + 1, Button: tea.MouseLeft}))
	assert.False(t, ok)
	assert.Nil(t, m.copy)

	// In copy mode a click moves the cursor there.
	press(m, "c")
	mouse(m, tea.MouseClickMsg{X: in.x + 5, Y: in.y + 1, Button: tea.MouseLeft})
	mouse(m, tea.MouseReleaseMsg{X: in.x + 5, Y: in.y + 1, Button: tea.MouseLeft})
	require.NotNil(t, m.copy)
	assert.Equal(t, vt.Pos{Line: 1, Col: 5}, m.copy.cur)
}
