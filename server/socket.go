// socket.go finds, binds and dials the run's Unix socket,
// <state_dir>/rostra.sock, and tells who is at the other end of it.
//
// A Unix socket's path is limited to 107 bytes (sun_path), and state dirs
// can be deeper than that. A path that does not fit is reached through the
// state dir opened as an O_PATH descriptor: /proc/self/fd/<fd>/rostra.sock
// names the same file, in a few dozen bytes, whatever the dir's depth (the
// kernel resolves the descriptor; no chdir, which would be process-wide).
//
// The socket is 0600 inside the 0700 state dir; on top of that the server
// checks the peer's uid with SO_PEERCRED and refuses any other user.
package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/engine"
)

// SocketName is the socket's file name in the state dir.
const SocketName = engine.SocketFile

// maxSunPath is the longest path bind and connect take (sun_path less NUL).
const maxSunPath = 107

// ErrNoServer means nothing listens on the run's socket: no socket, or a
// stale one left by a server that died.
var ErrNoServer = errors.New("no rostra server runs")

// SocketPath is where the run of stateDir listens.
func SocketPath(stateDir string) string { return filepath.Join(stateDir, SocketName) }

// withSocketAddr calls f with a path bind or connect accepts for the socket
// in stateDir.
func withSocketAddr(stateDir string, f func(addr string) error) error {
	full := SocketPath(stateDir)
	if len(full) <= maxSunPath {
		return f(full)
	}
	fd, err := openDirPath(stateDir)
	if err != nil {
		return &fs.PathError{Op: "open", Path: stateDir, Err: err}
	}
	defer unix.Close(fd)
	return f("/proc/self/fd/" + strconv.Itoa(fd) + "/" + SocketName)
}

// Listener is the server's socket.
type Listener struct {
	*net.UnixListener
	path string
}

// Listen binds the run's socket in stateDir, which must exist. A socket
// left by a dead server is removed first; one that answers is an error
// (the caller holds the run lock, so that is another rostra's mistake).
func Listen(stateDir string) (*Listener, error) {
	path := SocketPath(stateDir)
	if c, err := Dial(stateDir); err == nil {
		c.Close()
		return nil, fmt.Errorf("listen on %s: another rostra server answers there", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	var l *net.UnixListener
	err := withSocketAddr(stateDir, func(addr string) error {
		var err error
		l, err = net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// The listener's own name may be a /proc path that means nothing once
	// the descriptor is closed: Close removes the socket by its real path.
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("make %s private: %w", path, err)
	}
	return &Listener{UnixListener: l, path: path}, nil
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Close stops listening and removes the socket.
func (l *Listener) Close() error {
	err := l.UnixListener.Close()
	if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}

// Dial connects to the run's server. It returns an error wrapping
// ErrNoServer when no server listens (no socket, or a stale one), and says
// so plainly when the socket belongs to someone this user cannot reach.
func Dial(stateDir string) (*net.UnixConn, error) {
	path := SocketPath(stateDir)
	var c *net.UnixConn
	err := withSocketAddr(stateDir, func(addr string) error {
		var err error
		c, err = net.DialUnix("unix", nil, &net.UnixAddr{Name: addr, Net: "unix"})
		return err
	})
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, syscall.ENOENT):
		return nil, fmt.Errorf("%w for %s (no socket %s)", ErrNoServer, stateDir, path)
	case errors.Is(err, syscall.ECONNREFUSED):
		return nil, fmt.Errorf("%w for %s (the socket %s is stale: its server died)", ErrNoServer, stateDir, path)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return nil, fmt.Errorf("connect to %s: permission denied (the run belongs to another user)", path)
	}
	return nil, fmt.Errorf("connect to %s: %w", path, err)
}
