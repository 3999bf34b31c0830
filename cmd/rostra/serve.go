// serve.go wires the run server (package server): `rostra run` in a
// terminal, `rostra run --detach` and `rostra demo` start it as a process
// of its own, and then attach (attach.go).
//
// The server is this binary re-executed in a hidden mode (`rostra __serve`)
// in a session of its own (setsid: no controlling terminal, so closing the
// terminal that started it sends it no SIGHUP), with stdin on /dev/null.
// Until it is ready its stdout and stderr are a pipe to the rostra that
// started it, which prints what the server says (archived runs, resumed
// attempts, a locked state dir) and learns its exit code if it fails to
// start; once it listens, the server writes a ready line and moves its
// stdout and stderr to <state_dir>/server.log, where its event lines (as a
// headless run prints them) and any panic go.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/tui"
)

// serverMode is the hidden command the server process runs.
const serverMode = server.ProcessMode

// serverLogFile is the server's stdout and stderr, in the state dir.
const serverLogFile = statedir.ServerLogFile

// readyLine is what the server writes on its start pipe once it listens.
const readyLine = "rostra-server: ready"

// runServe is the server process:
// rostra __serve --state-dir DIR [--resume] [--size WxH] -- RUNFILE.
// The state dir comes first so that `rostra ls` finds it in /proc.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(serverMode, flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String(strings.TrimPrefix(server.StateDirFlag, "--"), "", "")
	resume := fs.Bool("resume", false, "")
	size := fs.String("size", "", "")
	fs.StringVar(&sshListen, strings.TrimPrefix(sshFlag, "--"), "", "")
	rest, err := parseArgs(fs, args)
	if err != nil || len(rest) != 1 {
		fmt.Fprintf(stderr, "rostra %s: started by rostra run, not by hand\n", serverMode)
		return 2
	}
	plan, err := runfile.Load(rest[0])
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return 2
	}
	if plan.StateDir != *stateDir {
		fmt.Fprintf(stderr, "rostra run: %s changed while the server started (state dir %s, not %s)\n", rest[0], plan.StateDir, *stateDir)
		return 2
	}
	// The size of the terminal that started the run, if it had one; 0, 0
	// (laid out when a client attaches) when it is absent or off.
	cols, rows, _ := parseSize(*size)
	return supervised(plan, stderr, func() int { return serve(plan, rest[0], *resume, cols, rows, stderr) })
}

// serve runs the server's engine and serves its UI until the run ends.
func serve(plan *runfile.Plan, runFile string, resume bool, cols, rows int, stderr io.Writer) int {
	opts, act, sizes := uiOptions(plan, cols, rows)
	eng, prep, code := startRun(plan, resume, stderr, opts, act)
	if eng == nil {
		return code
	}
	defer prep.Lock.Release()
	ln, err := server.Listen(plan.StateDir)
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n(rostra run --headless runs without a socket and without the UI)\n", err)
		return 2
	}
	logPath := filepath.Join(plan.StateDir, serverLogFile)
	logf, err := openServerLog(logPath)
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "rostra run: open the server's log: %v\n", err)
		return 2
	}

	sshSrv, err := runSSH(plan, escaped(logf))
	if err != nil {
		ln.Close()
		logf.Close()
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return 2
	}
	if sshSrv != nil {
		go func() { _ = sshSrv.Serve() }()
		defer sshSrv.Close()
		fmt.Fprintf(stderr, "rostra: the UI is served over SSH on %s (host key %s)\n", sshSrv.Addr(), sshSrv.HostKeyFingerprint())
	}

	// SIGINT, SIGTERM and SIGQUIT stop the run as a quit does. SIGHUP is
	// caught and dropped (a handler, unlike SIG_IGN, is not inherited by
	// the workers): the server has no terminal to lose.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP)
	defer signal.Stop(sigs)

	// Every line of server.log goes through one escaping writer: the
	// server's messages carry a client's TERM, a stop's reason, errors
	// naming files (docs/design.md, "Nothing raw reaches a terminal").
	log := escaped(logf)
	srv := server.New(server.Config{
		Engine: eng, Activity: act, Sizes: sizes, Listener: ln, RunFile: runFile, Log: log,
		FPS:       uiFPS,
		Unwatched: debug.FreeOSMemory, // memtrim.go
		WrapModel: func(m *tui.Model) tea.Model { return withTestPanicKey(m) },
		Colours: func(env []string) (string, bool, error) {
			theme, noColor, _, err := uiColours(plan, io.Discard, env)
			return theme, noColor, err
		},
	})
	sub := eng.Subscribe()
	printed := printEvents(plan, sub, log, nil)
	defer trimMemory(eng)()
	if err := eng.Start(); err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return 1
	}
	fmt.Fprintf(log, "rostra server: pid %d serves run %s on %s\n", os.Getpid(), plan.Name, ln.Path())
	fmt.Fprintf(stderr, "%s %d\n", readyLine, os.Getpid())
	// From here on, stdout and stderr (a panic's stack too) go to the log;
	// the pipe to the rostra that started the server closes.
	for _, fd := range []int{1, 2} {
		if err := unix.Dup3(int(logf.Fd()), fd, 0); err != nil {
			fmt.Fprintf(log, "rostra server: move fd %d to the log: %v\n", fd, err)
		}
	}
	go func() {
		for sig := range sigs {
			if sig == syscall.SIGHUP {
				continue
			}
			srv.Stop(server.SignalName(sig))
		}
	}()
	code = srv.Serve()
	sub.Close()
	<-printed
	fmt.Fprintf(log, "rostra: state in %s\n", plan.StateDir)
	return code
}

// openServerLog opens server.log for appending without following a
// symlink there: a worker may write in the state dir, and a resumed run
// finds what it left (as the engine's own state files, docs/state.md). A link
// is refused, naming its target; a FIFO does not hang the open.
func openServerLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0o600)
	if errors.Is(err, unix.ELOOP) {
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("%s is a symlink (to %s); rostra never writes through a link in its state dir: remove it and run again", path, target)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%s); remove it and run again", path, fi.Mode().Type())
	}
	if err == nil {
		err = unix.SetNonblock(int(f.Fd()), false)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// startServer starts the server process for runFile and waits until it
// listens (pid) or has failed (its exit code, after printing what it said).
// cols×rows is the terminal the first attempts should fit.
func startServer(runFile string, plan *runfile.Plan, resume bool, cols, rows int, stderr io.Writer) (pid, code int) {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: find the rostra binary to start the server: %v\n", err)
		return 0, 1
	}
	abs, err := filepath.Abs(runFile)
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return 0, 2
	}
	args := []string{serverMode, server.StateDirFlag, plan.StateDir}
	if resume {
		args = append(args, "--resume")
	}
	if cols > 0 && rows > 0 {
		args = append(args, "--size", fmt.Sprintf("%dx%d", cols, rows))
	}
	if sshListen != "" {
		args = append(args, sshFlag, sshListen)
	}
	args = append(args, "--", abs)
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: start the server: %v\n", err)
		return 0, 1
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		fmt.Fprintf(stderr, "rostra run: start the server: %v\n", err)
		return 0, 1
	}
	ready := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, readyLine+" ") {
			ready = true
			continue
		}
		fmt.Fprintln(stderr, line)
	}
	r.Close()
	if !ready {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return 0, ee.ExitCode()
		}
		fmt.Fprintf(stderr, "rostra run: the server did not start: %v\n", err)
		return 0, 1
	}
	// Reap the server if it ends while this rostra is still attached.
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, 0
}
