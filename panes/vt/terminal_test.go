// terminal_test.go holds behaviour tests of Terminal, one area each: printing,
// SGR, replies and callbacks, modes, alternate screen, scrollback, windows,
// search, resize, concurrency and garbage input. Exact screen semantics are
// checked against tmux in oracle_test.go.
package vt

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func feedString(t *testing.T, tm *Terminal, s string) {
	t.Helper()
	n, err := tm.Write([]byte(s))
	require.NoError(t, err)
	require.Equal(t, len(s), n)
}

func screenRows(tm *Terminal) []string {
	return strings.Split(strings.TrimSuffix(tm.Text(false), "\n"), "\n")
}

func TestTermPrintWrapAndPendingColumn(t *testing.T) {
	tm := New(5, 3, Options{})
	feedString(t, tm, "abcde")
	x, y, visible := tm.Cursor()
	assert.Equal(t, []int{4, 0}, []int{x, y}, "pending wrap shows on the last column")
	assert.True(t, visible)
	feedString(t, tm, "f")
	assert.Equal(t, []string{"abcde", "f", ""}, screenRows(tm))
	feedString(t, tm, "\x1b[?7l\r\nxyzuvwq")
	assert.Equal(t, "xyzuq", screenRows(tm)[2], "no autowrap: the last column is overwritten")
}

func TestTermWideAndCombining(t *testing.T) {
	tm := New(6, 2, Options{})
	feedString(t, tm, "a中b")
	x, _, _ := tm.Cursor()
	assert.Equal(t, 4, x, "a wide character takes two cells")
	feedString(t, tm, "e\u0301")
	assert.Equal(t, "a中be\u0301", screenRows(tm)[0], "a combining mark joins the previous cell")
	feedString(t, tm, "文")
	assert.Equal(t, []string{"a中be\u0301", "文"}, screenRows(tm), "a wide character that does not fit wraps")
	// Overwriting half of a wide character blanks the other half.
	feedString(t, tm, "\x1b[1;3Hx")
	assert.Equal(t, "a xbe\u0301", screenRows(tm)[0])
}

func TestTermSGRForms(t *testing.T) {
	tm := New(20, 2, Options{})
	feedString(t, tm, "\x1b[1;3;4:3;38;5;196;48;2;1;2;3;58:2::9:8:7mX\x1b[0;38:2:10:20:30;4:0mY\x1b[7;9;53;21mZ\x1b[m")
	cells := tm.scr.lines[0].cells
	st := tm.styles.list[cells[0].s]
	assert.Equal(t, cellStyle{fg: colorIndexed | 196, bg: rGB(1, 2, 3), ulColor: rGB(9, 8, 7),
		attrs: attrBold | attrItalic, ul: uLCurly}, st)
	assert.Equal(t, cellStyle{fg: rGB(10, 20, 30)}, tm.styles.list[cells[1].s])
	assert.Equal(t, cellStyle{fg: rGB(10, 20, 30), attrs: attrReverse | attrStrike | attrOverline, ul: uLDouble},
		tm.styles.list[cells[2].s])
	assert.Equal(t, "\x1b[1;3;4:3;38;5;196;48;2;1;2;3;58;2;9;8;7mX\x1b[0;38;2;10;20;30mY\x1b[7;9;53;4:2mZ\x1b[m",
		strings.Split(tm.ANSI(false), "\n")[0], "minimal SGR changes, reset at the end")
}

// fromANSI replays a Terminal's ANSI rendering into a fresh Terminal.
func fromANSI(tm *Terminal) *Terminal {
	out := New(tm.cols, tm.rows, Options{})
	lines := tm.Window(tm.ScrollbackLen(), true)
	_, _ = out.Write([]byte(strings.Join(lines, "\r\n")))
	return out
}

// The ANSI a Terminal renders, played into another Terminal, gives the same cells:
// on every corpus stream.
func TestTermRenderRoundTrip(t *testing.T) {
	for _, it := range loadCorpus(t) {
		data, err := os.ReadFile(it.path)
		require.NoError(t, err)
		tm := New(it.cols, it.rows, Options{})
		_, _ = tm.Write(data)
		for _, line := range tm.Window(0, true) {
			require.Equal(t, it.cols, testWidth(line), "%s: window line %q", it.name, line)
			require.True(t, !strings.Contains(line, "\x1b[") || strings.HasSuffix(strings.TrimRight(line, " "), "\x1b[m") ||
				!hasStyleAtEnd(line), "%s: line must end in the default style: %q", it.name, line)
		}
		// Rendering is exact except where tmux keeps a wide character
		// whose right half was erased: that one is drawn as a blank.
		again := fromANSI(tm)
		assert.Equal(t, tm.Window(tm.ScrollbackLen(), true), again.Window(again.ScrollbackLen(), true), it.name)
	}
}

// testWidth is the columns a rendered line takes, by Terminal's own
// character widths (x/ansi's differ for U+00AD, which wcwidth counts).
func testWidth(line string) int {
	w := 0
	for _, r := range ansi.Strip(line) {
		w += runeWidth(r)
	}
	return w
}

func hasStyleAtEnd(line string) bool {
	i := strings.LastIndex(line, "\x1b[")
	return i >= 0 && !strings.HasPrefix(line[i:], "\x1b[m")
}

// Splitting a stream at every byte boundary changes nothing.
func TestTermSplitWritesMatchWhole(t *testing.T) {
	for _, it := range loadCorpus(t) {
		data, err := os.ReadFile(it.path)
		require.NoError(t, err)
		whole := New(it.cols, it.rows, Options{})
		_, _ = whole.Write(data)
		bytewise := New(it.cols, it.rows, Options{})
		for i := range data {
			_, _ = bytewise.Write(data[i : i+1])
		}
		require.Equal(t, whole.ANSI(true), bytewise.ANSI(true), it.name)
		wx, wy, _ := whole.Cursor()
		bx, by, _ := bytewise.Cursor()
		require.Equal(t, []int{wx, wy}, []int{bx, by}, it.name)
	}
}

func TestTermRepliesNeverBlockWrite(t *testing.T) {
	release := make(chan struct{})
	got := make(chan string, 8)
	tm := New(20, 5, Options{OnReply: func(b []byte) {
		<-release // a child that does not read its input
		got <- string(b)
	}})
	done := make(chan struct{})
	go func() {
		feedString(t, tm, "\x1b[3;7H\x1b[6n\x1b[5n\x1b[c\x1b[>c")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Write blocked on a reply")
	}
	close(release)
	tm.FlushReplies()
	require.Len(t, got, 4)
	assert.Equal(t, "\x1b[3;7R", <-got)
	assert.Equal(t, "\x1b[0n", <-got)
	assert.Equal(t, "\x1b[?1;2c", <-got)
	assert.Equal(t, "\x1b[>84;0;0c", <-got)
}

func TestTermCPRInOriginMode(t *testing.T) {
	var replies []string
	var mu sync.Mutex
	tm := New(20, 10, Options{OnReply: func(b []byte) { mu.Lock(); replies = append(replies, string(b)); mu.Unlock() }})
	feedString(t, tm, "\x1b[4;8r\x1b[?6h\x1b[2;3H\x1b[6n")
	tm.FlushReplies()
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"\x1b[5;3R"}, replies, "tmux reports the absolute row, origin mode or not")
	x, y, _ := tm.Cursor()
	assert.Equal(t, []int{2, 4}, []int{x, y})
}

func TestTermBellAndTitleCallbacks(t *testing.T) {
	bells := 0
	var titles []string
	var tm *Terminal
	tm = New(20, 5, Options{
		OnBell: func() { bells++ },
		OnTitle: func(s string) {
			titles = append(titles, s)
			_ = tm.Modes() // callbacks run outside the lock
		},
	})
	feedString(t, tm, "a\x07b\x07\x1b]0;first\x07\x1b]2;second\x1b\\\x1b]1;icon\x07")
	assert.Equal(t, 2, bells)
	assert.Equal(t, []string{"first", "second"}, titles)
	assert.Equal(t, "second", tm.Modes().Title)
	assert.Equal(t, "ab", screenRows(tm)[0], "OSC does not print")
}

// 0x9C is ST only in 8-bit mode: in a UTF-8 title it is a continuation
// byte ("✳" is e2 9c b3, "“" is e2 80 9c) and must neither end the title
// early nor turn the closing BEL into a bell.
func TestTermTitleHoldsUTF8(t *testing.T) {
	for _, tc := range []struct{ name, stream, title string }{
		{"claude's star", "AB\x1b]0;\xe2\x9c\xb3 Claude Code\aCD", "✳ Claude Code"},
		{"gemini's working", "AB\x1b]2;\xe2\x9c\xa6 Working\xe2\x80\xa6\x1b\\CD", "✦ Working…"},
		{"curly quotes", "AB\x1b]2;\xe2\x80\x9cdone\xe2\x80\x9d \xe2\x9c\x93\xe2\x9c\x94\xe2\x9c\x97\aCD", "“done” ✓✔✗"},
		{"invalid UTF-8 keeps the old title", "AB\x1b]2;old\a\x1b]2;a\x9cb\aCD", "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bells := 0
			// Byte by byte too: the string may arrive in pieces.
			for _, chunk := range []int{len(tc.stream), 1} {
				tm := New(40, 3, Options{OnBell: func() { bells++ }})
				for s := tc.stream; s != ""; s = s[min(chunk, len(s)):] {
					feedString(t, tm, s[:min(chunk, len(s))])
				}
				assert.Equal(t, "ABCD", screenRows(tm)[0])
				assert.Equal(t, tc.title, tm.Modes().Title)
				assert.Zero(t, bells, "a BEL ending a title is no bell")
			}
		})
	}
}

func TestTermModes(t *testing.T) {
	tm := New(20, 5, Options{})
	assert.Equal(t, Modes{AutoWrap: true}, tm.Modes())
	feedString(t, tm, "\x1b[?1h\x1b=\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?2026h\x1b[?7l\x1b[>5u\x1b[?1049h\x1b[?25l\x1b[?1004h\x1b[>4;1m")
	_, _, visible := tm.Cursor()
	assert.False(t, visible)
	assert.Equal(t, Modes{AppCursor: true, AppKeypad: true, BracketedPaste: true, AltScreen: true,
		SyncOutput: true, Mouse: 1002, MouseSGR: true, KittyKeyboard: 5, FocusEvents: true, ModifyOtherKeys: 1}, tm.Modes())
	feedString(t, tm, "\x1b[?1003h\x1b[=1;2u")
	assert.Equal(t, 1003, tm.Modes().Mouse)
	assert.Equal(t, 5, tm.Modes().KittyKeyboard)
	feedString(t, tm, "\x1b[<u\x1b[?1l\x1b>\x1b[?2004l\x1b[?1003l\x1b[?1006l\x1b[?2026l\x1b[?7h\x1b[?1049l\x1b[?25h\x1b[?1004l\x1b[>4m")
	assert.Equal(t, Modes{AutoWrap: true}, tm.Modes())
	feedString(t, tm, "\x1b[?1000h\x1bc")
	assert.Equal(t, Modes{AutoWrap: true}, tm.Modes(), "RIS resets modes")
}

func TestTermAltScreenKeepsMainAndScrollback(t *testing.T) {
	tm := New(10, 3, Options{})
	feedString(t, tm, "one\r\ntwo\r\nthree\r\nfour")
	require.Equal(t, 1, tm.ScrollbackLen())
	feedString(t, tm, "\x1b[?1049h\x1b[2J\x1b[Hvim\r\n1\r\n2\r\n3\r\n4\r\n5")
	assert.Equal(t, 1, tm.ScrollbackLen(), "the alternate screen never scrolls into scrollback")
	assert.True(t, tm.Modes().AltScreen)
	feedString(t, tm, "\x1b[?1049l")
	assert.Equal(t, []string{"two", "three", "four"}, screenRows(tm))
	x, y, _ := tm.Cursor()
	assert.Equal(t, []int{4, 2}, []int{x, y}, "1049 restores the cursor")
	assert.Equal(t, "one\ntwo\nthree\nfour\n", tm.Text(true))
}

func TestTermScrollbackRingAndClear(t *testing.T) {
	tm := New(10, 2, Options{Scrollback: 5})
	for i := range 20 {
		feedString(t, tm, fmt.Sprintf("l%d\r\n", i))
	}
	assert.Equal(t, 5, tm.ScrollbackLen())
	assert.Equal(t, 7, tm.LineCount())
	assert.Equal(t, "l14\nl15\nl16\nl17\nl18\nl19\n\n", tm.Text(true))
	feedString(t, tm, "\x1b[3J")
	assert.Equal(t, 0, tm.ScrollbackLen())

	// Lines scrolled out of a region go to scrollback too (tmux keeps
	// them); deleted lines do not.
	tm = New(10, 3, Options{})
	feedString(t, tm, "top\x1b[2;3r\x1b[2;1Ha\r\nb\r\nc\r\nd\x1b[r")
	assert.Equal(t, []string{"top", "c", "d"}, screenRows(tm))
	assert.Equal(t, "a\nb\ntop\nc\nd\n", tm.Text(true))
	feedString(t, tm, "\x1b[H\x1b[M")
	assert.Equal(t, 2, tm.ScrollbackLen())

	// A full clear keeps the screen's used rows (tmux's scroll-on-clear).
	feedString(t, tm, "\x1b[2J")
	assert.Equal(t, "a\nb\nc\nd\n\n\n\n", tm.Text(true))
}

func TestTermScrollbackKeepsStylesAndWideText(t *testing.T) {
	tm := New(14, 2, Options{})
	feedString(t, tm, "\x1b[1;38;2;1;2;3mbold\x1b[m 中文 e\u0301\x1b[44m  \x1b[m\r\nx\r\ny\r\nz")
	require.Equal(t, 2, tm.ScrollbackLen())
	win := tm.Window(0, true)
	require.Len(t, win, 2)
	assert.Equal(t, "\x1b[1;38;2;1;2;3mbold\x1b[m 中文 e\u0301\x1b[44m  \x1b[m ", win[0])
	assert.Equal(t, "x             ", win[1])
	assert.Equal(t, []string{"bold 中文 e\u0301   ", "x             "}, tm.Window(0, false))
}

func TestTermWindowClampsAndPads(t *testing.T) {
	tm := New(6, 3, Options{})
	feedString(t, tm, "a\r\nb\r\nc\r\nd\r\n\x1b[31me")
	assert.Equal(t, 5, tm.LineCount())
	assert.Equal(t, []string{"a     ", "b     ", "c     "}, tm.Window(-5, false))
	assert.Equal(t, []string{"c     ", "d     ", "e     "}, tm.Window(99, false))
	assert.Equal(t, []string{"b     ", "c     ", "d     "}, tm.Window(1, true))
	assert.Equal(t, []string{"c     ", "d     ", "\x1b[31me\x1b[m     "}, tm.Window(2, true))
}

// Expectations from tmux 3.3a given the same bytes and resizes.
func TestTermResizeReflowsLikeTmux(t *testing.T) {
	tm := New(10, 4, Options{})
	feedString(t, tm, "one\r\ntwo\r\nthree\r\nfour中")
	g := tm.Generation()
	tm.Resize(6, 2)
	assert.Greater(t, tm.Generation(), g)
	c, r := tm.Size()
	assert.Equal(t, []int{6, 2}, []int{c, r})
	assert.Equal(t, "one\ntwo\nthree\nfour中\n", tm.Text(true), "rows above the cursor go to scrollback")
	assert.Equal(t, 2, tm.ScrollbackLen())
	x, y, _ := tm.Cursor()
	assert.Equal(t, []int{5, 1}, []int{x, y}, "pending wrap at column 6 shows on the last column")

	tm.Resize(5, 4)
	assert.Equal(t, "one\ntwo\nthree\nfour\n中\n", tm.Text(true), "the wide character wraps onto a row of its own")
	assert.Equal(t, 1, tm.ScrollbackLen())
	x, y, _ = tm.Cursor()
	assert.Equal(t, []int{2, 3}, []int{x, y})

	tm.Resize(20, 6)
	assert.Equal(t, "one\ntwo\nthree\nfour中\n\n\n", tm.Text(true), "widening joins the soft-wrapped rows")
	x, y, _ = tm.Cursor()
	assert.Equal(t, []int{6, 3}, []int{x, y})
	feedString(t, tm, "\r\nwide enough now")
	assert.Contains(t, tm.Text(false), "wide enough now")

	tm = New(10, 2, Options{})
	feedString(t, tm, "0123456789\r\nabcdefghij")
	tm.Resize(4, 2)
	assert.Equal(t, "0123\n4567\n89\nabcd\nefgh\nij\n", tm.Text(true))
	x, y, _ = tm.Cursor()
	assert.Equal(t, []int{2, 1}, []int{x, y})

	tm = New(10, 2, Options{})
	feedString(t, tm, "0123456789\r\nab\r\ncd")
	tm.Resize(4, 3)
	assert.Equal(t, "0123\n4567\n89\nab\ncd\n", tm.Text(true))
	tm.Resize(10, 3)
	assert.Equal(t, "0123456789\nab\ncd\n", tm.Text(true))
	assert.Equal(t, []string{"0123456789", "ab        ", "cd        "}, tm.Window(0, false))
}

// The alternate screen is cut and padded, not reflowed, and keeps what a
// narrower pane cannot show.
func TestTermResizeAltScreenKeepsColumns(t *testing.T) {
	tm := New(10, 2, Options{})
	feedString(t, tm, "\x1b[?1049h0123456789\r\nabcdefghij")
	tm.Resize(4, 2)
	assert.Equal(t, []string{"0123", "abcd"}, tm.Window(0, false))
	tm.Resize(10, 2)
	assert.Equal(t, []string{"0123456789", "abcdefghij"}, tm.Window(0, false))
	feedString(t, tm, "\x1b[?1049l")
	assert.False(t, tm.Modes().AltScreen)
}

func TestTermResizeRandomNoPanic(t *testing.T) {
	data, err := os.ReadFile(corpusDir + "/vim-syntax@100x30.bin")
	require.NoError(t, err)
	tm := New(100, 30, Options{})
	for i := 0; i < len(data); i += 97 {
		_, _ = tm.Write(data[i:min(i+97, len(data))])
		tm.Resize(1+(i*7)%130, 1+(i*13)%45)
		checkInvariants(t, tm)
	}
}

// A wide character printed in a one-column pane leaves a row that wraps
// with nothing on it; a reflow that joins only such rows once dereferenced
// the row it never took (found by FuzzTerm in CI, seed
// reflow-join-blank-wrapped).
func TestTermReflowJoinsRowsThatWrapEmpty(t *testing.T) {
	tm := New(1, 4, Options{Scrollback: 50})
	feedString(t, tm, "中中中")
	tm.Resize(20, 4)
	checkInvariants(t, tm)
	tm.Resize(3, 4)
	checkInvariants(t, tm)
}

func checkInvariants(t testing.TB, tm *Terminal) {
	cols, rows := tm.Size()
	x, y, _ := tm.Cursor()
	require.True(t, x >= 0 && x < cols && y >= 0 && y < rows, "cursor %d,%d outside %dx%d", x, y, cols, rows)
	require.Len(t, tm.scr.lines, rows)
	for _, l := range tm.scr.lines {
		require.Len(t, l.cells, cols)
	}
	win := tm.Window(0, true)
	require.Len(t, win, rows)
	for _, line := range win {
		require.Equal(t, cols, testWidth(line), "window line %q", line)
	}
}

func TestTermGenerationBumps(t *testing.T) {
	tm := New(10, 2, Options{})
	g0 := tm.Generation()
	feedString(t, tm, "x")
	g1 := tm.Generation()
	assert.Greater(t, g1, g0)
	feedString(t, tm, "\x1b[?1000h")
	assert.GreaterOrEqual(t, tm.Generation(), g1)
	tm.Resize(10, 2)
	g2 := tm.Generation()
	feedString(t, tm, "")
	assert.Equal(t, g2, tm.Generation(), "nothing written, nothing changed")
}

func TestTermGarbageInput(t *testing.T) {
	tm := New(20, 4, Options{})
	feedString(t, tm, "\x1b]2;"+strings.Repeat("A", 1<<20)+"\x07ok")
	assert.Equal(t, "ok", screenRows(tm)[0])
	params := make([]string, 80)
	for i := range params {
		params[i] = fmt.Sprint(i)
	}
	feedString(t, tm, "\r\n\x1b["+strings.Join(params, ";")+"mX\x1b[m\x1b[99999999999999999999999A\x1b[9999999;9999999H")
	feedString(t, tm, "\xff\xfe\xc3\x1b[mY\x1b")
	feedString(t, tm, "[31mZ")
	checkInvariants(t, tm)
	assert.Contains(t, tm.Text(false), "X")
	assert.Contains(t, tm.Text(false), "Z")
}

func TestTermStyleTableStaysBounded(t *testing.T) {
	tm := New(40, 5, Options{})
	var b bytes.Buffer
	for i := range 100000 {
		fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm#", i&0xff, i>>8&0xff, i>>16&0xff)
	}
	_, _ = tm.Write(b.Bytes())
	assert.LessOrEqual(t, len(tm.styles.list), styleCompactAt+1)
	// The last cell still has the last colour.
	last := tm.scr.lines[tm.y].cells[tm.x-1]
	assert.Equal(t, rGB(99999&0xff, 99999>>8&0xff, 99999>>16&0xff), tm.styles.list[last.s].fg)
}

func TestTermConcurrentReaders(t *testing.T) {
	data, err := os.ReadFile(corpusDir + "/top@120x40.bin")
	require.NoError(t, err)
	tm := New(120, 40, Options{})
	q, err := NewQuery("top", false)
	require.NoError(t, err)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = tm.Window(0, true)
				_, _, _ = tm.Cursor()
				_ = tm.Modes()
				tm.Search(q, func(*Match) bool { return true })
				_ = tm.Snapshot().Copy(Pos{}, Pos{Line: 50, Col: 3}, SelectChars)
				_ = tm.Generation()
			}
		}()
	}
	for range 3 {
		for i := 0; i < len(data); i += 512 {
			_, _ = tm.Write(data[i:min(i+512, len(data))])
		}
	}
	tm.Resize(80, 24)
	close(stop)
	wg.Wait()
	checkInvariants(t, tm)
}

func TestVersionFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a tagged module", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"a VCS build", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "0123456789ab+dirty"},
		{"go test", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, versionOf(&tc.bi)) })
	}
	assert.NotEmpty(t, Version())
}

// The queries agent CLIs send at start-up (tmux answers them): XTVERSION,
// DECRQM for each mode, the colours. Each is answered once, in order.
func TestTermAnswersQueries(t *testing.T) {
	colors := NewColors()
	colors.SetBackground(ansi.TrueColor(0xfafafa))
	colors.SetForeground(ansi.TrueColor(0x101010))
	colors.SetIndexed(1, ansi.TrueColor(0xaa0000))
	for _, tc := range []struct {
		name, in string
		colors   *Colors
		want     []string
	}{
		{"XTVERSION", "\x1b[>0q\x1b[>q\x1b[>1q", nil, []string{
			"\x1bP>|rostra " + Version() + "\x1b\\", "\x1bP>|rostra " + Version() + "\x1b\\"}},
		{"DECRQM, modes off", "\x1b[?2026$p\x1b[?2004$p\x1b[?1004$p\x1b[?1049$p\x1b[?1002$p\x1b[?1006$p\x1b[?1$p\x1b[4$p", nil, []string{
			"\x1b[?2026;2$y", "\x1b[?2004;2$y", "\x1b[?1004;2$y", "\x1b[?1049;2$y", "\x1b[?1002;2$y", "\x1b[?1006;2$y", "\x1b[?1;2$y", "\x1b[4;2$y"}},
		{"DECRQM, modes on", "\x1b[?2026h\x1b[?2004h\x1b[?1004h\x1b[?1049h\x1b[?1002h\x1b[?1006h\x1b[?1h\x1b[4h" +
			"\x1b[?2026$p\x1b[?2004$p\x1b[?1004$p\x1b[?1049$p\x1b[?1002$p\x1b[?1000$p\x1b[?1006$p\x1b[?1$p\x1b[4$p\x1b[?7$p\x1b[?25$p", nil, []string{
			"\x1b[?2026;1$y", "\x1b[?2004;1$y", "\x1b[?1004;1$y", "\x1b[?1049;1$y", "\x1b[?1002;1$y", "\x1b[?1000;2$y", "\x1b[?1006;1$y", "\x1b[?1;1$y", "\x1b[4;1$y",
			"\x1b[?7;1$y", "\x1b[?25;1$y"}},
		{"DECRQM, modes the emulator lacks", "\x1b[?2027$p\x1b[?1005$p\x1b[?12$p\x1b[20$p", nil, []string{
			"\x1b[?2027;0$y", "\x1b[?1005;0$y", "\x1b[?12;0$y", "\x1b[20;0$y"}},
		{"colours, headless defaults", "\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]12;?\x07\x1b]4;1;?\x07", nil, []string{
			"\x1b]10;rgb:c0c0/c0c0/c0c0\x07", "\x1b]11;rgb:0000/0000/0000\x1b\\", "\x1b]12;rgb:c0c0/c0c0/c0c0\x07", "\x1b]4;1;rgb:8080/0000/0000\x07"}},
		{"colours of the outer terminal", "\x1b]11;?\x07\x1b]10;?;?\x1b\\\x1b]4;1;?;2;?\x07\x1b]11;#000000\x07", colors, []string{
			"\x1b]11;rgb:fafa/fafa/fafa\x07", "\x1b]10;rgb:1010/1010/1010\x1b\\", "\x1b]11;rgb:fafa/fafa/fafa\x1b\\",
			"\x1b]4;1;rgb:aaaa/0000/0000\x07", "\x1b]4;2;rgb:0000/8080/0000\x07"}},
		{"XTQMODKEYS", "\x1b[?4m\x1b[>4;2m\x1b[?4m", nil, []string{"\x1b[>4;0m", "\x1b[>4;2m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			tm := New(40, 5, Options{Colors: tc.colors, OnReply: func(b []byte) {
				mu.Lock()
				got = append(got, string(b))
				mu.Unlock()
			}})
			feedString(t, tm, tc.in)
			tm.FlushReplies()
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tc.want, got)
		})
	}
}
