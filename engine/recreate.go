// recreate.go keeps a run going when its state dir is deleted under it, as
// `rm -rf .rostra` or `git clean -fdx` in an agent does (docs/state.md): the
// state in memory is the truth, so the folder is made again and filled
// from it, and the run goes on.
//
// Data model: the disk writer (disk.go) asks statedir.FS.Gone before each batch
// of writes, when an inotify event says the folder or its name in its
// parent went (statedir/statewatch_linux.go; a timer once a second where inotify
// cannot be had), and again after a write fails. A
// folder deleted while rostra holds it open has no links left (or its path
// now names another folder). recreateStateDir then, on the disk writer's
// goroutine: makes the folder again with its marker, its .gitignore and a
// lock of its own; copies events.jsonl from the deleted file, still open,
// into a new one (nothing lost); moves every output.log still being
// written the same way and writes its prompt.txt again; writes
// team-state.json; and posts a state-dir-recreated event that says what
// could not be saved: the files of attempts already over, reports and
// archives.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// EventStateDirRecreated is appended when the state dir was deleted during
// the run and made again.
const EventStateDirRecreated = "state-dir-recreated"

// writeGitignore writes <state dir>/.gitignore holding "*" when the state
// dir is inside the workspace (and none is there yet).
func writeGitignore(plan *runfile.Plan) error {
	rel, err := filepath.Rel(plan.Workspace, plan.StateDir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil
	}
	path := filepath.Join(plan.StateDir, statedir.GitignoreFile)
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	return statedir.WriteFileAtomic(path, []byte("# rostra's state: never committed\n*\n"), 0o600)
}

// recreated is what recreateStateDir saved, for the event.
type recreated struct {
	events  int64    // bytes of events.jsonl copied
	moved   []string // output.logs still written, moved with their bytes
	failed  []string // what could not be made again, with why
	relock  *statedir.RunLock
	lockErr error
	// unwatched: the new folder could not be watched (it is looked at
	// once a second instead).
	unwatched error
}

// recreateStateDir makes the state dir again and fills it from what rostra
// holds. It runs on the disk writer's goroutine, which owns e.log.
func (e *Engine) recreateStateDir(state []byte) (recreated, error) {
	var r recreated
	path := e.plan.StateDir
	held := e.sfs.Held()
	if dir, err := statedir.OpenDir(path); err == nil && sameFile(held, dir) {
		// The folder is still the one rostra holds, its files deleted (an
		// rm -rf that met a file written meanwhile): it is rostra's, and
		// only its marker is written again.
		dir.Close()
		// Whatever has the log's name now is not rostra's log (a file
		// moved there, a link): the log is written again in its place.
		if err := os.Remove(filepath.Join(path, statedir.EventsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return r, fmt.Errorf("make the deleted files of the state dir %s again: %w", path, err)
		}
		if err := statedir.WriteFileAtomic(filepath.Join(path, statedir.MarkerFile), []byte(statedir.MarkerText), 0o600); err != nil {
			return r, fmt.Errorf("make the deleted files of the state dir %s again: %w", path, err)
		}
	} else {
		if err == nil {
			dir.Close()
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return r, fmt.Errorf("make the deleted state dir %s again: %w", path, err)
		}
		if err := statedir.Claim(path); err != nil {
			return r, fmt.Errorf("make the deleted state dir %s again: %w", path, err)
		}
	}
	if err := writeGitignore(e.plan); err != nil {
		r.failed = append(r.failed, statedir.GitignoreFile+": "+err.Error())
	}
	dir, err := statedir.OpenDir(path)
	if err != nil {
		return r, err
	}
	old, logs := e.sfs.Replace(dir)
	same := sameFile(old, dir)
	old.Close()
	if same {
		// Only its files went: the lock on the folder holds; its note
		// is written again.
		if err := statedir.WriteLockNote(path); err != nil {
			r.failed = append(r.failed, statedir.LockFile+": "+err.Error())
		}
	} else {
		// The lock on the deleted folder no longer keeps a second rostra
		// out of the new one.
		r.relock, r.lockErr = statedir.AcquireRunLock(path)
	}

	f, err := e.sfs.OpenFile(statedir.EventsFile, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return r, err
	}
	if r.events, err = e.log.MoveTo(f); err != nil {
		return r, err
	}
	moved, failed := e.sfs.MoveLogs(logs)
	r.moved = append(r.moved, moved...)
	r.failed = append(r.failed, failed...)
	if state != nil {
		if err := e.writeState(state); err != nil {
			return r, err
		}
	}
	return r, nil
}

// guardStateDir is the disk writer's guard: it makes the state dir again
// when it is gone.
func (e *Engine) guardStateDir(state []byte) (bool, error) {
	// An rm -rf that met a file written meanwhile ("directory not empty")
	// leaves the folder but takes events.jsonl: the log would go on in a
	// file no name reaches, and be lost with it.
	if !e.sfs.Gone() {
		if !e.log.Unlinked() {
			return false, nil
		}
		// The rm may still be under way: give it the time to take the
		// folder too, or to give up on it.
		time.Sleep(deletedPause)
	}
	r, err := e.recreateStateDir(state)
	for try := 0; errors.Is(err, fs.ErrNotExist) && try < deletedRetries; try++ {
		// The rm -rf took the folder while it was being filled again (it
		// was still under way when the guard looked): let it finish, and
		// make the folder again from the start.
		if r.relock != nil {
			r.relock.Release()
		}
		time.Sleep(deletedPause)
		r, err = e.recreateStateDir(state)
	}
	if err != nil {
		return false, err
	}
	if e.stateWatch != nil {
		if err := e.stateWatch.Rearm(); err != nil {
			e.stateWatch.Close()
			e.stateWatch = nil
			e.pollStateDir()
			r.unwatched = err
		}
	}
	e.post(func() { e.stateDirRecreated(r) })
	return true, nil
}

// stateDirCheckEvery is how often the state dir is looked at when no
// inotify watch can be had.
const stateDirCheckEvery = time.Second

// watchStateDir returns what wakes the disk writer's guard while no write
// comes: an inotify watch on the state dir and its parent
// (statedir/statewatch_linux.go), or, where that cannot be had (inotify limits
// reached), a timer once a second.
func (e *Engine) watchStateDir() <-chan struct{} {
	e.stateWake = make(chan struct{}, 1)
	if w, err := statedir.WatchDir(e.plan.StateDir, e.stateWake); err == nil {
		e.stateWatch = w
	} else {
		e.pollStateDir()
	}
	return e.stateWake
}

// pollStateDir wakes the guard once a second from now on.
func (e *Engine) pollStateDir() {
	var tick func()
	tick = func() {
		select {
		case e.stateWake <- struct{}{}:
		default:
		}
		e.stateMu.Lock()
		if e.stateTimer != nil {
			e.stateTimer = e.clock.AfterFunc(stateDirCheckEvery, tick)
		}
		e.stateMu.Unlock()
	}
	e.stateMu.Lock()
	e.stateTimer = e.clock.AfterFunc(stateDirCheckEvery, tick)
	e.stateMu.Unlock()
}

// stopStateWatch ends what watchStateDir started, once the disk writer is
// closed.
func (e *Engine) stopStateWatch() {
	if e.stateWatch != nil {
		e.stateWatch.Close()
	}
	e.stateMu.Lock()
	if e.stateTimer != nil {
		e.stateTimer.Stop()
		e.stateTimer = nil
	}
	e.stateMu.Unlock()
}

// sameFile reports whether a and b are one file (the state dir's folder,
// held before and opened again).
func sameFile(a, b *os.File) bool {
	var sa, sb unix.Stat_t
	if unix.Fstat(int(a.Fd()), &sa) != nil || unix.Fstat(int(b.Fd()), &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// stateDirRecreated records on the loop what recreateStateDir did and
// what was lost.
func (e *Engine) stateDirRecreated(r recreated) {
	if r.relock != nil {
		if e.relock != nil {
			e.relock.Release()
		}
		e.relock = r.relock
	}
	moved := map[string]bool{}
	for _, rel := range r.moved {
		moved[rel] = true
	}
	var lostLogs []string
	for _, d := range e.st.Dispatches {
		rel, err := e.sfs.Rel(d.OutputLogPath)
		if err != nil || d.Surface == "" || moved[rel] {
			continue
		}
		lostLogs = append(lostLogs, d.DispatchID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the state dir %s was deleted while the run went on; made it again: team-state.json and events.jsonl (%d bytes) written from memory", e.plan.StateDir, r.events)
	if len(r.moved) > 0 {
		fmt.Fprintf(&b, ", the output.log and prompt.txt of %d running attempt(s) kept whole", len(r.moved))
	}
	b.WriteString("; lost: ")
	if len(lostLogs) > 0 {
		fmt.Fprintf(&b, "the output.log and status.json of the attempts already over (%s), ", strings.Join(lostLogs, ", "))
	}
	b.WriteString("any reports/ and previous/ runs")
	if len(r.failed) > 0 {
		b.WriteString("; not made again: " + strings.Join(r.failed, "; "))
	}
	if r.lockErr != nil {
		b.WriteString("; the new folder is not locked: " + r.lockErr.Error())
	}
	if r.unwatched != nil {
		b.WriteString("; rostra looks for it once a second from now on, since it cannot watch it: " + r.unwatched.Error())
	}
	e.emit(statedir.Event{Type: EventStateDirRecreated, Reason: b.String()})
	e.saveQueuesAgain()
	e.dirty = true
}
