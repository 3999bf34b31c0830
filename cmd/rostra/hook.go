// hook.go is `rostra hook`, the command an agent CLI's hooks run
// (docs/agents.md): it reads the hook's JSON on stdin, finds its run and
// attempt from the variables rostra put in the attempt's environment
// (ROSTRA_STATE_DIR, ROSTRA_WORKER, ROSTRA_ATTEMPT), and posts the call to
// the run's server. It never changes what the agent does: it prints
// nothing on stdout (claude reads a hook's stdout as its answer), exits 0
// whatever happens, and gives up after hookDeadline, so an agent whose
// server has gone is not held up.
package main

import (
	"encoding/json"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/rostra-dev/rostra/server"
)

// hookDeadline bounds a hook's whole run: reading its input and posting.
const hookDeadline = 900 * time.Millisecond

// maxHookInput bounds what is read of a hook's JSON (gemini's hooks can be
// given whole model requests).
const maxHookInput = 4 << 20

// hookKeys are the keys of a hook's payload that say what the agent is
// doing (agents.FromHook reads them); the rest is not sent.
var hookKeys = []string{"hook_event_name", "session_id", "notification_type", "message", "reason", "tool_name"}

// maxHookValue bounds one string sent from a payload, in bytes.
const maxHookValue = 2048

func runHook(args []string, stdout, stderr io.Writer) int {
	deadline := time.Now().Add(hookDeadline)
	stateDir, worker := os.Getenv("ROSTRA_STATE_DIR"), os.Getenv("ROSTRA_WORKER")
	attempt, err := strconv.Atoi(os.Getenv("ROSTRA_ATTEMPT"))
	if stateDir == "" || worker == "" || err != nil {
		return 0 // not run by an attempt of rostra's
	}
	in := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(os.Stdin, maxHookInput))
		in <- b
	}()
	var raw []byte
	select {
	case raw = <-in:
	case <-time.After(time.Until(deadline)):
		return 0
	}
	call, ok := hookCall(raw)
	if !ok {
		return 0
	}
	_ = server.PostHook(stateDir, worker, attempt, call, deadline)
	return 0
}

// hookCall is the call a hook's JSON describes: its event and the keys
// that matter, strings clipped; false when it is no JSON object with an
// event name.
func hookCall(raw []byte) (server.HookCall, bool) {
	var p map[string]any
	if json.Unmarshal(raw, &p) != nil {
		return server.HookCall{}, false
	}
	event, _ := p["hook_event_name"].(string)
	if event == "" {
		return server.HookCall{}, false
	}
	out := map[string]any{}
	for _, k := range hookKeys {
		if s, ok := p[k].(string); ok {
			out[k] = clipValue(s)
		}
	}
	// The tool's argument (tool_input) and gemini's details: only their
	// strings, clipped.
	for _, k := range []string{"tool_input", "details"} {
		m, ok := p[k].(map[string]any)
		if !ok {
			continue
		}
		small := map[string]any{}
		for mk, mv := range m {
			if s, ok := mv.(string); ok {
				small[mk] = clipValue(s)
			}
		}
		out[k] = small
	}
	return server.HookCall{Event: event, Payload: out}, true
}

func clipValue(s string) string {
	if len(s) > maxHookValue {
		return s[:maxHookValue]
	}
	return s
}
