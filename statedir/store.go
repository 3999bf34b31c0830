// store.go keeps the run's files on disk (docs/state.md): team-state.json replaced
// atomically, events.jsonl appended one line per event (runlock.go holds
// the lock on the run). Readers tolerate a torn last line of events.jsonl
// (a crash mid-append); the appender repairs such a tail before it writes,
// so a torn line never glues onto the next event.
//
// team-state.json also keeps its previous version as team-state.json.prev (a
// hard link taken just before each replacement). Rename is atomic only as far
// as the file system keeps its promises; when the main file does not parse
// (a truncating crash, a disk that lied about fsync, a hand edit), readers
// fall back to that copy and say so.
package statedir

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/internal/regular"
)

// State file names inside a state dir.
const (
	TeamStateFile = "team-state.json"
	EventsFile    = "events.jsonl"
	// PreviousSuffix names the previous good copy of a file that keeps one
	// (team-state.json.prev).
	PreviousSuffix = ".prev"
)

// keepsPrevious lists the files whose previous version WriteFileAtomic keeps
// beside them: only team-state.json, the one file a run cannot be resumed
// without (a status sidecar or a report is written once and is not).
var keepsPrevious = map[string]bool{TeamStateFile: true}

// WriteFileAtomic replaces path with data so that a reader sees either the
// old file or the new one: temp file in the same folder, fsync, rename, fsync
// of the folder (WriteAtomicAt). On any error the old file is
// left as it was. For team-state.json the old file is first hard-linked to
// team-state.json.prev.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("write %s: open %s: %w", path, dir, err)
	}
	defer unix.Close(dfd)
	return WriteAtomicAt(dfd, filepath.Base(path), path, data, perm)
}

// SyncDir makes the entries of the folder dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// RecoveredStateError says team-state.json did not parse and the state
// returned with it is the previous good copy, team-state.json.prev. The
// state is usable: show the error as a note and go on. The damaged file is
// left as it was.
type RecoveredStateError struct {
	Path    string    // team-state.json
	From    string    // team-state.json.prev
	SavedAt time.Time // when the copy was written (its mtime)
	Cause   error     // why the main file did not parse
}

func (e *RecoveredStateError) Error() string {
	return fmt.Sprintf("%s is not valid JSON (%v); its previous good copy %s, written %s, stands in for it and may lack the last change to the run",
		e.Path, e.Cause, e.From, e.SavedAt.Local().Format(time.DateTime))
}

func (e *RecoveredStateError) Unwrap() error { return e.Cause }

// ReadTeamState reads a state dir's team-state.json. When it does not parse
// and team-state.json.prev does, it returns that state together with a
// *RecoveredStateError; when neither parses, an error naming both.
func ReadTeamState(stateDir string) (*TeamState, error) {
	path := filepath.Join(stateDir, TeamStateFile)
	st, err := readTeamStateFile(path)
	var bad *unparsableError
	if !errors.As(err, &bad) {
		return st, err // parsed, missing, or unreadable (EMFILE, EACCES): no fallback
	}
	err = bad.err
	prev := path + PreviousSuffix
	old, perr := readTeamStateFile(prev)
	if perr != nil {
		why := "there is no previous copy"
		if !errors.Is(perr, fs.ErrNotExist) {
			why = "nor does its previous copy " + prev + " (" + perr.Error() + ")"
		}
		return nil, fmt.Errorf("%s is not valid JSON (%w), %s; the run's events are in %s",
			path, err, why, EventsFile)
	}
	rec := &RecoveredStateError{Path: path, From: prev, Cause: err}
	if info, err := os.Stat(prev); err == nil {
		rec.SavedAt = info.ModTime()
	}
	return old, rec
}

func readTeamStateFile(path string) (*TeamState, error) {
	data, err := regular.Read(path)
	if err != nil {
		return nil, err
	}
	var st TeamState
	if err := json.Unmarshal(data, &st); err != nil {
		if len(bytes.TrimSpace(data)) == 0 {
			err = fmt.Errorf("empty file: %w", err)
		}
		return nil, &unparsableError{err}
	}
	return &st, nil
}

// unparsableError marks a file that was read but does not parse, the one
// case a previous copy stands in for.
type unparsableError struct{ err error }

func (e *unparsableError) Error() string { return e.err.Error() }
func (e *unparsableError) Unwrap() error { return e.err }

// ReadEvents reads events.jsonl. A last line without its newline, or one that
// does not parse, is a torn append and is skipped; a bad line anywhere else
// is an error naming the line.
func ReadEvents(path string) ([]Event, error) {
	data, err := regular.Read(path)
	if err != nil {
		return nil, err
	}
	var events []Event
	lines := bytes.Split(data, []byte{'\n'})
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		last := i == len(lines)-1 // no newline after it: torn or not finished
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			if last {
				break
			}
			return events, fmt.Errorf("%s:%d: corrupt event line: %w", path, i+1, err)
		}
		if last {
			// A complete JSON object whose newline did not reach the disk is
			// still the writer's last event.
			events = append(events, ev)
			break
		}
		events = append(events, ev)
	}
	return events, nil
}

// EventLog appends events to events.jsonl.
type EventLog struct {
	f *os.File
}

// OpenEventLog opens (or creates) path for appending. A torn last line left
// by a crash is cut off first, so the next event starts on a line of its own.
// The file is opened O_APPEND: every line goes to the end of the file as it
// is then, never over bytes someone else added after this open. A symlink
// at path is refused, never followed: the repair would cut another file.
func OpenEventLog(path string) (*EventLog, error) {
	f, err := regular.Open(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("open %s: it is a symlink (to %s); rostra never writes through a link in its state dir", path, target)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return EventLogOf(f, path)
}

// EventLogOf makes an EventLog of f, opened read-write and append.
func EventLogOf(f *os.File, path string) (*EventLog, error) {
	if err := repairTail(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("repair %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &EventLog{f: f}, nil
}

// repairTail truncates f after its last newline when the bytes after it do
// not form a complete JSON value. It reads backwards a window at a time, so a
// torn line longer than the window is cut at its own start, not inside it.
func repairTail(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	if size == 0 {
		return nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	const window = 1 << 20
	cut := int64(0) // where the torn line starts; 0 when it is the only line
	for end := size; end > 0; {
		start := max(end-window, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			cut = start + int64(i) + 1
			break
		}
		end = start
	}
	tail := make([]byte, size-cut)
	if _, err := f.ReadAt(tail, cut); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if json.Valid(tail) {
		// The event is whole; only its newline is missing.
		_, err := f.Write([]byte{'\n'})
		return err
	}
	return f.Truncate(cut)
}

// Append writes ev as one line.
func (l *EventLog) Append(ev Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if _, err := l.f.Write(data); err != nil {
		return fmt.Errorf("append %s: %w", l.f.Name(), err)
	}
	return nil
}

// Close syncs and closes the log.
func (l *EventLog) Close() error {
	serr := l.f.Sync()
	cerr := l.f.Close()
	return errors.Join(serr, cerr)
}

// Unlinked reports whether the log's file has no name left (deleted under
// rostra); false when it cannot tell.
func (l *EventLog) Unlinked() bool {
	var st unix.Stat_t
	if unix.Fstat(int(l.f.Fd()), &st) != nil {
		return false
	}
	return st.Nlink == 0
}

// MoveTo copies the log's file (deleted with its folder, still open) into
// f and appends there from now on.
func (l *EventLog) MoveTo(f *os.File) (int64, error) {
	info, err := l.f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	n, err := io.Copy(f, io.NewSectionReader(l.f, 0, info.Size()))
	if err != nil {
		f.Close()
		return n, fmt.Errorf("copy %s into the recreated state dir: %w", EventsFile, err)
	}
	l.f.Close()
	l.f = f
	return n, nil
}

// WriteAtomicAt replaces name in the folder open as dfd with data: a temp
// file beside it (created O_EXCL, never through a link), fsync, rename,
// fsync of the folder; team-state.json keeps its previous copy. On any
// error the old file is left as it was. path is the file's full name, for
// messages.
func WriteAtomicAt(dfd int, name, path string, data []byte, perm os.FileMode) error {
	var tmp string
	var fd int
	var err error
	for range 10 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		tmp = "." + name + ".tmp-" + hex.EncodeToString(b[:])
		fd, err = unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	fail := func(err error) error {
		f.Close()
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if keepsPrevious[name] {
		keepPreviousAt(dfd, name)
	}
	if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := unix.Fsync(dfd); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Dir(path), err)
	}
	return nil
}

// keepPreviousAt makes name+".prev" in the folder dfd a hard link to the
// current name, replacing the older copy atomically (link to a temp name,
// rename over; a link to a planted symlink is a link, not a write through
// it). A copy that cannot be kept is removed rather than left stale:
// falling back to a state many writes old would be worse than having none.
// Best effort: the write itself goes on either way.
func keepPreviousAt(dfd int, name string) {
	prev := name + PreviousSuffix
	tmp := prev + ".tmp"
	_ = unix.Unlinkat(dfd, tmp, 0)
	if err := unix.Linkat(dfd, name, dfd, tmp, 0); err != nil {
		if !errors.Is(err, unix.ENOENT) {
			_ = unix.Unlinkat(dfd, prev, 0)
		}
		return
	}
	if err := unix.Renameat(dfd, tmp, dfd, prev); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		_ = unix.Unlinkat(dfd, prev, 0)
	}
}
