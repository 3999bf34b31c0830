// reserve.go keeps a little disk space aside for the run's last state
// (issue 9, disk full): at the start rostra allocates .rostra-reserve in the
// state dir; the first write that meets a full disk frees it and is
// retried, so the rows written as the run stops (every attempt settled,
// the run interrupted) fit even when workers filled the disk. The run stops
// all the same. A clean end removes the file.
package engine

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/statedir"
)

// reserveSize is how much is kept: many times a large team-state.json and
// the events of stopping every worker. A variable for the tests.
var reserveSize int64 = 256 << 10

// makeReserve allocates the reserve; on a disk too full for it the run
// goes on without one.
func (s *stateFS) makeReserve() {
	f, err := s.openFile(statedir.ReserveFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if err := allocate(f, reserveSize); err != nil {
		_ = f.Truncate(0)
		s.freeReserve()
	}
}

// freeReserve removes the reserve and reports whether it was there.
func (s *stateFS) freeReserve() bool {
	fd, err := s.dupDir()
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Unlinkat(fd, statedir.ReserveFile, 0) == nil
}
