// Command rostra runs a roster of AI coding agents (or any commands) side by
// side, each in its own pane, and supervises them to the end.
//
// main.go only routes a subcommand to the file that wires it; policy lives in
// engine, mechanism in panes. The command table drives the routing, the
// usage, the shell completion (completion.go) and the README's commands
// table (docs_test.go checks it): a command is one line.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one subcommand: its name, its synopsis as its own usage line
// writes it (the completion reads its flags and argument kinds there), what
// it does, the usage group it is listed in, and the function that wires it.
type command struct {
	name, synopsis, what string
	group                commandGroup
	run                  func(args []string, stdout, stderr io.Writer) int
}

type commandGroup int

const (
	groupMain    commandGroup = iota
	groupControl              // drives a run's server from any shell
	groupHidden               // not for people: rostra starts it itself
)

// commands is rostra's command table, in the order the usage lists it. It
// is filled in init because help and completion read it back.
var commands []command

func init() {
	commands = []command{
		{"init", "[--add] [RUNFILE]", "write a run file for the agent CLIs on PATH (default ./rostra.yaml); --add adds those it lacks", groupMain, runInit},
		{"demo", "[--detach]", "run the built-in demo roster in a temp workspace", groupMain, runDemo},
		{"run", "[--detach | --headless | --no-server] [--resume | --fresh] [--ssh ADDR] [--install] [RUNFILE]", "run a roster (default ./rostra.yaml) in a server, attached to this terminal unless --detach", groupMain, runRun},
		{"attach", "[--run PATH] [PATH...]", "show the UI of a run whose server runs (d detaches); of many runs at once in one grid", groupMain, runAttach},
		{"validate", "[--hosts [--install]] [RUNFILE]", "check a run file (default ./rostra.yaml) and list every problem", groupMain, runValidate},
		{"status", "[--json] [--run PATH] [PATH]", "the roster and its attempts (live when a server runs)", groupMain, runStatus},
		{"replay", "[--size 120x40] [--ansi] [--scrollback] LOG", "print the final screen of a pane's output.log", groupMain, runReplay},
		{"report", "[--run PATH] [PATH]", "write a markdown report of a run", groupMain, runReport},
		{"diff", "[--run PATH] [--color auto|always|never] WORKER", "an isolated worker's work against its base commit", groupMain, runDiff},
		{"merge", "[--run PATH] [--commit ID] [--hooks] WORKER", "merge an isolated worker's branch into the workspace", groupMain, runMerge},
		{"completion", "bash|zsh|fish", "print the shell completion script", groupMain, runCompletion},
		{"version", "", "print rostra's version", groupMain, runVersion},
		{"help", "", "print this help", groupMain, runHelp},
		{"retry", "[--run PATH] WORKER", "start a manual attempt (cancels a running one)", groupControl, runRetry},
		{"cancel", "[--run PATH] WORKER", "cancel the running attempt or pending retry", groupControl, runCancel},
		{"send", "[--run PATH] [--enter | --queue] WORKER TEXT...", "type TEXT into the worker's pane (--queue: at its agent's next wait for input)", groupControl, runSend},
		{"queue", "[--run PATH] [WORKER | rm WORKER N | clear WORKER]", "the prompts queued for the agents; rm or clear edits them", groupControl, runQueue},
		{"logs", "[--run PATH] [-f] [--screen] [--raw] WORKER", "the latest attempt's output (or its screen); colours only on a terminal", groupControl, runLogs},
		{"stop", "[--run PATH]", "stop every worker and end the run", groupControl, runStop},
		{"wait", "[--run PATH] [--until needs-you [WORKER...]]", "wait for the run to end (exit with its code), or until an agent waits for you", groupControl, runWait},
		{"serve-ssh", "[--run PATH] [--authorized-keys FILE] ADDR", "serve a live run's UI to SSH clients on ADDR (keys only; docs/remote.md)", groupControl, runServeSSH},
		{"ls", "[--all] [ssh://[user@]host]", "the runs with a live server of yours, and those a crash stopped (--all: every recent run; on that host: its runs)", groupControl, runLs},
		{serverMode, "", "the run's server, started by rostra run", groupHidden, runServe},
		{workersMode, "[--run PATH] [PATH]", "the run's worker ids, for the shell completion", groupHidden, runWorkers},
		{bridgeMode, "--run PATH", "joins stdin/stdout to the run's socket, for ssh:// addresses", groupHidden, runBridge},
		{"hook", "", "an agent CLI's hook: posts the call on stdin to the run's server (docs/agents.md)", groupHidden, runHook},
	}
}

func usage() string {
	var b strings.Builder
	b.WriteString("usage: rostra <command> [arguments]\n")
	for _, g := range []struct {
		group commandGroup
		title string
	}{
		{groupMain, "commands:"},
		{groupControl, "control a run's server from any shell:"},
	} {
		b.WriteString("\n" + g.title + "\n")
		for _, c := range commands {
			if c.group != g.group {
				continue
			}
			head := c.name
			if c.synopsis != "" {
				head += " " + c.synopsis
			}
			if len(head) > 34 {
				fmt.Fprintf(&b, "  %s\n  %-34s %s\n", head, "", c.what)
			} else {
				fmt.Fprintf(&b, "  %-34s %s\n", head, c.what)
			}
		}
	}
	b.WriteString(`
PATH is a run file or a state dir (default ./rostra.yaml), or one on
another machine, ssh://[user@]host[:port]/path (docs/remote.md).

exit codes: 0 every worker completed, 1 some worker did not, 2 bad input,
130 interrupted (quit, SIGINT, SIGTERM), 129 SIGHUP, 131 SIGQUIT

docs: README.md, docs/commands.md (each command), docs/runfile.md (the run file),
docs/state.md (the state dir)
`)
	return b.String()
}

func main() {
	os.Exit(runCommand(os.Args[1:], os.Stdout, os.Stderr))
}

func runCommand(args []string, stdout, stderr io.Writer) int {
	// Messages go to stderr; what a command prints on stdout (a table, a
	// log, a diff, the UI) is made safe where it is written.
	stderr = escaped(stderr)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "-h", "--help":
		return runHelp(args[1:], stdout, stderr)
	case "--version":
		return runVersion(args[1:], stdout, stderr)
	}
	if code, ok := forwardRemote(args, stdout, stderr); ok {
		return code
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "rostra: unknown command %q\n%s", args[0], usage())
	return 2
}

func runHelp(_ []string, stdout, _ io.Writer) int {
	fmt.Fprint(stdout, usage())
	return 0
}
