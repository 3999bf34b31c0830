// statewatch_linux.go tells the disk writer, by an inotify event, that the
// state dir may have been deleted or moved away (engine/recreate.go), so that a
// quiet run notices without looking every second.
//
// Data model: one inotify instance with two watches. The state dir's own
// watch hears IN_MOVE_SELF; IN_DELETE_SELF does not come while rostra
// holds the folder open (the kernel keeps the inode until the last
// descriptor is closed), so the parent's watch hears IN_DELETE and
// IN_MOVED_FROM of the state dir's name, and its own deletion or move
// (`rm -rf` of the workspace removes the state dir first, and that is
// heard). Anything that may mean "gone" (those, IN_IGNORED, an overflow)
// sends on a channel of one; the disk writer then asks stateFS.gone, which
// decides. A move of a folder further up is not heard: the next write
// finds it (the guard runs before every batch).
package statedir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

type Watcher struct {
	path string
	fd   int      // the inotify instance (f.Fd() would make f blocking)
	f    *os.File // the same, read through Go's poller
	c    chan struct{}
	done chan struct{}

	mu        sync.Mutex
	dirWd     int
	parentWd  int
	parentDir bool // parentWd is set
}

// dirMask and parentMask are what is heard; nothing else wakes rostra.
const (
	dirMask    = unix.IN_MOVE_SELF | unix.IN_DELETE_SELF | unix.IN_ONLYDIR
	parentMask = unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVE_SELF | unix.IN_DELETE_SELF | unix.IN_ONLYDIR
)

// watchStateDir starts watching path (the state dir, which must exist);
// c receives (without blocking) when it may be gone.
func WatchDir(path string, c chan struct{}) (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("watch the state dir %s: inotify: %w", path, err)
	}
	w := &Watcher{path: path, fd: fd, f: os.NewFile(uintptr(fd), "inotify"), c: c, done: make(chan struct{}), dirWd: -1, parentWd: -1}
	if err := w.Rearm(); err != nil {
		w.f.Close()
		return nil, err
	}
	go w.read()
	return w, nil
}

// Rearm watches the folder now at the path (after it was made again) and
// its parent.
func (w *Watcher) Rearm() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	fd := w.fd
	if w.dirWd >= 0 {
		_, _ = unix.InotifyRmWatch(fd, uint32(w.dirWd))
		w.dirWd = -1
	}
	wd, err := unix.InotifyAddWatch(fd, w.path, dirMask)
	if err != nil {
		return fmt.Errorf("watch the state dir %s: %w", w.path, err)
	}
	w.dirWd = wd
	// The parent may be the same folder as before: the same watch, its
	// mask replaced.
	pwd, err := unix.InotifyAddWatch(fd, filepath.Dir(w.path), parentMask)
	if err != nil {
		return fmt.Errorf("watch the folder of the state dir %s: %w", w.path, err)
	}
	w.parentWd = pwd
	return nil
}

func (w *Watcher) read() {
	defer close(w.done)
	buf := make([]byte, 16*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	name := []byte(filepath.Base(w.path))
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			// Not expected from inotify; say "look" once and stop.
			w.Wake()
			return
		}
		if n < unix.SizeofInotifyEvent {
			w.Wake()
			continue
		}
		w.mu.Lock()
		dirWd, parentWd := w.dirWd, w.parentWd
		w.mu.Unlock()
		wake := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			end := off + unix.SizeofInotifyEvent + int(ev.Len)
			if end > n {
				wake = true
				break
			}
			evName := bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:end], "\x00")
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				wake = true
			case int(ev.Wd) == dirWd:
				wake = true
			case int(ev.Wd) == parentWd:
				// The parent's own end, or the state dir's name leaving it;
				// other names in it (a workspace's files) are not ours.
				if ev.Mask&(unix.IN_MOVE_SELF|unix.IN_DELETE_SELF|unix.IN_IGNORED) != 0 || bytes.Equal(evName, name) {
					wake = true
				}
			}
			off = end
		}
		if wake {
			w.Wake()
		}
	}
}

func (w *Watcher) Wake() {
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// Close stops the watch.
func (w *Watcher) Close() {
	w.f.Close()
	<-w.done
}
