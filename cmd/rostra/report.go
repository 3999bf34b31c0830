// report.go wires `rostra report [PATH]`: it has the report package
// write <state_dir>/reports/report-<UTC timestamp>.md, prints the JSON
// summary of the report's counts to stdout and the report's path to stderr.
// It reads the run without its lock, so it works while another rostra
// drives the run. Exit codes: 0 written, 2 bad input (flags, a missing or
// invalid state dir), 1 the report could not be written. PATH is a run file
// or a state dir, ./rostra.yaml by default (runref.go).
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rostra-dev/rostra/report"
)

const reportUsage = `usage: rostra report [--run PATH] [PATH]

Writes <state dir>/reports/report-<UTC timestamp>.md (the run's outcome,
every attempt, failures by worker, surface and reason class, degradations)
and prints a JSON summary of its counts. Changes nothing else; safe on a
live run. PATH is a run file or a state dir (default ./rostra.yaml).
`

func runReport(args []string, stdout, stderr io.Writer) int {
	r, code, ok := newControlCmd("report", reportUsage, stderr).parseRun(args)
	if !ok {
		return code
	}
	path, summary, err := report.WriteReport(r.stateDir, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "rostra report: %v\n", err)
		if errors.Is(err, report.ErrNoRunState) {
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
