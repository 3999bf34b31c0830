// rostra_test.go tests rostra's patch to bubbletea (README.rostra.md): the
// on-change renderer (WithRenderOnChange), the alternate screen's redraw of
// changed lines only (cursedRenderer.prevLines), and the on-change
// renderer across ReleaseTerminal / RestoreTerminal. Upstream's own tests
// beside it run unchanged.
package tea

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// TestAltScreenRedrawsChangedLinesAsAWholeFrameWould draws a run of
// alternate-screen frames on one renderer, which redraws only the lines
// that changed, and each frame on a fresh renderer, which draws it whole:
// the cell buffers must be the same after every frame. The frames change
// one line, a line's width (wide characters, a shorter line over a longer
// one), its style, the number of lines, and overflow the screen.
func TestAltScreenRedrawsChangedLinesAsAWholeFrameWould(t *testing.T) {
	const w, h = 20, 5
	frames := []string{
		"alpha\nbeta\ngamma",
		"alpha\nBETA\ngamma",
		"alpha\nBETA\ngamma\ndelta",
		"漢字の行\nBETA\ngamma\ndelta",
		"a\nBETA\ngamma\ndelta", // shorter than what it replaces
		"a\n\x1b[1;31mBETA\x1b[m\ngamma\ndelta",
		"a\n\x1b[1;31mBETA\x1b[m\n\x1b[44mgamma gamma gamma gamma\x1b[m\ndelta",
		"\x1b[31mred\nstill red\x1b[m\nc\nd", // a style open across lines
		"\x1b[31mred\nSTILL RED\x1b[m\nc\nd",
		"a\nb\nc\nd\ne\nf", // more lines than rows
		"a\nb\nc\nd\ne",
		"a\nb\nc\nd\nE",
		"",
		"back\nagain",
	}
	r := newCursedRenderer(io.Discard, []string{"TERM=xterm-256color"}, w, h)
	for i, content := range frames {
		v := View{Content: content, AltScreen: true}
		r.render(v)
		if err := r.flush(false); err != nil {
			t.Fatal(err)
		}
		whole := newCursedRenderer(io.Discard, []string{"TERM=xterm-256color"}, w, h)
		whole.render(v)
		if err := whole.flush(false); err != nil {
			t.Fatal(err)
		}
		if got, want := r.cellbuf.Render(), whole.cellbuf.Render(); got != want {
			t.Fatalf("frame %d (%q): redrawn lines give\n%q\nbut the whole frame is\n%q", i, content, got, want)
		}
	}
}

// TestAltScreenLeavesUnchangedLinesAlone marks a cell of a line the next
// frame keeps: the mark survives the frame when only changed lines are
// drawn, and is drawn over when the frame must be drawn whole (a style left
// open across lines, or a change in the number of lines).
func TestAltScreenLeavesUnchangedLinesAlone(t *testing.T) {
	for _, tc := range []struct {
		name        string
		first, next string
		markKept    bool
	}{
		{"one line changed", "alpha\nbeta\ngamma", "alpha\nBETA\ngamma", true},
		{"styles closed on each line", "\x1b[1malpha\x1b[m\nbeta", "\x1b[1malpha\x1b[m\nBETA", true},
		{"a style open across lines", "\x1b[1malpha\nbeta\x1b[m", "\x1b[1malpha\nBETA\x1b[m", false},
		{"a line added", "alpha\nbeta", "alpha\nbeta\ngamma", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newCursedRenderer(io.Discard, []string{"TERM=xterm-256color"}, 20, 5)
			for i, content := range []string{tc.first, tc.next} {
				if i == 1 {
					r.mu.Lock()
					r.cellbuf.CellAt(0, 0).Content = "#"
					r.mu.Unlock()
				}
				r.render(View{Content: content, AltScreen: true})
				if err := r.flush(false); err != nil {
					t.Fatal(err)
				}
			}
			if kept := r.cellbuf.CellAt(0, 0).Content == "#"; kept != tc.markKept {
				t.Fatalf("mark on the unchanged first line kept: %v, want %v; the frame: %q", kept, tc.markKept, r.cellbuf.Render())
			}
		})
	}
}

// syncOutput is a program's output that a test can wait on.
type syncOutput struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{} // closed and replaced on every write
}

func newSyncOutput() *syncOutput { return &syncOutput{wrote: make(chan struct{})} }

func (o *syncOutput) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.wrote)
	o.wrote = make(chan struct{})
	return o.buf.Write(b)
}

func (o *syncOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor waits until the output from offset from on holds want, and
// returns the offset just past it.
func (o *syncOutput) waitFor(t *testing.T, from int, want string) int {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		o.mu.Lock()
		s, wrote := o.buf.String(), o.wrote
		o.mu.Unlock()
		if i := strings.Index(s[from:], want); i >= 0 {
			return from + i + len(want)
		}
		select {
		case <-wrote:
		case <-deadline:
			t.Fatalf("%q never written; the output from %d: %q", want, from, s[from:])
		}
	}
}

// frameWord is a word none of whose letters is in the same place in the
// word of n-1 or n+1, so the renderer's cell diff writes all of it; the
// words of 0 to 12 are all different.
func frameWord(n int) string {
	var b strings.Builder
	for i := range 6 {
		b.WriteByte(byte('A' + (n*6+i)%26))
	}
	return b.String()
}

type setFrame int

type copyText string

type releaseTerminal struct{}

type restoreTerminal struct{}

// frameModel shows frameWord(n) and releases and restores the terminal on
// the program's goroutine, as rostra's server does on a suspend.
type frameModel struct {
	p   *Program
	n   int
	alt bool
}

func (m *frameModel) Init() Cmd { return nil }

func (m *frameModel) Update(msg Msg) (Model, Cmd) {
	switch msg := msg.(type) {
	case setFrame:
		m.n = int(msg)
	case copyText:
		return m, SetClipboard(string(msg))
	case releaseTerminal:
		_ = m.p.ReleaseTerminal()
	case restoreTerminal:
		_ = m.p.RestoreTerminal()
		return m, ClearScreen
	}
	return m, nil
}

func (m *frameModel) View() View {
	return View{Content: frameWord(m.n), AltScreen: m.alt}
}

func startFrameProgram(t *testing.T, m *frameModel, opts ...ProgramOption) (*Program, *syncOutput) {
	t.Helper()
	out := newSyncOutput()
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	p := NewProgram(m, append([]ProgramOption{
		WithContext(t.Context()),
		WithInput(pr),
		WithOutput(out),
		WithEnvironment([]string{"TERM=xterm-256color"}),
		WithoutSignals(),
		WithWindowSize(40, 10),
	}, opts...)...)
	m.p = p
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = p.Run()
	}()
	t.Cleanup(func() {
		p.Quit()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the program did not quit")
		}
	})
	return p, out
}

// TestRenderOnChangeDrawsAtMostFPSFramesASecond sends 12 changes of the
// view as fast as it can to a program drawing at 2 FPS on change: the last
// view is drawn, and no more frames than the frame time allows (one at
// once, one per half second after it) although every change asked for one.
func TestRenderOnChangeDrawsAtMostFPSFramesASecond(t *testing.T) {
	const fps, changes = 2, 12
	m := &frameModel{}
	p, out := startFrameProgram(t, m, WithFPS(fps), WithRenderOnChange())
	mark := out.waitFor(t, 0, frameWord(0))

	start := time.Now()
	for n := 1; n <= changes; n++ {
		p.Send(setFrame(n))
	}
	out.waitFor(t, mark, frameWord(changes))
	elapsed := time.Since(start)

	drawn := 0
	s := out.String()[mark:]
	for n := 1; n <= changes; n++ {
		if strings.Contains(s, frameWord(n)) {
			drawn++
		}
	}
	allowed := 1 + int(elapsed*fps/time.Second) + 1
	if drawn > allowed {
		t.Fatalf("%d of %d changes drawn in %s at %d FPS; at most %d frames fit", drawn, changes, elapsed, fps, allowed)
	}
}

// TestFrameCreditLetsTwoFramesThroughThenOneAFrameTime: the on-change
// renderer's credit, on a clock of its own: after an idle spell a frame
// and the one right after it go out at once (a key's echo after a clock's
// tick), the third waits for the rest of its frame time, a flood gets one
// a frame time, and a long idle spell gives back two frames, not more.
func TestFrameCreditLetsTwoFramesThroughThenOneAFrameTime(t *testing.T) {
	const frame = 100 * time.Millisecond
	t0 := time.Unix(1000, 0)
	c := newFrameCredit(frame, t0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }

	if w := c.wait(at(0)); w != 0 {
		t.Fatalf("the first frame waits %s", w)
	}
	c.take(at(0))
	if w := c.wait(at(10 * time.Millisecond)); w != 0 {
		t.Fatalf("the frame right after a lone one waits %s", w)
	}
	c.take(at(10 * time.Millisecond))
	if w := c.wait(at(20 * time.Millisecond)); w < 79*time.Millisecond || w > 81*time.Millisecond {
		t.Fatalf("a third frame in a row, 20 ms after the first, waits %s; want 80 ms", w)
	}
	c.take(at(100 * time.Millisecond)) // its timer fired
	for i := 2; i < 10; i++ {          // a flood: one a frame time
		now := at(time.Duration(i) * frame)
		if w := c.wait(now); w != 0 {
			t.Fatalf("flood frame %d waits %s", i, w)
		}
		c.take(now)
		if w := c.wait(now.Add(time.Millisecond)); w == 0 {
			t.Fatalf("flood frame %d: a second frame within its frame time goes at once", i)
		}
	}
	idle := at(time.Hour)
	for i := range 2 {
		if w := c.wait(idle); w != 0 {
			t.Fatalf("after an hour idle, frame %d waits %s", i, w)
		}
		c.take(idle)
	}
	if w := c.wait(idle); w == 0 {
		t.Fatal("an hour idle gave more than two frames of credit")
	}
}

// TestReleasedTerminalGetsNoFrameAndRestoreDrawsTheLatest: with the
// on-change renderer, ReleaseTerminal leaves the alternate screen and
// nothing is drawn while the view changes; RestoreTerminal then a clear
// screen (what rostra's server does when a client resumes) enter it again
// and draw the latest view.
func TestReleasedTerminalGetsNoFrameAndRestoreDrawsTheLatest(t *testing.T) {
	m := &frameModel{alt: true}
	p, out := startFrameProgram(t, m, WithRenderOnChange())
	mark := out.waitFor(t, 0, ansi.SetModeAltScreenSaveCursor)
	mark = out.waitFor(t, mark, frameWord(0))

	p.Send(releaseTerminal{})
	released := out.waitFor(t, mark, ansi.ResetModeAltScreenSaveCursor)
	p.Send(setFrame(1))
	p.Send(setFrame(2))
	p.Send(restoreTerminal{})
	restored := out.waitFor(t, released, ansi.SetModeAltScreenSaveCursor)
	out.waitFor(t, restored, frameWord(2))

	between := out.String()[released:restored]
	for _, n := range []int{1, 2} {
		if strings.Contains(between, frameWord(n)) {
			t.Fatalf("frame %d was drawn while the terminal was released: %q", n, between)
		}
	}
}

// TestAQueuedSequenceIsWrittenAtOnce: with the on-change renderer, a
// clipboard write (OSC 52) that changes nothing in the view reaches the
// terminal without waiting for another message or frame.
func TestAQueuedSequenceIsWrittenAtOnce(t *testing.T) {
	m := &frameModel{}
	p, out := startFrameProgram(t, m, WithRenderOnChange())
	mark := out.waitFor(t, 0, frameWord(0))
	p.Send(setFrame(1)) // a first change, so the copy below changes nothing
	mark = out.waitFor(t, mark, frameWord(1))
	p.Send(copyText("copied"))
	out.waitFor(t, mark, ansi.SetSystemClipboard("copied"))
}
