// statefs_test.go checks that no state file is reached through a symlink:
// each way a worker can plant one below the state dir (the file itself, a
// folder on the way, a folder rostra makes fresh) is refused with the path
// and what is there, and nothing outside is touched.
package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func TestStateFSNeverFollowsAPlantedLink(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, state, outside string)
		do    func(s *statedir.FS) error
		want  string // in the error, after the state dir
	}{
		{"a file opened for appending", func(t *testing.T, state, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "bait"), filepath.Join(state, statedir.EventsFile)))
		}, func(s *statedir.FS) error {
			_, err := s.OpenFile(statedir.EventsFile, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
			return err
		}, "/events.jsonl is a symlink (to "},
		{"a folder on the way", func(t *testing.T, state, outside string) {
			require.NoError(t, os.MkdirAll(filepath.Join(state, "attempts"), 0o700))
			require.NoError(t, os.Symlink(outside, filepath.Join(state, "attempts", "a")))
		}, func(s *statedir.FS) error {
			_, err := s.CreateFresh(filepath.Join("attempts", "a", "1", "output.log"), os.O_WRONLY, 0o600)
			return err
		}, "/attempts/a is a symlink (to "},
		{"a folder made fresh", func(t *testing.T, state, outside string) {
			require.NoError(t, os.MkdirAll(filepath.Join(state, "attempts", "a"), 0o700))
			require.NoError(t, os.Symlink(outside, filepath.Join(state, "attempts", "a", "2")))
		}, func(s *statedir.FS) error {
			return s.Mkdir(filepath.Join("attempts", "a", "2"), true)
		}, "/attempts/a/2 is a symlink (to "},
		{"a real folder where a fresh one goes", func(t *testing.T, state, outside string) {
			require.NoError(t, os.MkdirAll(filepath.Join(state, "attempts", "a", "3"), 0o700))
		}, func(s *statedir.FS) error {
			return s.Mkdir(filepath.Join("attempts", "a", "3"), true)
		}, "/attempts/a/3: it exists already"},
		{"a file made fresh", func(t *testing.T, state, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "bait"), filepath.Join(state, "prompt.txt")))
		}, func(s *statedir.FS) error {
			_, err := s.CreateFresh("prompt.txt", os.O_WRONLY, 0o600)
			return err
		}, "/prompt.txt is a symlink (to "},
		{"a folder on the way of an atomic write", func(t *testing.T, state, outside string) {
			require.NoError(t, os.Symlink(outside, filepath.Join(state, "attempts")))
		}, func(s *statedir.FS) error {
			return s.WriteAtomic(filepath.Join("attempts", "a", "1", "status.json"), []byte("{}"), 0o600)
		}, "/attempts is a symlink (to "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			state, outside := t.TempDir(), t.TempDir()
			bait := filepath.Join(outside, "bait")
			require.NoError(t, os.WriteFile(bait, []byte("mine\n"), 0o644))
			tc.plant(t, state, outside)
			s, err := statedir.OpenFS(state)
			require.NoError(t, err)
			defer s.Close()
			err = tc.do(s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), state+tc.want)
			data, _ := os.ReadFile(bait)
			assert.Equal(t, "mine\n", string(data))
			ents, _ := os.ReadDir(outside)
			assert.Len(t, ents, 1, "nothing was made outside")
		})
	}
}

func TestStateFSReplacesALinkInsteadOfWritingThroughIt(t *testing.T) {
	state, outside := t.TempDir(), t.TempDir()
	bait := filepath.Join(outside, "bait")
	require.NoError(t, os.WriteFile(bait, []byte("mine\n"), 0o644))
	require.NoError(t, os.Symlink(bait, filepath.Join(state, statedir.TeamStateFile)))
	s, err := statedir.OpenFS(state)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.WriteAtomic(statedir.TeamStateFile, []byte("{}\n"), 0o600))
	data, _ := os.ReadFile(bait)
	assert.Equal(t, "mine\n", string(data))
	info, err := os.Lstat(filepath.Join(state, statedir.TeamStateFile))
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular())
}

// An events.jsonl planted as a link before the run starts stops the start
// with the path; an attempts folder swapped for a link mid-run fails the
// next attempt with the path, and the run goes on.
func TestAPlantedStateFileFailsTheAttemptNotTheRun(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a", MaxAttempts: 3}))
	outside := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(outside, "log"), filepath.Join(plan.StateDir, statedir.EventsFile)))
	eng := New(plan, Options{Surfaces: map[runfile.SurfaceKind]Surface{runfile.SurfacePane: newFakeSurface(runfile.SurfacePane)}, Clock: NewFakeClock(t0)})
	err := eng.Start()
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(plan.StateDir, statedir.EventsFile)+" is a symlink")
	require.NoError(t, os.Remove(filepath.Join(plan.StateDir, statedir.EventsFile)))

	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	attempts := filepath.Join(plan.StateDir, statedir.AttemptsDir, "a")
	require.NoError(t, os.Rename(attempts, attempts+".moved"))
	require.NoError(t, os.Symlink(outside, attempts))
	fh.finish(1)
	h.event(statedir.EventWorkerRetry)
	h.advance(2 * time.Second)
	ev := h.event(statedir.EventWorkerFailed)
	assert.Equal(t, 2, ev.Attempt)
	assert.Contains(t, ev.Reason, attempts+" is a symlink (to "+outside+")")
	ents, _ := os.ReadDir(outside)
	assert.Empty(t, ents)
	// The sidecar of attempt 1 could not be written through the link either.
	assert.Contains(t, h.dispatch("a#1").Reason, "status sidecar not written")

	require.NoError(t, os.Remove(attempts))
	h.event(statedir.EventWorkerRetry)
	h.advance(2 * time.Second)
	third := h.opened(h.pane)
	assert.Equal(t, 3, third.spec.Attempt)
}
