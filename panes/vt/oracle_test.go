// oracle_test.go checks Terminal against tmux on the corpus in
// testdata/term: each stream NAME@COLSxROWS.bin is played in a tmux pane of
// that size (`stty raw -echo; cat STREAM`) on a private server, and the
// screen tmux holds (capture-pane -p for text, -p -e for attributes, the
// cursor) is compared cell by cell with Terminal's.
package vt

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/tmuxtest"
)

const corpusDir = "testdata/term"

// oracleHistory is the scrollback both tmux and Terminal keep in the test.
const oracleHistory = 200

var corpusName = regexp.MustCompile(`^(.+)@(\d+)x(\d+)\.bin$`)

type corpusItem struct {
	name       string
	path       string
	cols, rows int
}

func loadCorpus(t testing.TB) []corpusItem {
	entries, err := os.ReadDir(corpusDir)
	require.NoError(t, err)
	var items []corpusItem
	for _, e := range entries {
		m := corpusName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		cols, _ := strconv.Atoi(m[2])
		rows, _ := strconv.Atoi(m[3])
		path, err := filepath.Abs(filepath.Join(corpusDir, e.Name()))
		require.NoError(t, err)
		items = append(items, corpusItem{m[1], path, cols, rows})
	}
	require.NotEmpty(t, items, "corpus in %s", corpusDir)
	return items
}

// tmuxOracle is a private tmux server for the test.
type tmuxOracle struct {
	t      *testing.T
	socket string
}

// guardTmux kills the tmux server of socket, and removes its socket, when
// the test ends, or when the test process ends without its cleanup (a
// timeout, a SIGKILL).
func guardTmux(t *testing.T, socket string) {
	t.Helper()
	stop, err := tmuxtest.Guard(socket)
	require.NoError(t, err)
	t.Cleanup(stop)
}

func (x *tmuxOracle) run(args ...string) string {
	x.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", x.socket, "-f", "/dev/null"}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(x.t, err, "tmux %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// oracleScreen is what tmux shows after a stream.
type oracleScreen struct {
	text    []string     // the characters of each row (from -e)
	history []string     // the text of the history, oldest first
	cells   [][]testCell // capture-pane -p -e, parsed
	cx      int
	cy      int
}

// testCell is a printed character with its attributes in a normal form
// both sides are converted to.
type testCell struct {
	ch    string
	style string
}

// play starts a session of the item's size playing its stream, waits until
// tmux has parsed all of it and returns the session name and the screen.
// The caller kills the session.
func (x *tmuxOracle) play(it corpusItem, n int) (string, oracleScreen) {
	x.t.Helper()
	session := fmt.Sprintf("s%d", n)
	done := fmt.Sprintf("rostra-oracle-done-%d", n)
	// The sentinel title is set after the stream: once tmux shows it, every
	// byte before it has been parsed. It starts with ST, which ends a
	// string the stream left open (only ST ends a DCS in tmux).
	script := fmt.Sprintf(`stty raw -echo; cat '%s'; printf '\033\\\033]2;%s\033\\'; exec sleep 600`, it.path, done)
	x.run("new-session", "-d", "-s", session, "-x", strconv.Itoa(it.cols), "-y", strconv.Itoa(it.rows), script)
	require.Eventually(x.t, func() bool {
		out, err := exec.Command("tmux", "-L", x.socket, "display", "-p", "-t", session, "#{pane_title}").Output()
		return err == nil && strings.TrimSpace(string(out)) == done
	}, 20*time.Second, 10*time.Millisecond, "tmux did not finish %s", it.name)
	return session, x.capture(session, it.cols, it.rows)
}

// capture reads what tmux shows in a session of the given size.
func (x *tmuxOracle) capture(session string, cols, rows int) oracleScreen {
	x.t.Helper()
	// One display for the size, the history's length and the cursor.
	f := strings.Fields(x.run("display", "-p", "-t", session, "#{pane_width}x#{pane_height} #{history_size} #{cursor_x} #{cursor_y}"))
	require.Len(x.t, f, 4)
	require.Equal(x.t, fmt.Sprintf("%dx%d", cols, rows), f[0], "tmux pane size")
	var scr oracleScreen
	esc := x.run("capture-pane", "-p", "-e", "-t", session)
	scr.cells = parseCaptureE(strings.Split(strings.TrimSuffix(esc, "\n"), "\n"))
	// The text is taken from the -e capture rather than -p, because only
	// -e says which cells are DEC graphics (-p prints the raw letters).
	for _, row := range scr.cells {
		var b strings.Builder
		for _, c := range row {
			b.WriteString(c.ch)
		}
		scr.text = append(scr.text, strings.TrimRight(b.String(), " "))
	}
	hist, _ := strconv.Atoi(f[1])
	if hist > 0 {
		h := x.run("capture-pane", "-p", "-e", "-t", session, "-S", strconv.Itoa(-hist), "-E", "-1")
		for _, row := range parseCaptureE(strings.Split(strings.TrimSuffix(h, "\n"), "\n")) {
			var b strings.Builder
			for _, c := range row {
				b.WriteString(c.ch)
			}
			scr.history = append(scr.history, strings.TrimRight(b.String(), " "))
		}
	}
	if len(scr.history) > oracleHistory {
		// tmux trims history to its limit lazily (a reflow can leave it
		// over); Terminal's ring never holds more than its cap.
		scr.history = scr.history[len(scr.history)-oracleHistory:]
	}
	scr.cx, _ = strconv.Atoi(f[2])
	scr.cy, _ = strconv.Atoi(f[3])
	return scr
}

// testStyle is the normal form of attributes: tmux's -e output is parsed
// into it independently of Terminal's SGR code.
type testStyle struct {
	fg, bg, ulc                                                   string
	bold, faint, italic, blink, reverse, hidden, strike, overline bool
	ul                                                            int
}

func (s testStyle) String() string {
	var b strings.Builder
	flag := func(on bool, name string) {
		if on {
			b.WriteString(name + " ")
		}
	}
	flag(s.bold, "bold")
	flag(s.faint, "faint")
	flag(s.italic, "italic")
	flag(s.blink, "blink")
	flag(s.reverse, "reverse")
	flag(s.hidden, "hidden")
	flag(s.strike, "strike")
	flag(s.overline, "overline")
	if s.ul != 0 {
		fmt.Fprintf(&b, "ul%d ", s.ul)
	}
	if s.fg != "" {
		b.WriteString("fg=" + s.fg + " ")
	}
	if s.bg != "" {
		b.WriteString("bg=" + s.bg + " ")
	}
	if s.ulc != "" {
		b.WriteString("ulc=" + s.ulc + " ")
	}
	return strings.TrimSpace(b.String())
}

// parseCaptureE parses capture-pane -e lines. Attributes carry over
// from one line to the next, as tmux writes them.
func parseCaptureE(lines []string) [][]testCell {
	var st testStyle
	charset := false
	out := make([][]testCell, len(lines))
	for li, line := range lines {
		for i := 0; i < len(line); {
			if strings.HasPrefix(line[i:], "\x1b[") {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					applyTestSGR(&st, line[i+2:j])
				}
				i = j + 1
				continue
			}
			if line[i] == 0x0e || line[i] == 0x0f {
				// tmux marks DEC graphics cells with SO/SI.
				charset = line[i] == 0x0e
				i++
				continue
			}
			if line[i] == 0x1b { // OSC 8 etc.: skip to ST
				end := strings.Index(line[i+1:], "\x1b\\")
				if end < 0 {
					break
				}
				i += end + 3
				continue
			}
			r, size := rune(line[i]), 1
			if r >= 0x80 {
				rs := []rune(line[i:])
				r = rs[0]
				size = len(string(r))
			}
			if charset && r >= 0x5f && r <= 0x7e {
				r = dECGraphics[r]
			}
			ch := string(r)
			if runeWidth(r) == 0 && len(out[li]) > 0 {
				out[li][len(out[li])-1].ch += ch
			} else {
				out[li] = append(out[li], testCell{ch, st.String()})
			}
			i += size
		}
	}
	return out
}

func applyTestSGR(st *testStyle, params string) {
	if params == "" {
		*st = testStyle{}
		return
	}
	groups := strings.Split(params, ";")
	for i := 0; i < len(groups); i++ {
		sub := strings.Split(groups[i], ":")
		n, _ := strconv.Atoi(sub[0])
		// ext reads an extended colour from sub-parameters or the next groups.
		ext := func() string {
			var v []string
			if len(sub) > 1 {
				v = sub[1:]
			} else {
				v = groups[i+1:]
			}
			if len(v) == 0 {
				return ""
			}
			switch v[0] {
			case "5":
				if len(sub) == 1 {
					i += 2
				}
				return "idx" + v[1]
			case "2":
				if len(sub) == 1 {
					i += 4
					return fmt.Sprintf("rgb(%s,%s,%s)", v[1], v[2], v[3])
				}
				c := v[1:]
				if len(c) == 4 {
					c = c[1:]
				}
				return fmt.Sprintf("rgb(%s,%s,%s)", c[0], c[1], c[2])
			}
			return ""
		}
		switch {
		case n == 0:
			*st = testStyle{}
		case n == 1:
			st.bold = true
		case n == 2:
			st.faint = true
		case n == 3:
			st.italic = true
		case n == 4:
			st.ul = 1
			if len(sub) > 1 {
				st.ul, _ = strconv.Atoi(sub[1])
			}
		case n == 5 && len(sub) > 1 && sub[1] == "3":
			// tmux 3.3 writes overline as "5:3" in capture-pane -e.
			st.overline = true
		case n == 5, n == 6:
			st.blink = true
		case n == 7:
			st.reverse = true
		case n == 8:
			st.hidden = true
		case n == 9:
			st.strike = true
		case n == 21:
			st.ul = 2
		case n == 22:
			st.bold, st.faint = false, false
		case n == 23:
			st.italic = false
		case n == 24:
			st.ul = 0
		case n == 25:
			st.blink = false
		case n == 27:
			st.reverse = false
		case n == 28:
			st.hidden = false
		case n == 29:
			st.strike = false
		case n >= 30 && n <= 37:
			st.fg = "idx" + strconv.Itoa(n-30)
		case n == 38:
			st.fg = ext()
		case n == 39:
			st.fg = ""
		case n >= 40 && n <= 47:
			st.bg = "idx" + strconv.Itoa(n-40)
		case n == 48:
			st.bg = ext()
		case n == 49:
			st.bg = ""
		case n == 53:
			st.overline = true
		case n == 55:
			st.overline = false
		case n == 58:
			st.ulc = ext()
		case n == 59:
			st.ulc = ""
		case n >= 90 && n <= 97:
			st.fg = "idx" + strconv.Itoa(n-90+8)
		case n >= 100 && n <= 107:
			st.bg = "idx" + strconv.Itoa(n-100+8)
		}
	}
}

// testColor is a color in the test's normal form.
func testColor(c color) string {
	switch c & colorKind {
	case colorIndexed:
		return "idx" + strconv.Itoa(int(c&0xff))
	case colorRGB:
		return fmt.Sprintf("rgb(%d,%d,%d)", c>>16&0xff, c>>8&0xff, c&0xff)
	}
	return ""
}

func testStyleOf(s cellStyle) string {
	return testStyle{
		fg: testColor(s.fg), bg: testColor(s.bg), ulc: testColor(s.ulColor),
		bold: s.attrs&attrBold != 0, faint: s.attrs&attrFaint != 0,
		italic: s.attrs&attrItalic != 0, blink: s.attrs&(attrBlink|attrRapidBlink) != 0,
		reverse: s.attrs&attrReverse != 0, hidden: s.attrs&attrHidden != 0,
		strike: s.attrs&attrStrike != 0, overline: s.attrs&attrOverline != 0,
		ul: int(s.ul),
	}.String()
}

// testCells lists the characters of every cell of Terminal's active screen
// in the same form.
func testCells(tm *Terminal) [][]testCell {
	out := make([][]testCell, tm.rows)
	for y := range tm.rows {
		for _, c := range tm.scr.lines[y].cells {
			if c.r == wideCont {
				continue
			}
			ch := " "
			if c.r != 0 {
				ch = tm.clusters.text(c.r)
			}
			out[y] = append(out[y], testCell{ch, testStyleOf(tm.styles.list[c.s])})
		}
	}
	return out
}

// compareScreens returns a readable report of every difference.
func compareScreens(tm *Terminal, want oracleScreen) string {
	var b strings.Builder
	got := strings.Split(strings.TrimSuffix(tm.Text(false), "\n"), "\n")
	for len(want.text) < len(got) {
		want.text = append(want.text, "")
	}
	textDiff := false
	for y := range got {
		if got[y] != want.text[y] {
			textDiff = true
			fmt.Fprintf(&b, "row %2d text:\n  tmux: %q\n  term: %q\n", y, want.text[y], got[y])
		}
	}
	if !textDiff {
		gotCells := testCells(tm)
		for y := range gotCells {
			var w []testCell
			if y < len(want.cells) {
				w = want.cells[y]
			}
			// tmux trims trailing spaces from its -e output, but only
			// after the last escape sequence: compare every cell tmux
			// printed, and Terminal's further cells must be spaces.
			for x := range gotCells[y] {
				g := gotCells[y][x]
				if x >= len(w) {
					if g.ch != " " {
						fmt.Fprintf(&b, "row %2d char %d: tmux nothing, term %q [%s]\n", y, x, g.ch, g.style)
					}
					continue
				}
				if g != w[x] {
					fmt.Fprintf(&b, "row %2d char %d: tmux %q [%s], term %q [%s]\n", y, x, w[x].ch, w[x].style, g.ch, g.style)
					break // one difference per row is enough to read
				}
			}
			if len(w) > len(gotCells[y]) {
				fmt.Fprintf(&b, "row %2d: tmux has %d more characters\n", y, len(w)-len(gotCells[y]))
			}
		}
	}
	// Scrollback holds the same lines as tmux's history.
	sb := strings.Split(tm.Text(true), "\n")[:tm.ScrollbackLen()]
	{
		if strings.Join(sb, "\n") != strings.Join(want.history, "\n") {
			fmt.Fprintf(&b, "scrollback: tmux %d lines, term %d lines\n", len(want.history), len(sb))
			for i := 0; i < max(len(sb), len(want.history)); i++ {
				var g, w string
				if i < len(sb) {
					g = sb[i]
				}
				if i < len(want.history) {
					w = want.history[i]
				}
				if g != w {
					fmt.Fprintf(&b, "  history %d:\n    tmux: %q\n    term: %q\n", i, w, g)
				}
			}
		}
	}
	// tmux reports the pending-wrap column as cols, as Terminal keeps it.
	// After some reflows tmux 3.3a leaves its cursor past the right edge
	// (random-1 narrowed from 17 to 8 columns, then widened to 24: x 51);
	// Terminal keeps it on screen, so then only the row is compared.
	x, y := tm.x, tm.y
	if want.cx > tm.cols {
		x = want.cx
	}
	if x != want.cx || y != want.cy {
		fmt.Fprintf(&b, "cursor: tmux %d,%d term %d,%d\n", want.cx, want.cy, x, y)
	}
	return b.String()
}

// TestTermMatchesTmux is the oracle test. It needs tmux; CI installs it,
// so there it fails instead of skipping. The streams play in parallel
// subtests, each on one of a pool of tmux servers (one per subtest that
// can run at once), since most of a stream's time is spent waiting on tmux.
func TestTermMatchesTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is required for the oracle test in CI")
		}
		t.Skip("tmux not installed")
	}
	pool := make(chan *tmuxOracle, oracleServers())
	for i := range cap(pool) {
		x := &tmuxOracle{t: t, socket: fmt.Sprintf("rostra-term-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), i)}
		guardTmux(t, x.socket)
		x.run("start-server", ";", "set", "-g", "status", "off", ";", "set", "-g", "history-limit", strconv.Itoa(oracleHistory),
			";", "set", "-g", "exit-empty", "off")
		pool <- x
	}
	check := func(t *testing.T, it corpusItem, n int, data []byte) {
		t.Parallel()
		x := <-pool
		defer func() { pool <- x }()
		checkAgainstTmux(t, x, it, n, data)
	}
	n := 0
	for _, it := range loadCorpus(t) {
		t.Run(it.name, func(t *testing.T) {
			data, err := os.ReadFile(it.path)
			require.NoError(t, err)
			check(t, it, n, data)
		})
		n++
	}
	// Random streams over the whole feature list find the corners no
	// hand-written stream thought of. Fixed seeds: failures reproduce.
	dir := t.TempDir()
	for seed := range uint64(randomStreams) {
		cols, rows := 10+int(seed*7%50), 3+int(seed*5%20)
		data := randomStream(seed, 3000)
		it := corpusItem{name: fmt.Sprintf("random-%d", seed), path: filepath.Join(dir, fmt.Sprintf("stream-%d.bin", seed)), cols: cols, rows: rows}
		require.NoError(t, os.WriteFile(it.path, data, 0o644))
		t.Run(it.name, func(t *testing.T) {
			check(t, it, n, data)
		})
		n++
	}
}

// oracleServers is how many tmux servers the oracle test plays streams on:
// as many as subtests run at once (go test -parallel, GOMAXPROCS by default).
func oracleServers() int {
	if f := flag.Lookup("test.parallel"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
			return n
		}
	}
	return runtime.GOMAXPROCS(0)
}

// hasHalfWide says whether a row, on screen or in scrollback, holds
// half of a wide character without the other half. tmux's reflow of those
// is not modelled (it can even drop cells), so width checks skip them.
func hasHalfWide(tm *Terminal) bool {
	for i := range tm.sb.len() {
		if strings.ContainsRune(tm.sb.get(i), orphanHeadMark) || strings.ContainsRune(tm.sb.get(i), orphanContMark) {
			return true
		}
	}
	for _, l := range tm.scr.lines {
		for x, c := range l.cells {
			head := c.r > 0 && isWideHead(&tm.clusters, c.r)
			if head && (x+1 >= len(l.cells) || l.cells[x+1].r != wideCont) {
				return true
			}
			if c.r == wideCont && (x == 0 || !isWideHead(&tm.clusters, l.cells[x-1].r)) {
				return true
			}
		}
	}
	return false
}

// randomStreams is how many random streams the oracle test plays.
const randomStreams = 100

// checkAgainstTmux plays one stream on x, which the caller holds alone.
func checkAgainstTmux(t *testing.T, x *tmuxOracle, it corpusItem, n int, data []byte) {
	x.t = t
	session, want := x.play(it, n)
	defer x.run("kill-session", "-t", session)
	tm := New(it.cols, it.rows, Options{Scrollback: oracleHistory})
	// Feed in uneven chunks so sequences split across writes.
	for len(data) > 0 {
		k := min(len(data), 1+len(data)%1021)
		_, _ = tm.Write(data[:k])
		data = data[k:]
	}
	if diff := compareScreens(tm, want); diff != "" {
		t.Errorf("%s (%dx%d, %s) differs from tmux:\n%s", it.name, it.cols, it.rows, it.path, diff)
		return
	}
	// Then resizes: the height (rows go to and come back from history the
	// way tmux moves them), then the width (reflow), unless the alternate
	// screen is up: Terminal does not reflow that one (the program redraws).
	sizes := [][2]int{{it.cols, max(1, it.rows/2)}, {it.cols, it.rows + 5}}
	if !tm.Modes().AltScreen && !hasHalfWide(tm) {
		sizes = append(sizes, [2]int{max(2, it.cols/2), it.rows}, [2]int{it.cols + 7, it.rows + 2},
			[2]int{max(2, it.cols/3), max(1, it.rows-2)})
	}
	for _, sz := range sizes {
		x.run("resize-window", "-t", session, "-x", strconv.Itoa(sz[0]), "-y", strconv.Itoa(sz[1]))
		want := x.capture(session, sz[0], sz[1])
		tm.Resize(sz[0], sz[1])
		if diff := compareScreens(tm, want); diff != "" {
			t.Errorf("%s (%s) after resizing to %dx%d differs from tmux:\n%s", it.name, it.path, sz[0], sz[1], diff)
			return
		}
	}
}

// randomStream strings together random pieces of everything Terminal
// implements: text (ASCII, wide, combining), controls, cursor motion,
// erase, insert/delete, scroll regions, SGR, modes, charsets.
func randomStream(seed uint64, size int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	num := func() string {
		switch rng.IntN(6) {
		case 0:
			return ""
		case 1:
			return "0"
		default:
			return strconv.Itoa(1 + rng.IntN(30))
		}
	}
	words := []string{"hello", "x", "rostra", "中文", "日本語", "e\u0301", "a\u0308b", "😀", "tail ", "0123456789", "─┼─", "  "}
	var b strings.Builder
	for b.Len() < size {
		switch rng.IntN(32) {
		case 0, 1, 2, 3, 4, 5:
			b.WriteString(words[rng.IntN(len(words))])
		case 6:
			b.WriteString("\r\n")
		case 7:
			b.WriteString([]string{"\r", "\n", "\b", "\t", "\x0b", "\x0c"}[rng.IntN(6)])
		case 8:
			fmt.Fprintf(&b, "\x1b[%s;%sH", num(), num())
		case 9:
			fmt.Fprintf(&b, "\x1b[%s%c", num(), "ABCDEFGd`"[rng.IntN(9)])
		case 10:
			fmt.Fprintf(&b, "\x1b[%d%c", rng.IntN(3), "JK"[rng.IntN(2)])
		case 11:
			fmt.Fprintf(&b, "\x1b[%s%c", num(), "PMXST"[rng.IntN(5)])
		case 23:
			// IL with the region reset and at most half the rows below:
			// outside a region, tmux's grid skips clearing the gap when
			// more rows are inserted than moved, as with ICH.
			fmt.Fprintf(&b, "\x1b[r\x1b[%dH\x1b[%dL", 1+rng.IntN(3), 1+rng.IntN(2))
		case 22:
			// ICH from column 0 and at most half the width: tmux's grid
			// keeps stale cells in the gap when more is inserted than is
			// moved (grid_move_cells), though its own display is right;
			// Terminal blanks the gap like xterm.
			fmt.Fprintf(&b, "\r\x1b[%d@", 1+rng.IntN(5))
		case 12:
			fmt.Fprintf(&b, "\x1b[%s;%sr", num(), num())
		case 13:
			b.WriteString([]string{"\x1bD", "\x1bM", "\x1bE", "\x1b7", "\x1b8", "\x1b[s", "\x1b[u", "\x1bH", "\x1b[g", "\x1b[3g"}[rng.IntN(10)])
		case 14, 15:
			sgr := []string{"0", "1", "2", "3", "4", "4:3", "5", "7", "8", "9", "21", "22", "23", "24", "27", "31", "42", "39", "49", "93", "104",
				"38;5;" + strconv.Itoa(rng.IntN(256)), "48;5;" + strconv.Itoa(rng.IntN(256)), fmt.Sprintf("38;2;%d;%d;%d", rng.IntN(256), rng.IntN(256), rng.IntN(256)),
				fmt.Sprintf("48:2::%d:%d:%d", rng.IntN(256), rng.IntN(256), rng.IntN(256)), "58;5;" + strconv.Itoa(rng.IntN(256))}
			fmt.Fprintf(&b, "\x1b[%s;%sm", sgr[rng.IntN(len(sgr))], sgr[rng.IntN(len(sgr))])
		case 16:
			on := "hl"[rng.IntN(2)]
			fmt.Fprintf(&b, "\x1b[?%d%c", []int{6, 7, 25, 47, 1047, 1049, 1048}[rng.IntN(7)], on)
		case 17:
			fmt.Fprintf(&b, "\x1b[4%c", "hl"[rng.IntN(2)])
		case 18:
			b.WriteString([]string{"\x1b(0", "\x1b(B", "\x1b)0", "\x0e", "\x0f"}[rng.IntN(5)])
			b.WriteString("lqkxmj")
		case 19:
			fmt.Fprintf(&b, "\x1b[%sb", num())
		case 20:
			fmt.Fprintf(&b, "\x1b[%sZ", num())
		case 21:
			b.WriteString(strings.Repeat("w", rng.IntN(80)))
		case 24:
			// Strings with UTF-8 (0x9C is a continuation byte, not ST),
			// their terminators and stray bytes inside sequences.
			b.WriteString([]string{"\x1b]0;", "\x1b]2;", "\x1bP", "\x1bPq", "\x1b_", "\x1b^", "\x1bX", "\x1b[", "\x1b", "\x1b(", "\x1bP1;"}[rng.IntN(11)])
			b.WriteString([]string{"✳ title", "“q”", "✓✔✗", "\xc2\x9c", "\x9c", "x", "1\xe2\x9c\xb3;3", ""}[rng.IntN(8)])
			b.WriteString([]string{"\a", "\x1b\\", "\x18", "\x1a", "\x1b\x1b\\", "m", "31m", "0", ""}[rng.IntN(9)])
		default:
			b.WriteString(words[rng.IntN(4)])
		}
	}
	return []byte(b.String())
}
