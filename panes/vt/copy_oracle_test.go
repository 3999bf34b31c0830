// copy_oracle_test.go checks Copy against tmux's own copy mode: a stream is
// played in a tmux pane (as oracle_test.go does), a selection is made there
// with copy-mode commands (vi keys: begin-selection, select-line,
// rectangle-toggle, cursor motions), copied with copy-selection and read
// back with show-buffer; Terminal copies the same cells, read from where
// tmux says its selection began and its cursor ended, and the two texts
// must be equal. Wide characters, wrapped rows, trailing spaces and
// scrollback are all in the streams. Streams run in parallel, each on a
// tmux server of its own, and the commands of each step of a selection go
// in one tmux client: the ~1,000 selections took 100 s under -race, one
// tmux process per command.
package vt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// copyStream is a stream made for copying: wrapped lines (ASCII and wide),
// trailing spaces, blank lines, combining marks, tabs and enough lines to
// fill the history.
func copyStream() []byte {
	var b strings.Builder
	for i := range 14 {
		fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog %d\r\n", i, i*i)
		b.WriteString("trailing spaces   \x1b[K   \r\n")
		b.WriteString("中文字符和emoji😀混在一起的很长很长的一行文字会折行\r\n")
		b.WriteString("\r\n")
		b.WriteString("e\u0301t\u00e9 caf\u00e9\ttab\tstops and a\x1b[41m coloured \x1b[m tail\r\n")
		b.WriteString(strings.Repeat("x", 30+i) + " " + strings.Repeat("y", 12) + "\r\n")
	}
	b.WriteString("$ last prompt ")
	return []byte(b.String())
}

func TestCopyMatchesTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is required for the copy oracle test in CI")
		}
		t.Skip("tmux not installed")
	}
	// One server per parallel subtest: the paste buffer a selection is
	// copied into is the server's, so two streams must not share one.
	pool := make(chan string, oracleServers())
	for i := range cap(pool) {
		x := &tmuxOracle{t: t, socket: fmt.Sprintf("rostra-copy-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), i)}
		guardTmux(t, x.socket)
		// A history no stream fills: tmux trims a full one in chunks, which
		// would shift its line numbers against Terminal's.
		x.run("start-server", ";", "set", "-g", "status", "off", ";", "set", "-g", "history-limit", strconv.Itoa(copyHistory),
			";", "set", "-g", "exit-empty", "off", ";", "set", "-g", "mode-keys", "vi")
		pool <- x.socket
	}

	dir := t.TempDir()
	items := []corpusItem{{name: "made-for-copy", path: filepath.Join(dir, "copy.bin"), cols: 37, rows: 12}}
	require.NoError(t, os.WriteFile(items[0].path, copyStream(), 0o644))
	for _, it := range loadCorpus(t) {
		switch it.name {
		// Not synth-unicode: tmux 3.3 joins a ZWJ sequence (👨‍👩‍👧) into
		// one cell where Terminal keeps a cell per character, so the
		// columns of a block differ there.
		case "synth-wrap", "cjk-emoji", "git-log", "ls-color":
			items = append(items, it)
		}
	}
	// Random logs, fixed seeds: failures reproduce.
	for seed := range uint64(copyRandomStreams) {
		it := corpusItem{name: fmt.Sprintf("random-%d", seed), path: filepath.Join(dir, fmt.Sprintf("random-%d.bin", seed)),
			cols: 10 + int(seed*7%50), rows: 3 + int(seed*5%20)}
		require.NoError(t, os.WriteFile(it.path, randomLog(seed, 4000), 0o644))
		items = append(items, it)
	}
	for n, it := range items {
		t.Run(it.name, func(t *testing.T) {
			t.Parallel()
			socket := <-pool
			defer func() { pool <- socket }()
			x := &tmuxOracle{t: t, socket: socket}
			session, _ := x.play(it, 1000+n)
			defer x.run("kill-session", "-t", session)
			data, err := os.ReadFile(it.path)
			require.NoError(t, err)
			tm := New(it.cols, it.rows, Options{Scrollback: copyHistory})
			_, _ = tm.Write(data)
			rng := rand.New(rand.NewPCG(uint64(n), 0xc0b1))
			for k := range 24 {
				kind := SelectionKind(k % 3)
				checkCopy(t, x, session, tm, rng, kind)
			}
		})
	}
}

// randomLog is random output of the kind agents print and people copy:
// words (ASCII, wide, combining, emoji), long runs that wrap, trailing
// spaces, tabs, colours, blank lines and progress lines redrawn with CR
// and EL. (Not oracle_test.go's streams: their cursor motion and erases
// over wrapped rows reach tmux's count of allocated cells, which Terminal
// does not keep (see wrappedLen), and their DEC graphics, which tmux
// copies through a larger table than it draws with.)
func randomLog(seed uint64, size int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x10c))
	words := []string{"hello", "x", "rostra", "中文", "日本語", "e\u0301", "a\u0308b", "😀", "tail ", "0123456789", "FAILED", "ok", "   "}
	var b strings.Builder
	for b.Len() < size {
		switch rng.IntN(16) {
		case 0, 1, 2, 3, 4, 5, 6:
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		case 7, 8:
			b.WriteString("\r\n")
		case 9:
			b.WriteString(strings.Repeat("w", rng.IntN(90)))
		case 10:
			b.WriteString(strings.Repeat(" ", rng.IntN(12)) + "\r\n")
		case 11:
			b.WriteString("\t")
		case 12:
			fmt.Fprintf(&b, "\x1b[%dm", []int{0, 1, 31, 42, 7}[rng.IntN(5)])
		case 13:
			// A progress line, redrawn in place on a line of its own.
			fmt.Fprintf(&b, "\r\n%d%%\r%d%%\x1b[K\r\n", rng.IntN(100), rng.IntN(100))
		case 14:
			b.WriteString("\r\n\r\n")
		default:
			b.WriteString("中文字符")
		}
	}
	return []byte(b.String())
}

// copyHistory is the scrollback of both sides.
const copyHistory = 5000

// copyRandomStreams is how many random logs are copied from.
const copyRandomStreams = 40

// tmuxCursor runs the copy-mode commands given (none, or each a slice of
// arguments) and then reads where tmux's copy-mode cursor is, in absolute
// lines, all in one tmux client: a selection takes a few of these, and the
// test makes about a thousand selections.
func tmuxCursor(t *testing.T, x *tmuxOracle, session string, cmds ...[]string) Pos {
	var args []string
	for _, c := range cmds {
		args = append(args, c...)
		args = append(args, ";")
	}
	args = append(args, "display", "-p", "-t", session, "#{history_size} #{scroll_position} #{copy_cursor_x} #{copy_cursor_y}")
	f := strings.Fields(x.run(args...))
	require.Len(t, f, 4)
	n := make([]int, 4)
	for i, s := range f {
		n[i], _ = strconv.Atoi(s)
	}
	return Pos{Line: n[0] - n[1] + n[3], Col: n[2]}
}

// moveTo moves tmux's copy cursor from at to line, then col cells into it
// (tmux may put it elsewhere: it keeps a cursor off padding and within the
// line), and returns where it went.
func moveTo(t *testing.T, x *tmuxOracle, session string, at, to Pos) Pos {
	switch {
	case to.Line > at.Line:
		at = tmuxCursor(t, x, session, []string{"send", "-t", session, "-N", strconv.Itoa(to.Line - at.Line), "-X", "cursor-down"})
	case to.Line < at.Line:
		at = tmuxCursor(t, x, session, []string{"send", "-t", session, "-N", strconv.Itoa(at.Line - to.Line), "-X", "cursor-up"})
	}
	switch {
	case to.Col > at.Col:
		at = tmuxCursor(t, x, session, []string{"send", "-t", session, "-N", strconv.Itoa(to.Col - at.Col), "-X", "cursor-right"})
	case to.Col < at.Col:
		at = tmuxCursor(t, x, session, []string{"send", "-t", session, "-N", strconv.Itoa(at.Col - to.Col), "-X", "cursor-left"})
	}
	return at
}

func checkCopy(t *testing.T, x *tmuxOracle, session string, tm *Terminal, rng *rand.Rand, kind SelectionKind) {
	t.Helper()
	total := tm.LineCount()
	var row Row
	pick := func(near int) Pos {
		line := max(0, min(total-1, near+rng.IntN(9)-4))
		tm.ReadRow(line, &row)
		return Pos{line, rng.IntN(row.Len() + 1)}
	}
	a := pick(rng.IntN(total))
	c := pick(a.Line)

	top := tmuxCursor(t, x, session, []string{"copy-mode", "-t", session}, []string{"send", "-t", session, "-X", "history-top"})
	anchor := moveTo(t, x, session, top, a)
	begin := [][]string{{"send", "-t", session, "-X", "begin-selection"}}
	switch kind {
	case SelectLines:
		begin = [][]string{{"send", "-t", session, "-X", "select-line"}}
	case SelectBlock:
		begin = append(begin, []string{"send", "-t", session, "-X", "rectangle-toggle"})
	}
	cursor := moveTo(t, x, session, tmuxCursor(t, x, session, begin...), c)
	// Copied, out of copy mode, read and dropped, in one client. An empty
	// selection makes no buffer: show-buffer fails, and what Terminal
	// copies must be empty too.
	want, err := exec.Command("tmux", "-L", x.socket, "send", "-t", session, "-X", "copy-selection", ";",
		"send", "-t", session, "-X", "cancel", ";", "show-buffer", ";", "delete-buffer").Output()
	if err != nil {
		want = nil
	}
	got := tm.Copy(anchor, cursor, kind)
	require.Equal(t, string(want), got, "%v selection from %v to %v", kind, anchor, cursor)
}

func (k SelectionKind) String() string {
	return [...]string{"chars", "lines", "block"}[k]
}
