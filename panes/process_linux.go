// process_linux.go holds the Linux mechanics behind process.go: starting
// leaders from one locked OS thread (so Pdeathsig means "rostra died"),
// making rostra a child subreaper, and finding and reaping an attempt's
// processes in /proc.
//
// What cannot be caught: a descendant that leaves the process group and the
// pty session (setsid) AND replaces its environment (env -i, execve with a
// fresh envp) carries no trace of the attempt; if it also keeps the output
// open, the reader's fd is closed under it after StopGrace, so the attempt
// still ends, but that process lives on. Processes of another user cannot be
// read in /proc unless rostra runs as root. A pid reused after ~4M forks
// while an attempt is open could be taken for a member of its group.
package panes

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

type spawnRequest struct {
	cmd  *exec.Cmd
	errc chan error
}

var (
	spawnOnce sync.Once
	spawnReqs chan spawnRequest
)

// startLeader starts cmd from the spawn thread. Pdeathsig is tied to the
// thread that forked the child, not to the process (golang/go#27505): a
// child forked from an ordinary goroutine's thread is killed whenever the Go
// runtime retires that thread. One goroutine, locked to its thread and never
// returning, keeps that thread alive as long as rostra is.
//
// The first call also makes rostra a child subreaper, so that orphaned
// descendants of an attempt are reparented to rostra (which reaps the ones
// that belong to an attempt) instead of to an init that may not reap.
func startLeader(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		// Best effort: without it orphans go to init, as usual.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		spawnReqs = make(chan spawnRequest)
		go spawnLoop(spawnReqs)
	})
	errc := make(chan error, 1)
	spawnReqs <- spawnRequest{cmd: cmd, errc: errc}
	return <-errc
}

// spawnLoop is the spawn thread; tests that check for leaked goroutines
// ignore it (SpawnLoopFunc).
func spawnLoop(reqs <-chan spawnRequest) {
	runtime.LockOSThread() // never unlocked, never returns
	for r := range reqs {
		r.errc <- r.cmd.Start()
	}
}

// SpawnLoopFunc names the one goroutine panes keeps for the life of the
// process, for goleak.IgnoreTopFunction in tests of packages that use panes.
const SpawnLoopFunc = "github.com/rostra-dev/rostra/panes.spawnLoop"

// procStat is the part of /proc/<pid>/stat this file needs.
type procStat struct {
	state   byte
	ppid    int
	pgrp    int
	session int
	start   uint64 // clock ticks after boot; with pid, names one process
}

func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// comm may hold spaces and parentheses: the fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var st procStat
	st.state = f[0][0]
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgrp, _ = strconv.Atoi(f[2])
	st.session, _ = strconv.Atoi(f[3])
	st.start, _ = strconv.ParseUint(f[19], 10, 64)
	return st, true
}

// listPIDs lists the processes (thread group leaders) in /proc.
func listPIDs() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// environHasToken reports whether pid's initial environment carries token
// in ROSTRA_ATTEMPT_TOKEN. (/proc/<pid>/environ is the environment the
// process was exec'd with; setenv in the process does not change it.)
func environHasToken(pid int, token string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	prefix := []byte(AttemptTokenEnv + "=")
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		v, ok := bytes.CutPrefix(kv, prefix)
		if !ok {
			continue
		}
		for t := range strings.SplitSeq(string(v), ",") {
			if t == token {
				return true
			}
		}
	}
	return false
}

// linked lists the live processes of the attempt that kill(-pgid) does not
// reach: the other process groups of the pty session (a job-control shell
// puts each job in its own) and whatever carries the attempt token (setsid
// escapees). The leader's own group is signalled as a group.
func (p *process) linked() []int {
	self := os.Getpid()
	var out []int
	for _, pid := range listPIDs() {
		if pid == self || pid == p.pid {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok || st.state == 'Z' || st.state == 'X' {
			continue
		}
		switch {
		case st.pgrp == p.pid:
			// reached through the group
		case p.session && st.session == p.pid:
			out = append(out, pid)
		case p.isMember(pid, st.start) || environHasToken(pid, p.token):
			p.mu.Lock()
			p.members[pid] = st.start
			p.mu.Unlock()
			out = append(out, pid)
		}
	}
	return out
}

func (p *process) isMember(pid int, start uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.members[pid]
	return ok && s == start
}

// reapZombies reaps the attempt's processes that died after being
// reparented to rostra (the subreaper). It touches only zombies that are
// rostra's children AND belong to this attempt (its group, its session, or a
// token carrier seen alive), never the leader (cmd.Wait reaps it) and never
// a child some other part of rostra started and will wait for.
func (p *process) reapZombies() {
	self := os.Getpid()
	for _, pid := range listPIDs() {
		if pid == p.pid {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok || st.state != 'Z' || st.ppid != self {
			continue
		}
		if st.pgrp == p.pid || (p.session && st.session == p.pid) || p.isMember(pid, st.start) {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}
