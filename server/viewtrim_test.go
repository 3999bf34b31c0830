// viewtrim_test.go checks that a View's rows go without their blank ends
// (trimRows in view.go) and paint the same screen.
package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/panes/vt"
)

// A row's blank end goes as an EL only where its cells have the default
// style, and the row painted from it is the row it came from.
func TestViewRowsTrimmedOnlyWhereBlank(t *testing.T) {
	pad := strings.Repeat(" ", 20)
	assert.Equal(t, "text\x1b[K", trimLine("text"+pad))
	assert.Equal(t, "\x1b[31mred\x1b[m\x1b[K", trimLine("\x1b[31mred\x1b[m"+pad))
	assert.Equal(t, "\x1b[44mblue"+pad, trimLine("\x1b[44mblue"+pad), "a coloured blank end is kept")
	assert.Equal(t, "\x1b]8;;http://x\x1b\\link"+pad, trimLine("\x1b]8;;http://x\x1b\\link"+pad), "an open hyperlink's blank end is kept")
	assert.Equal(t, "ab  ", trimLine("ab  "), "a few blanks are cheaper than an EL")

	src := vt.New(40, 4, vt.Options{})
	_, _ = src.Write([]byte("plain\r\n\x1b[1;32mgreen\x1b[m then\r\n\x1b[44mblue to the end\x1b[K\x1b[m\r\n\x1b[7mrev\x1b[m"))
	dst := vt.New(40, 4, vt.Options{})
	_, _ = dst.Write([]byte("\x1b[41m" + strings.Repeat("X", 160) + "\x1b[m")) // what the rows had before
	pv := PaneView{Cols: 40, Rows: 4, Lines: map[int]string{}}
	for i, l := range trimRows(src.Window(0, true)) {
		pv.Lines[i] = l
	}
	_, _ = dst.Write(paneSeq(dst, pv))
	assert.Equal(t, src.ANSI(false), dst.ANSI(false))
}
