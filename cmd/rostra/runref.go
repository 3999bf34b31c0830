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
	"regexp"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/transport"
)

// defaultRunFile is the run file a command uses when given no PATH.
const defaultRunFile = "rostra.yaml"

type runRef struct {
	ref      string // PATH as given; "" for the default
	stateDir string
	name     string // the run's name from its run file; "" for a state dir (runName)
	// remote: the run is on another machine, stateDir its address
	// (remote.go); its files are not read here.
	remote bool
	// note, when not empty, says how the run was found when its run file
	// does not load; a command shows it on stderr.
	note string
}

// runName is the run's name: its run file's, or, for a state dir, the one
// its team-state.json records (else the folder's). It is read only when a
// message needs it, not by every command that resolves a state dir.
func (r runRef) runName() string {
	if r.name != "" {
		return r.name
	}
	if r.remote {
		return r.ref // its name is the server's there; the address says which run
	}
	if st, err := statedir.ReadTeamState(r.stateDir); err == nil && st.Run != "" {
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
var shellQuote = transport.Quote

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
	if server.IsAddress(ref) {
		if _, err := parseSSHAddr(ref); err != nil {
			return runRef{}, err
		}
		return runRef{ref: ref, stateDir: ref, remote: true}, nil
	}
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
			return runRef{}, fmt.Errorf("%s is neither a state dir (no %s, no %s) nor a folder with a %s", path, statedir.TeamStateFile, server.SocketName, defaultRunFile)
		}
		path = inner
	}
	plan, err := runfile.Load(path)
	if err != nil {
		// The run file may have been edited into something that does not
		// load while its run goes on (or a worker removed its own cwd:):
		// the run is still there to stop, watch or retry.
		if r, ok := findRunOfBrokenFile(path); ok {
			r.ref = ref
			r.note = fmt.Sprintf("%s does not load (rostra validate %s lists why); %s", path, shellQuote(path), r.note)
			return r, nil
		}
		return runRef{}, err
	}
	return runRef{ref: ref, stateDir: plan.StateDir, name: plan.Name}, nil
}

// findRunOfBrokenFile finds the run of a run file that does not load:
// the state dir its name and state_dir say, read as leniently as the text
// allows (docs/runfile.md: <workspace>/.rostra/<name> by default), else
// the run a live server of this user serves from it (as rostra ls lists
// them), else a run whose team-state.json names it, under the folder's
// .rostra/. r.note says which it used.
func findRunOfBrokenFile(path string) (runRef, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return runRef{}, false
	}
	keys := lenientTopKeys(abs)
	ws := filepath.Dir(abs)
	if w := keys["workspace"]; w != "" {
		if filepath.IsAbs(w) {
			ws = filepath.Clean(w)
		} else {
			ws = filepath.Join(filepath.Dir(abs), w)
		}
	}
	var dir, from string
	switch sd := keys["state_dir"]; {
	case sd != "" && filepath.IsAbs(sd):
		dir, from = filepath.Clean(sd), "its state_dir"
	case sd != "":
		dir, from = filepath.Join(ws, sd), "its state_dir"
	case keys["name"] != "":
		dir, from = filepath.Join(ws, ".rostra", keys["name"]), "its name"
	}
	if dir != "" && isStateDir(dir) {
		return runRef{stateDir: dir, name: keys["name"], note: fmt.Sprintf("using the state dir %s, from %s read as text", dir, from)}, true
	}
	for _, s := range server.LiveServers() {
		if s.Info != nil && s.Info.RunFile == abs {
			return runRef{stateDir: s.StateDir, name: s.Info.Run,
				note: fmt.Sprintf("using the run rostra ls lists for it: %s (server pid %d)", s.StateDir, s.Pid)}, true
		}
	}
	// The newest of them: the run last started from this file.
	var best runRef
	var bestAt time.Time
	dirs, _ := filepath.Glob(filepath.Join(ws, ".rostra", "*"))
	for _, d := range dirs {
		st, err := statedir.ReadTeamState(d)
		if (err != nil && st == nil) || st.RunFile != abs || !st.StartedAt.After(bestAt) {
			continue
		}
		best, bestAt = runRef{stateDir: d, name: st.Run, note: fmt.Sprintf("using the run whose state names it: %s", d)}, st.StartedAt
	}
	return best, best.stateDir != ""
}

// topKeyLine is a top-level `key: value` line of a YAML file.
var topKeyLine = regexp.MustCompile(`^(name|workspace|state_dir)\s*:\s*(.*)$`)

// lenientTopKeys reads name, workspace and state_dir from a run file that
// may not parse: as YAML when it does, else line by line, each value less
// its comment and its quotes.
func lenientTopKeys(path string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) == nil {
		for _, k := range []string{"name", "workspace", "state_dir"} {
			if v, ok := top[k].(string); ok {
				out[k] = v
			}
		}
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		m := topKeyLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		v := strings.TrimSpace(m[2])
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
			if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
				v = v[1 : end+1]
			}
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		if _, seen := out[m[1]]; !seen && v != "" && !strings.HasPrefix(v, "#") {
			out[m[1]] = v
		}
	}
	return out
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
	for _, name := range []string{statedir.TeamStateFile, server.SocketName, statedir.LockFile} {
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
func (r runRef) readState(cmd string, stderr io.Writer) (*statedir.TeamState, error) {
	st, err := statedir.ReadTeamState(r.stateDir)
	var recovered *statedir.RecoveredStateError
	if errors.As(err, &recovered) {
		fmt.Fprintf(stderr, "rostra %s: note: %v\n", cmd, recovered)
		return st, nil
	}
	return st, err
}

// noServerHint says what the state files tell about a run with no server,
// and what to do next.
func (r runRef) noServerHint() string {
	if r.remote {
		return "" // the bridge there said what its files say
	}
	st, err := statedir.ReadTeamState(r.stateDir)
	if err != nil {
		return fmt.Sprintf("no run has left its state in %s: %s starts one\n", r.stateDir, r.cmd("run"))
	}
	switch st.Status {
	case statedir.RunFinished:
		done := 0
		for _, w := range st.Workers {
			if w.Status == statedir.StatusCompleted {
				done++
			}
		}
		return fmt.Sprintf("run %s finished (%d of %d workers completed): %s shows it\n", st.Run, done, len(st.Workers), r.cmd("status"))
	case statedir.RunInterrupted:
		return fmt.Sprintf("run %s was stopped before it finished: %s continues it (%s starts it over)\n", st.Run, r.cmd("run --resume"), r.cmd("run --fresh"))
	}
	return fmt.Sprintf("run %s is recorded as %s by pid %d, which no longer serves it (it died?): %s continues it\n",
		st.Run, st.Status, st.Pid, r.cmd("run --resume"))
}

// noServerRetryHint is noServerHint for a retry of worker: once the run
// has ended, no server is left to start an attempt, and --resume is what
// gives the workers that did not complete a new one.
func (r runRef) noServerRetryHint(worker string) string {
	st, _ := statedir.ReadTeamState(r.stateDir) // a state read from its previous copy will do
	if st == nil || st.Status == statedir.RunRunning {
		return r.noServerHint()
	}
	for _, w := range st.Workers {
		if w.WorkerID != worker {
			continue
		}
		if w.Status == statedir.StatusCompleted {
			return fmt.Sprintf("run %s %s, and %s completed in it: %s gives only the workers that did not complete a new attempt; %s starts the whole run over (the old one archived to %s/)\n",
				st.Run, st.Status, worker, r.cmd("run --resume"), r.cmd("run --fresh"), statedir.PreviousDir)
		}
		return fmt.Sprintf("run %s %s, and %s did not complete in it (%s): %s retries it (a new attempt of each worker that did not complete)\n",
			st.Run, st.Status, worker, w.Status, r.cmd("run --resume"))
	}
	return r.noServerHint()
}
