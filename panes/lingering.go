//go:build linux

// lingering.go finds what is left of attempts: after an attempt's leader has
// exited, is anything of it still there to stop (docs/design.md §Stopping)? And after a
// rostra died without stopping its attempts (SIGKILL, OOM), which processes
// of that run are still running, for the rostra that resumes it to stop?
package panes

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Lingering reports whether a process of the attempt is left after its
// leader exited: a member of its process group, or a linked process (other
// groups of its pty session, token carriers, their descendants); in a
// cgroup, any process in it; in a PID namespace, any process but its init.
func (p *process) Lingering() bool {
	if cg := p.cgroup(); cg != nil && cg.populated() {
		return true
	}
	if p.nsInit() != nil {
		select {
		case <-p.leaderGone:
			return false // the namespace died with its init
		default:
			return len(childrenOf(p.pid)) > 0 // every process of the namespace descends from the init
		}
	}
	p.mu.Lock()
	gone := p.groupGone
	if !gone {
		if err := syscall.Kill(-p.pid, 0); errors.Is(err, syscall.ESRCH) {
			p.groupGone = true
			gone = true
		}
	}
	p.mu.Unlock()
	return !gone || len(p.linked()) > 0
}

// StopRunLeftovers stops the processes a dead rostra left of a run: every
// live process whose initial environment holds key=value (the engine gives
// each attempt ROSTRA_STATE_DIR=<state dir>, and descendants inherit it),
// except this process and its ancestors. A wrapper child's own children
// outlive a SIGKILLed rostra (Pdeathsig is not inherited and a pipe has no
// hangup), as do pty descendants that ignore SIGHUP; the caller must hold
// the run's lock, which proves the rostra that started them is gone.
// SIGTERM first, SIGKILL to what is left after grace; it returns the pids
// found and those still present at the end (another user's, say). Call it
// before the resumed run starts its own attempts: they carry the same entry.
func StopRunLeftovers(key, value string, grace time.Duration) (found, left []int) {
	spare := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !spare[pid]; {
		spare[pid] = true
		st, ok := readProcStat(pid)
		if !ok {
			break
		}
		pid = st.ppid
	}
	starts := map[int]uint64{}
	for _, pid := range listPIDs() {
		if spare[pid] {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok || dead(st) || !environHas(pid, key, func(v []byte) bool { return string(v) == value }) {
			continue
		}
		starts[pid] = st.start
		found = append(found, pid)
	}
	if len(found) == 0 {
		return nil, nil
	}
	remaining := func() []int {
		var out []int
		for pid, start := range starts {
			st, ok := readProcStat(pid)
			if !ok || st.start != start {
				continue
			}
			if dead(st) {
				if st.ppid == os.Getpid() { // reparented to this subreaper
					var ws syscall.WaitStatus
					_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
				}
				continue
			}
			out = append(out, pid)
		}
		return out
	}
	waitGone := func(d time.Duration) []int {
		deadline := time.Now().Add(d)
		for {
			left := remaining()
			if len(left) == 0 || !time.Now().Before(deadline) {
				return left
			}
			time.Sleep(10 * time.Millisecond) // no event tells a stranger's exit
		}
	}
	signalEach(starts, syscall.SIGTERM)
	if len(waitGone(grace)) > 0 {
		signalEach(starts, syscall.SIGKILL)
	}
	return found, waitGone(goneLimit)
}
