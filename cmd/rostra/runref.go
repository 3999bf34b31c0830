// runref.go finds the run a command is about: PATH (or --run PATH) is a
// run file or a state dir, ./rostra.yaml by default, as `rostra attach`,
// `status` and every control command take it. It also words what to do
// when no server runs for the run, from what its state files say.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/server"
)

// defaultRunFile is the run file a command uses when given no PATH.
const defaultRunFile = "rostra.yaml"

type runRef struct {
	ref      string // PATH as given; "" for the default
	stateDir string
	name     string // the run's name from its run file; "" for a state dir (runName)
}

// runName is the run's name: its run file's, or, for a state dir, the one
// its team-state.json records (else the folder's). It is read only when a
// message needs it, not by every command that resolves a state dir.
func (r runRef) runName() string {
	if r.name != "" {
		return r.name
	}
	if st, err := engine.ReadTeamState(r.stateDir); err == nil && st.Run != "" {
		return st.Run
	}
	return filepath.Base(r.stateDir)
}

// cmd is the rostra command line words for this run, as a hint writes it
// ("rostra attach", or "rostra attach ../x.yaml" when PATH was given).
func (r runRef) cmd(words string) string {
	if r.ref == "" {
		return "rostra " + words
	}
	return "rostra " + words + " " + shellQuote(r.ref)
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runRefFrom picks PATH from --run and the positional arguments (at most
// one): one way or the other, not both.
func runRefFrom(flagVal string, pos []string) (string, error) {
	switch {
	case len(pos) > 1:
		return "", fmt.Errorf("expected at most 1 PATH, got %d arguments", len(pos))
	case flagVal != "" && len(pos) > 0:
		return "", fmt.Errorf("give the run as --run PATH or as PATH, not both")
	case len(pos) == 1:
		return pos[0], nil
	}
	return flagVal, nil
}

// resolveRun finds the state dir of ref: a state dir as it is, a run file
// (or a folder holding rostra.yaml) through its state_dir.
func resolveRun(ref string) (runRef, error) {
	path := ref
	if path == "" {
		path = defaultRunFile
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && ref == "":
		return runRef{}, fmt.Errorf("no %s here: name the run file or its state dir (--run PATH)", defaultRunFile)
	case errors.Is(err, fs.ErrNotExist):
		return runRef{}, fmt.Errorf("%s does not exist (PATH is a run file or a state dir)", path)
	case err != nil:
		return runRef{}, err
	}
	if fi.IsDir() {
		if isStateDir(path) {
			abs, err := filepath.Abs(path)
			if err != nil {
				return runRef{}, err
			}
			return runRef{ref: ref, stateDir: abs}, nil
		}
		inner := filepath.Join(path, defaultRunFile)
		if _, err := os.Stat(inner); err != nil {
			return runRef{}, fmt.Errorf("%s is neither a state dir (no %s, no %s) nor a folder with a %s", path, engine.TeamStateFile, server.SocketName, defaultRunFile)
		}
		path = inner
	}
	plan, err := engine.Load(path)
	if err != nil {
		return runRef{}, err
	}
	return runRef{ref: ref, stateDir: plan.StateDir, name: plan.Name}, nil
}

// fileExists reports whether path names something (a dangling symlink
// counts: opening it then says why it fails).
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// isStateDir reports whether dir holds a run's state or its server's
// socket. A folder this user may not look into counts (a state dir is
// 0700): connecting to its socket then says whose it is.
func isStateDir(dir string) bool {
	for _, name := range []string{engine.TeamStateFile, server.SocketName, engine.LockFile} {
		_, err := os.Lstat(filepath.Join(dir, name))
		if err == nil || errors.Is(err, fs.ErrPermission) {
			return true
		}
	}
	return false
}

// readState reads the run's team-state.json without its lock. A damaged
// file read through from its previous copy is a note on stderr, not an
// error: the state it gives is a save older.
func (r runRef) readState(cmd string, stderr io.Writer) (*engine.TeamState, error) {
	st, err := engine.ReadTeamState(r.stateDir)
	var recovered *engine.RecoveredStateError
	if errors.As(err, &recovered) {
		fmt.Fprintf(stderr, "rostra %s: note: %v\n", cmd, recovered)
		return st, nil
	}
	return st, err
}

// noServerHint says what the state files tell about a run with no server,
// and what to do next.
func (r runRef) noServerHint() string {
	st, err := engine.ReadTeamState(r.stateDir)
	if err != nil {
		return fmt.Sprintf("no run has left its state in %s: %s starts one\n", r.stateDir, r.cmd("run"))
	}
	switch st.Status {
	case engine.RunFinished:
		done := 0
		for _, w := range st.Workers {
			if w.Status == engine.StatusCompleted {
				done++
			}
		}
		return fmt.Sprintf("run %s finished (%d of %d workers completed): %s shows it\n", st.Run, done, len(st.Workers), r.cmd("status"))
	case engine.RunInterrupted:
		return fmt.Sprintf("run %s was stopped before it finished: %s continues it\n", st.Run, r.cmd("run --resume"))
	}
	return fmt.Sprintf("run %s is recorded as %s by pid %d, which no longer serves it (it died?): %s continues it\n",
		st.Run, st.Status, st.Pid, r.cmd("run --resume"))
}
