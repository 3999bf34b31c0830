//go:build linux

// stream_linux.go holds an attempt's stream (a pty master, or the read end
// of a wrapper's pipe) kept out of Go's poller: its fd is non-blocking, read
// and written with plain system calls, and waited on through an epoll set of
// its own, armed one-shot only when a read or write found nothing to do.
//
// Why: Go's poller holds every pollable fd edge-triggered for as long as it
// is open. In a flood the reader never waits (each read finds the next 4 KiB
// of the pty), yet each 4 KiB the kernel adds is an edge, and while anything
// else in the process waits on the poller (the server's socket, a timer) an
// idle thread sits in epoll_wait and is woken by each edge to find nobody
// waiting for it: about 10,000 wakeups for 64 MiB, a tenth of the server's
// CPU (docs/performance.md §A pane's output). A one-shot set reports
// readiness once per arming, and the reader arms it only when it is about to
// wait.
//
// Data model: f is an *os.File made while the fd was blocking, so Go never
// registered it; it still counts the fd's users, so Close under a read or a
// write closes the fd only once they are out (no read of a reused fd
// number). Each direction has a waiter: an epoll set holding the fd
// one-shot (EPOLLIN for the reader, EPOLLOUT for writers), itself an fd Go's
// poller waits on; closing the waiter ends a wait at once.
package panes

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// stream is an attempt's output stream, and on a pty its input too.
type stream struct {
	f  *os.File
	rc syscall.RawConn

	in *waiter // the reader's

	wmu sync.Mutex // one Write at a time, as os.File's Write keeps a write whole

	omu sync.Mutex
	out *waiter // writers'; made at the first write that would block

	// closed is set by Close before it closes anything: an operation the
	// close cut short returns os.ErrClosed (the RawConn's own error says
	// "use of closed file"), and no waiter is made after it.
	closed atomic.Bool
}

// waiter is an epoll set holding the stream's fd one-shot for one
// direction, registered with Go's poller.
type waiter struct {
	ep    *os.File
	rc    syscall.RawConn
	event uint32
}

// newStream takes f over (it closes f) and returns the stream on a copy of
// its fd. The copy is made before Go's poller could see it, and then set
// non-blocking. creack/pty's ioctls call Fd(), which turns a pollable
// master blocking; a stream's file was never pollable, so Fd() leaves it as
// it is.
func newStream(f *os.File) (*stream, error) {
	name := f.Name()
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	nfd := -1
	var dupErr error
	if err := rc.Control(func(fd uintptr) {
		nfd, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		dupErr = err
	}
	_ = f.Close()
	if dupErr != nil {
		return nil, fmt.Errorf("dup %s: %w", name, dupErr)
	}
	if err := unix.SetNonblock(nfd, false); err != nil {
		_ = unix.Close(nfd)
		return nil, fmt.Errorf("set %s blocking: %w", name, err)
	}
	s := &stream{f: os.NewFile(uintptr(nfd), name)} // blocking: not pollable
	if err := unix.SetNonblock(nfd, true); err != nil {
		_ = s.f.Close()
		return nil, fmt.Errorf("set %s non-blocking: %w", name, err)
	}
	if s.rc, err = s.f.SyscallConn(); err != nil {
		_ = s.f.Close()
		return nil, err
	}
	if s.in, err = s.newWaiter(unix.EPOLLIN); err != nil {
		_ = s.f.Close()
		return nil, fmt.Errorf("poll %s: %w", name, err)
	}
	return s, nil
}

// newWaiter makes the epoll set for one direction, with the fd in it
// disarmed until wait arms it.
func (s *stream) newWaiter(event uint32) (*waiter, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	var ctlErr error
	if err := s.rc.Control(func(fd uintptr) {
		ev := unix.EpollEvent{Events: unix.EPOLLONESHOT, Fd: int32(fd)}
		ctlErr = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, int(fd), &ev)
	}); err != nil {
		ctlErr = err
	}
	if ctlErr == nil {
		ctlErr = unix.SetNonblock(ep, true)
	}
	if ctlErr != nil {
		_ = unix.Close(ep)
		return nil, ctlErr
	}
	w := &waiter{ep: os.NewFile(uintptr(ep), "epoll"), event: event} // pollable: Go waits on it
	if w.rc, err = w.ep.SyscallConn(); err != nil {
		_ = w.ep.Close()
		return nil, err
	}
	return w, nil
}

// wait arms the waiter and returns once the stream is ready for its
// direction (or hung up, or in error), or with os.ErrClosed once the stream
// is closed. Readiness that came before the arming is reported too: the set
// checks the fd as it arms it.
func (w *waiter) wait(s *stream) error {
	var fdErr, ctlErr error
	err := w.rc.Control(func(ep uintptr) {
		fdErr = s.rc.Control(func(fd uintptr) {
			ev := unix.EpollEvent{Events: w.event | unix.EPOLLONESHOT, Fd: int32(fd)}
			ctlErr = unix.EpollCtl(int(ep), unix.EPOLL_CTL_MOD, int(fd), &ev)
		})
	})
	err = cmp.Or(err, fdErr, ctlErr)
	if err == nil {
		var evs [1]unix.EpollEvent
		err = w.rc.Read(func(ep uintptr) bool {
			n, _ := unix.EpollWait(int(ep), evs[:], 0)
			return n > 0
		})
	}
	return s.closedErr(err)
}

// closedErr is err, or os.ErrClosed when the stream was closed.
func (s *stream) closedErr(err error) error {
	if err != nil && s.closed.Load() {
		return os.ErrClosed
	}
	return err
}

// read calls f with the fd until it reports it read something or the
// stream's end (done), waiting between calls while f finds nothing (done
// false). idle is called before each wait. The error is the wait's:
// os.ErrClosed once the stream was closed.
func (s *stream) read(f func(fd int) (done bool), idle func()) error {
	for {
		done := false
		if err := s.rc.Read(func(fd uintptr) bool {
			done = f(int(fd))
			return true
		}); err != nil {
			return s.closedErr(err)
		}
		if done {
			return nil
		}
		idle()
		if err := s.in.wait(s); err != nil {
			return err
		}
	}
}

// Write writes all of b, waiting while the other side's buffer is full (a
// child that reads no input); os.ErrClosed once the stream is closed.
func (s *stream) Write(b []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n := 0
	for n < len(b) {
		var werr error
		if err := s.rc.Write(func(fd uintptr) bool {
			for n < len(b) {
				m, _, e := syscall.Syscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n))
				if e == syscall.EINTR {
					continue
				}
				if e != 0 {
					werr = e
					return true
				}
				n += int(m)
			}
			return true
		}); err != nil {
			return n, s.closedErr(err)
		}
		if werr == nil {
			break
		}
		if werr != syscall.EAGAIN {
			return n, &os.PathError{Op: "write", Path: s.f.Name(), Err: werr}
		}
		if err := s.waitOut(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// waitOut waits until the stream takes writes again. Under wmu.
func (s *stream) waitOut() error {
	s.omu.Lock()
	if s.closed.Load() {
		s.omu.Unlock()
		return os.ErrClosed
	}
	if s.out == nil {
		// Not closed under omu: Close sets closed under it before it
		// closes the file, so a failure here is not the close's.
		w, err := s.newWaiter(unix.EPOLLOUT)
		if err != nil {
			s.omu.Unlock()
			return fmt.Errorf("poll %s: %w", s.f.Name(), err)
		}
		s.out = w
	}
	w := s.out
	s.omu.Unlock()
	return w.wait(s)
}

// Control runs f with the fd (ioctls), as os.File's RawConn does.
func (s *stream) Control(f func(fd uintptr)) error { return s.rc.Control(f) }

// Close closes the stream: a read or write waiting on it returns
// os.ErrClosed, one under way finishes first. Idempotent.
func (s *stream) Close() error {
	s.omu.Lock()
	s.closed.Store(true)
	out := s.out
	s.omu.Unlock()
	err := s.f.Close()
	_ = s.in.ep.Close()
	if out != nil {
		_ = out.ep.Close()
	}
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
