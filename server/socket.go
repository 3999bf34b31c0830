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
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/statedir"
)

// SocketName is the socket's file name in the state dir.
const SocketName = statedir.SocketFile

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

// Listener is the server's socket. Rebind listens again at its path when
// the state dir was deleted and made again (the engine does that, and the
// run goes on): the socket went with the folder.
type Listener struct {
	path string

	mu     sync.Mutex
	cur    *net.UnixListener
	file   unix.Stat_t // the socket file cur made
	closed bool
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
	l, file, err := bind(stateDir)
	if err != nil {
		return nil, err
	}
	return &Listener{path: path, cur: l, file: file}, nil
}

// bind removes what is at the socket's path (no server answers there) and
// listens there, the socket private to this user.
func bind(stateDir string) (*net.UnixListener, unix.Stat_t, error) {
	var file unix.Stat_t
	path := SocketPath(stateDir)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, file, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	var l *net.UnixListener
	err := withSocketAddr(stateDir, func(addr string) error {
		var err error
		l, err = net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
		return err
	})
	if err != nil {
		return nil, file, fmt.Errorf("listen on %s: %w", path, err)
	}
	// The listener's own name may be a /proc path that means nothing once
	// the descriptor is closed: Close removes the socket by its real path.
	l.SetUnlinkOnClose(false)
	err = os.Chmod(path, 0o600)
	if err == nil {
		err = unix.Lstat(path, &file)
	}
	if err != nil {
		l.Close()
		_ = os.Remove(path)
		return nil, file, fmt.Errorf("make %s private: %w", path, err)
	}
	return l, file, nil
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// AcceptUnix waits for the next client, on the socket bound last.
func (l *Listener) AcceptUnix() (*net.UnixConn, error) {
	for {
		l.mu.Lock()
		cur := l.cur
		l.mu.Unlock()
		c, err := cur.AcceptUnix()
		if err != nil && errors.Is(err, net.ErrClosed) {
			l.mu.Lock()
			rebound := l.cur != cur && !l.closed
			l.mu.Unlock()
			if rebound {
				continue
			}
		}
		return c, err
	}
}

// Rebind listens again at the socket's path when the socket there is gone
// (its folder was deleted and made again) or is not this server's; it
// reports whether it did.
func (l *Listener) Rebind() (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false, net.ErrClosed
	}
	if l.bound() {
		return false, nil
	}
	fresh, file, err := bind(filepath.Dir(l.path))
	if err != nil {
		return false, err
	}
	old := l.cur
	l.cur, l.file = fresh, file
	_ = old.Close() // its file went with the folder; its Accept moves on to fresh
	return true, nil
}

// bound reports whether the file at the socket's path is the one l bound.
func (l *Listener) bound() bool {
	var at unix.Stat_t
	if err := unix.Lstat(l.path, &at); err != nil {
		return false
	}
	return at.Dev == l.file.Dev && at.Ino == l.file.Ino
}

// Close stops listening and removes the socket.
func (l *Listener) Close() error {
	l.mu.Lock()
	l.closed = true
	cur := l.cur
	l.mu.Unlock()
	err := cur.Close()
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
