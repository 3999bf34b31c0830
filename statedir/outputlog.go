// outputlog.go is an attempt's output.log as the engine hands it to a
// surface (LaunchSpec.Output): the engine creates the file fresh in the
// attempt's folder (statefs.go), so the surface never opens a path a worker
// could have planted, and it keeps count of what reached the disk.
//
// Data model: one file, written by the surface's single reader goroutine
// and closed by it; the engine reads the counts once the attempt is over.
// A failed write (a full disk) is returned to the surface, which stops
// writing the log; what it read from the child and the log did not get is
// recorded on the dispatch row as a lost tail. A file whose folder was
// deleted under it is moved to the recreated state dir by relocate: its
// bytes so far are copied and the writing goes on in the new file.
package statedir

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

type OutputLog struct {
	rel       string // below the state dir
	promptRel string // the attempt's prompt.txt, written again with the log if the folder is made again
	prompt    []byte
	sfs       *FS

	mu      sync.Mutex
	f       *os.File
	written int64
	err     error // the first failed write
	closed  bool
}

func (l *OutputLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.f.Write(p)
	l.written += int64(n)
	if err != nil && l.err == nil {
		l.err = err
	}
	return n, err
}

// ReadAt holds the lock through the read: relocate swaps and closes the
// file under it, and a read of the old one would fail and the screen skip
// what it asked for. The reader's Write waits the length of one pread.
func (l *OutputLog) ReadAt(p []byte, off int64) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.ReadAt(p, off)
}

func (l *OutputLog) Stat() (fs.FileInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Stat()
}

func (l *OutputLog) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	err := l.f.Close()
	l.mu.Unlock()
	if l.sfs != nil {
		l.sfs.Forget(l)
	}
	return err
}

// LostTail says how much of read, the bytes the surface read from the
// child, did not reach output.log, and why; 0 and "" when all did.
func (l *OutputLog) LostTail(read int64) (int64, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lost := read - l.written
	if lost <= 0 {
		return 0, ""
	}
	why := "the log was closed first"
	if l.err != nil {
		why = l.err.Error()
	}
	return lost, fmt.Sprintf("output.log lost its last %d bytes (after byte %d): %s", lost, l.written, why)
}

// Relocate moves a log still being written into a recreated state dir:
// fresh is the new output.log; what the old (deleted) file holds is copied
// into it first, and the writing goes on there. It reports false for a log
// already closed, whose bytes went with the deleted folder.
func (l *OutputLog) Relocate(fresh *os.File) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		fresh.Close()
		return false, nil
	}
	old := l.f
	// The file is open read-write and append: reading from its start does
	// not move where the next write lands.
	if _, err := io.Copy(fresh, io.NewSectionReader(old, 0, l.written)); err != nil {
		fresh.Close()
		return true, fmt.Errorf("copy %s into the recreated state dir: %w", l.rel, err)
	}
	l.f = fresh
	old.Close()
	return true, nil
}
