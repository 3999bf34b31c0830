// queue.go wires `rostra queue`: the prompts queued for the workers' agents
// (docs/agents.md §A queue of prompts), listed live from the run's server
// or, when none runs, from the state dir's queue files; `rostra queue rm
// WORKER N` and `rostra queue clear WORKER` edit a live run's queue through
// its server (`rostra send --queue` adds to it, control.go).
package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

const queueUsage = `usage: rostra queue [--run PATH] [WORKER | rm WORKER N | clear WORKER]

Lists the prompts queued for the workers' agents (rostra send --queue, Q
in the UI), the next first: each is typed into its agent the next time it
waits for input, one per turn. N is a prompt's number as listed. rm takes
one off the queue unsent, clear every one. Listing reads the state dir when
no server runs; rm and clear need the run's server.
`

func runQueue(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("queue", queueUsage, stderr)
	rest, code, ok := c.parseFlags(args)
	if !ok {
		return code
	}
	var req server.Request
	switch {
	case len(rest) > 0 && rest[0] == "rm":
		if len(rest) != 3 {
			fmt.Fprintf(stderr, "rostra queue rm: give the worker and the prompt's number (rostra queue lists them)\n%s", queueUsage)
			return 2
		}
		n, err := strconv.Atoi(rest[2])
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "rostra queue rm: %q is not a prompt's number (rostra queue %s lists them)\n", rest[2], rest[1])
			return 2
		}
		req = server.Request{Op: server.OpQueueRemove, Worker: rest[1], Prompt: n}
	case len(rest) > 0 && rest[0] == "clear":
		if len(rest) != 2 {
			fmt.Fprintf(stderr, "rostra queue clear: give the worker whose queue to clear\n%s", queueUsage)
			return 2
		}
		req = server.Request{Op: server.OpQueueClear, Worker: rest[1]}
	case len(rest) <= 1:
		req = server.Request{Op: server.OpQueue}
		if len(rest) == 1 {
			req.Worker = rest[0]
		}
	default:
		c.fs.Usage()
		return 2
	}
	r, code, ok := c.run()
	if !ok {
		return code
	}
	if req.Op != server.OpQueue {
		return c.do(r, req, stdout)
	}
	cc, err := server.Control(r.stateDir)
	var rep server.Reply
	if err == nil {
		defer cc.Close()
		rep, err = cc.Do(req)
	}
	if err != nil {
		if r.remote {
			fmt.Fprintf(stderr, "rostra queue: %v\n", err)
			return 2
		}
		// No server, or one that died as it was asked: the files hold the
		// queue as it was last saved.
		if !errors.Is(err, server.ErrNoServer) {
			fmt.Fprintf(stderr, "rostra queue: note: %v\n", err)
		}
		return listQueuesFromFiles(r, req.Worker, stdout, stderr)
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "rostra queue: %s\n", rep.Error)
		return rep.Code
	}
	printQueues(stdout, rep.Queues)
	return 0
}

// listQueuesFromFiles lists the queues as the state dir's files hold them,
// for a run whose server is not running (they are typed once it runs again:
// rostra run --resume).
func listQueuesFromFiles(r runRef, worker string, stdout, stderr io.Writer) int {
	qs, err := statedir.ReadQueues(r.stateDir)
	if err != nil {
		fmt.Fprintf(stderr, "rostra queue: %v\n", err)
	}
	if worker != "" {
		q := qs[worker]
		qs = map[string]statedir.PromptQueue{}
		if len(q.Prompts) > 0 {
			qs[worker] = q
		}
	}
	fmt.Fprintf(stderr, "rostra queue: no server runs for %s: the queue as its files hold it (typed once the run goes on: %s)\n", r.stateDir, r.cmd("run --resume"))
	byWorker := map[string][]statedir.QueuedPrompt{}
	for id, q := range qs {
		byWorker[id] = q.Prompts
	}
	printQueues(stdout, byWorker)
	if err != nil {
		return 1
	}
	return 0
}

// printQueues prints one row per queued prompt: its worker, number, when
// it was queued and its first line.
func printQueues(w io.Writer, qs map[string][]statedir.QueuedPrompt) {
	ids := make([]string, 0, len(qs))
	for id, ps := range qs {
		if len(ps) > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		fmt.Fprintln(w, "no prompts queued")
		return
	}
	sort.Strings(ids)
	tw := newTable(w)
	fmt.Fprintln(tw, "WORKER\tN\tQUEUED\tPROMPT")
	for _, id := range ids {
		for _, p := range qs[id] {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", printable.String(id), p.ID, p.QueuedAt.Local().Format(time.TimeOnly), printable.String(promptLine(p.Text)))
		}
	}
	tw.Flush()
}

// promptLine is a prompt as one row shows it: its first line, cut, and
// how many more it has.
func promptLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	first := []rune(lines[0])
	s := string(first)
	if len(first) > 60 {
		s = string(first[:59]) + "…"
	}
	if len(lines) > 1 {
		s += fmt.Sprintf(" (+%d lines)", len(lines)-1)
	}
	return s
}
