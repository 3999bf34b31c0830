// resize_flood_test.go floods a real server (the binary, rostra run
// --detach) with 10,000 Resize frames from one attached client, against a
// pane whose child printed 100,000 lines (its scrollback full) and counts
// each SIGWINCH it gets (a bash trap, on a real pty). Only the latest size
// of a client matters (docs/server.md, "The socket and the
// protocol"): the benchmark measures the server's CPU for the flood (its
// utime+stime from /proc), the test that the child gets a handful of
// SIGWINCH, not one per frame, and ends at the last size.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
)

// resizeFlood is how many Resize frames a flood sends.
const resizeFlood = 10000

// winchScript prints 100,000 lines, then counts each SIGWINCH into
// winch.count as "N ROWS COLS" (the size stty reads off the pty then).
const winchScript = `n=0
trap 'n=$((n+1)); echo "$n $(stty size)" > winch.tmp; mv winch.tmp winch.count' WINCH
seq 1 100000
echo "all lines printed"
while :; do sleep 1 & wait $!; done
`

// winchRun is a served run of one worker running winchScript.
type winchRun struct {
	ws, stateDir string
	pid          int // the server's
}

func startWinchRun(tb testing.TB) *winchRun {
	tb.Helper()
	ws := runWorkspace(tb, `version: 1
name: winch
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0 }
workers:
  - { id: winch, role: counter, provider: shell, prompt: "bash ./winch.sh" }
`)
	require.NoError(tb, os.WriteFile(filepath.Join(ws, "winch.sh"), []byte(winchScript), 0o755))
	run := exec.Command(rostraBin, "run", "--detach")
	run.Dir = ws
	out, err := run.CombinedOutput()
	require.NoError(tb, err, "rostra run --detach: %s", out)
	m := serverPidRx.FindSubmatch(out)
	require.NotNil(tb, m, "no server pid in %q", out)
	pid, _ := strconv.Atoi(string(m[1]))
	tb.Cleanup(func() {
		stop := exec.Command(rostraBin, "stop")
		stop.Dir = ws
		if out, err := stop.CombinedOutput(); err != nil && stop.ProcessState.ExitCode() != 130 {
			tb.Errorf("rostra stop: %v: %s", err, out)
		}
	})
	return &winchRun{ws: ws, stateDir: filepath.Join(ws, ".rostra", "winch"), pid: pid}
}

// winches is what the child's trap wrote last: how many SIGWINCH it got and
// the pty's size then (0 and "" before the first).
func (r *winchRun) winches() (int, string) {
	b, err := os.ReadFile(filepath.Join(r.ws, "winch.count"))
	if err != nil {
		return 0, ""
	}
	n, size, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	count, _ := strconv.Atoi(n)
	return count, size
}

// waitWinch waits until the child's last SIGWINCH saw the pty at size
// ("ROWS COLS").
func (r *winchRun) waitWinch(tb testing.TB, what, size string) {
	tb.Helper()
	ok := assert.Eventually(tb, func() bool { _, s := r.winches(); return s == size }, 60*time.Second, 10*time.Millisecond)
	if !ok {
		n, s := r.winches()
		tb.Fatalf("%s: the child never saw its pty at %s; its last SIGWINCH (%d so far) saw %q", what, size, n, s)
	}
}

// cpu is the server's CPU time so far (user and system, every thread).
func (r *winchRun) cpu(tb testing.TB) time.Duration {
	tb.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(r.pid) + "/stat")
	require.NoError(tb, err)
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// floodClient is an attached client that draws what the server sends into
// an emulator standing for its terminal.
type floodClient struct {
	c    interface{ Write([]byte) (int, error) }
	mu   sync.Mutex
	term *vt.Terminal
	seen chan struct{} // a frame was drawn
	err  error
}

func attachFlooder(tb testing.TB, stateDir string, cols, rows int) *floodClient {
	tb.Helper()
	c, err := server.Dial(stateDir)
	require.NoError(tb, err)
	tb.Cleanup(func() { c.Close() })
	require.NoError(tb, server.WriteJSON(c, server.FrameHello, server.Hello{Rostra: server.ProtocolVersion, Mode: server.ModeAttach,
		Env: []string{"TERM=xterm-256color"}, Cols: cols, Rows: rows}))
	fc := &floodClient{c: c, term: vt.New(cols, rows, vt.Options{}), seen: make(chan struct{}, 1)}
	fr := server.NewFrameReader(bufio.NewReaderSize(c, 64<<10))
	go func() {
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				fc.mu.Lock()
				fc.err = err
				fc.mu.Unlock()
				close(fc.seen)
				return
			}
			if f.Type == server.FrameOutput {
				fc.mu.Lock()
				_, _ = fc.term.Write(f.Payload)
				fc.mu.Unlock()
				select {
				case fc.seen <- struct{}{}:
				default:
				}
			}
		}
	}()
	return fc
}

// waitScreen waits, frame by frame, until the client's screen satisfies ok.
func (fc *floodClient) waitScreen(tb testing.TB, what string, ok func(text string) bool) {
	tb.Helper()
	deadline := time.After(60 * time.Second)
	for {
		fc.mu.Lock()
		text, err := fc.term.Text(false), fc.err
		fc.mu.Unlock()
		if ok(text) {
			return
		}
		if err != nil {
			tb.Fatalf("%s: the server ended the session (%v); the screen:\n%s", what, err, text)
		}
		select {
		case <-fc.seen:
		case <-deadline:
			tb.Fatalf("%s: not on the client's screen after 60 s; it shows:\n%s", what, text)
		}
	}
}

// resize stands for the client's terminal taking a new size.
func (fc *floodClient) resize(cols, rows int) {
	fc.mu.Lock()
	fc.term.Resize(cols, rows)
	fc.mu.Unlock()
}

// The sizes of a flood: the terminal dragged through widths and heights,
// ending at lastCols×lastRows. The one pane's terminal is the window less
// its border and the status bar.
const lastCols, lastRows = 150, 45

var lastPaneSize = fmt.Sprintf("%d %d", lastRows-3, lastCols-2)

func floodFrames() []byte {
	var b []byte
	for i := range resizeFlood - 1 {
		b = server.AppendFrame(b, server.FrameResize, server.AppendResize(nil, 80+i%120, 24+i%30))
	}
	return server.AppendFrame(b, server.FrameResize, server.AppendResize(nil, lastCols, lastRows))
}

// attachReady attaches at 200×60 once the child has printed its lines and
// the pty has the client's size.
func (r *winchRun) attachReady(tb testing.TB) *floodClient {
	tb.Helper()
	fc := attachFlooder(tb, r.stateDir, 200, 60)
	fc.waitScreen(tb, "the child printed its 100,000 lines", func(s string) bool { return strings.Contains(s, "all lines printed") })
	// The child traps WINCH now (the pty may have taken this client's size
	// before it did): a size of the client's own tells that the pty
	// follows it.
	_, err := fc.c.Write(server.AppendFrame(nil, server.FrameResize, server.AppendResize(nil, 201, 60)))
	require.NoError(tb, err)
	fc.resize(201, 60)
	r.waitWinch(tb, "the pty takes the attached client's size", "57 199")
	return fc
}

// flood sends the frames in one write, as fast as the server reads them,
// and waits until the pty and the client's screen have the last size.
func (r *winchRun) flood(tb testing.TB, fc *floodClient, frames []byte) {
	tb.Helper()
	fc.resize(lastCols, lastRows)
	_, err := fc.c.Write(frames)
	require.NoError(tb, err)
	r.waitWinch(tb, "the pty takes the last size", lastPaneSize)
	// The frame at the last size: the pane's bottom border at the last
	// row but the status bar's, as wide as the window.
	fc.waitScreen(tb, "a whole frame at the last size", func(s string) bool {
		lines := strings.Split(s, "\n")
		return len(lines) >= lastRows-1 && bottomBorder(lines[lastRows-2], lastCols)
	})
}

// bottomBorder reports whether line is a pane's bottom border, cols wide.
func bottomBorder(line string, cols int) bool {
	r := []rune(strings.TrimRight(line, " "))
	return len(r) == cols && strings.ContainsRune("╰┗└╚", r[0]) && strings.ContainsRune("╯┛┘╝", r[cols-1])
}

func BenchmarkResizeFlood(b *testing.B) {
	r := startWinchRun(b)
	fc := r.attachReady(b)
	frames := floodFrames()
	var took []time.Duration
	for b.Loop() {
		// Back to the first size between floods, so each ends with a change.
		_, err := fc.c.Write(server.AppendFrame(nil, server.FrameResize, server.AppendResize(nil, 200, 60)))
		require.NoError(b, err)
		fc.resize(200, 60)
		r.waitWinch(b, "back at 200×60", "57 198")
		before := r.cpu(b)
		r.flood(b, fc, frames)
		took = append(took, r.cpu(b)-before)
	}
	var sum time.Duration
	for _, d := range took {
		sum += d
	}
	mean := sum / time.Duration(len(took))
	b.ReportMetric(mean.Seconds(), "server-cpu-s/flood")
	fmt.Printf("server CPU for %d resize frames (pane with 100,000 lines printed): %s per flood over %d floods (docs/server.md: well under 1 s)\n", resizeFlood, mean, len(took))
}

func TestResizeFloodGivesTheChildFewSIGWINCH(t *testing.T) {
	t.Parallel()
	r := startWinchRun(t)
	fc := r.attachReady(t)
	before, _ := r.winches()
	r.flood(t, fc, floodFrames())
	after, size := r.winches()
	assert.Equal(t, lastPaneSize, size, "the child's last SIGWINCH is for the last size")
	assert.LessOrEqual(t, after-before, 5, "SIGWINCH the child got for %d resize frames", resizeFlood)
	t.Logf("%d resize frames: the child got %d SIGWINCH", resizeFlood, after-before)
}
