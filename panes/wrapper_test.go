//go:build linux

// wrapper_test.go tests the wrapper surface on real processes: stdout and
// stderr merged in order, stdin fed then closed, the Screen's newline
// translation next to the raw log.
package panes

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestWrapperMergesStdoutAndStderrInOrder(t *testing.T) {
	var script, want strings.Builder
	for i := range 200 {
		if i%3 == 0 {
			script.WriteString("echo err" + strconv.Itoa(i) + " >&2; ")
			want.WriteString("err" + strconv.Itoa(i) + "\n")
		} else {
			script.WriteString("echo out" + strconv.Itoa(i) + "; ")
			want.WriteString("out" + strconv.Itoa(i) + "\n")
		}
	}
	l := newLaunch(t, sh(script.String()))
	p, err := StartWrapper(l, WrapperOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	log := endedLog(t, p, l.OutputLog, 5*time.Second)
	assert.Equal(t, want.String(), string(log))
}

func TestWrapperStdinIsDeliveredThenClosed(t *testing.T) {
	defer goleak.VerifyNone(t, ignoreSpawnLoop())
	l := newLaunch(t, sh(`cat; echo "eof seen"`))
	l.Stdin = []byte("line one\nline two, no newline")
	p, err := StartWrapper(l, WrapperOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	assert.Equal(t, Exit{Code: 0}, p.Exit())
	log, err := os.ReadFile(l.OutputLog)
	require.NoError(t, err)
	assert.Equal(t, "line one\nline two, no newlineeof seen\n", string(log))
}

func TestWrapperNilStdinIsDevNull(t *testing.T) {
	l := newLaunch(t, sh(`cat; echo "eof seen"`))
	p, err := StartWrapper(l, WrapperOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	log := endedLog(t, p, l.OutputLog, 5*time.Second)
	assert.Equal(t, "eof seen\n", string(log))
}

// TestWrapperUnreadStdinDoesNotLeak: 4 MB for a child whose grandchild holds
// stdin and never reads it: the feeder ends with the attempt instead of
// blocking forever.
func TestWrapperUnreadStdinDoesNotLeak(t *testing.T) {
	defer goleak.VerifyNone(t, ignoreSpawnLoop())
	l := newLaunch(t, sh(`exec 3<&0; sleep 1000 <&3 & echo started`))
	l.Stdin = make([]byte, 4<<20)
	l.StopGrace = 200 * time.Millisecond
	p, err := StartWrapper(l, WrapperOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
}

func TestWrapperScreenGetsCRLFLogKeepsRawBytes(t *testing.T) {
	scr, newScreen := newRecScreen()
	l := newLaunch(t, sh(`printf 'a\nb\r\nc\n'`))
	l.Cols, l.Rows = 100, 30
	p, err := StartWrapper(l, WrapperOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	assert.Equal(t, "a\r\nb\r\nc\r\n", scr.String())
	log, err := os.ReadFile(l.OutputLog)
	require.NoError(t, err)
	assert.Equal(t, "a\nb\r\nc\n", string(log))

	require.NoError(t, p.Resize(120, 40))
	scr.mu.Lock()
	assert.Equal(t, [][2]int{{100, 30}, {120, 40}}, scr.sizes)
	scr.mu.Unlock()
}

func TestCRLFAcrossChunks(t *testing.T) {
	var lastCR bool
	var got []byte
	for _, c := range []string{"x\r", "\ny\n", "\n", "\r", "\n"} {
		got = append(got, crlf(nil, []byte(c), &lastCR)...)
	}
	assert.Equal(t, "x\r\ny\r\n\r\n\r\n", string(got))
}
