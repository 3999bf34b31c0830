// validate.go wires `rostra validate [RUNFILE]`: load a run file (default
// ./rostra.yaml, as every command takes it) and list every problem, or say
// what it would run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rostra-dev/rostra/hosts"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
)

const validateUsage = `usage: rostra validate [--hosts [--install]] [RUNFILE]

Checks RUNFILE (default ./rostra.yaml) and lists every problem, each with
file:line:col and its key path; exits 2 when there is one. --hosts also
connects to each of its hosts (ssh with BatchMode, or its transport) and
checks rostra, git and the workspace there (docs/remote.md); --install
first copies this binary to a host without this version of rostra.
`

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, validateUsage) }
	checkHosts := fs.Bool("hosts", false, "connect to each host and check rostra, git and the workspace there")
	install := fs.Bool("install", false, "with --hosts: copy this rostra to a host without it first")
	rest, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) > 1 {
		fs.Usage()
		return 2
	}
	file := defaultRunFile
	if len(rest) == 1 {
		file = rest[0]
	}
	if len(rest) == 0 && !fileExists(file) {
		fmt.Fprintf(stderr, "rostra validate: no %s here: name the run file (rostra validate RUNFILE), or write one with rostra init\n", defaultRunFile)
		return 2
	}
	plan, err := runfile.Load(file)
	if err == nil {
		err = checkSandbox(plan)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if *install && !*checkHosts {
		fmt.Fprintf(stderr, "rostra validate: --install copies rostra to the hosts --hosts checks: give both\n")
		return 2
	}
	if *checkHosts {
		if problems := hosts.Check(plan, *install); len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(stderr, printable.String(p))
			}
			return 2
		}
		if n := len(plan.Hosts); n > 0 {
			fmt.Fprintf(stdout, "%s: %d host(s) reached, each with rostra, git and its workspace\n", printable.String(file), n)
		}
	}
	fmt.Fprintf(stdout, "%s: valid: run %s, %d worker(s), state dir %s\n", printable.String(file), plan.Name, len(plan.Workers), printable.String(plan.StateDir))
	return 0
}
