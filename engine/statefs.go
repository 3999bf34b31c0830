// statefs.go opens, creates and replaces the files of a run's state dir
// without ever following a symlink below it (issue 9): workers can write in
// the state dir (it may sit inside their workspace), and a symlink planted
// at attempts/a/2/output.log, or at attempts/a itself, must not send
// rostra's writes somewhere else.
//
// Data model: a stateFS holds a descriptor of the state dir, opened once by
// its configured path (which may itself go through symlinks the user chose).
// Every name below it is walked one component at a time with openat and
// O_NOFOLLOW, so a symlink at any component is refused with ELOOP or
// ENOTDIR, reported as "<path> is a symlink" with the link's target; files
// are created with O_EXCL where rostra makes them fresh (an attempt's
// folder, prompt.txt, output.log), and replaced by rename, which replaces a
// link rather than writing through it.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/internal/regular"
	"github.com/rostra-dev/rostra/statedir"
)

type stateFS struct {
	path string // the state dir as configured

	mu   sync.Mutex
	dir  *os.File                // opened O_DIRECTORY; replaced when the folder is made again (recreate.go)
	logs map[*outputLog]struct{} // output.logs being written, moved along if the folder is made again
}

func openStateFS(path string) (*stateFS, error) {
	dir, err := openDir(path)
	if err != nil {
		return nil, err
	}
	return &stateFS{path: path, dir: dir, logs: map[*outputLog]struct{}{}}, nil
}

func openDir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open state dir %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

func (s *stateFS) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir.Close()
}

// dupDir is a descriptor of the state dir for one walk; the caller closes it.
func (s *stateFS) dupDir() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fd, err := unix.Dup(int(s.dir.Fd()))
	if err == nil {
		unix.CloseOnExec(fd)
	}
	return fd, err
}

// abs is rel's full path, for messages.
func (s *stateFS) abs(rel string) string { return filepath.Join(s.path, rel) }

// rel is the name of abs below the state dir.
func (s *stateFS) rel(abs string) (string, error) {
	rel, err := filepath.Rel(s.path, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is not inside the state dir %s", abs, s.path)
	}
	return rel, nil
}

// planted explains an error met on the way to rel: when a component is a
// symlink (or not a folder), say what it is, so the message names what a
// worker put there.
func (s *stateFS) planted(op, rel string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EEXIST) {
		parts := strings.Split(rel, string(filepath.Separator))
		for i := range parts {
			p := filepath.Join(parts[:i+1]...)
			fi, lerr := os.Lstat(s.abs(p))
			if lerr != nil {
				break
			}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(s.abs(p))
				return fmt.Errorf("%s %s: %s is a symlink (to %s); rostra never writes through a link in its state dir",
					op, s.abs(rel), s.abs(p), target)
			case i < len(parts)-1 && !fi.IsDir():
				return fmt.Errorf("%s %s: %s is not a folder", op, s.abs(rel), s.abs(p))
			case i == len(parts)-1 && errors.Is(err, unix.EEXIST):
				return fmt.Errorf("%s %s: it exists already; rostra makes it fresh and never reuses one it did not make",
					op, s.abs(rel))
			}
		}
	}
	return fmt.Errorf("%s %s: %w", op, s.abs(rel), err)
}

// parent opens the folder that holds rel, walking every component with
// O_NOFOLLOW, and returns its descriptor and rel's last name. The caller
// closes the descriptor.
func (s *stateFS) parent(rel string) (int, string, error) {
	rel = filepath.Clean(rel)
	if rel == "." || filepath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
		return -1, "", fmt.Errorf("%s is not a name inside the state dir", rel)
	}
	dirs, name := filepath.Split(rel)
	fd, err := s.dupDir()
	if err != nil {
		return -1, "", err
	}
	for _, c := range strings.Split(strings.TrimSuffix(dirs, string(filepath.Separator)), string(filepath.Separator)) {
		if c == "" {
			continue
		}
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, "", err
		}
		fd = next
	}
	return fd, name, nil
}

// openFile opens rel with flag (O_NOFOLLOW and O_CLOEXEC added) and
// refuses anything but a regular file.
func (s *stateFS) openFile(rel string, flag int, perm os.FileMode) (*os.File, error) {
	dfd, name, err := s.parent(rel)
	if err != nil {
		return nil, s.planted("open", rel, err)
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, uint32(perm.Perm()))
	if err != nil {
		return nil, s.planted("open", rel, err)
	}
	f := os.NewFile(uintptr(fd), s.abs(rel))
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = regular.NotRegularError{Mode: fi.Mode()}
	}
	if err == nil {
		// Back to blocking writes: O_NONBLOCK only kept a FIFO from hanging the open.
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", s.abs(rel), err)
	}
	return f, nil
}

// createFresh creates rel, which must not exist.
func (s *stateFS) createFresh(rel string, flag int, perm os.FileMode) (*os.File, error) {
	return s.openFile(rel, flag|os.O_CREATE|os.O_EXCL, perm)
}

// mkdir makes the folder rel. With fresh it must not exist; without, an
// existing real folder is fine.
func (s *stateFS) mkdir(rel string, fresh bool) error {
	dfd, name, err := s.parent(rel)
	if err != nil {
		return s.planted("create folder", rel, err)
	}
	defer unix.Close(dfd)
	err = unix.Mkdirat(dfd, name, 0o700)
	if errors.Is(err, unix.EEXIST) && !fresh {
		fd, oerr := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if oerr == nil {
			unix.Close(fd)
			return nil
		}
		err = oerr
	}
	if err != nil {
		return s.planted("create folder", rel, err)
	}
	return nil
}

// mkdirAll makes rel and its missing parents (each a real folder).
func (s *stateFS) mkdirAll(rel string) error {
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i := range parts {
		if err := s.mkdir(filepath.Join(parts[:i+1]...), false); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic is WriteFileAtomic for rel, every step relative to rel's
// folder descriptor: a symlink at rel is replaced, never followed.
func (s *stateFS) writeAtomic(rel string, data []byte, perm os.FileMode) error {
	dfd, name, err := s.parent(rel)
	if err != nil {
		return s.planted("write", rel, err)
	}
	defer unix.Close(dfd)
	return statedir.WriteAtomicAt(dfd, name, s.abs(rel), data, perm)
}
