// status.go wires `rostra status [--json] [PATH]`: the roster and each
// attempt, live from the run's server when one runs, else as
// team-state.json records them, read without the run's lock (a damaged file
// is read through, with a note). PATH is a run file or a state dir
// (default ./rostra.yaml).
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

const statusUsage = `usage: rostra status [--json] [--run PATH] [PATH]

The roster and its attempts: live from the run's server when one runs,
else from team-state.json. PATH is a run file or a state dir (default
./rostra.yaml). --json prints the state as team-state.json holds it,
with each worker's queued prompts under "queues".
`

func runStatus(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("status", statusUsage, stderr)
	asJSON := c.fs.Bool("json", false, "print team-state.json as it is, with the queued prompts")
	r, code, ok := c.parseRun(args)
	if !ok {
		return code
	}
	st, live, code := readStatus(r, stderr)
	if st == nil {
		return code
	}
	if *asJSON {
		data, _ := json.MarshalIndent(statusJSON{TeamState: st, Queues: queuesOf(r, live, stderr)}, "", "  ")
		fmt.Fprintf(stdout, "%s\n", data)
		return 0
	}
	how := "driven by pid"
	if live {
		how = "live from its server, pid"
	}
	// Every text cell is escaped: a reason may name a file a worker made,
	// and a tab in it would break the columns (docs/design.md, "Nothing
	// raw reaches a terminal").
	esc := printable.String
	fmt.Fprintf(stdout, "run %s: %s (%s %d, started %s)\n", esc(st.Run), esc(st.Status), how, st.Pid, st.StartedAt.Local().Format(time.DateTime))
	if !live && !r.remote {
		if line := crashLine(r.stateDir, st); line != "" {
			fmt.Fprintf(stdout, "%s\n", esc(line))
		}
	}
	fmt.Fprintln(stdout)
	tw := newTable(stdout)
	// A run over other hosts has a HOST column (docs/remote.md §One roster over many hosts).
	hosts := slices.ContainsFunc(st.Workers, func(w statedir.WorkerRow) bool { return w.Host != "" })
	if hosts {
		fmt.Fprintln(tw, "WORKER\tHOST\tROLE\tPROVIDER\tSTATUS\tATTEMPTS\tSTATE\tSINCE\tWHY\tREASON")
	} else {
		fmt.Fprintln(tw, "WORKER\tROLE\tPROVIDER\tSTATUS\tATTEMPTS\tSTATE\tSINCE\tWHY\tREASON")
	}
	now := time.Now()
	for _, w := range st.Workers {
		state, since, why := agentColumns(st, w.WorkerID, now)
		host := ""
		if hosts {
			host = esc(cmp.Or(w.Host, runfile.LocalHost)) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", esc(w.WorkerID), host, esc(w.Role), esc(w.Provider), esc(w.Status), w.Attempts,
			esc(state), since, esc(why), esc(w.Reason))
	}
	tw.Flush()
	fmt.Fprintln(stdout)
	tw = newTable(stdout)
	fmt.Fprintln(tw, "ATTEMPT\tSURFACE\tCONTAINMENT\tSANDBOX\tSTATUS\tEXIT\tDURATION\tREASON")
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
		reason := d.Reason
		switch {
		case d.ResumedFrom != nil:
			reason = strings.TrimSuffix(fmt.Sprintf("↻ resumed attempt %d (session %s); %s", d.ResumedFrom.Attempt, d.ResumedFrom.Session, reason), "; ")
		case d.NotResumed != "":
			reason = strings.TrimSuffix("not resumed: "+d.NotResumed+"; "+reason, "; ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", esc(d.DispatchID), esc(surface), esc(containment), esc(sandboxCell(d)), esc(d.Status), exit, dur, esc(reason))
	}
	tw.Flush()
	printWorktrees(stdout, st)
	if !r.remote {
		printQueued(stdout, r.stateDir)
	}
	return 0
}

// printQueued says how many prompts wait in each worker's queue
// (docs/agents.md §A queue of prompts), as the queue files hold them: the
// engine saves a queue before it answers the request that changed it.
func printQueued(w io.Writer, stateDir string) {
	qs, _ := statedir.ReadQueues(stateDir)
	if len(qs) == 0 {
		return
	}
	ids := make([]string, 0, len(qs))
	for id, q := range qs {
		ids = append(ids, fmt.Sprintf("%s %d", printable.String(id), len(q.Prompts)))
	}
	sort.Strings(ids)
	fmt.Fprintf(w, "\nqueued prompts: %s (rostra queue lists them)\n", strings.Join(ids, ", "))
}

// sandboxCell is what an attempt ran with: writes, none, or none with why
// the sandbox it was planned with could not be made (docs/sandbox.md).
func sandboxCell(d statedir.DispatchRow) string {
	switch {
	case d.SandboxDegradedReason != "":
		return "DEGRADED sandbox -> none (" + d.SandboxDegradedReason + ")"
	case d.Sandbox == "":
		return "-"
	}
	return d.Sandbox
}

// agentColumns are the STATE, SINCE and WHY of a worker: its latest
// attempt's agent state (docs/agents.md), how long it has held, and its
// evidence; "-" for a worker that runs no known agent.
func agentColumns(st *statedir.TeamState, worker string, now time.Time) (state, since, why string) {
	var row *statedir.DispatchRow
	for i := range st.Dispatches {
		if d := &st.Dispatches[i]; d.WorkerID == worker && (row == nil || d.Attempt > row.Attempt) {
			row = d
		}
	}
	if row == nil || row.AgentState == "" {
		return "-", "-", "-"
	}
	since, why = "-", row.AgentStateEvidence
	if row.AgentStateSince != nil {
		since = agoText(now.Sub(*row.AgentStateSince))
	}
	if row.AgentStateSource != "" {
		why = strings.TrimSuffix(row.AgentStateSource+": "+why, ": ")
	}
	if why == "" {
		why = "-"
	}
	return row.AgentState, since, why
}

// agoText is a duration as the status and the UI show an age: 45s, 2m,
// 3h, 2d.
func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// readStatus asks the run's server for its state, or reads it from the
// state dir when no server runs; nil and the exit code when neither can.
func readStatus(r runRef, stderr io.Writer) (st *statedir.TeamState, live bool, code int) {
	cc, err := server.Control(r.stateDir)
	if err != nil && r.remote {
		// A run on another machine is read through its server only; what
		// its files say there is in err (docs/remote.md).
		fmt.Fprintf(stderr, "rostra status: %v\n", err)
		return nil, false, 2
	}
	if err == nil {
		defer cc.Close()
		rep, err := cc.Do(server.Request{Op: server.OpStatus, Fresh: true})
		if err == nil && rep.State != nil {
			return rep.State, true, 0
		}
		fmt.Fprintf(stderr, "rostra status: the server did not answer (%v); reading the state files\n", err)
	} else if !errors.Is(err, server.ErrNoServer) {
		fmt.Fprintf(stderr, "rostra status: %v; reading the state files\n", err)
	}
	st, err = r.readState("status", stderr)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "rostra status: %s has no %s: is it a run's state dir (state_dir in the run file)?\n", r.stateDir, statedir.TeamStateFile)
		} else {
			fmt.Fprintf(stderr, "rostra status: %v\n", err)
		}
		return nil, false, 2
	}
	return st, false, 0
}

// newTable is the column layout of rostra's tables.
func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 2, 4, 2, ' ', 0) }
