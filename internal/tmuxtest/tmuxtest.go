// Package tmuxtest keeps the private tmux servers of tests (tmux -L NAME:
// the terminal oracle of panes/vt, the terminal the end-to-end tests of
// cmd/rostra drive) from outliving the test process. A test's cleanup
// kills its server, but no cleanup runs when the test binary is killed
// (go test -timeout, a SIGKILL, a Ctrl-C): each server then went on
// running, with exit-empty off or a session left, and tmux 3.3 leaves its
// socket file in $TMUX_TMPDIR/tmux-UID even when it exits (1,600 of them
// piled up in /tmp/tmux-0 here).
//
// Guard starts a watcher process for a server: a shell that waits for the
// test process to end and then kills the server and removes its socket,
// whatever way the test process ended. Its stop, for the cleanup, does the
// same at once and ends the watcher.
package tmuxtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SocketPath is where `tmux -L name` makes its socket.
func SocketPath(name string) string {
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// Guard watches the tmux server of socket name (started or not yet) for
// this process: when the process ends, the watcher kills the server and
// removes its socket within a second. stop kills the server and removes
// the socket now, and ends the watcher; call it in the test's cleanup.
func Guard(name string) (stop func(), err error) {
	sock := SocketPath(name)
	// The test process has ended when its /proc entry is gone or it is a
	// zombie (a parent killed with it may leave it unreaped a while). The
	// watcher is in a process group of its own: a Ctrl-C sent to the
	// test's group must not end it before it has cleaned up.
	script := fmt.Sprintf(`while s=$(cat /proc/%d/stat 2>/dev/null); do case ${s##*) } in Z*) break ;; esac; sleep 1; done
tmux -L "$1" kill-server 2>/dev/null; rm -f "$2"`, os.Getpid())
	w := exec.Command("sh", "-c", script, "rostra-tmux-guard", name, sock)
	w.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("start the watcher of tmux server %s: %w", name, err)
	}
	return func() {
		_ = exec.Command("tmux", "-L", name, "kill-server").Run()
		_ = os.Remove(sock)
		_ = syscall.Kill(-w.Process.Pid, syscall.SIGKILL) // its sleep too
		_ = w.Wait()
	}, nil
}

// EndSession kills every process of session sid (a tmux pane's shell is
// the leader of one) and waits, at most 10 s, until none is left: killing
// the tmux server hangs the pane up, but a program there that ignores it,
// or its children, may go on writing in the test's folders while the
// test's cleanup removes them (qwen's node processes in its HOME).
func EndSession(sid int) {
	if sid <= 1 {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := sessionMembers(sid)
		if len(left) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionMembers are the live processes of session sid (zombies count as
// gone: they write nothing).
func sessionMembers(sid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// comm may hold spaces and parentheses: the fields start after
		// the last ')': state, ppid, pgrp, session.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 4 || f[0] == "Z" {
			continue
		}
		if s, err := strconv.Atoi(f[3]); err == nil && s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}
