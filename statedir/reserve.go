// reserve.go keeps a little disk space aside for the run's last state
// (docs/state.md §A full disk): at the start rostra allocates .rostra-reserve in the
// state dir; the first write that meets a full disk frees it and is
// retried, so the rows written as the run stops (every attempt settled,
// the run interrupted) fit even when workers filled the disk. The run stops
// all the same. A clean end removes the file.
package statedir

import (
	"os"

	"golang.org/x/sys/unix"
)

// ReserveSize is how much is kept: many times a large team-state.json and
// the events of stopping every worker. A variable for the tests.
var ReserveSize int64 = 256 << 10

// MakeReserve allocates the reserve; on a disk too full for it the run
// goes on without one.
func (s *FS) MakeReserve() {
	f, err := s.OpenFile(ReserveFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if err := allocate(f, ReserveSize); err != nil {
		_ = f.Truncate(0)
		s.FreeReserve()
	}
}

// FreeReserve removes the reserve and reports whether it was there.
func (s *FS) FreeReserve() bool {
	fd, err := s.DupDir()
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Unlinkat(fd, ReserveFile, 0) == nil
}
