// archive.go moves a finished run out of the way (docs/state.md): a
// fresh run archives the run found in its state dir to previous/<time>/,
// a damaged team-state.json is kept aside, never overwritten, and a run still
// driven by a live rostra is refused.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rostra-dev/rostra/runfile"
)

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

// ArchiveForFreshRun moves the run found in plan's state dir, finished or
// not, to previous/<timestamp>/ as a finished run is archived, so that a
// new run starts over there (rostra run --fresh). It holds the lock for the
// move: a run that a rostra drives is refused. It returns where the run
// went, "" when the state dir holds no run.
func ArchiveForFreshRun(plan *runfile.Plan, now time.Time) (string, error) {
	if _, err := os.Lstat(filepath.Join(plan.StateDir, TeamStateFile)); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err := Claim(plan.StateDir); err != nil {
		return "", err
	}
	lock, err := AcquireRunLock(plan.StateDir)
	if err != nil {
		return "", err
	}
	defer lock.Release()
	if st, _ := ReadTeamState(plan.StateDir); st != nil && st.Status == RunRunning && ProcessAlive(st.Pid, st.PidStart) {
		return "", &ErrRunAlive{StateDir: plan.StateDir, Pid: st.Pid}
	}
	return Archive(plan.StateDir, now)
}

// KeepDamaged moves an unparsable team-state.json aside (the resumed run is
// about to write a new one) and notes the recovery in events.jsonl.
func KeepDamaged(rec *RecoveredStateError, now time.Time) (string, error) {
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

// Archive moves the files of a finished run (rostraRunName) to
// previous/<timestamp>/. The lock note, the marker and earlier archives
// stay, and so does anything rostra did not write.
func Archive(stateDir string, now time.Time) (string, error) {
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
	return dest, SyncDir(stateDir)
}
