//go:build linux

// ttyread_linux.go tells whether a pty's child is ready for a typed prompt:
// how its side of the pty reads (canonical or raw, asked of the slave
// through the master) and whether its foreground process is blocked in a
// read of that pty right now (/proc/<pid>/syscall), which is how a program
// that reads lines and prints nothing (cat, a read loop, `head` in a
// shell's pipeline) says it waits.
package panes

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ttyState is what typePrompt needs to know of the child's terminal.
type ttyState struct {
	canonical bool // the slave reads lines (ICANON); true when unknown
	reading   bool // a process of the foreground process group blocks reading the pty
}

// ttyState looks at the slave through TIOCGPTPEER (the master has a termios
// of its own) and at the foreground process group's members in /proc.
func (p *PTYProcess) ttyState() ttyState {
	st := ttyState{canonical: true}
	_ = p.master.Control(func(fd uintptr) {
		peer, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
		if errno != 0 {
			return
		}
		defer unix.Close(int(peer))
		if tio, err := unix.IoctlGetTermios(int(peer), unix.TCGETS); err == nil {
			st.canonical = tio.Lflag&unix.ICANON != 0
		}
		var slave unix.Stat_t
		if unix.Fstat(int(peer), &slave) != nil {
			return
		}
		pgrp, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP)
		if err != nil || pgrp <= 0 {
			return
		}
		st.reading = groupReading(pgrp, slave.Rdev)
	})
	return st
}

// groupReading reports whether a process of group pgrp blocks reading the
// terminal device rdev: the leader first, the other members (a shell's
// pipeline, without job control, is all in the shell's group) from /proc.
func groupReading(pgrp int, rdev uint64) bool {
	if blockedReading(pgrp, rdev) {
		return true
	}
	for _, pid := range listPIDs() {
		if st, ok := readProcStat(pid); ok && st.pgrp == pgrp && pid != pgrp && blockedReading(pid, rdev) {
			return true
		}
	}
	return false
}

// blockedReading reports whether pid is blocked in read(2) or readv(2) on a
// file descriptor that is the terminal device rdev. /proc/<pid>/syscall
// holds the number of the system call a sleeping process is in and its
// arguments ("0 0x0 0x7f… …": read on fd 0); rostra may read it for its
// own descendants. Any doubt is "no": the caller then waits longer.
func blockedReading(pid int, rdev uint64) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	if err != nil {
		return false
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return false // "running", or no system call
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || (nr != unix.SYS_READ && nr != unix.SYS_READV) {
		return false
	}
	fd, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 32)
	if err != nil {
		return false
	}
	var st unix.Stat_t
	if unix.Stat("/proc/"+strconv.Itoa(pid)+"/fd/"+strconv.FormatUint(fd, 10), &st) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == rdev
}
