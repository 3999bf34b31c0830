// report.go wires `rostra report STATE_DIR` (SPEC §5): it has the engine
// write <state_dir>/reports/report-<UTC timestamp>.md, prints the JSON
// summary of the report's counts to stdout and the report's path to stderr.
// It reads the run without its lock, so it works while another rostra
// drives the run. Exit codes: 0 written, 2 bad input (flags, a missing or
// invalid state dir), 1 the report could not be written.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rostra-dev/rostra/engine"
)

const reportUsage = `usage: rostra report STATE_DIR

Writes STATE_DIR/reports/report-<UTC timestamp>.md (the run's outcome, every
attempt, failures by worker, surface and reason class, degradations) and
prints a JSON summary of its counts. Changes nothing else; safe on a live run.
`

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage) }
	rest, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) != 1 {
		fmt.Fprintf(stderr, "rostra report: expected one STATE_DIR, got %d arguments\n%s", len(rest), reportUsage)
		return 2
	}
	path, summary, err := engine.WriteReport(rest[0], time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "rostra report: %v\n", err)
		if errors.Is(err, engine.ErrNoRunState) {
			return 2
		}
		return 1
	}
	data, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "rostra report: encode summary: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", data)
	fmt.Fprintf(stderr, "report written to %s\n", path)
	return 0
}
