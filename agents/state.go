// state.go holds an attempt's agent state and the Combiner that decides it
// from observations (docs/agents.md, "The state and where it comes from").
//
// Data model: an Observation is one thing a source said at a time (a hook
// posted PermissionRequest, codex wrote OSC 7501 blocked, a screen rule
// matched, the bell rang). A Combiner, one per attempt, holds the current
// Status and, per source, when it last spoke; Observe applies the rules
// below and says whether the state changed. It keeps no clock: the times
// are the observations'.
//
// The rules, in order:
//  1. After exited nothing changes: the process is gone.
//  2. A stale observation, older than the current state, does not win.
//  3. Repeating the current state changes nothing (its since, source and
//     evidence stay those of the first, most telling, report).
//  4. A hook is the most trusted: it always applies.
//  5. working, from any source, applies: the agent is busy again (after an
//     approval no hook speaks until the tool is done). Except: working from
//     the screen, the bell or quiet does not end a wait the agent itself
//     declared (a hook, its program status) less than declaredGrace
//     before: a hook fires as its prompt is being drawn, and a screen
//     read in that moment still shows the busy line of before.
//  6. A waiting state from a less trusted source applies only when no
//     more trusted source has spoken since the last working signal: when
//     the agent's hooks (or codex's own state) are heard for a turn, they
//     own its waiting states, and a screen that still shows a prompt, a
//     notification that comes seconds late (claude's), a bell, do not
//     overrule them. Before any working signal every source counts.
//  7. Except: the screen may move waiting-permission to waiting-input. A
//     refused permission prompt ends the turn with no hook; the idle
//     prompt on screen is then the only word that the agent waits for
//     its next prompt. Not within declaredGrace of a wait the agent
//     itself declared, as in 5.
//  8. starting is only the first state: no observation goes back to it.
package agents

import (
	"fmt"
	"time"
)

// State is an attempt's agent state, as saved and sent (string values).
type State string

const (
	Starting          State = "starting"
	Working           State = "working"
	WaitingPermission State = "waiting-permission" // asked the human to approve an action
	WaitingInput      State = "waiting-input"      // its turn ended; idle at its prompt
	Exited            State = "exited"
)

// States are the states in the order docs/agents.md lists them.
var States = []State{Starting, Working, WaitingPermission, WaitingInput, Exited}

// Waiting reports whether s is a state in which the agent needs the human.
func (s State) Waiting() bool { return s == WaitingPermission || s == WaitingInput }

// Source is where an observation came from.
type Source string

// The sources, most trusted first (Trust). process is rostra's own word
// that the child has exited.
const (
	SourceProcess      Source = "process"
	SourceHook         Source = "hook"
	SourceNotification Source = "notification" // OSC 9, 777, 99, codex's OSC 7501
	SourceScreen       Source = "screen"
	SourceBell         Source = "bell"
	SourceQuiet        Source = "quiet"
)

// Sources are the sources, most trusted first.
var Sources = []Source{SourceProcess, SourceHook, SourceNotification, SourceScreen, SourceBell, SourceQuiet}

// Trust ranks a source: higher is more trusted; 0 for an unknown one.
func (s Source) Trust() int {
	for i, k := range Sources {
		if k == s {
			return len(Sources) - i
		}
	}
	return 0
}

// Observation is one report of an agent's state.
type Observation struct {
	At     time.Time
	Source Source
	State  State
	// Evidence is what a human reads as the reason: the hook's message,
	// the tool and its argument, the screen line a rule matched.
	Evidence string
}

// Status is the current state with its since, source and evidence: the
// agentState, agentStateSince, agentStateSource and agentStateEvidence
// of a dispatch row.
type Status struct {
	State    State
	Since    time.Time
	Source   Source // empty while starting
	Evidence string
}

// Combiner decides one attempt's state. Its zero value is not ready: use
// NewCombiner. It is a value with no lock: one goroutine (the engine's
// loop) feeds it.
type Combiner struct {
	cur         Status
	lastWorking time.Time            // the last working signal applied
	spoke       map[Source]time.Time // when each source last spoke
}

// NewCombiner starts an attempt's state at starting, at.
func NewCombiner(at time.Time) *Combiner {
	return &Combiner{cur: Status{State: Starting, Since: at}, spoke: map[Source]time.Time{}}
}

// Status is the current state.
func (c *Combiner) Status() Status { return c.cur }

// Observe applies o and returns the state after it, and whether it changed.
// An observation with an unknown source or state is an error (the caller
// built it wrong) and changes nothing.
func (c *Combiner) Observe(o Observation) (Status, bool, error) {
	if o.Source.Trust() == 0 {
		return c.cur, false, fmt.Errorf("agent state observation: unknown source %q (one of %v)", o.Source, Sources)
	}
	if !validState(o.State) {
		return c.cur, false, fmt.Errorf("agent state observation from %s: unknown state %q (one of %v)", o.Source, o.State, States)
	}
	if !c.applies(o) {
		if !o.At.Before(c.cur.Since) && c.cur.State != Exited {
			c.noteSpoke(o)
		}
		return c.cur, false, nil
	}
	c.noteSpoke(o)
	if o.State == Working {
		c.lastWorking = o.At
	}
	c.cur = Status{State: o.State, Since: o.At, Source: o.Source, Evidence: o.Evidence}
	return c.cur, true, nil
}

func (c *Combiner) noteSpoke(o Observation) {
	if o.At.After(c.spoke[o.Source]) {
		c.spoke[o.Source] = o.At
	}
}

// declaredGrace is how long a wait the agent declared holds against the
// screen's working (rule 5).
const declaredGrace = time.Second

// justDeclared: o comes from the screen, the bell or quiet less than
// declaredGrace after the agent itself (a hook, its program status)
// declared the wait it is in.
func (c *Combiner) justDeclared(o Observation) bool {
	return o.Source.Trust() < SourceNotification.Trust() && c.cur.State.Waiting() &&
		c.cur.Source.Trust() >= SourceNotification.Trust() && o.At.Sub(c.cur.Since) < declaredGrace
}

// applies is the rules of the file's comment.
func (c *Combiner) applies(o Observation) bool {
	switch {
	case c.cur.State == Exited: // 1
		return false
	case o.At.Before(c.cur.Since): // 2
		return false
	case o.State == c.cur.State: // 3
		return false
	case o.State == Starting: // 8
		return false
	case o.State == Exited:
		return true
	case o.Source == SourceHook || o.Source == SourceProcess: // 4
		return true
	case c.justDeclared(o) && (o.State == Working || o.State == WaitingInput): // 5 and 7, except
		return false
	case o.State == Working: // 5
		return true
	}
	// A waiting state from a less trusted source.
	if o.Source == SourceScreen && o.State == WaitingInput && c.cur.State == WaitingPermission { // 7
		return true
	}
	for _, s := range Sources { // 6
		if s.Trust() <= o.Source.Trust() {
			break
		}
		if at, ok := c.spoke[s]; ok && !at.Before(c.lastWorking) {
			return false
		}
	}
	return true
}

func validState(s State) bool {
	for _, k := range States {
		if k == s {
			return true
		}
	}
	return false
}
