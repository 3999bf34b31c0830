// reserve_linux.go allocates the reserve's blocks with fallocate, which
// fails at once on a disk without the room.
package statedir

import (
	"os"

	"golang.org/x/sys/unix"
)

func allocate(f *os.File, n int64) error {
	return unix.Fallocate(int(f.Fd()), 0, 0, n)
}
