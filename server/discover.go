// discover.go finds the live servers of this user on this machine, for
// `rostra ls`, without writing anywhere: every server is a process whose
// command line is `rostra __serve --state-dir DIR ...` (ProcessMode), found
// in /proc, owned by this uid; each is then asked for its Info over its
// socket.
package server

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// ProcessMode is the hidden command a server process runs as; the flag
// after it names its state dir.
const ProcessMode = "__serve"

// StateDirFlag is the server process's flag that names its state dir.
const StateDirFlag = "--state-dir"

// Found is one server process.
type Found struct {
	Pid      int
	StateDir string
	Info     *Info // nil when Err says why it did not answer
	Err      error
}

// LiveServers lists this user's server processes, oldest first.
func LiveServers() []Found {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	uid := os.Getuid()
	var out []Found
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == os.Getpid() {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		if len(args) < 4 || string(args[1]) != ProcessMode || string(args[2]) != StateDirFlag {
			continue
		}
		f := Found{Pid: pid, StateDir: string(args[3])}
		f.Info, f.Err = info(f.StateDir)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Found) int {
		if a.Info != nil && b.Info != nil {
			return a.Info.Started.Compare(b.Info.Started)
		}
		return a.Pid - b.Pid
	})
	return out
}

// info asks the server of stateDir who it is.
func info(stateDir string) (*Info, error) {
	cc, err := Control(stateDir)
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	_ = cc.c.SetDeadline(time.Now().Add(2 * time.Second))
	rep, err := cc.Do(Request{Op: OpInfo})
	if err != nil {
		return nil, err
	}
	return rep.Info, nil
}
