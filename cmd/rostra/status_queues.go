// status_queues.go gives `rostra status --json` each worker's queued
// prompts (docs/state.md §rostra status --json): team-state.json as it is,
// plus a "queues" object read live from the run's server while one runs,
// else from the state dir's queue files.
package main

import (
	"fmt"
	"io"

	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// statusJSON is what `rostra status --json` prints: team-state.json's keys
// and "queues".
type statusJSON struct {
	*statedir.TeamState
	// Queues has a key for every worker with a prompt queued, none for the
	// others; it is {} when no worker has one.
	Queues map[string]workerQueue `json:"queues"`
}

// workerQueue is one worker's queue as status --json shows it.
type workerQueue struct {
	Count   int                     `json:"count"`
	Prompts []statedir.QueuedPrompt `json:"prompts"` // the next first
}

// queuesOf is every worker's queue: from the run's server when the state
// came from it (the same moment, as near as two requests get), else from
// the files. A queue that cannot be read is said on stderr and left out.
func queuesOf(r runRef, live bool, stderr io.Writer) map[string]workerQueue {
	byWorker := map[string][]statedir.QueuedPrompt{}
	fromFiles := !live
	if live {
		cc, err := server.Control(r.stateDir)
		var rep server.Reply
		if err == nil {
			rep, err = cc.Do(server.Request{Op: server.OpQueue})
			cc.Close()
		}
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "rostra status: the server did not list its queues (%v); reading the queue files\n", err)
			fromFiles = !r.remote
		case rep.Error != "":
			fmt.Fprintf(stderr, "rostra status: the server did not list its queues: %s\n", rep.Error)
		default:
			byWorker = rep.Queues
		}
	}
	if fromFiles && !r.remote {
		qs, err := statedir.ReadQueues(r.stateDir)
		if err != nil {
			fmt.Fprintf(stderr, "rostra status: %v\n", err)
		}
		for id, q := range qs {
			byWorker[id] = q.Prompts
		}
	}
	out := map[string]workerQueue{}
	for id, ps := range byWorker {
		if len(ps) > 0 {
			out[id] = workerQueue{Count: len(ps), Prompts: ps}
		}
	}
	return out
}
