// runindex.go wires the user's index of runs into the commands
// (docs/state.md §The index of runs): a run adds itself as it starts (recordRun),
// `rostra ls` lists the runs a crash stopped besides the live ones, `rostra
// ls --all` every recent run, and `rostra status` says a crash stopped the
// run it shows (crashLine).
package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// recordRun adds plan's run to the index; a failure is said, not fatal:
// the run does not need the index, only `rostra ls --all` does.
func recordRun(plan *runfile.Plan, stderr io.Writer) {
	err := statedir.RecordRun(statedir.RunIndexEntry{StateDir: plan.StateDir, Run: plan.Name, RunFile: plan.RunFile, StartedAt: time.Now().UTC()})
	if err != nil {
		fmt.Fprintf(stderr, "rostra: note: the run is not in the index of runs (rostra ls --all will not list it): %v\n", err)
	}
}

// crashLine says, for a run whose rostra died before it finished, when
// and how to continue it; "" for any other run.
func crashLine(stateDir string, st *statedir.TeamState) string {
	at, crashed := statedir.Crashed(stateDir, st)
	if !crashed {
		return ""
	}
	return fmt.Sprintf("stopped by a crash at %s (rostra pid %d is gone): `rostra run --resume %s` continues it",
		at.Local().Format(time.DateTime), st.Pid, shellQuote(st.RunFile))
}

// runOutcome is a run without a server as ls shows it: crashed with what
// continues it, else its recorded status.
func runOutcome(stateDir string, st *statedir.TeamState) string {
	if line := crashLine(stateDir, st); line != "" {
		return line
	}
	switch st.Status {
	case statedir.RunInterrupted:
		return "stopped before it finished: `rostra run --resume " + shellQuote(st.RunFile) + "` continues it"
	case statedir.RunRunning:
		return "running, its server not found"
	}
	return st.Status
}

// listIndexed prints the index's runs that have no live server: every
// one with all, else those a crash stopped. It returns how many it
// printed.
func listIndexed(stdout, stderr io.Writer, live []server.Found, all bool) int {
	runs, err := statedir.RecentRuns()
	if err != nil {
		fmt.Fprintf(stderr, "rostra ls: %v\n", err)
		return 0
	}
	served := map[string]bool{}
	for _, s := range live {
		served[s.StateDir] = true
	}
	esc := printable.String // a state dir's path is any folder's name
	var tw *tabwriter.Writer
	row := func(format string, args ...any) {
		if tw == nil {
			tw = newTable(stdout)
			fmt.Fprintln(tw, "STATE DIR (NO SERVER)\tRUN\tSTATUS\tWORKERS\tSTARTED")
		}
		fmt.Fprintf(tw, format, args...)
	}
	n := 0
	for _, r := range runs {
		if served[r.StateDir] {
			continue
		}
		st, err := statedir.ReadTeamState(r.StateDir)
		if st == nil {
			if all {
				n++
				row("%s\t%s\t%s\t-\t%s\n", esc(r.StateDir), esc(r.Run), esc("no state: "+err.Error()), r.StartedAt.Local().Format(time.DateTime))
			}
			continue
		}
		if _, crashed := statedir.Crashed(r.StateDir, st); !all && !crashed {
			continue
		}
		done := 0
		for _, w := range st.Workers {
			if w.Status == statedir.StatusCompleted {
				done++
			}
		}
		n++
		row("%s\t%s\t%s\t%d/%d completed\t%s\n", esc(r.StateDir), esc(st.Run), esc(runOutcome(r.StateDir, st)), done, len(st.Workers),
			st.StartedAt.Local().Format(time.DateTime))
	}
	if tw != nil {
		tw.Flush()
	}
	return n
}
