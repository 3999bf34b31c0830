//go:build linux

// process_linux.go holds the Linux mechanics behind process.go: starting
// leaders from one locked OS thread (so Pdeathsig means "rostra died"),
// making rostra a child subreaper, and finding and reaping an attempt's
// processes in /proc.
//
// How an attempt's processes are found (each pass over /proc): while the
// leader is unreaped, its group and pty session by id; always, processes
// seen before (pid + start time), carriers of the attempt token, and every
// descendant of any of those. Once the leader is reaped its pid may be
// reused (pid_max can be 32768), so group and session ids no longer count.
//
// What these passes cannot catch: a descendant that leaves the process group
// and the pty session (setsid) AND replaces its environment (env -i, execve
// with a fresh envp) AND whose parent died before any pass saw it. It is
// then an orphan of rostra's with no trace of the attempt: once Supervise
// was called, the orphan registry (supervise_linux.go) stops it with the
// attempts it may belong to, and a cgroup or PID namespace
// (contain_linux.go) holds it anyway. Processes of another user cannot be
// read in /proc unless rostra runs as root.
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
	ref  *attemptRef
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
// that belong to an attempt, and every one once Supervise was called)
// instead of to an init that may not reap. ref becomes live with the start
// (supervise_linux.go).
func startLeader(cmd *exec.Cmd, ref *attemptRef) error {
	spawnOnce.Do(func() {
		// Best effort: without it orphans go to init, as usual.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		spawnReqs = make(chan spawnRequest)
		go spawnLoop(spawnReqs)
	})
	errc := make(chan error, 1)
	spawnReqs <- spawnRequest{cmd: cmd, ref: ref, errc: errc}
	return <-errc
}

// spawnLoop is the spawn thread; tests that check for leaked goroutines
// ignore it (SpawnLoopFunc).
func spawnLoop(reqs <-chan spawnRequest) {
	runtime.LockOSThread() // never unlocked, never returns
	for r := range reqs {
		r.errc <- sup.start(r.cmd, r.ref)
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

// childrenOf lists pid's children: /proc/<pid>/task/*/children (each
// thread's own), or, on a kernel built without it, every process whose
// parent is pid. The supervisor sweeps rostra's own before each start
// (supervise_linux.go), so this reads each file with one open, read and
// close into one buffer (a glob stat'ed each file first, and ReadFile
// stat'ed it again: 40 % of the server's CPU for starting 100 workers).
func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	tids, _ := d.Readdirnames(-1)
	_ = d.Close()
	var out []int
	readAny := false
	var buf [4096]byte
	for _, tid := range tids {
		fd, err := syscall.Open(dir+tid+"/children", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var b []byte
		for {
			n, err := syscall.Read(fd, buf[:])
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 {
				break
			}
			b = append(b, buf[:n]...)
		}
		_ = syscall.Close(fd)
		readAny = true
		c, digits := 0, false
		for _, ch := range append(b, ' ') {
			if ch >= '0' && ch <= '9' {
				c, digits = c*10+int(ch-'0'), true
				continue
			}
			if digits {
				out = append(out, c)
			}
			c, digits = 0, false
		}
	}
	if readAny {
		return out
	}
	for _, c := range listPIDs() {
		if st, ok := readProcStat(c); ok && st.ppid == pid {
			out = append(out, c)
		}
	}
	return out
}

// environHas reports whether pid's initial environment sets key to a
// value match accepts. (/proc/<pid>/environ is the environment the process
// was exec'd with; setenv in the process does not change it.)
func environHas(pid int, key string, match func(value []byte) bool) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	prefix := []byte(key + "=")
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok && match(v) {
			return true
		}
	}
	return false
}

// environHasToken reports whether pid's initial environment carries token
// in ROSTRA_ATTEMPT_TOKEN (a nested rostra's tokens are comma separated).
func environHasToken(pid int, token string) bool {
	return environHas(pid, AttemptTokenEnv, func(v []byte) bool {
		for t := range bytes.SplitSeq(v, []byte{','}) {
			if string(t) == token {
				return true
			}
		}
		return false
	})
}

// procTable is one pass over /proc: each process's stat, and the children
// of each pid.
type procTable struct {
	stats    map[int]procStat
	children map[int][]int
}

// readProcTable reads every process but skip (0: none).
func readProcTable(skip int) procTable {
	t := procTable{stats: map[int]procStat{}, children: map[int][]int{}}
	for _, pid := range listPIDs() {
		if pid == skip {
			continue
		}
		if st, ok := readProcStat(pid); ok {
			t.stats[pid] = st
			t.children[st.ppid] = append(t.children[st.ppid], pid)
		}
	}
	return t
}

// descend calls add for each descendant of the pids in queue, depth first
// (queue is the walk's own: give it a fresh slice); add reports whether the
// pid is new, and only new ones are descended into. stop (0: none) is
// neither added nor gone through: a reaped leader's pid may name another
// process by now.
func (t procTable) descend(queue []int, stop int, add func(pid int) bool) {
	for len(queue) > 0 {
		parent := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range t.children[parent] {
			if c != stop && add(c) {
				queue = append(queue, c)
			}
		}
	}
}

// found is what one pass over /proc found of an attempt.
type found struct {
	live    []int // to signal one by one (the group, while the leader is unreaped, is signalled whole)
	zombies []int // dead but not reaped yet (the unreaped leader included)
}

// linked lists the live processes of the attempt that signalGroup does not
// reach: the other process groups of the pty session (a job-control shell
// puts each job in its own), whatever carries the attempt token (setsid
// escapees), every descendant of any of those or of the leader, whatever its
// group, session or environment, and, once the leader is reaped, the
// members of its group.
func (p *process) linked() []int { return p.scan(false).live }

// scan makes one pass over /proc. Every process of the attempt it finds is
// remembered with its start time, so that it is still known after its parent
// died and it was reparented to rostra, after it died (a zombie has no
// environ), and after the leader's pid (the group and session id) may have
// been reused. With reap, it also reaps the attempt's zombies that are
// rostra's children (reparented to rostra, the subreaper), never the leader
// (cmd.Wait reaps it) and never a child that another part of rostra
// started and will wait for.
func (p *process) scan(reap bool) found {
	self := os.Getpid()
	procs := readProcTable(self)
	stats := procs.stats
	p.mu.Lock()
	reaped := p.reaped
	p.mu.Unlock()

	in := map[int]bool{}
	if !reaped {
		in[p.pid] = true
	}
	for pid, st := range stats {
		if pid == p.pid {
			continue
		}
		byID := !reaped && (st.pgrp == p.pid || (p.session && st.session == p.pid))
		if byID || p.isMember(pid, st.start) {
			in[pid] = true
		}
	}
	if cg := p.cgroup(); cg != nil {
		for _, pid := range cg.procs() {
			if _, ok := stats[pid]; ok && pid != p.pid {
				in[pid] = true
			}
		}
	}
	for pid, st := range stats {
		// A process older than the leader cannot carry its token: skip the
		// environ read that makes a pass cost.
		if !in[pid] && pid != p.pid && !dead(st) && st.start >= p.leaderStart && environHasToken(pid, p.token) {
			in[pid] = true
		}
	}
	roots := make([]int, 0, len(in))
	for pid := range in {
		roots = append(roots, pid)
	}
	procs.descend(roots, p.pid, func(c int) bool {
		if in[c] {
			return false
		}
		in[c] = true
		return true
	})

	var f found
	p.mu.Lock()
	for pid := range in {
		if pid == p.pid {
			continue
		}
		st := stats[pid]
		p.members[pid] = st.start
		switch {
		case dead(st):
			if reap && st.ppid == self {
				var ws syscall.WaitStatus
				if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
					continue
				}
			}
			f.zombies = append(f.zombies, pid)
		case !reaped && st.pgrp == p.pid:
			// reached through the group
		default:
			f.live = append(f.live, pid)
		}
	}
	p.mu.Unlock()
	if !reaped {
		f.zombies = append(f.zombies, p.pid) // present until cmd.Wait reaps it
	}
	return f
}

func dead(st procStat) bool { return st.state == 'Z' || st.state == 'X' }

// signalEach signals each process of procs (pid -> start time) that is
// alive and still that process, not one that took its pid since.
func signalEach(procs map[int]uint64, sig syscall.Signal) {
	for pid, start := range procs {
		if st, ok := readProcStat(pid); ok && st.start == start && !dead(st) {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// startTime is pid's start time, 0 if it is already gone.
func startTime(pid int) uint64 {
	st, _ := readProcStat(pid)
	return st.start
}

// waitExitNoReap blocks until pid has exited, leaving it a zombie, so that
// its pid stays reserved until cmd.Wait reaps it under p.mu.
//
// It waits in the runtime's poller on a pidfd (readable once the process
// has exited): a running attempt then parks a goroutine, where a waitid(2)
// blocked in the kernel held an OS thread of its own (with its 16 KiB
// system stack and 32 KiB signal stack) for the attempt's whole life. A
// kernel without pidfd_open (before 5.3) gets the blocking wait.
func waitExitNoReap(pid int) {
	if waitExitPolled(pid) {
		return
	}
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != syscall.EINTR {
			return // on any other error, cmd.Wait reports what happened
		}
	}
}

// waitExitPolled waits for pid's exit through a pidfd in the poller; false
// when it cannot (then nothing was waited for).
func waitExitPolled(pid int) bool {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	err = rc.Read(func(fd uintptr) bool {
		for {
			// WNOHANG: nothing to wait for yet leaves si_signo 0.
			var info unix.Siginfo
			err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			// Exited, or an error cmd.Wait will report; else wait
			// until the pidfd is readable.
			return err != nil || info.Signo != 0
		}
	})
	return err == nil
}

func (p *process) isMember(pid int, start uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.members[pid]
	return ok && s == start
}
