// rundir.go takes a state dir for a new run (docs/state.md §Whose folder it is): it creates (or checks,
// statedir/ownership.go) and locks the folder, archives a finished run found there
// to previous/<timestamp>/,
// refuses an unfinished one unless --resume, and for a resume marks the
// attempts a dead rostra left `running` as interrupted. A team-state.json
// that does not parse is read from its previous good copy (statedir/store.go); the
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

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
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
	if e.RunStatus == statedir.RunRunning {
		how = fmt.Sprintf("was interrupted (rostra pid %d died)", e.DeadPid)
	}
	msg := fmt.Sprintf("state dir %s holds an unfinished run that %s: %d of %d workers not completed; "+
		"continue it with `rostra run --resume %s`, or start over with `rostra run --fresh %s` (the run is archived to %s/)",
		e.StateDir, how, e.Open, e.Total, e.RunFile, e.RunFile, statedir.PreviousDir)
	if e.Note != "" {
		msg += " (note: " + e.Note + ")"
	}
	return msg
}

// PreparedRun is a locked state dir ready for an engine.
type PreparedRun struct {
	Lock        *statedir.RunLock
	Resumed     *statedir.TeamState // the run being resumed, nil for a fresh run
	ArchivedTo  string              // where a finished earlier run was moved, "" if none
	Interrupted int                 // attempts marked interrupted on resume
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
func PrepareStateDir(plan *runfile.Plan, resume bool, now time.Time) (*PreparedRun, error) {
	if err := statedir.Claim(plan.StateDir); err != nil {
		return nil, err
	}
	lock, err := statedir.AcquireRunLock(plan.StateDir)
	if err != nil {
		return nil, err
	}
	prep := &PreparedRun{Lock: lock}
	fail := func(err error) (*PreparedRun, error) {
		lock.Release()
		return nil, err
	}
	st, err := statedir.ReadTeamState(plan.StateDir)
	var recovered *statedir.RecoveredStateError
	if errors.As(err, &recovered) {
		prep.Recovered = recovered.Error()
		err = nil
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if resume {
			return fail(fmt.Errorf("nothing to resume: %s has no %s; run without --resume to start the run", plan.StateDir, statedir.TeamStateFile))
		}
		return prep, nil
	case err != nil:
		return fail(err)
	}
	if st.Status == statedir.RunRunning && st.Pid != os.Getpid() && statedir.ProcessAlive(st.Pid, st.PidStart) {
		// The lock was free, yet the run's rostra lives: the folder was
		// replaced under it, or it is an older rostra that locked run.lock
		// itself. Its workers are not leftovers.
		return fail(&statedir.ErrRunAlive{StateDir: plan.StateDir, Pid: st.Pid})
	}
	open := 0
	for _, w := range st.Workers {
		if w.Status != statedir.StatusCompleted {
			open++
		}
	}
	unfinished := st.Status != statedir.RunFinished
	switch {
	case resume:
		if recovered != nil {
			kept, err := statedir.KeepDamaged(recovered, now)
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
	dest, err := statedir.Archive(plan.StateDir, now)
	if err != nil {
		return fail(err)
	}
	prep.ArchivedTo = dest
	return prep, nil
}

// markInterrupted records the attempts a dead rostra left running.
func markInterrupted(st *statedir.TeamState, now time.Time) int {
	n := 0
	reason := fmt.Sprintf("interrupted (rostra pid %d died)", st.Pid)
	ended := now.UTC()
	for i := range st.Dispatches {
		d := &st.Dispatches[i]
		if d.Status == statedir.StatusRunning {
			d.Status = statedir.StatusError
			d.Reason = reason
			d.FailureClass = statedir.FailureInterrupted
			d.EndedAt = &ended
			n++
		}
	}
	for i := range st.Workers {
		w := &st.Workers[i]
		if statedir.Unsettled(w.Status) {
			w.Status = statedir.StatusError
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
func recordUnsavedAttempts(plan *runfile.Plan, st *statedir.TeamState, now time.Time) int {
	known := map[string]bool{}
	for _, d := range st.Dispatches {
		known[d.DispatchID] = true
	}
	reason := fmt.Sprintf("interrupted (rostra pid %d died) before the attempt was recorded", st.Pid)
	ended := now.UTC()
	n := 0
	for i := range st.Workers {
		w := &st.Workers[i]
		entries, err := os.ReadDir(filepath.Join(plan.StateDir, statedir.AttemptsDir, w.WorkerID))
		if err != nil {
			continue
		}
		var found []int
		for _, e := range entries {
			if a, err := strconv.Atoi(e.Name()); err == nil && a > 0 && e.IsDir() && !known[runfile.DispatchID(w.WorkerID, a)] {
				found = append(found, a)
			}
		}
		slices.Sort(found)
		for _, a := range found {
			dir := plan.AttemptDir(w.WorkerID, a)
			row := statedir.DispatchRow{
				DispatchID:        runfile.DispatchID(w.WorkerID, a),
				WorkerID:          w.WorkerID,
				Attempt:           a,
				Status:            statedir.StatusError,
				Reason:            reason,
				FailureClass:      statedir.FailureInterrupted,
				EndedAt:           &ended,
				OutputLogPath:     filepath.Join(dir, "output.log"),
				StatusSidecarPath: filepath.Join(dir, "status.json"),
			}
			if info, err := os.Stat(dir); err == nil {
				row.StartedAt = info.ModTime().UTC()
			}
			st.Dispatches = append(st.Dispatches, row)
			w.Attempts = max(w.Attempts, a)
			if w.Status != statedir.StatusCompleted {
				w.Status, w.Reason = statedir.StatusError, reason
			}
			n++
		}
	}
	return n
}
