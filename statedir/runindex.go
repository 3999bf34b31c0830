// runindex.go is the user's index of recent runs
// (docs/state.md §The index of runs): one small JSON file in the user's state home
// ($XDG_STATE_HOME/rostra/runs.json, else ~/.local/state/rostra/runs.json)
// naming the state dir of each run this user started, newest first, so
// `rostra ls --all` finds runs after a reboot, when no socket is left to
// find them by. It is the one file rostra writes outside a state dir: a
// run adds itself at its start (written atomically, under a lock beside
// it, so two runs starting together both stay), and entries whose state
// dir is gone are dropped whenever it is read or written.
//
// Crashed tells, from a state dir alone, a run whose rostra died without
// finishing from a finished or stopped one.
package statedir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// RunIndexFile is the index's name in the user's state home.
const RunIndexFile = "runs.json"

// runIndexMax bounds the index: the oldest entries go first.
const runIndexMax = 100

// RunIndexEntry is one run in the index.
type RunIndexEntry struct {
	StateDir  string    `json:"stateDir"`
	Run       string    `json:"run"`
	RunFile   string    `json:"runFile"`
	StartedAt time.Time `json:"startedAt"`
}

type runIndex struct {
	Version int             `json:"version"`
	Runs    []RunIndexEntry `json:"runs"`
}

// RunIndexDir is the folder of the index: $XDG_STATE_HOME/rostra, else
// ~/.local/state/rostra.
func RunIndexDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rostra"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("the index of runs: no state home: set XDG_STATE_HOME or HOME: %w", err)
	}
	return filepath.Join(home, ".local", "state", "rostra"), nil
}

// RecordRun adds e to the index, first, replacing an older entry of the
// same state dir, and drops the entries whose state dir is gone.
func RecordRun(e RunIndexEntry) error {
	dir, err := RunIndexDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the index of runs: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, RunIndexFile+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("the index of runs: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("the index of runs: lock %s: %w", lock.Name(), err)
	}
	old, _ := readRunIndex(dir) // a damaged index is written anew
	idx := runIndex{Version: 1, Runs: []RunIndexEntry{e}}
	for _, r := range old {
		if r.StateDir != e.StateDir && len(idx.Runs) < runIndexMax {
			idx.Runs = append(idx.Runs, r)
		}
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, RunIndexFile), append(data, '\n'), 0o600)
}

// RecentRuns are the index's runs whose state dir is still there, newest
// first; none when there is no index yet.
func RecentRuns() ([]RunIndexEntry, error) {
	dir, err := RunIndexDir()
	if err != nil {
		return nil, err
	}
	runs, err := readRunIndex(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return runs, err
}

// readRunIndex reads the index in dir, without the entries whose state
// dir is gone.
func readRunIndex(dir string) ([]RunIndexEntry, error) {
	path := filepath.Join(dir, RunIndexFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var idx runIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("the index of runs %s does not parse: %w (the next run writes it anew)", path, err)
	}
	out := idx.Runs[:0]
	for _, r := range idx.Runs {
		if fi, err := os.Stat(r.StateDir); err == nil && fi.IsDir() {
			out = append(out, r)
		}
	}
	return out, nil
}

// Crashed reports whether st, read from stateDir, is a run whose rostra
// died before it finished (the machine rebooted, it was killed): recorded
// running by a process that is gone. at is when its state files were
// last written, as near as rostra can tell when it stopped.
func Crashed(stateDir string, st *TeamState) (at time.Time, crashed bool) {
	if st.Status != RunRunning || ProcessAlive(st.Pid, st.PidStart) {
		return time.Time{}, false
	}
	for _, name := range []string{TeamStateFile, EventsFile} {
		if fi, err := os.Stat(filepath.Join(stateDir, name)); err == nil && fi.ModTime().After(at) {
			at = fi.ModTime()
		}
	}
	return at, true
}
