// queue.go holds the prompt queues of a run's workers
// (docs/state.md §queue/<worker>.json): one file per worker, replaced
// atomically below the state dir's descriptor (FS.WriteAtomic) by the
// engine each time the queue changes, and read back when a run starts
// (a resumed run finds its queues there). A worker whose queue never held
// a prompt has no file.
//
// Data model: a PromptQueue is the worker's prompts in the order they are
// to be typed, the first next; each has the number it was given when it
// was queued (counted per worker across the run, never reused), so "rm 3"
// names the same prompt whatever was typed before it.
package statedir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/internal/regular"
)

// QueueDir is the folder of the prompt queues inside a state dir.
const QueueDir = "queue"

// MaxQueuedPrompt bounds one queued prompt's text, in bytes: a prompt is
// typed into a terminal, and a queue file is read whole.
const MaxQueuedPrompt = 64 << 10

// MaxQueued bounds how many prompts one worker may have queued.
const MaxQueued = 100

// QueuedPrompt is one prompt waiting for its worker's agent.
type QueuedPrompt struct {
	// ID is the prompt's number, from 1, given when it was queued.
	ID       int       `json:"id"`
	Text     string    `json:"text"`
	QueuedAt time.Time `json:"queuedAt"`
}

// PromptQueue is queue/<worker>.json.
type PromptQueue struct {
	Version  int            `json:"version"` // 1
	WorkerID string         `json:"workerId"`
	NextID   int            `json:"nextId"` // the ID the next prompt queued gets
	Prompts  []QueuedPrompt `json:"prompts"`
}

// QueueFile is worker's queue file, relative to the state dir.
func QueueFile(worker string) string { return filepath.Join(QueueDir, worker+".json") }

// EncodeQueue is q as its file holds it.
func EncodeQueue(q PromptQueue) ([]byte, error) {
	q.Version = 1
	if q.Prompts == nil {
		q.Prompts = []QueuedPrompt{}
	}
	b, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ReadQueue reads worker's queue from stateDir; a worker without a file
// has an empty one. A file that does not parse is an error naming it.
func ReadQueue(stateDir, worker string) (PromptQueue, error) {
	path := filepath.Join(stateDir, QueueFile(worker))
	q := PromptQueue{Version: 1, WorkerID: worker, NextID: 1}
	data, err := regular.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return q, nil
	}
	if err != nil {
		return q, fmt.Errorf("read the prompt queue %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &q); err != nil {
		return PromptQueue{Version: 1, WorkerID: worker, NextID: 1}, fmt.Errorf("the prompt queue %s is not valid JSON (%v): move it aside to start the worker's queue afresh", path, err)
	}
	q.WorkerID = worker
	for _, p := range q.Prompts {
		q.NextID = max(q.NextID, p.ID+1)
	}
	q.NextID = max(q.NextID, 1)
	return q, nil
}

// ReadQueues reads every worker's queue in stateDir that has prompts, by
// worker id.
func ReadQueues(stateDir string) (map[string]PromptQueue, error) {
	ents, err := os.ReadDir(filepath.Join(stateDir, QueueDir))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]PromptQueue{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the prompt queues: %w", err)
	}
	out := map[string]PromptQueue{}
	var errs []error
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		q, err := ReadQueue(stateDir, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(q.Prompts) > 0 {
			out[name] = q
		}
	}
	return out, errors.Join(errs...)
}
