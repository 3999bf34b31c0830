// validate.go wires `rostra validate [RUNFILE]`: load a run file (default
// ./rostra.yaml, as every command takes it) and list every problem, or say
// what it would run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
)

const validateUsage = `usage: rostra validate [RUNFILE]

Checks RUNFILE (default ./rostra.yaml) and lists every problem, each with
file:line:col and its key path; exits 2 when there is one.
`

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, validateUsage) }
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
	fmt.Fprintf(stdout, "%s: valid: run %s, %d worker(s), state dir %s\n", printable.String(file), plan.Name, len(plan.Workers), printable.String(plan.StateDir))
	return 0
}
