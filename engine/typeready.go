// typeready.go lets a pane's typed prompt wait for the agent's own word
// that it waits for input (docs/runfile.md §Prompt delivery): a pane sees
// only its child's tty and output (raw, bracketed paste, quiet), and
// gemini can look ready to it, under load, before its input box takes
// keys; a prompt typed then stays above the box, never submitted. The
// engine knows the agent's state (its hooks, screen rules, OSC 7501
// status): when it first says waiting-input, it tells the handle.
package engine

import (
	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/runfile"
)

// AgentReadier is what a Handle that types its attempt's prompt may also
// do: hear that the attempt's agent waits for input. AgentReady must not
// block; calls after the first do nothing.
type AgentReadier interface {
	AgentReady()
}

// readyAwaited are the agents whose typed prompt waits for their state to
// say waiting-input (within the pane's readiness limit): gemini, whose
// screen rules see its input box ("Type your message") once it is drawn
// idle, checked under load (docs/agents.md §Prompt delivery under load).
// Others are typed as the pane alone sees fit.
var readyAwaited = map[agents.Agent]bool{agents.Gemini: true}

// awaitsAgentReady says whether spec's typed prompts wait for its agent.
func awaitsAgentReady(spec *runfile.WorkerSpec) bool { return readyAwaited[agentOf(spec)] }

// agentReady tells a's handle its agent waits for input.
func agentReady(a *attemptRT) {
	if r, ok := a.handle.(AgentReadier); ok {
		r.AgentReady()
	}
}
