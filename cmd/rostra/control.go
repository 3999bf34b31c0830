// control.go wires the control commands a person, a script or a lead agent
// runs from any shell against a run's server: retry, cancel, send, logs,
// stop, wait, and ls (every live server of this user). Each takes the run
// as --run PATH (a run file or a state dir; default ./rostra.yaml) and
// exits 2 with what the state files say when no server runs for it (and,
// for a retry, the command that will do it); logs also reads a run that
// has ended, from its files, and wait exits with the code it recorded.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// controlCmd is the shared shape of a command about one run (the control
// commands, attach, status, report, diff, merge): its flags, its usage,
// and the run it is about once parsed.
type controlCmd struct {
	name, usage string
	fs          *flag.FlagSet
	runFlag     *string
	stderr      io.Writer
}

func newControlCmd(name, usage string, stderr io.Writer) *controlCmd {
	c := &controlCmd{name: name, usage: usage, stderr: stderr, fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.fs.SetOutput(stderr)
	c.fs.Usage = func() { fmt.Fprint(stderr, usage) }
	c.runFlag = c.fs.String("run", "", "the run file or state dir (default ./rostra.yaml)")
	c.fs.BoolVar(&remoteInstall, "install", false, "for an ssh:// run: copy this rostra to the host first (docs/remote.md)")
	return c
}

// parse reads args: want is how many positional arguments the command
// takes (-1: at least one). ok=false means exit with code.
func (c *controlCmd) parse(args []string, want int) (rest []string, code int, ok bool) {
	if rest, code, ok = c.parseFlags(args); !ok {
		return nil, code, false
	}
	if (want >= 0 && len(rest) != want) || (want < 0 && len(rest) == 0) {
		c.fs.Usage()
		return nil, 2, false
	}
	return rest, 0, true
}

// parseFlags reads args' flags and returns the other arguments; -h exits
// 0 (the usage printed), a bad flag 2.
func (c *controlCmd) parseFlags(args []string) (rest []string, code int, ok bool) {
	rest, err := parseArgs(c.fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, 0, false
	case err != nil:
		return nil, 2, false
	}
	return rest, 0, true
}

// parseRun is parse for a command whose only argument is the run, as PATH
// or --run PATH, and finds that run.
func (c *controlCmd) parseRun(args []string) (runRef, int, bool) {
	rest, code, ok := c.parseFlags(args)
	if !ok {
		return runRef{}, code, false
	}
	ref, err := runRefFrom(*c.runFlag, rest)
	if err != nil {
		fmt.Fprintf(c.stderr, "rostra %s: %v\n%s", c.name, err, c.usage)
		return runRef{}, 2, false
	}
	*c.runFlag = ref
	return c.run()
}

// run finds the run of --run.
func (c *controlCmd) run() (runRef, int, bool) {
	r, err := resolveRun(*c.runFlag)
	if err != nil {
		fmt.Fprintf(c.stderr, "rostra %s: %v\n", c.name, err)
		return runRef{}, 2, false
	}
	if r.note != "" {
		fmt.Fprintf(c.stderr, "rostra %s: note: %s\n", c.name, r.note)
	}
	return r, 0, true
}

// dial connects to the run's server; with none it says what the files
// say (for req: what will do it, when it is a retry) and ok is false
// (exit 2).
func (c *controlCmd) dial(r runRef, req server.Request) (*server.Conn, bool) {
	cc, err := server.Control(r.stateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "rostra %s: %v\n", c.name, err)
		if errors.Is(err, server.ErrNoServer) {
			if req.Op == server.OpRetry {
				fmt.Fprint(c.stderr, r.noServerRetryHint(req.Worker))
			} else {
				fmt.Fprint(c.stderr, r.noServerHint())
			}
		}
		return nil, false
	}
	return cc, true
}

// do sends one request to the run's server and prints its answer.
func (c *controlCmd) do(r runRef, req server.Request, stdout io.Writer) int {
	cc, ok := c.dial(r, req)
	if !ok {
		return 2
	}
	defer cc.Close()
	rep, err := cc.Do(req)
	if err != nil {
		fmt.Fprintf(c.stderr, "rostra %s: %v\n", c.name, err)
		return 1
	}
	if rep.Error != "" {
		fmt.Fprintf(c.stderr, "rostra %s: %s\n", c.name, rep.Error)
	}
	if rep.Note != "" {
		fmt.Fprintln(stdout, printable.Lines(rep.Note))
	}
	// The server answers a stop once the workers are stopped and the state
	// saved, then ends its clients and its process, and closes this
	// connection by exiting: stop returns after that, so that a rostra run
	// --resume right after it finds the run free.
	if req.Op == server.OpStop && rep.Error == "" && !cc.WaitServerExit(stopExitWait) {
		fmt.Fprintf(c.stderr, "rostra %s: the run stopped, but its server has not exited after %s (its log: %s)\n",
			c.name, stopExitWait, filepath.Join(r.stateDir, serverLogFile))
	}
	return rep.Code
}

// stopExitWait bounds how long rostra stop waits for the server to exit
// once the run has stopped (it ends its clients, at most 10 s each, and
// the processes left to it, at most stop_grace and a few seconds).
const stopExitWait = time.Minute

const retryUsage = `usage: rostra retry [--run PATH] WORKER

Starts a manual attempt of WORKER, as r does: a running attempt is
cancelled first (SIGTERM, then SIGKILL after stop_grace).
`

func runRetry(args []string, stdout, stderr io.Writer) int {
	return request("retry", retryUsage, server.OpRetry, true, args, stdout, stderr)
}

const cancelUsage = `usage: rostra cancel [--run PATH] WORKER

Cancels WORKER's running attempt or pending retry, as x does; it is not
retried automatically (rostra retry starts it again).
`

func runCancel(args []string, stdout, stderr io.Writer) int {
	return request("cancel", cancelUsage, server.OpCancel, true, args, stdout, stderr)
}

// request is a control command that sends op, with a WORKER when
// onWorker, and prints the server's answer.
func request(name, usage, op string, onWorker bool, args []string, stdout, stderr io.Writer) int {
	c := newControlCmd(name, usage, stderr)
	want := 0
	if onWorker {
		want = 1
	}
	rest, code, ok := c.parse(args, want)
	if !ok {
		return code
	}
	r, code, ok := c.run()
	if !ok {
		return code
	}
	req := server.Request{Op: op}
	if onWorker {
		req.Worker = rest[0]
	}
	return c.do(r, req, stdout)
}

const sendUsage = `usage: rostra send [--run PATH] [--enter | --queue] WORKER TEXT...

Types TEXT (the words joined by spaces) into WORKER's pane, as a paste:
bracketed when the program in it enabled bracketed paste, newlines as
Enter. --enter presses Enter after it.

--queue queues TEXT for WORKER's agent instead: it is typed, with Enter,
the next time the agent waits for input (never while it works or asks for
a permission), one queued prompt per turn, in order. rostra queue lists
and edits the queue. A worker that runs no known agent has no queue.
`

func runSend(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("send", sendUsage, stderr)
	enter := c.fs.Bool("enter", false, "press Enter after the text")
	queue := c.fs.Bool("queue", false, "queue the text for the agent's next wait for input")
	rest, code, ok := c.parse(args, -1)
	if !ok {
		return code
	}
	if *queue {
		if *enter || len(rest) < 2 {
			fmt.Fprintf(stderr, "rostra send --queue: give WORKER and TEXT (a queued prompt is always followed by Enter; --enter is for typing now)\n%s", sendUsage)
			return 2
		}
		r, code, ok := c.run()
		if !ok {
			return code
		}
		return c.do(r, server.Request{Op: server.OpSend, Queue: true, Worker: rest[0], Text: strings.Join(rest[1:], " ")}, stdout)
	}
	if len(rest) < 2 && !*enter {
		fmt.Fprintf(stderr, "rostra send: nothing to send to %s: give TEXT, or --enter\n%s", rest[0], sendUsage)
		return 2
	}
	r, code, ok := c.run()
	if !ok {
		return code
	}
	return c.do(r, server.Request{Op: server.OpSend, Worker: rest[0], Text: strings.Join(rest[1:], " "), Enter: *enter}, stdout)
}

const stopUsage = `usage: rostra stop [--run PATH]

Stops the run as q then s does: every worker is stopped gracefully, the
state files are completed, and the server ends; returns once it has
exited. Exits with the run's code (130 when workers were still running).
`

func runStop(args []string, stdout, stderr io.Writer) int {
	return request("stop", stopUsage, server.OpStop, false, args, stdout, stderr)
}

const waitUsage = `usage: rostra wait [--run PATH] [--until needs-you [WORKER...]]

Waits until the run has finished (or was stopped) and exits with its code:
0 every worker completed, 1 some did not, 130 stopped while workers ran.

--until needs-you returns as soon as the agent of one of the WORKERs (every
worker when none is named) waits for the human: a permission prompt or its
prompt after its turn (docs/agents.md). It prints which and why and exits
0; 1 when the run ends first.
`

func runWait(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("wait", waitUsage, stderr)
	until := c.fs.String("until", "", "needs-you: return once an agent waits for the human")
	workers, code, ok := c.parseFlags(args)
	if !ok {
		return code
	}
	switch {
	case *until == "" && len(workers) > 0, *until != "" && *until != server.UntilNeedsYou:
		c.fs.Usage()
		return 2
	case *until != "":
		return waitNeedsYou(c, workers, stdout, stderr)
	}
	r, code, ok := c.run()
	if !ok {
		return code
	}
	cc, err := server.Control(r.stateDir)
	if errors.Is(err, server.ErrNoServer) {
		// A run that has ended is waited for already: its code is the one
		// its state records.
		if st, _ := statedir.ReadTeamState(r.stateDir); st != nil && st.Status != statedir.RunRunning {
			code := recordedExitCode(st)
			fmt.Fprintf(stdout, "the run %s %s (no server runs for it); exit code %d, as recorded in %s\n",
				st.Run, st.Status, code, filepath.Join(r.stateDir, statedir.TeamStateFile))
			return code
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "rostra wait: %v\n", err)
		if errors.Is(err, server.ErrNoServer) {
			fmt.Fprint(stderr, r.noServerHint())
		}
		return 2
	}
	defer cc.Close()
	// The server's pid, taken while it serves (a pid read later could be
	// another process's).
	var exited func(time.Duration) bool
	if info, err := cc.Do(server.Request{Op: server.OpInfo}); err == nil && info.Info != nil && !r.remote { // a remote pid is not this machine's
		exited = processExit(info.Info.Pid)
	}
	rep, err := cc.Do(server.Request{Op: server.OpWait})
	if err != nil {
		fmt.Fprintf(stderr, "rostra wait: %v\n", err)
		return 1
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "rostra wait: %s\n", rep.Error)
	}
	if rep.Note != "" {
		fmt.Fprintln(stdout, rep.Note)
	}
	// A server with no client attached ends once the run has: wait returns
	// after it has, so that a rostra run --resume right after finds the
	// run free. One that a UI is attached to stays until the human leaves.
	if exited != nil && !serverStays(r.stateDir) && !exited(stopExitWait) {
		fmt.Fprintf(stderr, "rostra wait: the run ended, but its server has not exited after %s (its log: %s)\n",
			stopExitWait, filepath.Join(r.stateDir, serverLogFile))
	}
	return rep.Code
}

// waitNeedsYou is `rostra wait --until needs-you`: it needs the run's
// server, which hears the agents.
func waitNeedsYou(c *controlCmd, workers []string, stdout, stderr io.Writer) int {
	r, code, ok := c.run()
	if !ok {
		return code
	}
	req := server.Request{Op: server.OpWait, Until: server.UntilNeedsYou, Workers: workers}
	cc, ok := c.dial(r, req)
	if !ok {
		return 2
	}
	defer cc.Close()
	rep, err := cc.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "rostra wait: %v\n", err)
		return 1
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "rostra wait: %s\n", rep.Error)
	}
	if rep.Note != "" {
		fmt.Fprintln(stdout, printable.String(rep.Note))
	}
	return rep.Code
}

// recordedExitCode is the exit code of an ended run as its state records
// it, the code its server exited with: 130 stopped, 1 some worker did not
// complete, 0 every worker did.
func recordedExitCode(st *statedir.TeamState) int {
	if st.Status == statedir.RunInterrupted {
		return 130
	}
	for _, w := range st.Workers {
		if w.Status != statedir.StatusCompleted {
			return 1
		}
	}
	return 0
}

// serverStays reports whether the run's server still serves with a UI
// attached: it does not end with the run then.
func serverStays(stateDir string) bool {
	cc, err := server.Control(stateDir)
	if err != nil {
		return false
	}
	defer cc.Close()
	rep, err := cc.Do(server.Request{Op: server.OpInfo})
	return err == nil && rep.Info != nil && rep.Info.Clients > 0
}

// processExit opens pid (a pidfd: a later process given the same pid is
// not it) and returns a function that waits at most d for it to exit and
// reports whether it has. It waits for nothing (true) when pid cannot be
// opened.
func processExit(pid int) func(d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		// Gone already (ESRCH), or a kernel without pidfds: nothing to
		// wait on, and nothing to warn about.
		return func(time.Duration) bool { return true }
	}
	return func(d time.Duration) bool {
		defer unix.Close(fd)
		deadline := time.Now().Add(d)
		for {
			left := time.Until(deadline)
			if left < 0 {
				return false
			}
			// A pidfd is readable once its process has exited.
			n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
			if err == unix.EINTR {
				continue
			}
			return err == nil && n > 0
		}
	}
}

const logsUsage = `usage: rostra logs [--run PATH] [-f] [--screen] [--raw] WORKER

Prints the output of WORKER's latest attempt (output.log). On a terminal
it keeps the text and its colours and drops every other escape sequence
(clipboard writes, hyperlinks, images, cursor movement, queries); --raw,
or a stdout that is not a terminal, gives every byte as its program wrote
it. -f follows it until the attempt ends. --screen prints the pane's
screen as text instead (live from the server, else rebuilt from
output.log).
`

func runLogs(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("logs", logsUsage, stderr)
	follow := c.fs.Bool("f", false, "follow the output until the attempt ends")
	screen := c.fs.Bool("screen", false, "print the screen as text")
	raw := c.fs.Bool("raw", false, "every byte of output.log, escape sequences included, even on a terminal")
	rest, code, ok := c.parse(args, 1)
	if !ok {
		return code
	}
	r, code, ok := c.run()
	if !ok {
		return code
	}
	worker := rest[0]
	cc, err := server.Control(r.stateDir)
	live := err == nil
	if live {
		defer cc.Close()
	} else if !errors.Is(err, server.ErrNoServer) {
		fmt.Fprintf(stderr, "rostra logs: %v\n", err)
		return 1
	}
	var st statedir.TeamState
	if live {
		rep, err := cc.Do(server.Request{Op: server.OpStatus})
		if err != nil || rep.State == nil {
			fmt.Fprintf(stderr, "rostra logs: %v\n", err)
			return 1
		}
		st = *rep.State
	} else {
		fromFile, err := r.readState("logs", stderr)
		if err != nil {
			fmt.Fprintf(stderr, "rostra logs: %v\n", err)
			fmt.Fprint(stderr, r.noServerHint())
			return 2
		}
		st = *fromFile
	}
	row, code := latestAttempt(st, worker, stderr)
	if row == nil {
		return code
	}
	if host := workerHost(st, worker); host != "" {
		return logsOnHost(st, host, worker, *follow, *screen, *raw, stdout, stderr)
	}
	if *screen {
		if live {
			rep, err := cc.Do(server.Request{Op: server.OpScreen, Worker: worker})
			if err == nil && rep.Error == "" {
				fmt.Fprint(stdout, rep.Screen)
				return 0
			}
		}
		return printReplayedScreen(row, stdout, stderr)
	}
	// A terminal acts on what it is sent: there the log goes through a
	// filter that keeps its colours only (docs/design.md, "Nothing raw
	// reaches a terminal").
	out := stdout
	if !*raw && isTerminal(stdout) {
		out = printable.ColoursOnly(stdout)
	}
	if !*follow || !live || row.EndedAt != nil {
		return copyLog(row, out, stderr)
	}
	return followLog(cc, row, out, stderr)
}

// latestAttempt is the worker's last dispatch row; nil (and the exit code)
// when the worker is unknown or has none.
func latestAttempt(st statedir.TeamState, worker string, stderr io.Writer) (*statedir.DispatchRow, int) {
	known := false
	var ids []string
	for _, w := range st.Workers {
		ids = append(ids, w.WorkerID)
		known = known || w.WorkerID == worker
	}
	if !known {
		fmt.Fprintf(stderr, "rostra logs: run %s has no worker %q (workers: %s)\n", st.Run, worker, strings.Join(ids, ", "))
		return nil, 2
	}
	var row *statedir.DispatchRow
	for i := range st.Dispatches {
		if d := &st.Dispatches[i]; d.WorkerID == worker && (row == nil || d.Attempt > row.Attempt) {
			row = d
		}
	}
	if row == nil || row.OutputLogPath == "" {
		fmt.Fprintf(stderr, "rostra logs: %s has no attempt with output yet\n", worker)
		return nil, 1
	}
	return row, 0
}

// openLog opens the attempt's output.log. An attempt still opening has
// none yet (its row is published before its pane makes the file): that is
// no output so far, not an error.
func openLog(row *statedir.DispatchRow) (io.ReadCloser, error) {
	f, err := os.Open(row.OutputLogPath)
	if errors.Is(err, fs.ErrNotExist) && row.EndedAt == nil {
		return io.NopCloser(strings.NewReader("")), nil
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

func copyLog(row *statedir.DispatchRow, stdout, stderr io.Writer) int {
	f, err := openLog(row)
	if err != nil {
		fmt.Fprintf(stderr, "rostra logs: %v\n", err)
		return 1
	}
	defer f.Close()
	if _, err := io.Copy(stdout, f); err != nil {
		fmt.Fprintf(stderr, "rostra logs: %v\n", err)
		return 1
	}
	return 0
}

// printReplayedScreen rebuilds the attempt's screen from its output.log at
// 120×40, replay's default: the state files do not record the size an
// attempt ran at, so lines drawn for another width may wrap otherwise.
func printReplayedScreen(row *statedir.DispatchRow, stdout, stderr io.Writer) int {
	f, err := openLog(row)
	if err != nil {
		fmt.Fprintf(stderr, "rostra logs: %v\n", err)
		return 1
	}
	defer f.Close()
	term := vt.New(120, 40, vt.Options{})
	if _, err := io.CopyBuffer(term, f, make([]byte, 64<<10)); err != nil {
		fmt.Fprintf(stderr, "rostra logs: read %s: %v\n", row.OutputLogPath, err)
		return 1
	}
	fmt.Fprint(stdout, term.Text(false))
	return 0
}

// followLog prints the attempt's output.log as it grows, until the server
// says on cc, the connection logs opened, that the attempt has ended (then
// what is left), or the server is gone.
func followLog(cc *server.Conn, row *statedir.DispatchRow, stdout, stderr io.Writer) int {
	f, err := os.Open(row.OutputLogPath)
	if err != nil {
		fmt.Fprintf(stderr, "rostra logs: %v\n", err)
		return 1
	}
	defer f.Close()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = cc.Do(server.Request{Op: server.OpFollow, Worker: row.WorkerID, Attempt: row.Attempt})
	}()
	// Wake on writes to the log; a timer only where the file cannot be
	// watched (a quiet worker costs nothing).
	var events <-chan fsnotify.Event
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		if w.Add(row.OutputLogPath) == nil {
			events = w.Events
		}
	}
	var tick <-chan time.Time
	if events == nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	buf := make([]byte, 64<<10)
	drain := func() error {
		for {
			n, err := f.Read(buf)
			if n > 0 {
				if _, werr := stdout.Write(buf[:n]); werr != nil {
					return werr
				}
			}
			if err == io.EOF || n == 0 {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	for {
		if err := drain(); err != nil {
			fmt.Fprintf(stderr, "rostra logs: %v\n", err)
			return 1
		}
		select {
		case <-ended:
			if err := drain(); err != nil {
				fmt.Fprintf(stderr, "rostra logs: %v\n", err)
				return 1
			}
			return 0
		case <-events:
		case <-tick:
		}
	}
}

const lsUsage = `usage: rostra ls [--all] [ssh://[user@]host]

Lists the runs with a live server on this machine that belong to you: the
state dir, the run, its workers (running/all), attached clients, and how
long the server has run; then the runs a crash stopped (their server is
gone, they did not finish: rostra run --resume continues them). --all
lists every recent run without a server too, from the index of runs in
your state home (docs/state.md). With an address, that host's runs of
that user (docs/remote.md).
`

func runLs(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("ls", lsUsage, stderr)
	all := c.fs.Bool("all", false, "also list the recent runs without a server, from the index of runs")
	if _, code, ok := c.parse(args, 0); !ok {
		return code
	}
	found := server.LiveServers()
	if len(found) == 0 {
		fmt.Fprintln(stderr, "rostra ls: no rostra server of yours runs on this machine")
		listIndexed(stdout, stderr, found, *all)
		return 0
	}
	defer listIndexed(stdout, stderr, found, *all)
	tw := newTable(stdout)
	fmt.Fprintln(tw, "STATE DIR\tRUN\tSTATUS\tWORKERS\tCLIENTS\tPID\tUP")
	esc := printable.String // a state dir's path is any folder's name
	for _, s := range found {
		if s.Err != nil {
			fmt.Fprintf(tw, "%s\t-\tnot answering: %s\t-\t-\t%d\t-\n", esc(s.StateDir), esc(s.Err.Error()), s.Pid)
			continue
		}
		i := s.Info
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d running\t%d\t%d\t%s\n", esc(i.StateDir), esc(i.Run), esc(i.Status), i.Running, i.Workers, i.Clients, i.Pid,
			time.Since(i.Started).Round(time.Second))
	}
	tw.Flush()
	return 0
}
