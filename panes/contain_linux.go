//go:build linux

// contain_linux.go holds each attempt's processes together as tightly as
// the kernel allows without privileges, so that nothing of an attempt
// outlives it, not even when rostra is SIGKILLed:
//
//   - cgroup: a cgroup v2 of its own under rostra's (when rostra's cgroup is
//     writable: root, or a delegated cgroup such as systemd's user@.service),
//     the leader cloned straight into it (CLONE_INTO_CGROUP). Settling writes
//     cgroup.kill, which reaches every process in it whatever it did to its
//     group, session or environment. A watchdog process (this binary again,
//     outside the attempts' cgroups) holds a pipe to rostra and, when rostra
//     dies, kills and removes them all.
//   - pid-namespace: the leader is a tiny init (this binary again, see
//     attemptinit_linux.go) that is pid 1 of a new PID namespace (in a new
//     user namespace mapping rostra's uid and gid to themselves when rostra
//     is not root) and runs the worker. When the init dies, the kernel kills
//     every process of the namespace; it dies with rostra (Pdeathsig).
//   - tracking: process groups, pty sessions, the attempt token and ancestry
//     (process_linux.go), and rostra as the subreaper of the rest.
//
// Data model: the kind is chosen once (chooseContainment) and each attempt
// starts with it, falling back to tracking when its own start fails for a
// reason of containment (a cgroup that cannot be made, a clone refused).
package panes

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Containment kinds: how the processes of an attempt are held together.
// The values are those engine records on dispatch rows.
const (
	ContainCgroup       = "cgroup"
	ContainPIDNamespace = "pid-namespace"
	ContainTracking     = "tracking"
	// ContainAuto asks Supervise for the best kind the kernel allows.
	ContainAuto = "auto"
)

// Names under which this binary runs again for containment (reexec_linux.go).
const (
	initArg0     = "rostra-attempt-init"
	watchdogArg0 = "rostra-cgroup-watchdog"
	probeArg0    = "rostra-containment-probe"
	selfExe      = "/proc/self/exe"
)

// containment is the kind new attempts get, and why not a better one.
type containment struct {
	kind   string
	why    string
	userns bool // pid-namespace: in a user namespace of its own (rostra is not root)
}

type chosen struct {
	containment
	cg *cgroupParent
}

// chooseContainment finds the first kind that works, from mode down the
// chain cgroup, pid-namespace, tracking.
func chooseContainment(mode string) (chosen, error) {
	chain := []string{ContainCgroup, ContainPIDNamespace, ContainTracking}
	switch mode {
	case ContainAuto, "", ContainCgroup:
	case ContainPIDNamespace:
		chain = chain[1:]
	case ContainTracking:
		chain = chain[2:]
	default:
		return chosen{}, fmt.Errorf("unknown containment %q; use auto, %s, %s or %s", mode, ContainCgroup, ContainPIDNamespace, ContainTracking)
	}
	var why []string
	for _, kind := range chain {
		switch kind {
		case ContainCgroup:
			cg, err := newCgroupParent()
			if err == nil {
				return chosen{containment{kind: kind}, cg}, nil
			}
			why = append(why, "no cgroup: "+err.Error())
		case ContainPIDNamespace:
			userns := os.Geteuid() != 0
			if err := probePIDNamespace(userns); err == nil {
				return chosen{containment: containment{kind: kind, why: strings.Join(why, "; "), userns: userns}}, nil
			} else {
				why = append(why, "no PID namespace: "+err.Error())
			}
		}
	}
	return chosen{containment: containment{kind: ContainTracking, why: strings.Join(why, "; ")}}, nil
}

func unixPrctlSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become a child subreaper: %w", err)
	}
	return nil
}

// held is how one attempt's processes are contained.
type held struct {
	kind string
	cg   *attemptCgroup // kind cgroup
	ns   *nsInit        // kind pid-namespace
	sb   *sandboxHelper // sandboxed, not by the init (sandbox_linux.go)
}

// startContained starts base (a leader's command, not yet started) the way
// new attempts are contained, and returns the command that was started,
// which may be base rewritten (the init of a PID namespace, the sandbox
// helper) or a copy. sb, when not nil, is applied in the child before the
// worker is exec'd, by the init or the helper (sandbox_linux.go).
func startContained(base *exec.Cmd, ref *attemptRef, sb *preparedSandbox) (*exec.Cmd, *held, error) {
	sup.mu.Lock()
	c, parent := sup.contain, sup.cgParent
	sup.mu.Unlock()
	kinds := []string{c.kind}
	if c.kind != ContainTracking {
		kinds = append(kinds, ContainTracking)
	}
	var lastErr error
	for _, kind := range kinds {
		cmd := cloneCmd(base)
		h := &held{kind: kind}
		var err error
		switch kind {
		case ContainCgroup:
			err = h.intoCgroup(cmd, parent)
		case ContainPIDNamespace:
			err = h.asInit(cmd, c.userns, sb)
		}
		if err == nil && sb != nil && h.ns == nil {
			err = h.throughSandbox(cmd, sb)
		}
		if err == nil {
			err = startLeader(cmd, ref)
			if err == nil {
				err = h.started(cmd)
				if err != nil {
					sup.settle(ref)
					return nil, nil, err // the worker itself could not start
				}
				return cmd, h, nil
			}
		}
		h.abandon()
		lastErr = err
		if kind == ContainTracking || !containmentError(err) {
			break
		}
	}
	return nil, nil, lastErr
}

// containmentError tells an error of the containment (a refused clone or
// cgroup) from one of the worker itself, which a retry would only repeat.
func containmentError(err error) bool {
	var ce *containError
	if errors.As(err, &ce) {
		return true
	}
	for _, e := range []syscall.Errno{syscall.EPERM, syscall.EBUSY, syscall.EINVAL, syscall.ENOSPC,
		syscall.EOPNOTSUPP, syscall.EUSERS, syscall.EACCES, syscall.EROFS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// containError is a failure to set the containment up.
type containError struct{ err error }

func (e *containError) Error() string { return e.err.Error() }
func (e *containError) Unwrap() error { return e.err }

func cloneCmd(c *exec.Cmd) *exec.Cmd {
	n := &exec.Cmd{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir,
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, ExtraFiles: c.ExtraFiles}
	if c.SysProcAttr != nil {
		attr := *c.SysProcAttr
		n.SysProcAttr = &attr
	} else {
		n.SysProcAttr = &syscall.SysProcAttr{}
	}
	return n
}

func (h *held) intoCgroup(cmd *exec.Cmd, parent *cgroupParent) error {
	if parent == nil {
		return &containError{errors.New("no cgroup parent")}
	}
	cg, err := parent.newAttempt()
	if err != nil {
		return &containError{err}
	}
	h.cg = cg
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = int(cg.fd.Fd())
	return nil
}

// asInit rewrites cmd to start the init of a new PID namespace, which runs
// the worker (cmd as it was) and reports on its status pipe, fd 3. With sb,
// the init applies it before it starts the worker.
func (h *held) asInit(cmd *exec.Cmd, userns bool, sb *preparedSandbox) error {
	r, w, err := os.Pipe()
	if err != nil {
		return &containError{fmt.Errorf("status pipe: %w", err)}
	}
	h.ns = &nsInit{status: r, statusW: w, exit: make(chan Exit, 1)}
	initArgs := []string{initArg0}
	if sb != nil {
		initArgs = append(initArgs, "--sandbox", sb.arg)
	}
	cmd.Args = append(append(initArgs, "--", cmd.Path), cmd.Args...)
	cmd.Path = selfExe
	cmd.ExtraFiles = append([]*os.File{w}, cmd.ExtraFiles...)
	nsAttr(cmd.SysProcAttr, userns)
	return nil
}

// nsAttr adds the namespaces of the init to attr: its own PID and mount
// namespaces (for a /proc of its own), and, for a rostra that is not root,
// a user namespace that maps its uid and gid to themselves and lets the
// init (only it: it drops them before starting the worker) mount /proc.
func nsAttr(attr *syscall.SysProcAttr, userns bool) {
	attr.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	if userns {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
}

// initStartLimit bounds how long the init may take to say it started the
// worker (a Go runtime starting: milliseconds).
const initStartLimit = 10 * time.Second

// started finishes a start: the attempt's cgroup fd is no longer needed;
// the init of a PID namespace says whether the worker started.
func (h *held) started(cmd *exec.Cmd) error {
	if h.cg != nil {
		_ = h.cg.fd.Close()
	}
	if h.sb != nil {
		return h.sandboxStarted(cmd)
	}
	if h.ns == nil {
		return nil
	}
	_ = h.ns.statusW.Close() // the init has it; EOF must come when it dies
	h.ns.statusW = nil
	lines := bufio.NewReader(h.ns.status)
	line := firstStatusLine(lines, "the PID namespace's init did not start")
	if line != "started" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		sup.reaped(cmd)
		_ = h.ns.status.Close()
		msg, _ := strings.CutPrefix(line, "error ")
		if msg == "" {
			msg = "the PID namespace's init ended before starting it"
		}
		return childStartError(msg)
	}
	go h.ns.readExit(lines)
	return nil
}

// abandon releases what a failed start set up.
func (h *held) abandon() {
	if h.cg != nil {
		_ = h.cg.fd.Close()
		_ = h.cg.remove(0)
	}
	if h.ns != nil {
		if h.ns.statusW != nil {
			_ = h.ns.statusW.Close()
		}
		_ = h.ns.status.Close()
	}
	if h.sb != nil {
		if h.sb.statusW != nil {
			_ = h.sb.statusW.Close()
		}
		_ = h.sb.status.Close()
	}
}

// nsInit is rostra's side of a PID namespace's init.
type nsInit struct {
	status  *os.File  // read end of the init's status pipe
	statusW *os.File  // write end, until the init has it
	exit    chan Exit // the worker's exit as the init reported it; closed at EOF
}

// readExit reads the init's report of the worker's end ("exit N" or
// "signal N"); EOF (the init died) closes exit without a value.
func (n *nsInit) readExit(lines *bufio.Reader) {
	defer close(n.exit)
	defer n.status.Close()
	for {
		line, err := lines.ReadString('\n')
		f := strings.Fields(line)
		if len(f) == 2 {
			v, _ := strconv.Atoi(f[1])
			switch f[0] {
			case "exit":
				n.exit <- Exit{Code: v}
				return
			case "signal":
				n.exit <- Exit{Code: -1, Signal: syscall.Signal(v).String()}
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// probePIDNamespace starts the init in probe mode: it sets up its
// namespaces and says so.
func probePIDNamespace(userns bool) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: selfExe, Args: []string{initArg0, "--probe"}, ExtraFiles: []*os.File{w}, SysProcAttr: &syscall.SysProcAttr{}}
	nsAttr(cmd.SysProcAttr, userns)
	err = sup.start(cmd, nil)
	_ = w.Close()
	if err != nil {
		return explainNamespaceError(err, userns)
	}
	done := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, 4096))
		done <- strings.TrimSpace(string(b))
	}()
	var out string
	select {
	case out = <-done:
	case <-time.After(initStartLimit):
		_ = cmd.Process.Kill()
		out = "no answer within " + initStartLimit.String()
	}
	_ = cmd.Wait()
	sup.reaped(cmd)
	if out != "started" {
		return fmt.Errorf("the init of a PID namespace did not start: %s", out)
	}
	return nil
}

func explainNamespaceError(err error, userns bool) error {
	switch {
	case userns && errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("user namespaces are turned off or used up (sysctl user.max_user_namespaces): %w", err)
	case userns && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)):
		return fmt.Errorf("this user may not make user namespaces (kernel.unprivileged_userns_clone, AppArmor or seccomp): %w", err)
	case errors.Is(err, syscall.EPERM):
		return fmt.Errorf("making a PID namespace is not permitted here (a container without CAP_SYS_ADMIN?): %w", err)
	}
	return err
}

// cgroupParent is the cgroup rostra makes under its own for its attempts,
// and the watchdog that empties and removes it if rostra dies.
type cgroupParent struct {
	dir      string
	lifeline *os.File // write end; the watchdog acts when it reads EOF
	done     chan struct{}
	next     atomic.Int64
}

// attemptCgroup is one attempt's cgroup.
type attemptCgroup struct {
	dir string
	fd  *os.File // open until the leader is cloned into it
}

// ownCgroupDir is the folder of this process's cgroup v2.
func ownCgroupDir() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	path := ""
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if path == "" {
		return "", errors.New("this process is in no cgroup v2 (cgroup v1 only)")
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		root, mnt := f[3], f[4]
		rel, err := filepath.Rel(root, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		return filepath.Join(mnt, rel), nil
	}
	return "", errors.New("cgroup v2 is not mounted")
}

// newCgroupParent makes rostra-<pid>-<start> under this process's cgroup,
// checks that a process can be started straight into a cgroup there, and
// starts the watchdog.
func newCgroupParent() (*cgroupParent, error) {
	own, err := ownCgroupDir()
	if err != nil {
		return nil, err
	}
	removeStaleCgroups(own)
	dir := filepath.Join(own, fmt.Sprintf("rostra-%d-%d", os.Getpid(), startTime(os.Getpid())))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot make a cgroup under %s (not delegated to uid %d): %w", own, os.Geteuid(), err)
	}
	c := &cgroupParent{dir: dir, done: make(chan struct{})}
	fail := func(err error) (*cgroupParent, error) {
		_ = emptyCgroupTree(dir, time.Second)
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		return fail(errors.New("the kernel has no cgroup.kill (it came with Linux 5.14)"))
	}
	probe, err := c.newAttempt()
	if err != nil {
		return fail(err)
	}
	cmd := &exec.Cmd{Path: selfExe, Args: []string{probeArg0},
		SysProcAttr: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(probe.fd.Fd())}}
	err = sup.start(cmd, nil)
	if err == nil {
		err = cmd.Wait()
		sup.reaped(cmd)
	}
	_ = probe.fd.Close()
	if err != nil {
		return fail(fmt.Errorf("cannot start a process in a cgroup under %s: %w", own, err))
	}
	if err := c.startWatchdog(); err != nil {
		return fail(fmt.Errorf("start the cgroup watchdog: %w", err))
	}
	return c, nil
}

func (c *cgroupParent) newAttempt() (*attemptCgroup, error) {
	dir := filepath.Join(c.dir, "a"+strconv.FormatInt(c.next.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make the attempt's cgroup: %w", err)
	}
	fd, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("open the attempt's cgroup: %w", err)
	}
	return &attemptCgroup{dir: dir, fd: fd}, nil
}

// startWatchdog starts this binary as the watchdog: in a session of its own
// (a Ctrl-C in rostra's terminal is not for it), with the read end of the
// lifeline as fd 3, and without Pdeathsig, since rostra's death is exactly
// when it has work to do.
func (c *cgroupParent) startWatchdog() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := &exec.Cmd{Path: selfExe, Args: []string{watchdogArg0, c.dir}, ExtraFiles: []*os.File{r},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	err = sup.start(cmd, nil)
	_ = r.Close()
	if err != nil {
		_ = w.Close()
		return err
	}
	c.lifeline = w
	go func() {
		_ = cmd.Wait()
		sup.reaped(cmd)
		close(c.done)
	}()
	return nil
}

// close has the watchdog kill what is left in the attempts' cgroups and
// remove them, and waits for it.
func (c *cgroupParent) close() error {
	_ = c.lifeline.Close()
	select {
	case <-c.done:
	case <-time.After(2 * goneLimit):
	}
	if _, err := os.Stat(c.dir); err == nil {
		if err := emptyCgroupTree(c.dir, goneLimit); err != nil {
			return fmt.Errorf("remove the attempts' cgroups: %w", err)
		}
	}
	return nil
}

// populated reports whether a live process is in the cgroup (a zombie is
// not: it left the cgroup when it exited).
func (a *attemptCgroup) populated() bool { return cgroupPopulated(a.dir) }

func cgroupPopulated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err != nil {
		return false
	}
	return strings.Contains(string(b), "populated 1")
}

// procs lists the processes in the cgroup.
func (a *attemptCgroup) procs() []int {
	b, err := os.ReadFile(filepath.Join(a.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// remove kills what is left in the cgroup and removes it, waiting at most
// d for it to empty.
func (a *attemptCgroup) remove(d time.Duration) error {
	return emptyCgroupTree(a.dir, d)
}

// emptyCgroupTree kills every process in the cgroup at dir and below,
// waits at most d for it to empty, and removes its folders, deepest first.
func emptyCgroupTree(dir string, d time.Duration) error {
	if cgroupPopulated(dir) {
		_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
		deadline := time.Now().Add(d)
		step := time.Millisecond
		for cgroupPopulated(dir) && time.Now().Before(deadline) {
			time.Sleep(step) // bounded poll, as waitGone: no event here tells an exit
			step = min(2*step, 20*time.Millisecond)
		}
	}
	var dirs []string
	_ = filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	var errs []error
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeStaleCgroups empties and removes the cgroups of rostras that died
// and whose watchdog could not clean up (it was killed too).
func removeStaleCgroups(own string) {
	entries, err := os.ReadDir(own)
	if err != nil {
		return
	}
	for _, e := range entries {
		var pid int
		var start uint64
		if !e.IsDir() {
			continue
		}
		if n, _ := fmt.Sscanf(e.Name(), "rostra-%d-%d", &pid, &start); n != 2 {
			continue
		}
		if startTime(pid) == start {
			continue // its rostra lives
		}
		_ = emptyCgroupTree(filepath.Join(own, e.Name()), time.Second)
	}
}

// firstStatusLine is the first line a helper (the namespace's init, the
// sandbox helper) writes on its status pipe, "" when the pipe closed
// first, or an error line saying late when nothing came within
// initStartLimit.
func firstStatusLine(r *bufio.Reader, late string) string {
	got := make(chan string, 1)
	go func() {
		line, _ := r.ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case line := <-got:
		return line
	case <-time.After(initStartLimit):
		return "error " + late + " within " + initStartLimit.String()
	}
}
