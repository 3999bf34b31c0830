//go:build linux

// typeline.go types one line into a pane's child as a person pastes it and
// presses Enter: the engine's queued prompts go in this way once the agent
// waits for input (docs/agents.md §A queue of prompts). It also holds the
// agent's readiness the pane's own typed prompt may wait for
// (docs/runfile.md §Prompt delivery).
package panes

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rostra-dev/rostra/panes/vt"
)

// LineQuiet is how long the child's output must be quiet, after it echoed
// the text, before TypeLine presses Enter.
var LineQuiet = 300 * time.Millisecond

// errEndedTyping is TypeLine's error when the attempt ends mid-way.
var errEndedTyping = errors.New("type into the pane: the attempt ended before it took the text")

// TypeLine types text and then Enter. The text goes in as a bracketed
// paste when the child enabled bracketed paste (every agent CLI does), so
// a newline in it is a newline of the prompt, not its end; else as keys,
// newlines as CR. Enter is its own write, once the child has echoed the
// text and its output has been quiet for LineQuiet (as typePrompt does: a
// CR that arrives with a paste can be read as part of it); beforeEnter,
// when not nil, is called just before. It blocks while the child does not
// read and returns how the text went in ("paste" or "keys").
func (p *PTYProcess) TypeLine(text string, beforeEnter func()) (string, error) {
	how, modes := "keys", vt.Modes{}
	if p.screenModes().BracketedPaste {
		how, modes = "paste", vt.Modes{BracketedPaste: true}
	}
	written := p.outputBytes.Load()
	if _, err := p.master.Write(vt.EncodePaste(text, modes)); err != nil {
		return how, fmt.Errorf("type into the pane: %w", err)
	}
	if !p.waitEcho(written, LineQuiet, 10*LineQuiet) {
		return how, errEndedTyping
	}
	if beforeEnter != nil {
		beforeEnter()
	}
	if _, err := p.master.Write([]byte("\r")); err != nil {
		return how, fmt.Errorf("type into the pane: %w", err)
	}
	return how, nil
}

// readySignal is an agent's word that it waits for input, given once by
// AgentReady and awaited by typePrompt (Launch.TypeAwaitAgent). A nil
// *readySignal is none awaited: never pending.
type readySignal struct {
	once sync.Once
	ch   chan struct{}
}

func newReadySignal() *readySignal { return &readySignal{ch: make(chan struct{})} }

// wait is closed once the agent said it is ready; nil (never) when none
// is awaited.
func (r *readySignal) wait() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.ch
}

// pending is an awaited word not given yet.
func (r *readySignal) pending() bool {
	if r == nil {
		return false
	}
	select {
	case <-r.ch:
		return false
	default:
		return true
	}
}

// AgentReady tells the pane its agent waits for input, from what rostra
// knows of its state (its hooks, screen rules, OSC 7501 status): a prompt
// the pane types waits for it when Launch.TypeAwaitAgent says so
// (docs/runfile.md §Prompt delivery). Later calls, and calls for a pane
// that awaits none, do nothing; it never blocks.
func (p *PTYProcess) AgentReady() {
	if p.ready != nil {
		p.ready.once.Do(func() { close(p.ready.ch) })
	}
}
