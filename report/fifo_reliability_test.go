// fifo_reliability_test.go checks, on real files, that the state files a
// report reads are refused at once when they are not regular files (a FIFO
// would hang the open).
package report

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// returnsWithin runs f and fails the test if it has not returned after d (a FIFO
// read that waits for a writer never would).
func returnsWithin[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still blocked after %s", d)
		panic("unreachable")
	}
}

func TestReliabilityStateFilesThatAreNotRegularFilesAreErrors(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{statedir.TeamStateFile, statedir.EventsFile} {
		require.NoError(t, syscall.Mkfifo(filepath.Join(dir, name), 0o600))
	}
	err := returnsWithin(t, 5*time.Second, func() error { _, err := statedir.ReadTeamState(dir); return err })
	assert.EqualError(t, err, "open "+filepath.Join(dir, statedir.TeamStateFile)+": is a named pipe (FIFO), not a regular file")
	err = returnsWithin(t, 5*time.Second, func() error { _, err := statedir.ReadEvents(filepath.Join(dir, statedir.EventsFile)); return err })
	assert.EqualError(t, err, "open "+filepath.Join(dir, statedir.EventsFile)+": is a named pipe (FIFO), not a regular file")
	err = returnsWithin(t, 5*time.Second, func() error { _, err := statedir.OpenEventLog(filepath.Join(dir, statedir.EventsFile)); return err })
	assert.ErrorContains(t, err, "is a named pipe (FIFO), not a regular file")
	err = returnsWithin(t, 5*time.Second, func() error { _, _, err := WriteReport(dir, reportT0); return err })
	assert.ErrorContains(t, err, "is a named pipe (FIFO), not a regular file")
}
