//go:build !linux

// socket_other.go: the run server is Linux-only (so is panes, which runs
// its panes); on other systems the calls socket.go needs say so.
package server

import (
	"errors"
	"net"
)

var errNotLinux = errors.New("rostra's run server runs on Linux only")

func openDirPath(string) (int, error) { return -1, errNotLinux }

// PeerCred is the uid and pid of the process at the other end of c.
func PeerCred(*net.UnixConn) (uid, pid int, err error) { return 0, 0, errNotLinux }
