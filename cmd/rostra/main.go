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
  demo                               run the built-in demo roster in a temp workspace
  run [--headless] [--resume] [RUNFILE]
                                     run a roster (default ./rostra.yaml)
  validate RUNFILE                   check a run file and list every problem
  status [--json] STATE_DIR          the roster and its attempts
  replay [--size 120x40] [--ansi] [--scrollback] LOG
                                     print the final screen of a pane's output.log
  report STATE_DIR                   write a markdown report of a run

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
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "rostra: unknown command %q\n%s", args[0], usage)
		return 2
	}
}
