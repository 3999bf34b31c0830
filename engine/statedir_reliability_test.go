// statedir_reliability_test.go checks FAULTS.md 26 and 27 on real
// folders: rostra takes only a folder it made (the .rostra-state marker),
// an empty one, or one an earlier rostra left; it refuses and never touches
// any other, archives only the names it writes, and holds the run with a
// lock that deleting or replacing run.lock does not free.
package engine

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// listing is every path under dir with its content ("/" for a folder,
// "-> target" for a symlink), to show that a refused start changed nothing.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, path)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			out[rel] = "-> " + target
		case fi.IsDir():
			out[rel] = "/"
		default:
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			out[rel] = string(data)
		}
		return nil
	}))
	return out
}

func finishedState(t *testing.T, dir string) {
	t.Helper()
	st := statedir.TeamState{Version: 1, Run: "t", Status: statedir.RunFinished, Pid: 1,
		Workers: []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusCompleted, Attempts: 1}}}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, statedir.AttemptsDir, "a", "1"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.AttemptsDir, "a", "1", "output.log"), []byte("out\n"), 0o600))
	require.NoError(t, statedir.WriteFileAtomic(filepath.Join(dir, statedir.TeamStateFile), stateBytes(t, st), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.EventsFile), []byte(`{"type":"run-finished"}`+"\n"), 0o600))
}

func TestReliabilityAFolderOfSomeoneElsesIsRefusedAndLeftAsItWas(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string // a name ending in / is a folder
		want  string
	}{
		{"a home folder", map[string]string{".bashrc": "alias x=y\n", "project/": "", "project/main.go": "package main\n"},
			"holds files rostra did not write (.bashrc, project) and no .rostra-state marker"},
		{"a finished run and a stranger's file", map[string]string{statedir.TeamStateFile: "{}", statedir.EventsFile: "", "notes.txt": "mine\n"},
			"(notes.txt)"},
		{"only names rostra writes, but no run", map[string]string{statedir.ReportsDir + "/": "", "reports/q3.md": "my report\n"},
			"(reports)"},
		{"a marker that is a folder", map[string]string{statedir.MarkerFile + "/": ""},
			".rostra-state is not a regular file (rostra writes it as one); remove it and run again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
			require.NoError(t, os.MkdirAll(plan.StateDir, 0o700))
			// In name order, so a folder is made before the files in it.
			for _, name := range slices.Sorted(maps.Keys(tc.files)) {
				content := tc.files[name]
				path := filepath.Join(plan.StateDir, name)
				if strings.HasSuffix(name, "/") {
					require.NoError(t, os.MkdirAll(path, 0o700))
				} else {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
					require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
				}
			}
			before := listing(t, plan.StateDir)
			for _, resume := range []bool{false, true} {
				_, err := PrepareStateDir(plan, resume, t0)
				require.Error(t, err)
				assert.Contains(t, err.Error(), "state dir "+plan.StateDir)
				assert.Contains(t, err.Error(), tc.want)
				assert.Equal(t, before, listing(t, plan.StateDir), "a refused folder is left as it was: no marker, no lock, nothing archived")
			}
		})
	}
}

func TestReliabilityRostraMarksTheStateDirsItTakes(t *testing.T) {
	t.Run("a new folder", func(t *testing.T) {
		plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
		prep, err := PrepareStateDir(plan, false, t0)
		require.NoError(t, err)
		require.NoError(t, prep.Lock.Release())
		assert.FileExists(t, filepath.Join(plan.StateDir, statedir.MarkerFile))
	})
	t.Run("an empty folder", func(t *testing.T) {
		plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
		require.NoError(t, os.MkdirAll(plan.StateDir, 0o700))
		prep, err := PrepareStateDir(plan, false, t0)
		require.NoError(t, err)
		require.NoError(t, prep.Lock.Release())
		assert.FileExists(t, filepath.Join(plan.StateDir, statedir.MarkerFile))
	})
	t.Run("a state dir of an earlier rostra, without the marker", func(t *testing.T) {
		plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
		finishedState(t, plan.StateDir)
		require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, statedir.LockFile), []byte("1\n"), 0o600))
		prep, err := PrepareStateDir(plan, false, t0)
		require.NoError(t, err)
		require.NoError(t, prep.Lock.Release())
		assert.FileExists(t, filepath.Join(plan.StateDir, statedir.MarkerFile))
		assert.FileExists(t, filepath.Join(prep.ArchivedTo, statedir.TeamStateFile), "its finished run is archived as before")
	})
}

// TestReliabilityArchiveMovesOnlyWhatRostraWrote: a worker (or a person)
// left a file in a marked state dir; the next run archives the run's files
// and leaves that file, the marker and earlier archives where they are.
func TestReliabilityArchiveMovesOnlyWhatRostraWrote(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	prep, err := PrepareStateDir(plan, false, t0)
	require.NoError(t, err)
	require.NoError(t, prep.Lock.Release())
	finishedState(t, plan.StateDir)
	require.NoError(t, os.MkdirAll(filepath.Join(plan.StateDir, statedir.ReportsDir), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, statedir.ReportsDir, "report-1.md"), []byte("r\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, "agent-notes.txt"), []byte("not rostra's\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, statedir.ServerLogFile), []byte("served\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, statedir.GitignoreFile), []byte("*\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(plan.StateDir, runfile.WorktreesDir, "a"), 0o700))

	prep, err = PrepareStateDir(plan, false, t0)
	require.NoError(t, err)
	require.NoError(t, prep.Lock.Release())
	left, err := os.ReadDir(plan.StateDir)
	require.NoError(t, err)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{statedir.MarkerFile, statedir.LockFile, statedir.PreviousDir, statedir.GitignoreFile, runfile.WorktreesDir, "agent-notes.txt"}, names,
		"git worktrees stay where the repository has them registered")
	moved, err := os.ReadDir(prep.ArchivedTo)
	require.NoError(t, err)
	names = nil
	for _, e := range moved {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{statedir.TeamStateFile, statedir.EventsFile, statedir.AttemptsDir, statedir.ReportsDir, statedir.ServerLogFile}, names)
}

// TestReliabilityRunLockSurvivesAWorkerDeletingOrReplacingRunLock is item 2.
func TestReliabilityRunLockSurvivesAWorkerDeletingOrReplacingRunLock(t *testing.T) {
	dir := t.TempDir()
	lock, err := statedir.AcquireRunLock(dir)
	require.NoError(t, err)
	defer lock.Release()
	note := filepath.Join(dir, statedir.LockFile)

	require.NoError(t, os.Remove(note)) // rm run.lock, git clean -fdx
	_, err = statedir.AcquireRunLock(dir)
	var locked *statedir.ErrLocked
	require.ErrorAs(t, err, &locked, "deleting run.lock must not free the run")
	assert.Equal(t, 0, locked.Pid)
	assert.Contains(t, err.Error(), "run is already driven by another rostra")

	require.NoError(t, os.WriteFile(note, []byte("99999\n"), 0o600)) // a new file in its place
	_, err = statedir.AcquireRunLock(dir)
	require.ErrorAs(t, err, &locked, "replacing run.lock must not free the run")

	// Another process cannot take it either (a second rostra, not this one).
	out, err := exec.Command("flock", "--nonblock", "--exclusive", dir, "true").CombinedOutput()
	assert.Error(t, err, "flock(1) took a lock rostra holds: %s", out)
}

// TestReliabilityRunLockIsNotWrittenThroughASymlink: a symlink planted at
// run.lock is replaced by the note; its target keeps its bytes.
func TestReliabilityRunLockIsNotWrittenThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious\n"), 0o600))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, statedir.LockFile)))

	lock, err := statedir.AcquireRunLock(dir)
	require.NoError(t, err)
	defer lock.Release()
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious\n", string(data))
	fi, err := os.Lstat(filepath.Join(dir, statedir.LockFile))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "run.lock is a file of its own now")
	assert.Equal(t, os.Getpid(), statedir.LockHolder(dir))
}

// TestReliabilityResumeRefusesWhileTheRunsRostraLives: the lock was free
// (the folder was replaced under a live rostra), but the rostra recorded in
// team-state.json runs: its workers are not a dead run's leftovers.
func TestReliabilityResumeRefusesWhileTheRunsRostraLives(t *testing.T) {
	live := exec.Command("sleep", "60")
	require.NoError(t, live.Start())
	t.Cleanup(func() { _ = live.Process.Kill(); _ = live.Wait() })
	// A SIGKILLed rostra is a zombie until its parent reaps it: dead all
	// the same, its run is to be resumed.
	zombie := exec.Command("sh", "-c", "exit 0")
	require.NoError(t, zombie.Start())
	t.Cleanup(func() { _ = zombie.Wait() })
	require.Eventually(t, func() bool { _, state := statedir.ProcessStat(zombie.Process.Pid); return state == 'Z' },
		10*time.Second, 5*time.Millisecond, "the child is a zombie (nothing reaps it before Wait)")

	for _, tc := range []struct {
		name, start string
		pid         int
		alive       bool
	}{
		{"the recorded process", statedir.ProcessStart(live.Process.Pid), live.Process.Pid, true},
		{"another process now has its pid", "1@" + "another-boot", live.Process.Pid, false},
		{"the recorded process, a zombie", statedir.ProcessStart(zombie.Process.Pid), zombie.Process.Pid, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pid := tc.pid
			require.NotEmpty(t, statedir.ProcessStart(pid), "the process is there (alive or a zombie)")
			plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
			st := statedir.TeamState{Version: 1, Run: "t", Status: statedir.RunRunning, Pid: pid, PidStart: tc.start,
				Workers: []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusRunning, Attempts: 1}}}
			require.NoError(t, os.MkdirAll(plan.StateDir, 0o700))
			require.NoError(t, statedir.WriteFileAtomic(filepath.Join(plan.StateDir, statedir.TeamStateFile), stateBytes(t, st), 0o600))
			prep, err := PrepareStateDir(plan, true, t0)
			if !tc.alive {
				require.NoError(t, err)
				require.NoError(t, prep.Lock.Release())
				assert.Equal(t, "interrupted (rostra pid "+strconv.Itoa(pid)+" died)", prep.Resumed.Workers[0].Reason)
				return
			}
			var alive *statedir.ErrRunAlive
			require.ErrorAs(t, err, &alive)
			assert.Contains(t, err.Error(), "still driven by rostra pid "+strconv.Itoa(pid))
			assert.Contains(t, err.Error(), "kill "+strconv.Itoa(pid))
		})
	}
}

// TestArchivingNeverMovesARunThroughAPlantedPreviousLink: a worker of the
// last run replaced previous/ with a link to a folder of the user's; the
// next run archives into the state dir or refuses, and moves nothing out.
func TestArchivingNeverMovesARunThroughAPlantedPreviousLink(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	prep, err := PrepareStateDir(plan, false, t0)
	require.NoError(t, err)
	require.NoError(t, prep.Lock.Release())
	finishedState(t, plan.StateDir)
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(plan.StateDir, statedir.PreviousDir)))

	prep, err = PrepareStateDir(plan, false, t0)
	if err == nil {
		prep.Lock.Release()
	} else {
		assert.Contains(t, err.Error(), "is a symlink")
	}
	moved, rerr := os.ReadDir(outside)
	require.NoError(t, rerr)
	assert.Empty(t, moved, "nothing of the run is moved through the link")
}
