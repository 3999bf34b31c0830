// fuzz_test.go holds FuzzTerm: arbitrary bytes, written in arbitrary
// chunks with resizes in between, never panic and never put the cursor or
// a rendered line outside the screen. Seeds: the corpus streams and a few
// hand-made edge cases.
package vt

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzTerm(f *testing.F) {
	for _, it := range loadCorpus(f) {
		data, err := os.ReadFile(it.path)
		require.NoError(f, err)
		f.Add(data[:min(len(data), 8192)], uint8(it.cols), uint8(it.rows))
	}
	for _, s := range []string{
		"\x1b[?1049h\x1b[5;20r\x1b[?6h\x1b[99;99H\x1b[10L\x1b[10M\x1b[?1049l",
		"中中中中\x1b[1;2H\x1b[2@\x1b[3P\x1b[4X\x1b[5b\x1b#8",
		"\x1b[1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21:22:23:24:25:26:27:28:29:30:31:32:33:34m",
		"\x1b[38:2:1m\x1b[48;5m\x1b[58;2;1;2m\x1b[4:9m",
		"e\u0301\u0302\u0303\r\u0301\x1b[?7l中中中中中中\x1b[?7h",
		"\x1b]8;;http://x\x1b\\a\x1b]8;;\x1b\\\x1bP+q\x1b\\\x1b_G\x1b\\",
		"\xf0\x9f\x98\x80\xf0\x9f\x98\xe4\xb8\xad\xc2\x9b\x1b(0lqk\x0e\x0f",
	} {
		f.Add([]byte(s), uint8(7), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, cols, rows uint8) {
		tm := New(int(cols%200)+1, int(rows%60)+1, Options{
			Scrollback: 50,
			OnReply:    func([]byte) {},
			OnBell:     func() {},
			OnTitle:    func(string) {},
		})
		for i := 0; len(data) > 0; i++ {
			n := min(len(data), 1+int(data[0])%257)
			_, _ = tm.Write(data[:n])
			data = data[n:]
			if i%5 == 4 && len(data) > 1 {
				tm.Resize(int(data[0]%150)+1, int(data[1]%50)+1)
			}
			x, y, _ := tm.Cursor()
			c, r := tm.Size()
			require.True(t, x >= 0 && x < c && y >= 0 && y < r, "cursor %d,%d outside %dx%d", x, y, c, r)
		}
		checkInvariants(t, tm)
		_ = tm.Text(true)
		_ = tm.ANSI(true)
		_, _ = tm.Find("a", 0, true)
		tm.FlushReplies()
	})
}
