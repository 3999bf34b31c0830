//go:build !linux

// reserve_other.go allocates the reserve where there is no fallocate by
// writing its bytes (a truncate would leave a hole, which reserves nothing).
package statedir

import "os"

func allocate(f *os.File, n int64) error {
	_, err := f.WriteAt(make([]byte, n), 0)
	return err
}
