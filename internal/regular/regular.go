// Package regular opens the files rostra reads without trusting what they are:
// a run file, team-state.json and events.jsonl must be regular files. A
// FIFO would hang the open or the read, and a device such as /dev/zero
// never ends; each is refused with what it is, and a run file is read to
// at most its cap plus one byte, so no input makes rostra grow.
package regular

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// Open opens path and refuses anything but a regular file. The open
// does not wait for a FIFO's writer (O_NONBLOCK, which a regular file
// ignores).
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: NotRegularError{Mode: fi.Mode()}}
	}
	return f, nil
}

// NotRegularError says what a path is instead of a regular file.
type NotRegularError struct{ Mode fs.FileMode }

func (e NotRegularError) Error() string {
	what := "not a regular file"
	switch t := e.Mode.Type(); {
	case t&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case t&fs.ModeCharDevice != 0:
		what = "a character device"
	case t&fs.ModeDevice != 0:
		what = "a block device"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeDir != 0:
		what = "a folder"
	}
	return "is " + what + ", not a regular file"
}

// Read reads a regular file whole.
func Read(path string) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadCapped reads at most limit+1 bytes of the regular file at path, and
// its size as it was opened (a file growing meanwhile reads as limit+1).
func ReadCapped(path string, limit int64) ([]byte, int64, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.Size() > limit {
		return nil, fi.Size(), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	return data, max(fi.Size(), int64(len(data))), nil
}

// IsEscape reports whether err is an os.Root refusing a path that leaves the
// root (through "..", an absolute path or a symlink).
func IsEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "escapes from parent")
}
