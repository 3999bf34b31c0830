// store_reliability_test.go checks FAULTS.md's fault 13 and the state files'
// permissions on real files: a truncated team-state.json is read from its
// previous good copy (with a note, the damaged file untouched), a torn last
// line of events.jsonl is skipped by readers and repaired by the appender, a
// corrupt line in the middle is an error naming it, and nothing is
// overwritten on the way.
package engine

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/report"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func stateBytes(t *testing.T, st statedir.TeamState) []byte {
	t.Helper()
	data, err := json.MarshalIndent(&st, "", "  ")
	require.NoError(t, err)
	return append(data, '\n')
}

func TestReliabilityWriteKeepsThePreviousTeamState(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, statedir.TeamStateFile)
	v1 := stateBytes(t, statedir.TeamState{Version: 1, Run: "r", Status: statedir.RunRunning, Pid: 11})
	v2 := stateBytes(t, statedir.TeamState{Version: 1, Run: "r", Status: statedir.RunFinished, Pid: 11})
	require.NoError(t, statedir.WriteFileAtomic(path, v1, 0o600))
	assert.NoFileExists(t, path+statedir.PreviousSuffix, "nothing to keep on the first write")
	require.NoError(t, statedir.WriteFileAtomic(path, v2, 0o600))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(v2), string(got))
	prev, err := os.ReadFile(path + statedir.PreviousSuffix)
	require.NoError(t, err)
	assert.Equal(t, string(v1), string(prev))
	for _, p := range []string{path, path + statedir.PreviousSuffix} {
		info, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), p)
	}
	// No temp file is left beside them.
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{statedir.TeamStateFile, statedir.TeamStateFile + statedir.PreviousSuffix}, names)

	// Other files written atomically keep no copy.
	side := filepath.Join(dir, "status.json")
	require.NoError(t, statedir.WriteFileAtomic(side, []byte("{}\n"), 0o600))
	require.NoError(t, statedir.WriteFileAtomic(side, []byte("{}\n"), 0o600))
	assert.NoFileExists(t, side+statedir.PreviousSuffix)
}

func TestReliabilityTruncatedTeamStateFallsBackToThePreviousCopy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, statedir.TeamStateFile)
	good := statedir.TeamState{Version: 1, Run: "r", Status: statedir.RunRunning, Pid: 42,
		Workers: []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusRunning, Attempts: 1}}}
	require.NoError(t, statedir.WriteFileAtomic(path, stateBytes(t, good), 0o600))
	newer := good
	newer.Workers = []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusCompleted, Attempts: 1}}
	full := stateBytes(t, newer)
	require.NoError(t, statedir.WriteFileAtomic(path, full, 0o600))

	for _, cut := range []int{0, 1, len(full) / 2, len(full) - 3} {
		require.NoError(t, os.WriteFile(path, full[:cut], 0o600)) // what a truncating crash leaves
		st, err := statedir.ReadTeamState(dir)
		var rec *statedir.RecoveredStateError
		require.ErrorAs(t, err, &rec, "cut at %d", cut)
		require.NotNil(t, st, "the previous good state is returned with the note")
		assert.Equal(t, good.Workers, st.Workers)
		assert.Equal(t, path, rec.Path)
		assert.Equal(t, path+statedir.PreviousSuffix, rec.From)
		assert.Contains(t, err.Error(), statedir.TeamStateFile+" is not valid JSON (")
		assert.Contains(t, err.Error(), "its previous good copy "+path+statedir.PreviousSuffix)
		after, rerr := os.ReadFile(path)
		require.NoError(t, rerr)
		assert.Equal(t, full[:cut], after, "a reader never rewrites the damaged file")
	}

	// Both damaged: an error naming both, no state.
	require.NoError(t, os.WriteFile(path+statedir.PreviousSuffix, []byte(`{"version":`), 0o600))
	st, err := statedir.ReadTeamState(dir)
	require.Error(t, err)
	assert.Nil(t, st)
	assert.NotErrorAs(t, err, new(*statedir.RecoveredStateError))
	assert.Contains(t, err.Error(), path+" is not valid JSON")
	assert.Contains(t, err.Error(), "nor does its previous copy "+path+statedir.PreviousSuffix)

	// No copy at all: the plain parse error.
	require.NoError(t, os.Remove(path+statedir.PreviousSuffix))
	_, err = statedir.ReadTeamState(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "there is no previous copy")

	// A missing state stays fs.ErrNotExist (a fresh state dir).
	_, err = statedir.ReadTeamState(t.TempDir())
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// TestReliabilityResumeFromATruncatedTeamState: --resume goes on from the
// previous good copy; the damaged file is moved aside, never overwritten,
// and the recovery is noted in events.jsonl. Without --resume the refusal
// carries the note and changes nothing.
func TestReliabilityResumeFromATruncatedTeamState(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	path := filepath.Join(plan.StateDir, statedir.TeamStateFile)
	good := statedir.TeamState{Version: 1, Run: "t", Status: statedir.RunRunning, Pid: 4242,
		Workers:    []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusRunning, Attempts: 1}},
		Dispatches: []statedir.DispatchRow{{DispatchID: "a#1", WorkerID: "a", Attempt: 1, Status: statedir.StatusRunning}}}
	require.NoError(t, statedir.WriteFileAtomic(path, stateBytes(t, good), 0o600))
	require.NoError(t, statedir.WriteFileAtomic(path, stateBytes(t, good), 0o600))
	damaged := []byte(`{"version": 1, "run": "t", "status": "run`)
	require.NoError(t, os.WriteFile(path, damaged, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(plan.StateDir, statedir.EventsFile), []byte(`{"type":"run-started"}`+"\n"), 0o600))

	_, err := PrepareStateDir(plan, false, t0)
	var unfinished *ErrUnfinishedRun
	require.ErrorAs(t, err, &unfinished)
	assert.Contains(t, err.Error(), "rostra run --resume")
	assert.Contains(t, err.Error(), "previous good copy")
	after, _ := os.ReadFile(path)
	assert.Equal(t, damaged, after, "a refused start changes nothing")

	prep, err := PrepareStateDir(plan, true, t0)
	require.NoError(t, err)
	defer prep.Lock.Release()
	require.NotNil(t, prep.Resumed)
	assert.Contains(t, prep.Recovered, "is not valid JSON")
	assert.Equal(t, 1, prep.Interrupted)
	assert.Equal(t, "interrupted (rostra pid 4242 died)", prep.Resumed.Dispatches[0].Reason)
	assert.Equal(t, statedir.FailureInterrupted, prep.Resumed.Dispatches[0].FailureClass)
	kept, err := os.ReadFile(prep.DamagedKept)
	require.NoError(t, err)
	assert.Equal(t, damaged, kept, "the damaged file is kept, byte for byte")
	assert.NoFileExists(t, path, "moved aside before the resumed run writes a new one")
	events, err := statedir.ReadEvents(filepath.Join(plan.StateDir, statedir.EventsFile))
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, statedir.EventStateRecovered, events[1].Type)
	assert.Contains(t, events[1].Reason, filepath.Base(prep.DamagedKept))
}

func TestReliabilityTornEventsTailIsSkippedThenRepaired(t *testing.T) {
	path := filepath.Join(t.TempDir(), statedir.EventsFile)
	log, err := statedir.OpenEventLog(path)
	require.NoError(t, err)
	require.NoError(t, log.Append(statedir.Event{Type: statedir.EventRunStarted, Pid: 7}))
	require.NoError(t, log.Append(statedir.Event{Type: statedir.EventWorkerDispatched, WorkerID: "a", Attempt: 1}))
	require.NoError(t, log.Close())
	whole, err := os.ReadFile(path)
	require.NoError(t, err)

	for name, torn := range map[string]string{
		"half an object": `{"ts":"2026-11-30T12:00:00Z","type":"worker-comp`,
		"one byte":       `{`,
		// Longer than the repair's read window, with no newline in it.
		"a long line": `{"type":"worker-failed","reason":"` + strings.Repeat("x", 3<<20),
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, append(append([]byte(nil), whole...), torn...), 0o600))
			events, err := statedir.ReadEvents(path)
			require.NoError(t, err, "a torn last line is never fatal")
			require.Len(t, events, 2)

			log, err := statedir.OpenEventLog(path)
			require.NoError(t, err)
			require.NoError(t, log.Append(statedir.Event{Type: statedir.EventRunFinished}))
			require.NoError(t, log.Close())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(whole), string(data[:len(whole)]), "the good lines are untouched")
			events, err = statedir.ReadEvents(path)
			require.NoError(t, err)
			require.Len(t, events, 3)
			assert.Equal(t, statedir.EventRunFinished, events[2].Type, "the next event starts on a line of its own")
		})
	}

	// A whole last event whose newline was lost is kept, and closed.
	require.NoError(t, os.WriteFile(path, append(append([]byte(nil), whole...), `{"type":"worker-completed"}`...), 0o600))
	log, err = statedir.OpenEventLog(path)
	require.NoError(t, err)
	require.NoError(t, log.Append(statedir.Event{Type: statedir.EventRunFinished}))
	require.NoError(t, log.Close())
	events, err := statedir.ReadEvents(path)
	require.NoError(t, err)
	require.Len(t, events, 4)
	assert.Equal(t, statedir.EventWorkerCompleted, events[2].Type)
}

func TestReliabilityCorruptMiddleEventLineIsAnErrorNamingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), statedir.EventsFile)
	content := `{"type":"run-started"}` + "\n" +
		`{"type":"worker-dispatched"}` + "\n" +
		`{"type":"worker-compl` + "\x00\x00\x00" + "\n" + // a block of zeros after a crash
		`{"type":"run-finished"}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	events, err := statedir.ReadEvents(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+":3: corrupt event line")
	assert.Len(t, events, 2, "the events before it are returned")

	// The appender repairs only a torn tail: the damaged middle stays for a
	// human to look at, and later events still go to the end.
	log, err := statedir.OpenEventLog(path)
	require.NoError(t, err)
	require.NoError(t, log.Append(statedir.Event{Type: statedir.EventRunStarted}))
	require.NoError(t, log.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), content), "nothing is overwritten")
	_, err = statedir.ReadEvents(path)
	assert.Contains(t, err.Error(), ":3: corrupt event line")
}

// TestReliabilityStateFilesArePrivate: what the engine writes in a state dir
// is 0600, its folders 0700, whatever the umask.
func TestReliabilityStateFilesArePrivate(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}))
	require.NoError(t, os.RemoveAll(plan.StateDir))
	prep, err := PrepareStateDir(plan, false, t0)
	require.NoError(t, err)
	defer prep.Lock.Release()
	h := startHarness(t, plan)
	fh := h.opened(h.pane)
	h.write("out/a/result.json", "{}")
	fh.finish(0)
	h.event(statedir.EventRunFinished)
	h.sync()
	_, _, err = report.WriteReport(plan.StateDir, t0.Add(time.Hour))
	require.NoError(t, err)
	checkPrivate(t, plan.StateDir)
}

// checkPrivate walks dir: folders 0700, files 0600.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	seen := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		seen++
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		assert.Equal(t, want, info.Mode().Perm(), "%s", p)
		return nil
	}))
	assert.Greater(t, seen, 5)
}

// TestReliabilityEventLogNeverWritesOverOthersLines: lines another writer
// appended after the log was opened (a resume's recovery note, a human's
// marker) are kept; the log writes at the end of the file as it is.
func TestReliabilityEventLogNeverWritesOverOthersLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), statedir.EventsFile)
	log, err := statedir.OpenEventLog(path)
	require.NoError(t, err)
	defer log.Close()
	require.NoError(t, log.Append(statedir.Event{Type: statedir.EventRunStarted}))
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = other.WriteString(`{"type":"added-by-another-writer"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, other.Close())
	require.NoError(t, log.Append(statedir.Event{Type: statedir.EventRunFinished}))
	events, err := statedir.ReadEvents(path)
	require.NoError(t, err)
	var types []string
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	assert.Equal(t, []string{statedir.EventRunStarted, "added-by-another-writer", statedir.EventRunFinished}, types)
}

// TestReliabilityResumeRecordsAnAttemptTheDeadRostraDidNotSave: rostra died
// after starting attempt 1 (its folder and output are there) but before the
// batch that recorded it was saved. The resume records it interrupted and
// numbers the next attempt 2, so nothing is appended to the dead one's files.
func TestReliabilityResumeRecordsAnAttemptTheDeadRostraDidNotSave(t *testing.T) {
	plan := testPlan(t, withResult(runfile.WorkerSpec{ID: "a"}), withResult(runfile.WorkerSpec{ID: "b"}))
	st := statedir.TeamState{Version: 1, Run: "t", Status: statedir.RunRunning, Pid: 777,
		Workers: []statedir.WorkerRow{{WorkerID: "a", Status: statedir.StatusPending}, {WorkerID: "b", Status: statedir.StatusPending}}}
	require.NoError(t, statedir.WriteFileAtomic(filepath.Join(plan.StateDir, statedir.TeamStateFile), stateBytes(t, st), 0o600))
	dir := plan.AttemptDir("a", 1)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "output.log"), []byte("output of the unrecorded attempt\n"), 0o600))

	prep, err := PrepareStateDir(plan, true, t0)
	require.NoError(t, err)
	assert.Equal(t, 1, prep.Interrupted)
	require.Len(t, prep.Resumed.Dispatches, 1)
	d := prep.Resumed.Dispatches[0]
	assert.Equal(t, "a#1", d.DispatchID)
	assert.Equal(t, statedir.StatusError, d.Status)
	assert.Equal(t, "interrupted (rostra pid 777 died) before the attempt was recorded", d.Reason)
	assert.Equal(t, statedir.FailureInterrupted, d.FailureClass)
	assert.Equal(t, filepath.Join(dir, "output.log"), d.OutputLogPath)
	assert.Equal(t, 1, prep.Resumed.Workers[0].Attempts)
	assert.Equal(t, 0, prep.Resumed.Workers[1].Attempts)

	pane, wrapper, clock := newFakeSurface(runfile.SurfacePane), newFakeSurface(runfile.SurfaceWrapper), NewFakeClock(t0)
	eng := New(plan, Options{Surfaces: map[runfile.SurfaceKind]Surface{runfile.SurfacePane: pane, runfile.SurfaceWrapper: wrapper},
		Clock: clock, Environ: []string{}, Resumed: prep.Resumed})
	require.NoError(t, eng.Start())
	h := &harness{t: t, plan: plan, clock: clock, pane: pane, wrapper: wrapper, eng: eng}
	t.Cleanup(func() { h.shutdown(); _ = prep.Lock.Release() })
	attempts := map[string]int{}
	for range 2 {
		fh := h.opened(pane)
		attempts[fh.spec.Worker] = fh.spec.Attempt
	}
	assert.Equal(t, map[string]int{"a": 2, "b": 1}, attempts)
	log, err := os.ReadFile(filepath.Join(dir, "output.log"))
	require.NoError(t, err)
	assert.Equal(t, "output of the unrecorded attempt\n", string(log), "the dead attempt's output is left as it was")
}
