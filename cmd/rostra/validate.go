// validate.go wires `rostra validate RUNFILE`: load a run file and list
// every problem, or say what it would run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/internal/printable"
)

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, "usage: rostra validate RUNFILE\n") }
	rest, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) != 1 {
		fs.Usage()
		return 2
	}
	plan, err := engine.Load(rest[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintf(stdout, "%s: valid: run %s, %d worker(s), state dir %s\n", printable.String(rest[0]), plan.Name, len(plan.Workers), printable.String(plan.StateDir))
	return 0
}
