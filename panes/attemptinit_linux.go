//go:build linux

// attemptinit_linux.go holds the two roles rostra runs itself in for
// containment (reexec_linux.go): the init of an attempt's PID namespace,
// and the watchdog of the attempts' cgroups.
//
// The init is pid 1 of the namespace. It mounts a /proc of the namespace
// (so ps, pgrep and kill inside see the attempt's processes, by the pids
// they know), drops the capability it needed for that, and starts the
// worker in its own process group and session, so that every signal rostra
// or the terminal sends to the attempt reaches the worker directly, once.
// It ignores those signals itself (the worker decides how to end), forwards
// them only to a worker that moved to a group of its own (a job-control
// shell), and reaps every process of the namespace. It tells rostra on fd 3
// that the worker started ("started", or "error <why>") and how it ended
// ("exit N", "signal N"); then it lives on while anything of the attempt
// does, and exits when nothing is left. When it dies, however, the kernel
// kills whatever is left in the namespace.
package panes

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// initSignals are caught (not ignored: an ignored signal would stay ignored
// in the worker) so that they do not end the init.
var initSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE, syscall.SIGALRM}

// forwardedSignals are passed on to a worker that left the init's group.
var forwardedSignals = map[os.Signal]bool{syscall.SIGTERM: true, syscall.SIGINT: true, syscall.SIGHUP: true,
	syscall.SIGQUIT: true, syscall.SIGUSR1: true, syscall.SIGUSR2: true}

func attemptInit(args []string) int {
	// Capabilities are per thread: the one that drops them must be the one
	// that forks the worker.
	runtime.LockOSThread()
	status := os.NewFile(3, "status")
	syscall.CloseOnExec(3)
	say := func(s string) { _, _ = io.WriteString(status, s+"\n") }

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, initSignals...)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)

	mountOwnProc()
	// The worker gets no capability from the init (in a user namespace the
	// init holds CAP_SYS_ADMIN there, to mount /proc).
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

	if len(args) > 0 && args[0] == "--probe" {
		say("started")
		return 0
	}
	if len(args) >= 2 && args[0] == "--sandbox" {
		// After the mount: a sandboxed process may mount nothing. The
		// thread restricted is this one, which forks the worker.
		spec, err := decodeSandboxSpec(args[1])
		if err == nil {
			err = restrictThread(spec)
		}
		if err != nil {
			say("error sandbox: " + err.Error())
			return 126
		}
		args = args[2:]
	}
	if len(args) < 3 || args[0] != "--" {
		say("error rostra-attempt-init: want [--sandbox SPEC] -- PATH ARGV...")
		return 2
	}
	cmd := &exec.Cmd{Path: args[1], Args: args[2:], Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		say("error " + err.Error())
		return 127
	}
	say("started")
	worker := cmd.Process.Pid
	// The attempt's output ends when the worker and what it started close
	// it, not when the init does: the init keeps no copy.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = unix.Dup3(int(null.Fd()), fd, 0)
		}
		_ = null.Close()
	}

	group := unix.Getpgrp()
	reported := false
	for {
		select {
		case sig := <-sigs:
			if !reported && forwardedSignals[sig] {
				if pg, err := unix.Getpgid(worker); err == nil && pg != group {
					_ = unix.Kill(-pg, sig.(syscall.Signal))
				}
			}
		case <-chld:
		}
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err == unix.EINTR {
				continue
			}
			if pid == worker && !reported {
				switch {
				case ws.Signaled():
					say(fmt.Sprintf("signal %d", int(ws.Signal())))
				default:
					say(fmt.Sprintf("exit %d", ws.ExitStatus()))
				}
				_ = status.Close()
				reported = true
			}
			if err == unix.ECHILD && reported {
				return 0 // nothing of the attempt is left
			}
			if pid <= 0 {
				break
			}
		}
	}
}

// mountOwnProc gives the namespace a /proc of its own, best effort: mounts
// made outside still reach this mount namespace (slave), none made inside
// leave it. Where proc cannot be mounted (a container that masks parts of
// /proc), the worker sees the host's /proc, and its own pids differ from
// the ones it finds there.
func mountOwnProc() {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return
	}
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
}

// cgroupWatchdog waits for EOF on fd 3, which comes when rostra closes its
// end or dies, then kills whatever is left in the attempts' cgroups and
// removes them.
func cgroupWatchdog(args []string) int {
	if len(args) != 1 {
		return 2
	}
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGPIPE)
	_, _ = io.Copy(io.Discard, os.NewFile(3, "lifeline"))
	if err := emptyCgroupTree(args[0], 10*time.Second); err != nil {
		return 1
	}
	return 0
}
