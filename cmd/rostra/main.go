// Command rostra runs a roster of AI coding agents (or any commands) side by
// side, each in its own pane, and supervises them to the end (SPEC §5).
//
// main.go only routes a subcommand to the file that wires it; policy lives in
// engine, mechanism in panes.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: rostra <command> [arguments]

commands:
  demo [--detach]                    run the built-in demo roster in a temp workspace
  run [--detach | --headless | --no-server] [--resume] [RUNFILE]
                                     run a roster (default ./rostra.yaml) in a server,
                                     attached to this terminal unless --detach
  attach [PATH]                      show the UI of a run whose server runs (d detaches)
  validate RUNFILE                   check a run file and list every problem
  status [--json] [PATH]             the roster and its attempts (live when a server runs)
  replay [--size 120x40] [--ansi] [--scrollback] LOG
                                     print the final screen of a pane's output.log
  report STATE_DIR                   write a markdown report of a run
  diff [--run PATH] WORKER           an isolated worker's work against its base commit
  merge [--run PATH] WORKER          merge an isolated worker's branch into the workspace

control a run's server from any shell (each takes --run PATH):
  retry WORKER                       start a manual attempt (cancels a running one)
  cancel WORKER                      cancel the running attempt or pending retry
  send [--enter] WORKER TEXT...      type TEXT into the worker's pane
  logs [-f] [--screen] WORKER        the latest attempt's output (or its screen)
  stop                               stop every worker and end the run
  wait                               wait for the run to end; exit with its code
  ls                                 the runs with a live server of yours

PATH is a run file or a state dir (default ./rostra.yaml).

exit codes: 0 every worker completed, 1 some worker did not, 2 bad input,
130 interrupted (quit, SIGINT, SIGTERM), 129 SIGHUP, 131 SIGQUIT
`

func main() {
	os.Exit(runCommand(os.Args[1:], os.Stdout, os.Stderr))
}

func runCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return runRun(args[1:], stdout, stderr)
	case serverMode:
		return runServe(args[1:], stdout, stderr)
	case "attach":
		return runAttach(args[1:], stdout, stderr)
	case "retry":
		return runRetry(args[1:], stdout, stderr)
	case "cancel":
		return runCancel(args[1:], stdout, stderr)
	case "send":
		return runSend(args[1:], stdout, stderr)
	case "logs":
		return runLogs(args[1:], stdout, stderr)
	case "stop":
		return runStop(args[1:], stdout, stderr)
	case "wait":
		return runWait(args[1:], stdout, stderr)
	case "ls":
		return runLs(args[1:], stdout, stderr)
	case "demo":
		return runDemo(args[1:], stdout, stderr)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "status":
		return runStatus(args[1:], stdout, stderr)
	case "replay":
		return runReplay(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "diff":
		return runDiff(args[1:], stdout, stderr)
	case "merge":
		return runMerge(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "rostra: unknown command %q\n%s", args[0], usage)
		return 2
	}
}
