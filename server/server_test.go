// server_test.go drives a real server over its socket: attaching shows
// every pane; two clients of different sizes share the panes (what one
// types the other sees; the ptys follow the one used last); a client that
// stops reading slows neither the panes nor the other client and gets a
// whole frame when it reads again; a
// frame the server cannot read closes that client only; detach, q, stop,
// wait and the control requests; and when the server ends.
package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/statedir"
)

func TestAttachShowsEveryPane(t *testing.T) {
	h := startServer(t, 4, "", recordViews)
	c := attachClient(t, h.plan.StateDir, 160, 45)
	var want []string
	for i := range 4 {
		want = append(want, fmt.Sprintf("hello from %s attempt 1", workerID(i)))
	}
	c.waitText("attach", want...)
	assert.Contains(t, c.text(), "running", "the status bar counts the running workers")

	// What the client's terminal shows is, cell for cell, what the
	// server's model drew for it.
	fmt.Fprintf(h.surf.handle("w02").screen, "\x1b[1;31mred\x1b[m and a wide 世界 line\r\n")
	var model, client string
	ok := assert.Eventually(t, func() bool {
		model, client = trimLines(ansi.Strip(h.lastFrame())), trimLines(c.text())
		return model == client && strings.Contains(client, "世界")
	}, 10*time.Second, 5*time.Millisecond)
	if !ok {
		t.Fatalf("the client's screen:\n%s\nthe model's view:\n%s", client, model)
	}
}

// trimLines drops trailing blanks from each line of s.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func TestTwoClientsAtDifferentSizes(t *testing.T) {
	h := startServer(t, 2, "")
	big := attachClient(t, h.plan.StateDir, 200, 50)
	small := attachClient(t, h.plan.StateDir, 90, 24)
	big.waitText("big attaches", "hello from w00", "hello from w01")
	small.waitText("small attaches", "hello from w00", "hello from w01")

	// The big client types into the first pane: both see it, and the pty
	// takes the big client's layout.
	big.keys("i")
	big.keys("typed by big\r")
	big.waitText("big sees its echo", "typed by big")
	small.waitText("small sees what big typed", "typed by big")
	w0 := h.surf.handle("w00")
	assert.Equal(t, "typed by big\r", w0.Typed())
	var bigCols int
	require.Eventually(t, func() bool { bigCols, _ = w0.size(); return bigCols > 90 }, 10*time.Second, 5*time.Millisecond,
		"the pane takes the width of the client that typed last")

	// The small client is used: the ptys follow it, and the big client
	// still draws every pane (cropped or padded to its own cells).
	small.keys("\t")
	require.Eventually(t, func() bool { c, _ := w0.size(); return c < 90 }, 10*time.Second, 5*time.Millisecond,
		"the pane takes the small client's width once it is used")
	fmt.Fprintf(w0.screen, "after the resize\r\n")
	big.waitText("big still draws the pane", "after the resize", "hello from w01")
	small.waitText("small draws it too", "after the resize")

	// Each client has its own focus: small's Tab moved its focus only.
	small.keys("i")
	small.keys("from small\r")
	small.waitText("small typed into w01", "from small")
	assert.Equal(t, "from small\r", h.surf.handle("w01").Typed(), "small's Tab focused w01")
	assert.Equal(t, "typed by big\r", w0.Typed())
}

func TestFrozenClientSlowsNothingAndGetsAWholeFrameWhenItReadsAgain(t *testing.T) {
	h := startServer(t, 2, "", func(_ *harness, c *Config) { c.OutputLimit = 64 << 10 })
	live := attachClient(t, h.plan.StateDir, 160, 45)
	live.waitText("live attaches", "hello from w00")

	// A client that says hello and stops reading (stopped, or behind a
	// link that does not keep up).
	frozen, err := Dial(h.plan.StateDir)
	require.NoError(t, err)
	defer frozen.Close()
	require.NoError(t, frozen.SetReadBuffer(4096))
	require.NoError(t, WriteJSON(frozen, FrameHello, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: []string{"TERM=xterm-256color"}, Cols: 200, Rows: 60}))
	require.Eventually(t, func() bool { return h.srv.attached() == 2 }, 10*time.Second, 5*time.Millisecond)

	// Both panes flood, repainting their whole screen with new text each
	// time; every write goes straight into the emulator (the frozen
	// client's output is discarded once its queue is full, never held in
	// a pane).
	w0, w1 := h.surf.handle("w00"), h.surf.handle("w01")
	var screen bytes.Buffer
	start := time.Now()
	i := 0
	for ; !h.behind(); i++ {
		require.Less(t, i, 200_000, "the frozen client's output never filled its queue; log:\n%s", h.log.String())
		screen.Reset()
		screen.WriteString("\x1b[H")
		for row := range 45 {
			fill := strings.Repeat(string(rune('a'+(i+row)%26)), 90)
			fmt.Fprintf(&screen, "\x1b[3%dm%06d %s\x1b[m\x1b[K\r\n", (i+row)%7+1, i, fill)
		}
		_, _ = w0.screen.Write(screen.Bytes())
		_, _ = w1.screen.Write(screen.Bytes())
		time.Sleep(time.Millisecond) // a flood's pace, so frames go out between writes
	}
	t.Logf("behind after %d writes, %s", i, time.Since(start))
	fmt.Fprintf(w0.screen, "\r\nthe flood is over\r\n")
	live.waitText("the live client still follows the panes", "the flood is over")
	assert.Equal(t, 2, h.srv.attached(), "the frozen client is not dropped")

	// It reads again: what was queued, then a whole frame.
	tc := &testClient{t: t, c: frozen, term: vt.New(200, 60, vt.Options{}), done: make(chan struct{})}
	go tc.read(NewFrameReader(frozen))
	tc.waitText("the frozen client reads again", "the flood is over")
	require.Eventually(t, func() bool {
		lines := strings.Split(tc.text(), "\n")
		return len(lines) >= 60 && strings.ContainsAny(lines[58][:3], "╰┗└") && strings.Contains(lines[59], "Tab focus")
	}, 10*time.Second, 5*time.Millisecond, "a whole frame: the bottom borders and the status bar; the screen:\n%s", tc.text())
	assert.False(t, h.behind())
	frozen.Close()
	<-tc.done
}

// behind reports whether a client's output is being discarded until it
// catches up.
func (h *harness) behind() bool {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	for ss := range h.srv.sessions {
		if ss.out.Behind() {
			return true
		}
	}
	return false
}

func TestFramesTheServerCannotReadCloseOnlyThatClient(t *testing.T) {
	h := startServer(t, 1, "")
	hello := func() []byte {
		var b bytes.Buffer
		_ = WriteJSON(&b, FrameHello, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: []string{"TERM=xterm"}, Cols: 80, Rows: 24})
		return b.Bytes()
	}
	frame := func(t FrameType, p []byte) []byte { return AppendFrame(nil, t, p) }
	for _, tc := range []struct {
		name string
		send []byte
	}{
		{"garbage", []byte("GET / HTTP/1.1\r\n\r\n")},
		{"oversized length", binary.BigEndian.AppendUint32(nil, 0xfffffff0)},
		{"input before hello", frame(FrameInput, []byte("q"))},
		{"hello that is not JSON", frame(FrameHello, []byte("{nope"))},
		{"another protocol version", frame(FrameHello, []byte(`{"rostra":99,"mode":"attach"}`))},
		{"unknown mode", frame(FrameHello, []byte(`{"rostra":1,"mode":"play"}`))},
		{"attached, then a bad resize", append(hello(), frame(FrameResize, []byte{0, 0, 0, 0})...)},
		{"attached, then a server's frame", append(hello(), frame(FrameBye, []byte("{}"))...)},
		{"attached, then an unknown type", append(hello(), 0, 0, 0, 1, 77)},
		{"control, then garbage", append(frame(FrameHello, []byte(`{"rostra":1,"mode":"control"}`)), frame(FrameRequest, []byte("[1,2"))...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(h.plan.StateDir)
			require.NoError(t, err)
			defer c.Close()
			_, err = c.Write(tc.send)
			require.NoError(t, err)
			require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
			// The server closes the connection (after a Bye when it can say
			// why; a reset when what it did not read was still queued).
			var all bytes.Buffer
			_, err = all.ReadFrom(c)
			if err != nil {
				require.ErrorIs(t, err, syscall.ECONNRESET, "the server closed the connection")
			}
			rep := control(t, h.plan.StateDir, Request{Op: OpStatus})
			require.NotNil(t, rep.State, "the server still answers")
		})
	}
	require.Eventually(t, func() bool { return h.srv.attached() == 0 }, 10*time.Second, 5*time.Millisecond)
	assert.Contains(t, h.log.String(), fmt.Sprintf("protocol %d, the client 99", ProtocolVersion))
}

// TestAProbeIsNotARefusal: rostra attach and run dial the socket and
// close it to see whether a server answers; server.log does not call that a
// refusal. A hello cut short still is one.
func TestAProbeIsNotARefusal(t *testing.T) {
	h := startServer(t, 1, "")
	conns := func() int {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return len(h.srv.conns)
	}
	probe, err := Dial(h.plan.StateDir)
	require.NoError(t, err)
	require.NoError(t, probe.Close())
	// Then a hello cut short, accepted after the probe (one accept loop):
	// once it is logged and every connection is over, so is the probe's.
	c, err := Dial(h.plan.StateDir)
	require.NoError(t, err)
	_, err = c.Write([]byte{0, 0})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.Eventually(t, func() bool { return strings.Contains(h.log.String(), "no hello: unexpected EOF") }, 10*time.Second, 5*time.Millisecond,
		"a hello cut short is refused: %s", h.log.String())
	require.Eventually(t, func() bool { return conns() == 0 }, 10*time.Second, 5*time.Millisecond, "every connection is over")
	assert.Equal(t, 1, strings.Count(h.log.String(), "refused"), "only the hello cut short is a refusal:\n%s", h.log.String())
}

func TestDetachKeepsTheRunAndTheServerEndsWhenItFinishes(t *testing.T) {
	h := startServer(t, 2, "")
	c := attachClient(t, h.plan.StateDir, 120, 40)
	c.waitText("attach", "hello from w00")
	c.keys("d")
	bye := c.waitBye()
	assert.Equal(t, Bye{Reason: ByeDetached, Code: 0}, bye)
	assert.Equal(t, statedir.RunRunning, h.eng.Snapshot().Status, "the run goes on")

	// Detaching by the Detach frame (the client's own way) works too.
	c2 := attachClient(t, h.plan.StateDir, 120, 40)
	c2.waitText("attach again", "hello from w00")
	c2.send(FrameDetach, nil)
	assert.Equal(t, ByeDetached, c2.waitBye().Reason)

	// The run finishes with no client attached: the server ends with the
	// run's code and removes its socket.
	h.surf.handle("w00").end(0, "")
	h.surf.handle("w01").end(3, "")
	assert.Equal(t, 1, h.wait(), "w01 failed: exit 1")
	_, err := os.Stat(SocketPath(h.plan.StateDir))
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = Dial(h.plan.StateDir)
	assert.ErrorIs(t, err, ErrNoServer)
}

func TestQuitOffersStopOrDetach(t *testing.T) {
	h := startServer(t, 1, "")
	a := attachClient(t, h.plan.StateDir, 120, 40)
	b := attachClient(t, h.plan.StateDir, 100, 30)
	a.waitText("attach", "hello from w00")
	b.waitText("attach", "hello from w00")
	a.keys("q")
	a.waitText("q asks", "Leave rostra?", "d detach", "s stop the run")
	a.keys("\x1b") // Esc: stay
	a.keys("q")
	a.waitText("q asks again", "Leave rostra?")
	a.keys("s")
	assert.Equal(t, Bye{Reason: ByeStopped, Code: 130, Message: "stopped from an attached client"}, a.waitBye())
	bye := b.waitBye()
	assert.Equal(t, ByeStopped, bye.Reason, "every client learns the run stopped")
	assert.Equal(t, 130, bye.Code)
	assert.Equal(t, 130, h.wait())
	st, err := statedir.ReadTeamState(h.plan.StateDir)
	require.NoError(t, err)
	assert.Equal(t, statedir.RunInterrupted, st.Status)
	assert.Equal(t, statedir.StatusCancelled, st.Workers[0].Status)
}

func TestLeavingAFinishedRunEndsTheServer(t *testing.T) {
	h := startServer(t, 1, "")
	c := attachClient(t, h.plan.StateDir, 120, 40)
	c.waitText("attach", "hello from w00")
	h.surf.handle("w00").end(0, "")
	c.waitText("the run finishes", "run finished")
	assert.Equal(t, 1, h.srv.attached(), "a finished run stays while a client looks at it")
	c.keys("q")
	assert.Equal(t, Bye{Reason: ByeLeft, Code: 0}, c.waitBye(), "nothing runs: q leaves at once, with the run's code")
	assert.Equal(t, 0, h.wait(), "the last client left a finished run: the server ends")
}

func TestEachClientHasItsOwnColours(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	h := startServer(t, 1, "", func(_ *harness, c *Config) {
		c.Colours = func(env []string) (string, bool, error) {
			mu.Lock()
			seen = append(seen, strings.Join(env, " "))
			mu.Unlock()
			if envGet(env, "ROSTRA_THEME") == "plaid" {
				return "", false, errors.New("ROSTRA_THEME=plaid is not a theme")
			}
			return "dark", envGet(env, "NO_COLOR") != "", nil
		}
	})
	fmt.Fprintf(h.surf.handle("w00").screen, "\x1b[35mthe pane's own magenta\x1b[m\r\n")
	coloured := attachClient(t, h.plan.StateDir, 100, 30)
	plain := attachClient(t, h.plan.StateDir, 100, 30, "NO_COLOR=1")
	coloured.waitText("attach", "the pane's own magenta", "1 running")
	plain.waitText("attach", "the pane's own magenta", "1 running")
	assert.Contains(t, plain.rawOutput(), "\x1b[35;", "NO_COLOR keeps the pane's own colours")
	assert.Contains(t, coloured.rawOutput(), "\x1b[36;1m┃", "rostra's own colours: the running pane's frame")
	assert.NotContains(t, plain.rawOutput(), "\x1b[36", "NO_COLOR drops the colours rostra adds, for that client only")

	c, err := Dial(h.plan.StateDir)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, WriteJSON(c, FrameHello, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: []string{"TERM=xterm", "ROSTRA_THEME=plaid"}, Cols: 80, Rows: 24}))
	bye, err := readWelcome(NewFrameReader(c))
	require.NoError(t, err)
	require.NotNil(t, bye)
	assert.Equal(t, Bye{Reason: ByeRefused, Code: 2, Message: "ROSTRA_THEME=plaid is not a theme"}, *bye)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, seen, "TERM=xterm-256color NO_COLOR=1", "the server saw the client's environment")
}

// TestAFreshStatusAnswers: `rostra status` asks for a fresh status (the
// running isolated workers' diff-stats measured first); with none to
// measure it is answered at once, like any status.
func TestAFreshStatusAnswers(t *testing.T) {
	h := startServer(t, 2, "")
	start := time.Now()
	rep := control(t, h.plan.StateDir, Request{Op: OpStatus, Fresh: true})
	require.NotNil(t, rep.State)
	assert.Len(t, rep.State.Workers, 2)
	assert.Less(t, time.Since(start), freshTimeout, "nothing to measure: no wait for the timeout")
}

// TestARunRetriedAfterItFinishedEndsTheServerWhenItFinishesAgain: a
// client retries a worker of a finished run, then detaches; when the new
// attempt ends, the run has finished again with no client attached, and
// the server ends (it does not linger, with its socket, for nobody).
func TestARunRetriedAfterItFinishedEndsTheServerWhenItFinishesAgain(t *testing.T) {
	h := startServer(t, 1, "")
	c := attachClient(t, h.plan.StateDir, 120, 40)
	c.waitText("attach", "hello from w00")
	first := h.surf.handle("w00")
	first.end(0, "")
	c.waitText("the run finishes", "run finished")

	rep := control(t, h.plan.StateDir, Request{Op: OpRetry, Worker: "w00"})
	require.Empty(t, rep.Error)
	require.Eventually(t, func() bool { return h.surf.handle("w00") != first }, 10*time.Second, 5*time.Millisecond, "the manual attempt opens")
	require.Equal(t, statedir.RunRunning, h.eng.Snapshot().Status, "a retried run runs again")
	c.send(FrameDetach, nil)
	assert.Equal(t, ByeDetached, c.waitBye().Reason)
	require.Eventually(t, func() bool { return h.srv.attached() == 0 }, 10*time.Second, 5*time.Millisecond)

	h.surf.handle("w00").end(0, "")
	assert.Equal(t, 0, h.wait(), "the run finished again with no client attached: the server ends")
}

// TestTheServerAnswersAgainAfterItsStateDirIsMadeAgain: an agent deletes
// the state dir (rm -rf .rostra); the engine makes it again and the run
// goes on, and so does the server's socket: clients can still reach the
// run (attach, status, stop), not only the one attached at the time.
func TestTheServerAnswersAgainAfterItsStateDirIsMadeAgain(t *testing.T) {
	h := startServer(t, 1, "")
	sub := h.eng.Subscribe()
	defer sub.Close()
	// The folder goes at once (moved away, then deleted), as rm -rf does
	// when nothing is written into it meanwhile.
	gone := h.plan.StateDir + ".gone"
	require.NoError(t, os.Rename(h.plan.StateDir, gone))
	// rostra writes below the folder it holds until it sees it moved: an
	// rm meeting such a write fails with "directory not empty", and is
	// run again, as a person would.
	require.Eventually(t, func() bool { return os.RemoveAll(gone) == nil }, 10*time.Second, 10*time.Millisecond)
	for {
		ev, ok := sub.Next()
		require.True(t, ok)
		if ev.Type == engine.EventStateDirRecreated {
			break
		}
	}
	require.Eventually(t, func() bool {
		c, err := Dial(h.plan.StateDir)
		if err != nil {
			return false
		}
		c.Close()
		return true
	}, 10*time.Second, 10*time.Millisecond, "the server listens again in the state dir made again")
	rep := control(t, h.plan.StateDir, Request{Op: OpStatus})
	require.NotNil(t, rep.State)
	assert.Equal(t, statedir.RunRunning, rep.State.Status, "the run goes on: %v", h.eng.Err())
	rep = control(t, h.plan.StateDir, Request{Op: OpStop})
	assert.Equal(t, 130, rep.Code)
	assert.Equal(t, 130, h.wait())
	_, err := os.Stat(SocketPath(h.plan.StateDir))
	assert.ErrorIs(t, err, os.ErrNotExist, "the socket is removed at the end")
}

// A stop is answered once the workers are stopped; its connection then
// stays open until the server's process exits (the kernel closes it), so
// that rostra stop returns only when the server has gone and the run's
// lock is free: here the process is the test's, so it stays open even
// after Serve has returned.
func TestAStopsConnectionIsHeldUntilTheProcessExits(t *testing.T) {
	h := startServer(t, 1, "")
	cc, err := Control(h.plan.StateDir)
	require.NoError(t, err)
	defer cc.Close()
	rep, err := cc.Do(Request{Op: OpStop})
	require.NoError(t, err)
	assert.Equal(t, 130, rep.Code)
	assert.Equal(t, 130, h.wait())
	assert.False(t, cc.WaitServerExit(200*time.Millisecond), "the stop's connection closed before the process exited")

	// A status client's connection is closed by Serve as ever.
	h2 := startServer(t, 1, "")
	sc, err := Control(h2.plan.StateDir)
	require.NoError(t, err)
	defer sc.Close()
	_, err = sc.Do(Request{Op: OpStatus})
	require.NoError(t, err)
	h2.srv.Stop("the test")
	assert.Equal(t, 130, h2.wait())
	assert.True(t, sc.WaitServerExit(10*time.Second), "Serve closes the other connections")
}
