// statefs.go opens, creates and replaces the files of a run's state dir
// without ever following a symlink below it (docs/state.md §No links): workers can write in
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
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/internal/regular"
	"github.com/rostra-dev/rostra/runfile"
)

type FS struct {
	path string // the state dir as configured

	mu   sync.Mutex
	dir  *os.File                // opened O_DIRECTORY; replaced when the folder is made again (engine/recreate.go)
	logs map[*OutputLog]struct{} // output.logs being written, moved along if the folder is made again
}

func OpenFS(path string) (*FS, error) {
	dir, err := OpenDir(path)
	if err != nil {
		return nil, err
	}
	return &FS{path: path, dir: dir, logs: map[*OutputLog]struct{}{}}, nil
}

func OpenDir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open state dir %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

func (s *FS) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir.Close()
}

// DupDir is a descriptor of the state dir for one walk; the caller closes it.
func (s *FS) DupDir() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fd, err := unix.Dup(int(s.dir.Fd()))
	if err == nil {
		unix.CloseOnExec(fd)
	}
	return fd, err
}

// Abs is rel's full path, for messages.
func (s *FS) Abs(rel string) string { return filepath.Join(s.path, rel) }

// Rel is the name of abs below the state dir.
func (s *FS) Rel(abs string) (string, error) {
	rel, err := filepath.Rel(s.path, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is not inside the state dir %s", abs, s.path)
	}
	return rel, nil
}

// planted explains an error met on the way to rel: when a component is a
// symlink (or not a folder), say what it is, so the message names what a
// worker put there.
func (s *FS) planted(op, rel string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EEXIST) {
		parts := strings.Split(rel, string(filepath.Separator))
		for i := range parts {
			p := filepath.Join(parts[:i+1]...)
			fi, lerr := os.Lstat(s.Abs(p))
			if lerr != nil {
				break
			}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(s.Abs(p))
				return fmt.Errorf("%s %s: %s is a symlink (to %s); rostra never writes through a link in its state dir",
					op, s.Abs(rel), s.Abs(p), target)
			case i < len(parts)-1 && !fi.IsDir():
				return fmt.Errorf("%s %s: %s is not a folder", op, s.Abs(rel), s.Abs(p))
			case i == len(parts)-1 && errors.Is(err, unix.EEXIST):
				return fmt.Errorf("%s %s: it exists already; rostra makes it fresh and never reuses one it did not make",
					op, s.Abs(rel))
			}
		}
	}
	return fmt.Errorf("%s %s: %w", op, s.Abs(rel), err)
}

// parent opens the folder that holds rel, walking every component with
// O_NOFOLLOW, and returns its descriptor and rel's last name. The caller
// closes the descriptor.
func (s *FS) parent(rel string) (int, string, error) {
	rel = filepath.Clean(rel)
	if rel == "." || filepath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
		return -1, "", fmt.Errorf("%s is not a name inside the state dir", rel)
	}
	dirs, name := filepath.Split(rel)
	fd, err := s.DupDir()
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

// OpenFile opens rel with flag (O_NOFOLLOW and O_CLOEXEC added) and
// refuses anything but a regular file.
func (s *FS) OpenFile(rel string, flag int, perm os.FileMode) (*os.File, error) {
	dfd, name, err := s.parent(rel)
	if err != nil {
		return nil, s.planted("open", rel, err)
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, uint32(perm.Perm()))
	if err != nil {
		return nil, s.planted("open", rel, err)
	}
	f := os.NewFile(uintptr(fd), s.Abs(rel))
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
		return nil, fmt.Errorf("open %s: %w", s.Abs(rel), err)
	}
	return f, nil
}

// CreateFresh creates rel, which must not exist.
func (s *FS) CreateFresh(rel string, flag int, perm os.FileMode) (*os.File, error) {
	return s.OpenFile(rel, flag|os.O_CREATE|os.O_EXCL, perm)
}

// Mkdir makes the folder rel. With fresh it must not exist; without, an
// existing real folder is fine.
func (s *FS) Mkdir(rel string, fresh bool) error {
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

// MkdirAll makes rel and its missing parents (each a real folder).
func (s *FS) MkdirAll(rel string) error {
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i := range parts {
		if err := s.Mkdir(filepath.Join(parts[:i+1]...), false); err != nil {
			return err
		}
	}
	return nil
}

// WriteAtomic is WriteFileAtomic for rel, every step relative to rel's
// folder descriptor: a symlink at rel is replaced, never followed.
func (s *FS) WriteAtomic(rel string, data []byte, perm os.FileMode) error {
	dfd, name, err := s.parent(rel)
	if err != nil {
		return s.planted("write", rel, err)
	}
	defer unix.Close(dfd)
	return WriteAtomicAt(dfd, name, s.Abs(rel), data, perm)
}

// Track and forget keep the set of output.logs being written.
func (s *FS) Track(l *OutputLog) {
	s.mu.Lock()
	s.logs[l] = struct{}{}
	s.mu.Unlock()
}

func (s *FS) Forget(l *OutputLog) {
	s.mu.Lock()
	delete(s.logs, l)
	s.mu.Unlock()
}

// Gone reports whether the folder the state dir's descriptor holds is no
// longer at its path: deleted (no links left), or the path names another
// folder (moved away, made again by someone else).
func (s *FS) Gone() bool {
	s.mu.Lock()
	fd := int(s.dir.Fd())
	var held unix.Stat_t
	err := unix.Fstat(fd, &held)
	s.mu.Unlock()
	if err != nil {
		return false // cannot tell; the writes will say
	}
	if held.Nlink == 0 {
		return true
	}
	var now unix.Stat_t
	if err := unix.Stat(s.path, &now); err != nil {
		return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
	}
	return now.Dev != held.Dev || now.Ino != held.Ino
}

// Held is the folder the state dir's descriptor holds now.
func (s *FS) Held() *os.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// Replace makes dir, the state dir made again, the folder held, and returns
// the one held before (for the caller to close) and the output.logs being
// written, sorted by path, to move into it.
func (s *FS) Replace(dir *os.File) (old *os.File, logs []*OutputLog) {
	s.mu.Lock()
	old = s.dir
	s.dir = dir
	logs = make([]*OutputLog, 0, len(s.logs))
	for l := range s.logs {
		logs = append(logs, l)
	}
	s.mu.Unlock()
	slices.SortFunc(logs, func(a, b *OutputLog) int { return strings.Compare(a.rel, b.rel) })
	return old, logs
}

// PrepareAttemptDir makes the attempt's folder fresh (it must not exist:
// one a worker planted is refused, not used), writes prompt.txt and creates
// output.log, all without following a link.
func (sfs *FS) PrepareAttemptDir(ap *runfile.AttemptPlan) (*OutputLog, error) {
	rel := func(abs string) string {
		r, err := sfs.Rel(abs)
		if err != nil {
			return abs // openFile refuses it with the path
		}
		return r
	}
	dir := rel(filepath.Dir(ap.PromptFile))
	if err := sfs.MkdirAll(filepath.Dir(dir)); err != nil {
		return nil, fmt.Errorf("attempt folder: %w", err)
	}
	if err := sfs.Mkdir(dir, true); err != nil {
		return nil, fmt.Errorf("attempt folder: %w", err)
	}
	f, err := sfs.CreateFresh(rel(ap.PromptFile), os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("prompt file: %w", err)
	}
	_, err = f.Write([]byte(ap.Prompt))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("prompt file: write %s: %w", ap.PromptFile, err)
	}
	logRel := rel(ap.OutputLog)
	f, err = sfs.CreateFresh(logRel, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("output log: %w", err)
	}
	l := &OutputLog{rel: logRel, f: f, promptRel: rel(ap.PromptFile), prompt: []byte(ap.Prompt), sfs: sfs}
	sfs.Track(l)
	return l, nil
}

// MoveLogs moves the output.logs still being written (Replace's) into the
// held folder made again: each one's folder, its prompt.txt written again,
// a fresh output.log with the bytes so far. It returns the logs moved and,
// with why, what could not be made again.
func (s *FS) MoveLogs(logs []*OutputLog) (moved, failed []string) {
	for _, l := range logs {
		if err := s.MkdirAll(filepath.Dir(l.rel)); err != nil {
			failed = append(failed, l.rel+": "+err.Error())
			continue
		}
		if err := s.WriteAtomic(l.promptRel, l.prompt, 0o600); err != nil {
			failed = append(failed, l.promptRel+": "+err.Error())
		}
		fresh, err := s.CreateFresh(l.rel, os.O_RDWR|os.O_APPEND, 0o600)
		if err != nil {
			failed = append(failed, l.rel+": "+err.Error())
			continue
		}
		if open, err := l.Relocate(fresh); err != nil {
			failed = append(failed, err.Error())
		} else if open {
			moved = append(moved, l.rel)
		}
	}
	return moved, failed
}
