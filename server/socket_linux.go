// socket_linux.go holds the Linux calls under socket.go: the state dir as
// an O_PATH descriptor (for socket paths longer than sun_path) and the
// peer's credentials (SO_PEERCRED).
package server

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// openDirPath opens dir as an O_PATH descriptor, which names it in
// /proc/self/fd whatever its depth.
func openDirPath(dir string) (int, error) {
	return unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// PeerCred is the uid and pid of the process at the other end of c.
func PeerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, 0, err
	}
	if credErr != nil {
		return 0, 0, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return int(cred.Uid), int(cred.Pid), nil
}
