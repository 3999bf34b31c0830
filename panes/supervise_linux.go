//go:build linux

// supervise_linux.go makes rostra the supervisor of everything its attempts
// start: a child subreaper that reaps every orphan handed to it as soon as
// it ends, stops each orphan once the attempts it may belong to have
// settled, and stops all of them before rostra exits (docs/internals.md,
// "Nothing outlives rostra"). Containment per attempt is in contain_linux.go.
//
// Data model: one supervisor per process, whose mutex is also held across
// every fork of a leader. leaders are the children panes started (os/exec's
// Wait reaps them; the reaper never does, so it cannot race Wait). Children
// in rostra's own process group are rostra's too (the engine runs git
// through os/exec, which leaves the group as it is; an attempt's processes
// are always in groups of their own), and are left to their Wait as well.
// Every other child is an orphan reparented to rostra; it belongs to
// the attempts live when it was reparented (owners), and is stopped
// (SIGTERM, SIGKILL after the attempt's stop_grace) when the last of them
// settles. The live set only changes at a start or a settle, and each sweeps
// the children first, so "live when first seen" is "live when reparented"
// whenever the sweep came. Sweeps come on SIGCHLD (an orphan ended, or a
// child of rostra died and its children were handed over), at each start
// and settle, and from a backstop timer that runs only while no attempt is
// live: a reparenting sends rostra no signal when the parent that died was
// not rostra's child, and an orphan reparented then (to no attempt) must be
// stopped in time. While attempts are live nothing needs a timer: whatever
// is reparented then is theirs, and their settles sweep first. The backstop
// starts a second after a settle, doubles while a pass finds nothing new,
// and ends after its once-a-minute pass when no orphan is left to watch
// (nothing is left that could hand one over): a quiet rostra makes no
// system call here.
package panes

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// attemptRef is an attempt as the orphan registry knows it: live from its
// leader's fork to its settle.
type attemptRef struct {
	grace time.Duration // its stop_grace, given to the orphans it leaves
}

// orphan is a child of rostra's that rostra did not start.
type orphan struct {
	start    uint64 // with the pid, names the process (pid reuse)
	owners   map[*attemptRef]bool
	stopping bool
}

type supervisor struct {
	mu       sync.Mutex
	reaping  bool                 // Supervise was called: reap and stop orphans
	leaders  map[int]*exec.Cmd    // started here, reaped by their Wait
	live     map[*attemptRef]bool // attempts started and not settled
	orphans  map[int]*orphan      // by pid
	doomed   map[int]uint64       // descendants of stopped orphans: stop them when they come
	contain  containment          // how new attempts are contained (contain_linux.go)
	cgParent *cgroupParent        // when contain.kind is cgroup
	loopDone chan struct{}
	// backstop is the delay of the next backstop pass while no attempt is
	// live; 0 when none is due. poke wakes orphanLoop to arm it.
	backstop time.Duration
	poke     chan struct{}
	sweeps   atomic.Int64 // passes over the children, for tests
}

// The backstop's first delay after a settle, and its longest.
const (
	backstopFirst = time.Second
	backstopLast  = time.Minute
)

var sup = &supervisor{
	leaders: map[int]*exec.Cmd{},
	live:    map[*attemptRef]bool{},
	orphans: map[int]*orphan{},
	doomed:  map[int]uint64{},
	contain: containment{kind: ContainTracking, why: "not supervised (panes.Supervise was not called)"},
}

// Supervise makes this process the supervisor of its attempts: a child
// subreaper that reaps every orphan as soon as it ends and stops orphans
// when their attempts settle, and it chooses how each attempt is contained
// (mode: "auto" for the best the kernel allows, or one of the Contain*
// kinds, which falls back down the chain when it cannot be had). It returns
// the kind new attempts get and, when that is not the best, why. Call it
// once, before the first attempt; from then on every child of the process
// must be started through panes, since the reaper reaps any other child.
func Supervise(mode string) (kind, why string, err error) {
	c, err := chooseContainment(mode)
	if err != nil {
		return "", "", err
	}
	if err := unixPrctlSubreaper(); err != nil {
		return "", "", err
	}
	sup.mu.Lock()
	sup.contain = c.containment
	sup.cgParent = c.cg
	first := !sup.reaping
	sup.reaping = true
	if first {
		sup.loopDone = make(chan struct{})
		sup.poke = make(chan struct{}, 1)
		go orphanLoop(sup.loopDone, sup.poke)
	}
	sup.mu.Unlock()
	return c.kind, c.why, nil
}

// OrphanLoopFunc names the goroutine Supervise keeps for the life of the
// process, for goleak.IgnoreTopFunction in tests.
const OrphanLoopFunc = "github.com/rostra-dev/rostra/panes.orphanLoop"

// orphanLoop sweeps on every SIGCHLD (an orphan ended: reap it; a child
// ended: its children are rostra's now) and on the backstop timer while
// no attempt is live (an orphan handed over silently: stop it).
func orphanLoop(done <-chan struct{}, poke <-chan struct{}) {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	backstop := time.NewTimer(time.Hour)
	backstop.Stop()
	for {
		select {
		case <-chld:
		case <-poke:
		case <-backstop.C:
		case <-done:
			backstop.Stop()
			return
		}
		sup.mu.Lock()
		found := sup.sweepLocked()
		next := sup.nextBackstopLocked(found)
		sup.mu.Unlock()
		backstop.Stop()
		if next > 0 {
			backstop.Reset(next)
		}
	}
}

// nextBackstopLocked is the delay of the next backstop pass after a sweep
// that registered found new orphans, or 0 for none: none while an attempt
// is live, else from backstopFirst (after a settle, or when a pass found
// something) doubling to backstopLast, after which the passes end if no
// orphan is left to watch.
func (s *supervisor) nextBackstopLocked(found int) time.Duration {
	if len(s.live) > 0 {
		return 0
	}
	if found > 0 {
		s.backstop = backstopFirst
	}
	next := s.backstop
	switch {
	case next == 0:
	case next < backstopLast:
		s.backstop = min(2*next, backstopLast)
	case len(s.orphans) == 0 && len(s.doomed) == 0:
		s.backstop = 0 // this pass is the last
	}
	return next
}

// start forks cmd with the supervisor locked (leaders from the spawn thread), so
// that the reaper cannot take the new child for an orphan before it is a
// known leader, and ref becomes live only after the orphans of earlier
// moments were sorted.
func (s *supervisor) start(cmd *exec.Cmd, ref *attemptRef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	if err := cmd.Start(); err != nil {
		return err
	}
	s.leaders[cmd.Process.Pid] = cmd
	if ref != nil {
		s.live[ref] = true
	}
	return nil
}

// reaped forgets a leader once its Wait has reaped it (and not a later
// leader that was given the same pid).
func (s *supervisor) reaped(cmd *exec.Cmd) {
	s.mu.Lock()
	if s.leaders[cmd.Process.Pid] == cmd {
		delete(s.leaders, cmd.Process.Pid)
	}
	s.mu.Unlock()
}

// settle takes ref out of the live set: each orphan it was the last owner
// of is stopped, with ref's grace.
func (s *supervisor) settle(ref *attemptRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reaping {
		s.sweepLocked()
	}
	delete(s.live, ref)
	if s.reaping && len(s.live) == 0 {
		s.backstop = backstopFirst
		select {
		case s.poke <- struct{}{}:
		default:
		}
	}
	for pid, o := range s.orphans {
		if !o.owners[ref] {
			continue
		}
		delete(o.owners, ref)
		if len(o.owners) == 0 {
			s.stopLocked(pid, o, ref.grace)
		}
	}
}

// sweepLocked reaps the orphans that ended and registers the new ones; it
// returns how many it registered.
func (s *supervisor) sweepLocked() (found int) {
	if !s.reaping {
		return 0
	}
	s.sweeps.Add(1)
	children := childrenOf(os.Getpid())
	seen := make(map[int]bool, len(children))
	group := syscall.Getpgrp()
	for _, pid := range children {
		seen[pid] = true
		if s.leaders[pid] != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.pgrp == group {
			continue // started by rostra itself (not through panes): its Wait reaps it
		}
		var ws syscall.WaitStatus
		if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
			delete(s.orphans, pid)
			continue
		}
		if _, known := s.orphans[pid]; known {
			continue
		}
		start := startTime(pid)
		if start == 0 {
			continue // gone meanwhile
		}
		found++
		o := &orphan{start: start, owners: make(map[*attemptRef]bool, len(s.live))}
		for ref := range s.live {
			o.owners[ref] = true
		}
		s.orphans[pid] = o
		if d, ok := s.doomed[pid]; ok && d == start {
			delete(s.doomed, pid)
			o.owners = nil
		}
		if len(o.owners) == 0 {
			// Its attempts settled before it was reparented (or it comes
			// from an orphan being stopped).
			s.stopLocked(pid, o, DefaultStopGrace)
		}
	}
	for pid := range s.orphans {
		if !seen[pid] {
			delete(s.orphans, pid) // reaped by an attempt's own pass
		}
	}
	for pid, start := range s.doomed {
		if startTime(pid) != start {
			delete(s.doomed, pid) // ended without coming to rostra
		}
	}
	return found
}

// stopLocked sends SIGTERM to an orphan and its descendants, and SIGKILL
// to whatever of them is left after grace. Its descendants are marked so
// that, reparented to rostra when it dies, they are stopped too rather than
// given to the attempts live then.
func (s *supervisor) stopLocked(pid int, o *orphan, grace time.Duration) {
	if o.stopping {
		return
	}
	o.stopping = true
	tree := subtree(pid, o.start)
	for p, start := range tree {
		if p != pid {
			s.doomed[p] = start
		}
	}
	signalEach(tree, syscall.SIGTERM)
	time.AfterFunc(grace, func() {
		signalEach(subtree(pid, o.start), syscall.SIGKILL)
		signalEach(tree, syscall.SIGKILL) // those that left the subtree meanwhile
	})
}

// Shutdown stops every orphan left (SIGTERM, SIGKILL to what is left after
// grace), reaps them, and takes down the attempts' cgroups; call it once
// every attempt is closed, just before the process exits. It returns an
// error naming the processes still there after SIGKILL.
func Shutdown(grace time.Duration) error {
	sup.mu.Lock()
	reaping := sup.reaping
	cg := sup.cgParent
	if reaping {
		sup.sweepLocked()
		for pid, o := range sup.orphans {
			o.owners = nil
			sup.stopLocked(pid, o, grace)
		}
	}
	sup.mu.Unlock()
	var errs []error
	if reaping {
		if left := waitOrphansGone(grace + goneLimit); len(left) > 0 {
			errs = append(errs, errors.New("processes reparented to rostra still present after SIGKILL: "+pidList(left)))
		}
	}
	if cg != nil {
		errs = append(errs, cg.close())
	}
	return errors.Join(errs...)
}

// waitOrphansGone sweeps until rostra has no child but its leaders, for at
// most d; it returns the orphans left.
func waitOrphansGone(d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		sup.mu.Lock()
		sup.sweepLocked()
		var left []int
		for pid, o := range sup.orphans {
			if o.stopping || len(o.owners) == 0 {
				left = append(left, pid)
			}
		}
		sup.mu.Unlock()
		if len(left) == 0 || !time.Now().Before(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond) // SIGCHLD wakes orphanLoop, not this wait
	}
}

func pidList(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}

// subtree is pid (if it is still the process that started at start) and
// every live descendant of it, with their start times.
func subtree(pid int, start uint64) map[int]uint64 {
	st, ok := readProcStat(pid)
	if !ok || st.start != start {
		return nil
	}
	procs := readProcTable(0)
	out := map[int]uint64{pid: start}
	procs.descend([]int{pid}, 0, func(c int) bool {
		if _, in := out[c]; in {
			return false
		}
		out[c] = procs.stats[c].start
		return true
	})
	return out
}
