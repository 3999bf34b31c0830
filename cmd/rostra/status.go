// status.go wires `rostra status [--json] STATE_DIR`: the roster and each
// attempt as team-state.json records them, read without the run's lock
// (a damaged file is read through, with a note).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"text/tabwriter"
	"time"

	"github.com/rostra-dev/rostra/engine"
)

func runStatus(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print team-state.json as it is")
	fs.Usage = func() { fmt.Fprint(stderr, "usage: rostra status [--json] STATE_DIR\n") }
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
	stateDir := rest[0]
	st, err := engine.ReadTeamState(stateDir)
	var recovered *engine.RecoveredStateError
	if errors.As(err, &recovered) {
		fmt.Fprintf(stderr, "rostra status: note: %v\n", recovered)
		err = nil
	}
	if err != nil {
		if errors.Is(err, iofsNotExist) {
			fmt.Fprintf(stderr, "rostra status: %s has no %s: is it a run's state dir (state_dir in the run file)?\n", stateDir, engine.TeamStateFile)
		} else {
			fmt.Fprintf(stderr, "rostra status: %v\n", err)
		}
		return 2
	}
	if *asJSON {
		data, _ := json.MarshalIndent(st, "", "  ")
		fmt.Fprintf(stdout, "%s\n", data)
		return 0
	}
	fmt.Fprintf(stdout, "run %s: %s (driven by pid %d, started %s)\n\n", st.Run, st.Status, st.Pid, st.StartedAt.Local().Format(time.DateTime))
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tROLE\tPROVIDER\tSTATUS\tATTEMPTS\tREASON")
	for _, w := range st.Workers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", w.WorkerID, w.Role, w.Provider, w.Status, w.Attempts, w.Reason)
	}
	tw.Flush()
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ATTEMPT\tSURFACE\tCONTAINMENT\tSTATUS\tEXIT\tDURATION\tREASON")
	for _, d := range st.Dispatches {
		exit := "-"
		if d.ExitCode != nil {
			exit = fmt.Sprint(*d.ExitCode)
		}
		dur := "-"
		if d.EndedAt != nil {
			dur = d.EndedAt.Sub(d.StartedAt).Round(time.Millisecond).String()
		}
		surface := string(d.Surface)
		if d.DegradedFrom != "" {
			surface += " (degraded from " + string(d.DegradedFrom) + ": " + d.DegradedReason + ")"
		}
		containment := d.Containment
		if containment == "" {
			containment = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.DispatchID, surface, containment, d.Status, exit, dur, d.Reason)
	}
	tw.Flush()
	return 0
}

var iofsNotExist = fs.ErrNotExist
