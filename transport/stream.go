// stream.go is the connection to a run's server through a command there
// (`rostra __bridge --run PATH`): the command's stdin and stdout are one
// end of a socket pair, ours the other. A read or write that fails once
// the command has ended says why it did (Explain), not just "EOF".
package transport

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/server"
)

// How long a failed read waits for the command's end to say why, and a
// Close for the command to see the connection end before it is killed.
const (
	whyWait   = 10 * time.Second
	closeWait = 5 * time.Second
)

// Stream is a connection through a command there.
type Stream struct {
	*net.UnixConn
	c       Command
	cmd     *exec.Cmd
	said    lockedBuffer
	done    chan struct{}
	waitErr error
}

var _ server.Stream = (*Stream)(nil)

// Stream starts script there with one end of a socket pair as its stdin
// and stdout and returns the other end.
func (c Command) Stream(script string) (*Stream, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("make a socket pair for %s: %w", c.Name, err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "rostra-transport"), os.NewFile(uintptr(fds[1]), "transport-stdio")
	defer ours.Close()
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	if err != nil {
		return nil, fmt.Errorf("use the socket pair for %s: %w", c.Name, err)
	}
	cmd := c.Cmd(script)
	s := &Stream{UnixConn: fc.(*net.UnixConn), c: c, cmd: cmd, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, theirs, &s.said
	if err := cmd.Start(); err != nil {
		fc.Close()
		if c.Dest != "" {
			return nil, fmt.Errorf("start ssh for %s: %w (ROSTRA_SSH names another ssh command)", c.Name, err)
		}
		return nil, fmt.Errorf("reach %s: %w", c.Name, err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

func (s *Stream) Read(p []byte) (int, error) {
	n, err := s.UnixConn.Read(p)
	if err != nil {
		err = s.why(err)
	}
	return n, err
}

func (s *Stream) Write(p []byte) (int, error) {
	n, err := s.UnixConn.Write(p)
	if err != nil {
		err = s.why(err)
	}
	return n, err
}

// why is err, or, when the command failed, what it said.
func (s *Stream) why(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	select {
	case <-s.done:
	case <-time.After(whyWait):
		return err
	}
	var exit *exec.ExitError
	if errors.As(s.waitErr, &exit) {
		return s.c.Explain(s.waitErr, s.said.String())
	}
	return err
}

// Close ends the connection and waits for the command to see it end.
func (s *Stream) Close() error {
	err := s.UnixConn.Close()
	select {
	case <-s.done:
	case <-time.After(closeWait):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return err
}

// lockedBuffer is a command's stderr, written by exec's copier while a
// failed read asks for it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
