// rundir.go takes a state dir for a new run (SPEC §5): it creates (or checks,
// ownership.go) and locks the folder, archives a finished run found there
// to previous/<timestamp>/,
// refuses an unfinished one unless --resume, and for a resume marks the
// attempts a dead rostra left `running` as interrupted. A team-state.json
// that does not parse is read from its previous good copy (store.go); the
// damaged file is kept aside, never overwritten.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// ErrUnfinishedRun refuses a state dir whose run did not finish.
type ErrUnfinishedRun struct {
	StateDir  string
	RunFile   string
	Status    string
	Open      int // workers not completed
	Total     int
	DeadPid   int // the rostra that drove it, when it died mid-run
	RunStatus string
	Note      string // set when the state was read from team-state.json.prev
}

func (e *ErrUnfinishedRun) Error() string {
	how := "was stopped"
	if e.RunStatus == RunRunning {
		how = fmt.Sprintf("was interrupted (rostra pid %d died)", e.DeadPid)
	}
	msg := fmt.Sprintf("state dir %s holds an unfinished run that %s: %d of %d workers not completed; "+
		"continue it with `rostra run --resume %s`, or start over with `rostra run --fresh %s` (the run is archived to %s/)",
		e.StateDir, how, e.Open, e.Total, e.RunFile, e.RunFile, PreviousDir)
	if e.Note != "" {
		msg += " (note: " + e.Note + ")"
	}
	return msg
}

// ErrRunAlive refuses a state dir whose run is still driven by a live
// rostra that does not hold the lock.
type ErrRunAlive struct {
	StateDir string
	Pid      int
}

func (e *ErrRunAlive) Error() string {
	return fmt.Sprintf("state dir %s: its run is still driven by rostra pid %d, which holds no lock on this folder "+
		"(the folder was replaced under it, or that rostra is an older version); stop it (kill %d) before starting or resuming the run here",
		e.StateDir, e.Pid, e.Pid)
}

// EventStateRecovered is appended to events.jsonl when a resumed run's
// team-state.json did not parse and its previous good copy was used.
const EventStateRecovered = "state-recovered"

// PreparedRun is a locked state dir ready for an engine.
type PreparedRun struct {
	Lock        *RunLock
	Resumed     *TeamState // the run being resumed, nil for a fresh run
	ArchivedTo  string     // where a finished earlier run was moved, "" if none
	Interrupted int        // attempts marked interrupted on resume
	// Recovered, when not empty, says the run's state was read from
	// team-state.json.prev because team-state.json did not parse; show it.
	Recovered string
	// Reconciled says, one line per attempt, which rows the resume settled
	// from events.jsonl or completion files rather than calling them
	// interrupted (reconcile.go); show them.
	Reconciled []string
	// DamagedKept is where the unparsable team-state.json was moved before
	// the resumed run writes a new one ("" if none).
	DamagedKept string
}

// PrepareStateDir creates and locks plan's state dir. A finished run found
// there is archived; an unfinished one is refused unless resume is set.
func PrepareStateDir(plan *Plan, resume bool, now time.Time) (*PreparedRun, error) {
	if err := claimStateDir(plan.StateDir); err != nil {
		return nil, err
	}
	lock, err := AcquireRunLock(plan.StateDir)
	if err != nil {
		return nil, err
	}
	prep := &PreparedRun{Lock: lock}
	fail := func(err error) (*PreparedRun, error) {
		lock.Release()
		return nil, err
	}
	st, err := ReadTeamState(plan.StateDir)
	var recovered *RecoveredStateError
	if errors.As(err, &recovered) {
		prep.Recovered = recovered.Error()
		err = nil
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if resume {
			return fail(fmt.Errorf("nothing to resume: %s has no %s; run without --resume to start the run", plan.StateDir, TeamStateFile))
		}
		return prep, nil
	case err != nil:
		return fail(err)
	}
	if st.Status == RunRunning && st.Pid != os.Getpid() && processAlive(st.Pid, st.PidStart) {
		// The lock was free, yet the run's rostra lives: the folder was
		// replaced under it, or it is an older rostra that locked run.lock
		// itself. Its workers are not leftovers.
		return fail(&ErrRunAlive{StateDir: plan.StateDir, Pid: st.Pid})
	}
	open := 0
	for _, w := range st.Workers {
		if w.Status != StatusCompleted {
			open++
		}
	}
	unfinished := st.Status != RunFinished
	switch {
	case resume:
		if recovered != nil {
			kept, err := keepDamaged(recovered, now)
			if err != nil {
				return fail(err)
			}
			prep.DamagedKept = kept
		}
		prep.Reconciled = reconcileUnsettled(plan, st, now)
		prep.Interrupted = markInterrupted(st, now) + recordUnsavedAttempts(plan, st, now)
		prep.Resumed = st
		return prep, nil
	case unfinished:
		return fail(&ErrUnfinishedRun{StateDir: plan.StateDir, RunFile: plan.RunFile, Open: open,
			Total: len(st.Workers), DeadPid: st.Pid, RunStatus: st.Status, Note: prep.Recovered})
	}
	dest, err := archiveRun(plan.StateDir, now)
	if err != nil {
		return fail(err)
	}
	prep.ArchivedTo = dest
	return prep, nil
}

// ArchiveForFreshRun moves the run found in plan's state dir, finished or
// not, to previous/<timestamp>/ as a finished run is archived, so that a
// new run starts over there (rostra run --fresh). It holds the lock for the
// move: a run that a rostra drives is refused. It returns where the run
// went, "" when the state dir holds no run.
func ArchiveForFreshRun(plan *Plan, now time.Time) (string, error) {
	if _, err := os.Lstat(filepath.Join(plan.StateDir, TeamStateFile)); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err := claimStateDir(plan.StateDir); err != nil {
		return "", err
	}
	lock, err := AcquireRunLock(plan.StateDir)
	if err != nil {
		return "", err
	}
	defer lock.Release()
	if st, _ := ReadTeamState(plan.StateDir); st != nil && st.Status == RunRunning && processAlive(st.Pid, st.PidStart) {
		return "", &ErrRunAlive{StateDir: plan.StateDir, Pid: st.Pid}
	}
	return archiveRun(plan.StateDir, now)
}

// keepDamaged moves an unparsable team-state.json aside (the resumed run is
// about to write a new one) and notes the recovery in events.jsonl.
func keepDamaged(rec *RecoveredStateError, now time.Time) (string, error) {
	kept := rec.Path + ".damaged-" + now.UTC().Format("20060102T150405.000Z")
	if err := os.Rename(rec.Path, kept); err != nil {
		return "", fmt.Errorf("keep the damaged %s aside: %w", rec.Path, err)
	}
	log, err := OpenEventLog(filepath.Join(filepath.Dir(rec.Path), EventsFile))
	if err != nil {
		return kept, nil // the move is what matters; the note is also on stderr
	}
	_ = log.Append(Event{TS: now.UTC(), Type: EventStateRecovered, Reason: rec.Error() + "; damaged file kept as " + filepath.Base(kept)})
	_ = log.Close()
	return kept, nil
}

// markInterrupted records the attempts a dead rostra left running.
func markInterrupted(st *TeamState, now time.Time) int {
	n := 0
	reason := fmt.Sprintf("interrupted (rostra pid %d died)", st.Pid)
	ended := now.UTC()
	for i := range st.Dispatches {
		d := &st.Dispatches[i]
		if d.Status == StatusRunning {
			d.Status = StatusError
			d.Reason = reason
			d.FailureClass = FailureInterrupted
			d.EndedAt = &ended
			n++
		}
	}
	for i := range st.Workers {
		w := &st.Workers[i]
		if Unsettled(w.Status) {
			w.Status = StatusError
			w.Reason = reason
		}
	}
	return n
}

// recordUnsavedAttempts adds a row for each attempt folder that the state
// does not know: rostra died after starting the attempt and before the batch
// that recorded it was saved. Its output.log is there (and its process died
// with rostra), so it is recorded interrupted, and the resumed worker's next
// attempt is numbered after it instead of appending to its files.
func recordUnsavedAttempts(plan *Plan, st *TeamState, now time.Time) int {
	known := map[string]bool{}
	for _, d := range st.Dispatches {
		known[d.DispatchID] = true
	}
	reason := fmt.Sprintf("interrupted (rostra pid %d died) before the attempt was recorded", st.Pid)
	ended := now.UTC()
	n := 0
	for i := range st.Workers {
		w := &st.Workers[i]
		entries, err := os.ReadDir(filepath.Join(plan.StateDir, AttemptsDir, w.WorkerID))
		if err != nil {
			continue
		}
		var found []int
		for _, e := range entries {
			if a, err := strconv.Atoi(e.Name()); err == nil && a > 0 && e.IsDir() && !known[DispatchID(w.WorkerID, a)] {
				found = append(found, a)
			}
		}
		slices.Sort(found)
		for _, a := range found {
			dir := plan.AttemptDir(w.WorkerID, a)
			row := DispatchRow{
				DispatchID:        DispatchID(w.WorkerID, a),
				WorkerID:          w.WorkerID,
				Attempt:           a,
				Status:            StatusError,
				Reason:            reason,
				FailureClass:      FailureInterrupted,
				EndedAt:           &ended,
				OutputLogPath:     filepath.Join(dir, "output.log"),
				StatusSidecarPath: filepath.Join(dir, "status.json"),
			}
			if info, err := os.Stat(dir); err == nil {
				row.StartedAt = info.ModTime().UTC()
			}
			st.Dispatches = append(st.Dispatches, row)
			w.Attempts = max(w.Attempts, a)
			if w.Status != StatusCompleted {
				w.Status, w.Reason = StatusError, reason
			}
			n++
		}
	}
	return n
}

// archiveRun moves the files of a finished run (rostraRunName) to
// previous/<timestamp>/. The lock note, the marker and earlier archives
// stay, and so does anything rostra did not write.
func archiveRun(stateDir string, now time.Time) (string, error) {
	prev := filepath.Join(stateDir, PreviousDir)
	if fi, err := os.Lstat(prev); err == nil && !fi.IsDir() {
		// A worker of the last run may have planted it: the run's files
		// would move wherever it points.
		what := "not a folder"
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(prev)
			what = "a symlink (to " + target + ")"
		}
		return "", fmt.Errorf("archive finished run: %s is %s; rostra never moves a run through it: remove it and run again", prev, what)
	}
	dest := filepath.Join(prev, now.UTC().Format("20060102T150405.000Z"))
	if err := os.MkdirAll(dest, 0o700); err != nil {
		return "", fmt.Errorf("archive finished run: %w", err)
	}
	entries, err := os.ReadDir(stateDir)
	if err != nil {
		return "", fmt.Errorf("archive finished run: %w", err)
	}
	for _, e := range entries {
		if !rostraRunName(e.Name()) {
			continue
		}
		if err := os.Rename(filepath.Join(stateDir, e.Name()), filepath.Join(dest, e.Name())); err != nil {
			return "", fmt.Errorf("archive finished run: %w", err)
		}
	}
	return dest, syncDir(stateDir)
}
