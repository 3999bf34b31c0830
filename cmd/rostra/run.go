// run.go wires `rostra run`: load the run file, take the state dir, start
// the engine over the panes surfaces, and either open the UI or print one
// line per event (headless). SIGINT, SIGTERM, SIGHUP and SIGQUIT stop every
// worker gracefully and leave the state files complete (signals.go).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/hosts"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/panes"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

const runUsage = `usage: rostra run [--detach | --headless | --no-server] [--resume | --fresh] [--ssh ADDR] [--install] [RUNFILE]

Runs the roster of RUNFILE (default ./rostra.yaml) in a server of its own
and attaches this terminal to it: d detaches, and the run goes on without
the terminal (rostra attach comes back). --detach starts the server and
returns at once. Without a terminal on stdout, or with --headless, the run
stays in this process and prints one line per event instead of the UI.
--no-server draws the UI in this process, with no server to detach from.
--resume continues the run whose state dir exists (after a quit or a crash).
--fresh archives the run found there, finished or not, to previous/ and
starts over. --ssh ADDR (127.0.0.1:2222) also serves the UI to SSH clients
with a key of ~/.ssh/authorized_keys, while the run lasts (docs/remote.md).
--install first copies this binary to each of the run's hosts that lacks
this version of rostra (docs/remote.md).
`

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage) }
	headless := fs.Bool("headless", false, "print events instead of opening the UI")
	resume := fs.Bool("resume", false, "continue the run in the existing state dir")
	fresh := fs.Bool("fresh", false, "archive the run in the state dir and start over")
	detach := fs.Bool("detach", false, "start the run's server and return")
	noServer := fs.Bool("no-server", false, "draw the UI in this process, without a server")
	fs.StringVar(&sshListen, "ssh", "", "serve the UI to SSH clients on ADDR too (docs/remote.md)")
	install := fs.Bool("install", false, "copy this rostra to the run's hosts that lack it first")
	rest, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) > 1 {
		fmt.Fprintf(stderr, "rostra run: expected at most one RUNFILE, got %d\n%s", len(rest), runUsage)
		return 2
	}
	if n := btoi(*headless) + btoi(*detach) + btoi(*noServer); n > 1 {
		fmt.Fprintf(stderr, "rostra run: --detach, --headless and --no-server exclude each other\n%s", runUsage)
		return 2
	}
	if *fresh && *resume {
		fmt.Fprintf(stderr, "rostra run: --resume continues the run, --fresh starts it over: one or the other\n%s", runUsage)
		return 2
	}
	ref, file := "", defaultRunFile
	if len(rest) == 1 {
		ref, file = rest[0], rest[0]
	}
	if ref == "" && !fileExists(file) {
		fmt.Fprintf(stderr, "rostra run: no %s here: rostra init writes one for the agent CLIs on PATH, or name your run file (rostra run RUNFILE)\n", defaultRunFile)
		return 2
	}
	plan, err := runfile.Load(file)
	if err == nil {
		err = checkSandbox(plan)
	}
	if err == nil {
		err = checkSSHRun(plan, *headless || *noServer || (!*detach && !isTerminal(stdout)))
	}
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return 2
	}
	if *install {
		// Here, before the server starts: what it copied, or could not, is
		// said on this terminal; a host it could not fails its workers.
		for _, line := range hosts.Install(plan) {
			fmt.Fprintln(stderr, printable.String(line))
		}
	}
	if *fresh {
		dest, err := statedir.ArchiveForFreshRun(plan, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "rostra run: --fresh: %v\n", err)
			return 2
		}
		if dest != "" {
			fmt.Fprintf(stderr, "rostra: the run in %s was archived to %s; this one starts over\n", plan.StateDir, dest)
		}
	}
	switch {
	case *detach:
		return runServed(file, runRef{ref: ref, stateDir: plan.StateDir, name: plan.Name}, plan, *resume, true, stdout, stderr)
	case *headless || !isTerminal(stdout):
		return supervised(plan, stderr, func() int { return runHeadless(plan, *resume, stdout, stderr) })
	case *noServer:
		return supervised(plan, stderr, func() int { return runUI(plan, *resume, stdout, stderr) })
	}
	return runServed(file, runRef{ref: ref, stateDir: plan.StateDir, name: plan.Name}, plan, *resume, false, stdout, stderr)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runServed starts the run's server and attaches this terminal to it, or
// (detach) says how to.
func runServed(file string, run runRef, plan *runfile.Plan, resume, detach bool, stdout, stderr io.Writer) int {
	if c, err := server.Dial(plan.StateDir); err == nil && !serverEnded(plan.StateDir) {
		c.Close()
		fmt.Fprintf(stderr, "rostra run: a rostra server already runs %s (state dir %s): %s shows it\n", plan.Name, plan.StateDir, run.cmd("attach"))
		return 2
	}
	if !detach && !themeEnvOK("run", stderr) {
		return 2
	}
	cols, rows := terminalSize(stdout)
	pid, code := startServer(file, plan, resume, cols, rows, stderr)
	if code != 0 {
		return code
	}
	if detach {
		// The paths are any folder's names: escaped (docs/design.md,
		// "Nothing raw reaches a terminal").
		esc := printable.String
		fmt.Fprintf(stdout, "rostra: run %s goes on in the background (server pid %d; its log: %s)\n", plan.Name, pid, esc(filepath.Join(plan.StateDir, serverLogFile)))
		fmt.Fprintf(stdout, "  %-40s shows its UI (d detaches again)\n", esc(run.cmd("attach")))
		fmt.Fprintf(stdout, "  %-40s the roster and its attempts\n", esc(run.cmd("status")))
		fmt.Fprintf(stdout, "  %-40s waits for it to end, with its exit code\n", esc(run.cmd("wait")))
		fmt.Fprintf(stdout, "  %-40s stops every worker and ends it\n", esc(run.cmd("stop")))
		return 0
	}
	return attach(run, stderr)
}

// endingServerWait bounds how long a new run waits for the server of a
// run that has ended to exit (it stops its workers, at most stop_grace,
// and its clients).
const endingServerWait = 15 * time.Second

// serverEnded reports whether the server that answers in stateDir serves
// a run that has ended, with no UI attached, and has exited within
// endingServerWait: such a server is on its way out (rostra wait or stop
// just returned), and a rostra run --resume right after it is not refused.
func serverEnded(stateDir string) bool {
	cc, err := server.Control(stateDir)
	if err != nil {
		return errors.Is(err, server.ErrNoServer)
	}
	rep, err := cc.Do(server.Request{Op: server.OpInfo})
	if err != nil || rep.Info == nil || rep.Info.Status == statedir.RunRunning || rep.Info.Clients > 0 {
		cc.Close()
		return false
	}
	exited := processExit(rep.Info.Pid)
	cc.Close()
	return exited(endingServerWait)
}

// containmentEnv chooses how attempts are contained: auto (the default),
// cgroup, pid-namespace or tracking (docs/internals.md, "Nothing outlives rostra").
const containmentEnv = "ROSTRA_CONTAINMENT"

// supervised runs a run with rostra as the supervisor of every process its
// attempts start (panes.Supervise): orphans reaped as they end and stopped
// with their attempts, each attempt contained as the kernel allows, and
// nothing left behind when run returns.
func supervised(plan *runfile.Plan, stderr io.Writer, run func() int) int {
	mode := os.Getenv(containmentEnv)
	if mode == "" {
		mode = panes.ContainAuto
	}
	kind, why, err := panes.Supervise(mode)
	if err != nil {
		fmt.Fprintf(stderr, "rostra: %s: %v\n", containmentEnv, err)
		return 2
	}
	if kind == panes.ContainTracking && why != "" {
		fmt.Fprintf(stderr, "rostra: attempts are contained by tracking only (%s)\n", why)
	}
	code := run()
	if err := panes.Shutdown(longestStopGrace(plan)); err != nil {
		fmt.Fprintf(stderr, "rostra: %v\n", err)
	}
	return code
}

// startRun takes the state dir and starts the engine.
func startRun(plan *runfile.Plan, resume bool, stderr io.Writer, opts engine.Options, act *vt.Activity) (*engine.Engine, *engine.PreparedRun, int) {
	prep, err := engine.PrepareStateDir(plan, resume, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return nil, nil, 2
	}
	if prep.ArchivedTo != "" {
		fmt.Fprintf(stderr, "rostra: the finished run in %s was archived to %s\n", plan.StateDir, prep.ArchivedTo)
	}
	recordRun(plan, stderr)
	if prep.Recovered != "" {
		fmt.Fprintf(stderr, "rostra: note: %s\n", prep.Recovered)
	}
	for _, note := range prep.Reconciled {
		fmt.Fprintf(stderr, "rostra: note: %s\n", note)
	}
	if prep.DamagedKept != "" {
		fmt.Fprintf(stderr, "rostra: the damaged state file was kept as %s\n", prep.DamagedKept)
	}
	if prep.Resumed != nil {
		fmt.Fprintf(stderr, "rostra: resuming run %s (was %s; %d attempt(s) left running by rostra pid %d marked interrupted)\n",
			plan.Name, prep.Resumed.Status, prep.Interrupted, prep.Resumed.Pid)
		// Holding the lock proves the rostra that started them is gone:
		// whatever of its attempts still runs (a wrapper child's children,
		// pty descendants that ignore SIGHUP) is stopped before new
		// attempts start with the same ROSTRA_STATE_DIR.
		found, left := panes.StopRunLeftovers("ROSTRA_STATE_DIR", plan.StateDir, longestStopGrace(plan))
		if len(found) > 0 {
			fmt.Fprintf(stderr, "rostra: stopped %d process(es) the dead rostra left running\n", len(found))
		}
		if len(left) > 0 {
			fmt.Fprintf(stderr, "rostra: could not stop pids %v left by the dead rostra\n", left)
		}
	}
	iso, err := workspace.PrepareIsolation(plan, prep.Resumed, time.Now())
	if err != nil {
		prep.Lock.Release()
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return nil, nil, 2
	}
	if opts.Surfaces == nil {
		opts.Surfaces = surfaces(nil)
	}
	opts.Resumed = prep.Resumed
	opts.Isolation = iso
	if ps := hosts.New(plan, hosts.Options{Activity: act, Resume: prep.Resumed != nil, Log: stderr}); ps != nil {
		opts.Parts = ps
	}
	if exe, err := os.Executable(); err == nil && !strings.HasSuffix(exe, ".test") {
		// An agent's hooks run this rostra's `rostra hook` (docs/agents.md).
		opts.HookCommand = exe
	}
	eng := engine.New(plan, opts)
	return eng, prep, 0
}

// longestStopGrace is the grace the slowest worker of plan is given.
func longestStopGrace(plan *runfile.Plan) time.Duration {
	grace := runfile.DefaultStopGrace
	for _, w := range plan.Workers {
		grace = max(grace, w.StopGrace)
	}
	return grace
}

func runHeadless(plan *runfile.Plan, resume bool, stdout, stderr io.Writer) int {
	eng, prep, code := startRun(plan, resume, stderr, engine.Options{}, nil)
	if eng == nil {
		return code
	}
	defer prep.Lock.Release()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	// With SIGPIPE caught, a write to a closed stdout (`rostra run | head`)
	// fails with EPIPE instead of killing rostra: the printing stops, the
	// run goes on (every event is in events.jsonl). A handler, unlike
	// SIG_IGN, is not inherited by the workers.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	sub := eng.Subscribe()
	printed := printEvents(plan, sub, stdout, func(err error) {
		fmt.Fprintf(stderr, "rostra: stdout: %v; no more event lines are printed, the run goes on (events in %s)\n",
			err, filepath.Join(plan.StateDir, statedir.EventsFile))
	})
	if err := eng.Start(); err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
		return 1
	}
	var stoppedBy os.Signal
	select {
	case <-eng.Finished():
	case <-eng.Stopped():
	case stoppedBy = <-sigs:
		fmt.Fprintf(stderr, "rostra: %s: stopping every worker (SIGTERM, then SIGKILL after stop_grace)\n", stoppedBy)
	}
	err := eng.Shutdown()
	sub.Close()
	<-printed
	if err != nil {
		fmt.Fprintf(stderr, "rostra run: %v\n", err)
	}
	fmt.Fprintf(stderr, "rostra: state in %s\n", plan.StateDir)
	switch {
	case stoppedBy != nil:
		return signalExitCode(stoppedBy)
	case err != nil:
		return 1
	}
	return eng.ExitCode()
}
