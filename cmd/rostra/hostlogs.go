// hostlogs.go: `rostra logs` of a worker placed on another host runs
// `rostra logs` there, on its part's state dir, its output relayed
// (docs/remote.md §One roster over many hosts): the worker's output.log
// is on that host.
package main

import (
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/rostra-dev/rostra/hosts"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// workerHost is the host of worker's row, "" for this machine.
func workerHost(st statedir.TeamState, worker string) string {
	for _, wr := range st.Workers {
		if wr.WorkerID == worker {
			return wr.Host
		}
	}
	return ""
}

func logsOnHost(st statedir.TeamState, host, worker string, follow, screen, raw bool, stdout, stderr io.Writer) int {
	plan, err := runfile.Load(st.RunFile)
	if err != nil {
		fmt.Fprintf(stderr, "rostra logs: %s runs on host %s, which the run file names: %v\n", worker, host, err)
		return 2
	}
	h, ok := plan.Hosts[host]
	if !ok {
		fmt.Fprintf(stderr, "rostra logs: %s runs on host %s, which %s no longer names\n", worker, host, st.RunFile)
		return 2
	}
	var args []string
	for _, f := range []struct {
		on   bool
		flag string
	}{{follow, "-f"}, {screen, "--screen"}, {raw, "--raw"}} {
		if f.on {
			args = append(args, f.flag)
		}
	}
	cmd := hosts.PartCommand(h, st.Run, "logs", append(args, "--", worker)...)
	// The host's rostra writes to a pipe, so raw: a terminal here gets
	// its colours only (docs/design.md, "Nothing raw reaches a terminal").
	out := stdout
	if !raw && isTerminal(stdout) {
		out = printable.ColoursOnly(stdout)
	}
	cmd.Stdout, cmd.Stderr = out, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(stderr, "rostra logs: on host %s: %v\n", host, err)
	return 1
}
