package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAFolderMadeBeforeItsParentsWatchIsWatched: out exists and is about
// to be watched when the agent's mkdir -p makes out/a; no event tells of
// out/a (the watch on out came after it), so refresh must find it itself,
// or a result written there is never seen.
func TestAFolderMadeBeforeItsParentsWatchIsWatched(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(ws, "out"), 0o755))
	real := addWatch
	t.Cleanup(func() { addWatch = real })
	addWatch = func(w *fsnotify.Watcher, dir string) error {
		if dir == filepath.Join(ws, "out") {
			require.NoError(t, os.Mkdir(filepath.Join(ws, "out", "a"), 0o755))
		}
		return real(w, dir)
	}
	fw, err := watchCompletion(ws, []string{"out/a/result.json"}, func() {})
	require.NoError(t, err)
	defer fw.close()
	assert.True(t, fw.watched[filepath.Join(ws, "out", "a")], "out/a is watched: %v", fw.watched)
}
