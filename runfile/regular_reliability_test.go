// regular_reliability_test.go checks FAULTS.md 31 and 32, the smaller run-file
// items on real files: what is not a regular file (a FIFO, a device, a
// folder) is refused at once with what it is, a run file is never read past
// its cap, and a UTF-8 byte order mark is accepted.
package runfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/regular"
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

func TestReliabilityLoadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rostra.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tc := range []struct{ path, want string }{
		{fifo, "read run file: open " + fifo + ": is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "read run file: open /dev/zero: is a character device, not a regular file"},
		{dir, "read run file: open " + dir + ": is a folder, not a regular file"},
	} {
		err := returnsWithin(t, 5*time.Second, func() error { _, err := Load(tc.path); return err })
		require.Error(t, err, tc.path)
		assert.Equal(t, tc.want, err.Error())
	}
}

// TestReliabilityLoadReadsNoMoreThanTheCap: a 16 GiB sparse run file is
// refused by its size, without reading it.
func TestReliabilityLoadReadsNoMoreThanTheCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(16<<30))
	require.NoError(t, f.Close())
	err = returnsWithin(t, 5*time.Second, func() error { _, err := Load(path); return err })
	var verr *ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Equal(t, path+":1:1: the run file is 17179869184 bytes; a run file is at most 1048576 bytes", verr.Error())

	data, size, err := regular.ReadCapped(path, 10)
	require.NoError(t, err)
	assert.Empty(t, data, "nothing is read of a file larger than the cap")
	assert.Equal(t, int64(16<<30), size)
}

func TestLoadAcceptsAUTF8ByteOrderMark(t *testing.T) {
	p, _ := loadOK(t, "\ufeffversion: 1\nname: bom\nworkers: [{id: a, command: [x]}]\n")
	assert.Equal(t, "bom", p.Name)
	ps := loadProblems(t, t.TempDir(), "\ufeffversoin: 1\nname: bom\nworkers: [{id: a, command: [x]}]\n")
	assert.Equal(t, []string{`: unknown key "versoin" (did you mean "version"?); allowed keys: version, name, workspace, state_dir, panes, ui, notify, providers, defaults, workers, hosts (or an x- key for anchors)`,
		": version is missing; add version: 1"}, messages(ps))
	assert.Equal(t, 1, ps[0].Line)
	assert.Equal(t, 1, ps[0].Col)
}
