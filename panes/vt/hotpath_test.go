// hotpath_test.go checks the emulator's fast paths against its slow ones
// (docs/performance.md §The emulator's hot path): a stream written whole
// takes the fast paths (printable runs, whole CSI sequences, the SGR memo,
// the word-at-a-time scrollback encoding), the same stream written a byte
// at a time goes through x/ansi's parser and handleCsi for every
// sequence; the screens, the scrollback lines (their encoding byte for
// byte) and the cursors must match.
package vt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// genHotStream mixes what the fast paths see and what they must leave
// alone: SGRs of every form (resets, 16/256/truecolor, colon groups,
// ignored out-of-range ones, runs of them with no text between), text
// with wide characters and combining marks, CR/LF, erases, cursor moves,
// insert mode, DEC graphics and the alternate screen.
func genHotStream(seed uint64, size int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	sgrs := []string{"", "0", "1", "2", "3", "4", "7", "22", "27", "32", "1;31", "38;5;208",
		"48;5;17", "38:2::10:20:30", "4:3", "58;5;9", "99999999", "39;49", "0;1;4", "5;38;5;300"}
	words := []string{"alpha", "beta ", "中文", "e\u0301", "  ", "x", "tab\there", "…", "long-word-without-space"}
	var b strings.Builder
	for b.Len() < size {
		switch rng.IntN(14) {
		case 0, 1, 2:
			fmt.Fprintf(&b, "\x1b[%sm", sgrs[rng.IntN(len(sgrs))])
		case 3:
			fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm", rng.IntN(256), rng.IntN(256), rng.IntN(256))
		case 4, 5, 6, 7:
			b.WriteString(words[rng.IntN(len(words))])
		case 8:
			b.WriteString("\r\n")
		case 9:
			fmt.Fprintf(&b, "\x1b[%dK", rng.IntN(3))
		case 10:
			fmt.Fprintf(&b, "\x1b[%d;%dH", 1+rng.IntN(12), 1+rng.IntN(45))
		case 11:
			b.WriteString([]string{"\x1b[4h", "\x1b[4l", "\x1b(0lqk\x1b(B", "\x1b[?7l", "\x1b[?7h", "\x1b[2J"}[rng.IntN(6)])
		case 12:
			b.WriteString([]string{"\x1b[?1049h", "\x1b[?1049l", "\x1b[3b", "\x1b[2P", "\x1b[3@"}[rng.IntN(5)])
		case 13:
			b.WriteString(strings.Repeat("=", rng.IntN(90)))
		}
	}
	return []byte(b.String())
}

// requireSameAsBytewise feeds data whole and a byte at a time to two
// cols×rows terminals and requires the same result.
func requireSameAsBytewise(t *testing.T, data []byte, cols, rows int) {
	whole := New(cols, rows, Options{Scrollback: 200})
	_, _ = whole.Write(data)
	bytewise := New(cols, rows, Options{Scrollback: 200})
	for i := range data {
		_, _ = bytewise.Write(data[i : i+1])
	}
	require.Equal(t, bytewise.ANSI(true), whole.ANSI(true))
	require.Equal(t, bytewise.sb.len(), whole.sb.len())
	for i := range whole.sb.len() {
		require.Equal(t, bytewise.sb.get(i), whole.sb.get(i), "scrollback line %d", i)
	}
	wx, wy, _ := whole.Cursor()
	bx, by, _ := bytewise.Cursor()
	require.Equal(t, []int{bx, by}, []int{wx, wy})
	require.Equal(t, bytewise.pen, whole.pen)
}

func TestHotPathMatchesParser(t *testing.T) {
	for seed := range uint64(40) {
		requireSameAsBytewise(t, genHotStream(seed, 6000), 45, 12)
	}
	// A narrow and a wide pane, and a stream long enough to fill the
	// scrollback ring and recycle it.
	requireSameAsBytewise(t, genHotStream(99, 60000), 7, 3)
	requireSameAsBytewise(t, genHotStream(100, 60000), 200, 50)
}

// The memo holds through a reset (RIS) and a style-table compaction,
// which renumber the styles it remembers.
func TestHotPathSGRMemoAcrossRenumbering(t *testing.T) {
	var b strings.Builder
	for i := range styleCompactAt + 500 {
		fmt.Fprintf(&b, "\x1b[32mok\x1b[1mB\x1b[m \x1b[38;2;%d;%d;1mx\x1b[m\r\n", i&0xff, i>>8)
		if i == 100 {
			b.WriteString("\x1bc")
		}
	}
	requireSameAsBytewise(t, []byte(b.String()), 30, 5)
}

// cellWord and cellWords agree on the byte order: the word of a cell
// read through memory is the word built from its fields.
func TestCellWordLayout(t *testing.T) {
	cells := []gridCell{{'A', 7}, {wideCont, 1 << 31}, {0x10FFFD, 0}}
	for i, w := range cellWords(cells) {
		require.Equal(t, cellWord(cells[i].r, cells[i].s), w)
	}
	require.Equal(t, cellWord(' ', 0), wordSpace)
}

// FuzzHotPath: any bytes, written whole, leave what they leave written a
// byte at a time.
//
//	go test ./panes/vt -run '^$' -fuzz '^FuzzHotPath$' -fuzztime 60s
func FuzzHotPath(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(genHotStream(seed, 2000), uint8(45), uint8(12))
	}
	f.Fuzz(func(t *testing.T, data []byte, cols, rows uint8) {
		requireSameAsBytewise(t, data, int(cols%120)+1, int(rows%40)+1)
	})
}

// printableLen agrees with a byte-by-byte scan for every byte value in
// every lane, after runs of every length.
func TestPrintableLen(t *testing.T) {
	slow := func(p []byte) int {
		n := 0
		for n < len(p) && p[n] >= 0x20 && p[n] < 0x7f {
			n++
		}
		return n
	}
	for run := range 20 {
		for c := range 256 {
			for tail := range 3 {
				p := []byte(strings.Repeat("a", run) + string([]byte{byte(c)}) + strings.Repeat("\x7f", tail))
				require.Equal(t, slow(p), printableLen(p), "run %d, byte %#x, tail %d", run, c, tail)
			}
		}
	}
}

// asciiRun agrees with a cell-by-cell copy for runs of every length that
// end in every way: another style, a non-ASCII rune, the end.
func TestASCIIRun(t *testing.T) {
	slow := func(out []byte, cells []gridCell, s uint32) int {
		for m, c := range cells {
			if c.s != s || uint32(c.r) >= 0x80 {
				return m
			}
			out[m] = byte(c.r)
			if c.r == 0 {
				out[m] = ' '
			}
		}
		return len(cells)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	for range 2000 {
		n := rng.IntN(40)
		cells := make([]gridCell, n)
		for i := range cells {
			cells[i] = gridCell{[]rune{0, 'a', ' ', 0x7f, '~'}[rng.IntN(5)], 3}
		}
		if n > 0 && rng.IntN(2) == 0 {
			cells[rng.IntN(n)] = []gridCell{{'x', 4}, {'é', 3}, {wideCont, 3}, {0x80, 3}}[rng.IntN(4)]
		}
		want, got := make([]byte, n), make([]byte, n)
		k := slow(want, cells, 3)
		require.Equal(t, k, asciiRun(got, cellWords(cells), 3))
		require.Equal(t, want[:k], got[:k])
	}
}

// A parameter of ten digits or more voids its sequence, written whole
// (fastCSI) or a byte at a time (x/ansi, whose int wraps and masks to 31
// bits: 10^31 came out small and moved the cursor). Found by FuzzHotPath.
func TestALongCSIParameterIsVoidedWholeOrSplit(t *testing.T) {
	for _, seq := range []string{
		"K\x1b[10000000000000000000000000000000f0",
		"ab\x1b[4294967301Gc", // 2^32 + 5: masked, it was 5
		"ab\x1b[0000000003Gc", // leading zeros are no digits: done
		"ab\x1b[1;99999999999Hc",
	} {
		requireSameAsBytewise(t, []byte(seq), 71, 30)
	}
	term := New(20, 3, Options{})
	_, _ = term.Write([]byte("ab\x1b[4294967301Gc"))
	x, _, _ := term.Cursor()
	require.Equal(t, 3, x, "the CHA is voided: c follows b")
}
