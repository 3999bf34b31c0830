// colors_test.go: the outer terminal's colours, as a UI learns them, are
// what the panes' children are told when they ask.
package tui

import (
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/panes/vt"
)

func TestPaneChildrenAreToldTheOuterTerminalsColours(t *testing.T) {
	f := fakeRun(t, 1, 80, 20)
	act := vt.NewActivity()
	m := New(f, Options{Activity: act, Now: func() time.Time { return testNow }})
	defer m.Close()
	var mu sync.Mutex
	var replies []string
	scr := vt.New(40, 10, vt.Options{Activity: act, OnReply: func(b []byte) {
		mu.Lock()
		replies = append(replies, string(b))
		mu.Unlock()
	}})
	ask := func() []string {
		mu.Lock()
		replies = nil
		mu.Unlock()
		_, _ = scr.Write([]byte("\x1b]11;?\x07\x1b]10;?\x07\x1b]4;1;?\x07"))
		scr.FlushReplies()
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), replies...)
	}
	assert.Equal(t, []string{"\x1b]11;rgb:0000/0000/0000\x07", "\x1b]10;rgb:c0c0/c0c0/c0c0\x07", "\x1b]4;1;rgb:8080/0000/0000\x07"}, ask(),
		"before the outer terminal answers: the defaults")

	m.Update(tea.BackgroundColorMsg{Color: ansi.TrueColor(0xfdf6e3)}) // a light terminal
	m.Update(tea.ForegroundColorMsg{Color: ansi.TrueColor(0x586e75)})
	m.Update(uv.UnknownOscEvent("\x1b]4;1;rgb:dcdc/3232/2f2f\x1b\\"))
	assert.Equal(t, []string{"\x1b]11;rgb:fdfd/f6f6/e3e3\x07", "\x1b]10;rgb:5858/6e6e/7575\x07", "\x1b]4;1;rgb:dcdc/3232/2f2f\x07"}, ask())
	assert.Contains(t, paletteQuery, "\x1b]4;0;?;1;?;", "the UI asks for the base palette")
}
