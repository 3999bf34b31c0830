// ownership.go decides whether a folder is rostra's to run in and archive.
// rostra moves a finished run's files into previous/<time>/ when the next
// run starts, so it must never take a folder that holds someone else's
// files for a state dir: a state_dir of `..` or `~` would archive the
// user's projects and dot files.
//
// The rule: a folder is rostra's when it holds the marker file .rostra-state,
// which rostra writes when it makes the folder (or takes an empty one). A
// folder without the marker is taken only when it is empty, or when it
// holds nothing but names rostra writes and the files of a run (a state
// dir made by a rostra that wrote no marker yet): that one gets the marker.
// Anything else is refused, naming what is in the way. Archiving moves
// only the names rostra writes; anything else stays where it is.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rostra-dev/rostra/runfile"
)

// MarkerFile marks a folder as a state dir rostra made.
const MarkerFile = ".rostra-state"

const MarkerText = "This folder is a rostra state dir: rostra made it and may move the files it\n" +
	"wrote here into previous/ when a new run starts. See docs/state.md, \"Whose folder it is\".\n"

// Folders rostra makes in a state dir.
const (
	AttemptsDir = "attempts"
	PreviousDir = "previous"
)

// Names the run's server writes in its state dir (package server, cmd).
const (
	SocketFile    = "rostra.sock"
	ServerLogFile = "server.log"
)

// GitignoreFile keeps a state dir inside the workspace out of git: an agent's
// `git add -A` must not commit rostra's files.
const GitignoreFile = ".gitignore"

// ReserveFile is the space kept aside in a state dir for the last state.
const ReserveFile = ".rostra-reserve"

// ReportsDir is the folder under a state dir that holds the reports.
const ReportsDir = "reports"

// rostraName reports whether name, an entry of a state dir, is one rostra
// writes there. The lock note, the marker, the .gitignore, the server's
// socket, the isolated workers' git worktrees (registered in the
// repository, which a move would break) and the archive are not part of a
// run's record and stay when it is archived (rostraRunName).
func rostraName(name string) bool {
	switch name {
	case LockFile, MarkerFile, PreviousDir, GitignoreFile, ReserveFile, SocketFile, runfile.WorktreesDir:
		return true
	}
	return rostraRunName(name)
}

// rostraRunName reports whether name is a file or folder of a run, moved to
// previous/<time>/ with it: the state files, their temporary and kept
// copies, the attempts, the reports and the server's log.
func rostraRunName(name string) bool {
	switch name {
	case TeamStateFile, TeamStateFile + PreviousSuffix, TeamStateFile + PreviousSuffix + ".tmp",
		EventsFile, AttemptsDir, ReportsDir, ServerLogFile, QueueDir:
		return true
	}
	return strings.HasPrefix(name, TeamStateFile+".damaged-") ||
		strings.HasPrefix(name, "."+TeamStateFile+".tmp-") ||
		strings.HasPrefix(name, "."+LockFile+".tmp-")
}

// ErrNotAStateDir refuses a folder that holds files rostra did not write.
type ErrNotAStateDir struct {
	StateDir string
	Foreign  []string // the first few entries rostra did not write
	More     int      // how many more there are
}

func (e *ErrNotAStateDir) Error() string {
	names := strings.Join(e.Foreign, ", ")
	if e.More > 0 {
		names += fmt.Sprintf(" (+%d more)", e.More)
	}
	return fmt.Sprintf("state dir %s holds files rostra did not write (%s) and no %s marker: "+
		"rostra runs only in a folder it made, since it archives a finished run's files there; "+
		"set state_dir to a new or empty folder (or leave it out for <workspace>/.rostra/<name>)",
		e.StateDir, names, MarkerFile)
}

// Claim makes dir a state dir of rostra's, or checks that it is
// one: it creates a missing folder (and its parents) with the marker,
// marks an empty folder or one an earlier rostra left, and refuses any
// other folder with *ErrNotAStateDir.
func Claim(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create state dir: %w", err)
	}
	fi, err := os.Lstat(filepath.Join(dir, MarkerFile))
	switch {
	case err == nil && fi.Mode().IsRegular():
		return nil
	case err == nil:
		return fmt.Errorf("state dir %s: %s is not a regular file (rostra writes it as one); remove it and run again", dir, MarkerFile)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	var foreign []string
	hasRun := false
	for _, e := range entries {
		switch {
		case !rostraName(e.Name()):
			foreign = append(foreign, e.Name())
		case e.Name() == TeamStateFile || e.Name() == EventsFile || e.Name() == LockFile:
			hasRun = true
		}
	}
	if len(foreign) > 0 || len(entries) > 0 && !hasRun {
		if len(foreign) == 0 {
			// Only names rostra writes, but no run: a folder someone made
			// (reports/, attempts/) is not taken on their word.
			for _, e := range entries {
				foreign = append(foreign, e.Name())
			}
		}
		slices.Sort(foreign)
		err := &ErrNotAStateDir{StateDir: dir, Foreign: foreign}
		if len(foreign) > 5 {
			err.Foreign, err.More = foreign[:5], len(foreign)-5
		}
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, MarkerFile), []byte(MarkerText), 0o600)
}
