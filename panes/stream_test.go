//go:build linux

package panes

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// newTestStream is a pty's master as a stream, and its slave.
func newTestStream(t *testing.T) (*stream, *os.File) {
	master, tty, err := OpenPTY(80, 24)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tty.Close() })
	s, err := newStream(master)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, tty
}

// readOnce waits for output and reads it, as the pane's reader does.
func readOnce(s *stream, b []byte) (int, error) {
	n := 0
	var rerr error
	err := s.read(func(fd int) bool {
		n, rerr = readNow(fd, b)
		return rerr != syscall.EAGAIN
	}, func() {})
	if err != nil {
		return 0, err
	}
	return n, rerr
}

func TestStreamReadWaitsForOutputAndIsCutOffByClose(t *testing.T) {
	s, tty := newTestStream(t)
	got := make(chan string, 1)
	readErr := make(chan error, 1)
	go func() {
		var b [64]byte
		n, err := readOnce(s, b[:])
		if err != nil {
			readErr <- err
			return
		}
		got <- string(b[:n])
		_, err = readOnce(s, b[:])
		readErr <- err
	}()
	// The reader waits (its one-shot set armed) before the write comes.
	time.Sleep(50 * time.Millisecond)
	_, err := tty.Write([]byte("ping"))
	require.NoError(t, err)
	select {
	case g := <-got:
		assert.Equal(t, "ping", g)
	case err := <-readErr:
		t.Fatalf("read failed: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("a write to the slave did not wake the waiting reader")
	}
	require.NoError(t, s.Close())
	select {
	case err := <-readErr:
		assert.ErrorIs(t, err, os.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("closing the stream did not end a waiting read")
	}
	require.NoError(t, s.Close(), "Close is idempotent")
}

// TestStreamWriteWaitsForRoomAndIsCutOffByClose: a child that reads none of
// its input fills the tty's input queue; the write waits for room rather
// than fail, goes on when the child reads, and ends with os.ErrClosed when
// the stream is closed under it.
func TestStreamWriteWaitsForRoomAndIsCutOffByClose(t *testing.T) {
	s, tty := newTestStream(t)
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	require.NoError(t, err)
	tio.Lflag &^= unix.ICANON | unix.ECHO
	require.NoError(t, unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio))

	big := []byte(strings.Repeat("x", 1<<20))
	wrote := make(chan error, 1)
	go func() {
		_, err := s.Write(big)
		wrote <- err
	}()
	select {
	case err := <-wrote:
		t.Fatalf("1 MiB went into a tty nobody reads: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	// The slave reads it all: the write finishes.
	go func() {
		b := make([]byte, 64<<10)
		for n := 0; n < len(big); {
			m, err := tty.Read(b)
			if err != nil {
				return
			}
			n += m
		}
	}()
	select {
	case err := <-wrote:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the write did not go on once the child read")
	}

	// Fill it again; this time the stream is closed under the write.
	go func() {
		_, err := s.Write(big)
		wrote <- err
	}()
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, s.Close())
	select {
	case err := <-wrote:
		assert.ErrorIs(t, err, os.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("closing the stream did not end a waiting write")
	}
	_, err = s.Write([]byte("k"))
	assert.ErrorIs(t, err, os.ErrClosed, "a write after Close")
}

// epollTarget is an fd an epoll set holds, in its /proc fdinfo.
var epollTarget = regexp.MustCompile(`(?m)^tfd:\s+(\d+)\s`)

// TestStreamIsNotInGosPoller: the stream's fd is in no epoll set but its
// own one-shot waiter's, so a flood it is read through wakes no idle
// thread of Go's (stream_linux.go says why).
func TestStreamIsNotInGosPoller(t *testing.T) {
	s, _ := newTestStream(t)
	var fd int
	require.NoError(t, s.Control(func(f uintptr) { fd = int(f) }))
	var own int
	require.NoError(t, s.in.rc.Control(func(f uintptr) { own = int(f) }))

	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	sets := 0
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || link != "anon_inode:[eventpoll]" {
			continue
		}
		sets++
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", e.Name()))
		if err != nil {
			continue
		}
		holds := false
		for _, m := range epollTarget.FindAllStringSubmatch(string(info), -1) {
			holds = holds || m[1] == strconv.Itoa(fd)
		}
		if e.Name() == strconv.Itoa(own) {
			assert.True(t, holds, "the stream's waiter holds its fd:\n%s", info)
		} else {
			assert.False(t, holds, "epoll set %s holds the stream's fd %d:\n%s", e.Name(), fd, info)
		}
	}
	assert.GreaterOrEqual(t, sets, 2, "Go's poller and the stream's waiter")
}
