// fuzz_test.go holds FuzzTerm: arbitrary bytes, written in arbitrary
// chunks with resizes in between, never panic and never put the cursor or
// a rendered line outside the screen; copy mode's read side (snapshots,
// rows, Copy, Search) never panics and reports matches inside the screen;
// and no input takes more than
// fuzzFeedBound to feed a 200×60 terminal, so a child cannot stall its
// pane's goroutine with a short sequence.
//
// Seeds: every corpus stream of testdata/term (real programs, the recorded
// agent CLIs, the synthetic streams), a few hand-made edge cases below, and
// testdata/fuzz/FuzzTerm: the hostile cases of the reliability table
// (testdata/reliability/FAULTS.md), written by testdata/fuzz/seeds.go.
//
//	go test ./panes/vt -run '^$' -fuzz '^FuzzTerm$' -fuzztime 60s -fuzzminimizetime 1x
package vt

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzFeedBound is the longest one input may take to feed a 200×60
// terminal, in a normal build: fuzzing runs without -race.
const fuzzFeedBound = 100 * time.Millisecond

// feedTime is the least of a few timed feeds of data into a fresh 200×60
// terminal: the work an input makes is the same every time, a scheduling
// pause on a loaded machine is not, so the minimum is the input's cost.
func feedTime(data []byte) time.Duration {
	best := time.Duration(1 << 62)
	for range 3 {
		tm := New(200, 60, Options{Scrollback: 1000})
		start := time.Now()
		_, _ = tm.Write(data)
		best = min(best, time.Since(start))
		if best <= fuzzFeedBound {
			break
		}
	}
	return best
}

// timesMean says whether this build's timings are the emulator's: not under
// the race detector (5–20 times slower) and not while fuzzing, whose
// coverage counters slow the tight loops up to 16 times (DECALN: 9 ms in a
// normal build, 144 ms instrumented). The inputs the fuzzer finds are timed
// afterwards in a normal build by TestFuzzTermCorpus, as .ci/run does.
func timesMean() bool {
	fuzz := flag.Lookup("test.fuzz")
	return !raceEnabled && (fuzz == nil || fuzz.Value.String() == "")
}

// TestFuzzTermCorpus times every input of FuzzTerm's corpus in a normal
// build: testdata/fuzz/FuzzTerm, and the directory ROSTRA_FUZZ_CORPUS names
// (.ci/run passes the inputs its fuzzing run found, kept in GOCACHE). The
// slowest are logged, so the CI log says what costs most.
func TestFuzzTermCorpus(t *testing.T) {
	if !timesMean() {
		t.Skip("timings under -race are not the emulator's")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzTerm", "*"))
	require.NoError(t, err)
	if dir := os.Getenv("ROSTRA_FUZZ_CORPUS"); dir != "" {
		found, err := filepath.Glob(filepath.Join(dir, "*"))
		require.NoError(t, err)
		files = append(files, found...)
	}
	require.NotEmpty(t, files)
	type timed struct {
		name string
		size int
		d    time.Duration
	}
	var all []timed
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		data, err := corpusBytes(raw)
		require.NoError(t, err, f)
		all = append(all, timed{filepath.Base(f), len(data), feedTime(data)})
	}
	slices.SortFunc(all, func(a, b timed) int { return cmp.Compare(b.d, a.d) })
	for _, x := range all[:min(5, len(all))] {
		t.Logf("slowest: %s (%d bytes) %s", x.name, x.size, x.d)
	}
	for _, x := range all {
		assert.LessOrEqual(t, x.d, fuzzFeedBound, "%s (%d bytes) is slow to feed a 200x60 terminal", x.name, x.size)
	}
	t.Logf("%d inputs timed, the slowest %s", len(all), all[0].d)
}

// corpusBytes is the first value, a []byte, of a Go fuzz corpus file.
func corpusBytes(file []byte) ([]byte, error) {
	lines := strings.Split(string(file), "\n")
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a fuzz corpus file")
	}
	lit, ok := strings.CutPrefix(lines[1], "[]byte(")
	if !ok || !strings.HasSuffix(lit, ")") {
		return nil, fmt.Errorf("first value is not []byte: %.40s", lines[1])
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	return []byte(s), err
}

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
		if timesMean() {
			if d := feedTime(data); d > fuzzFeedBound {
				t.Fatalf("feeding %d bytes to a 200x60 terminal took %s (bound %s)", len(data), d, fuzzFeedBound)
			}
		}
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
		checkReadSide(t, tm, data)
		tm.FlushReplies()
	})
}

// checkReadSide copies and searches a fuzzed terminal's snapshot.
func checkReadSide(t *testing.T, tm *Terminal, data []byte) {
	snap := tm.Snapshot()
	total := snap.LineCount()
	cols, _ := snap.Size()
	var r Row
	for i := range total {
		snap.ReadRow(i, &r)
		require.Equal(t, cols, r.Cols())
		require.LessOrEqual(t, r.Len(), cols)
	}
	for k, kind := range []SelectionKind{SelectChars, SelectLines, SelectBlock} {
		a := Pos{Line: (len(data) + k) % total, Col: len(data) % (cols + 1)}
		_ = snap.Copy(a, Pos{Line: total - 1, Col: cols}, kind)
		_ = snap.Copy(Pos{}, a, kind)
	}
	for _, q := range []string{"a", "中", "x*y", `\w+`} {
		query, err := NewQuery(q, q == "x*y" || q == `\w+`)
		require.NoError(t, err)
		snap.Search(query, func(m *Match) bool {
			require.True(t, m.Start.Before(m.End), "a match ends after it starts: %+v", m)
			require.True(t, m.End.Line < total && m.End.Col <= cols, "inside the screen: %+v", m)
			require.True(t, m.From < m.To && m.To <= len(m.Text))
			return true
		})
	}
}
