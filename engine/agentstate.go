// agentstate.go follows what the agent of each live attempt is doing
// (docs/agents.md, "The state and where it comes from"): an attempt whose
// worker runs a known agent CLI (runfile's agent) gets one agents.Combiner,
// fed on the loop by the agent's hooks (posted by `rostra hook` through the
// run's server: Engine.Hook), the program status and notifications its
// pane's emulator parses (LaunchSpec.OnProgramStatus, OnNotification) and
// the process's exit. Each change is saved on the attempt's dispatch row
// (agentState, agentStateSince, agentStateSource, agentStateEvidence) and
// sent as an agent-state event.
//
// The hooks are given to one attempt without touching the user's or the
// repository's files: claude through --settings, codex through -c
// overrides, gemini and qwen through their system-settings variable, each
// pointing at a file in the attempt's folder (hookSetup).
package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/statedir"
)

// agentRT is an attempt's agent: which CLI, the combiner of what it
// says, and what its screen is watched with.
type agentRT struct {
	kind  agents.Agent
	comb  *agents.Combiner
	rules *agents.RuleSet // nil: none for this agent
	title string          // the pane's title, as the child last set it

	pause      Timer // due screenPause after output began: is it still coming?
	pauseBytes int64 // the output counter when pause was armed
	quiet      Timer // due attention_after after the output paused
	bells      int64 // the bells heard so far
}

// AgentScreen is what a Handle may also do: give its screen's visible
// rows and count its child's bells, for the screen rules and the bell
// (docs/agents.md, "Screen rules").
type AgentScreen interface {
	ScreenRows() []string
	Bells() int64
}

// shippedRules are the screen rules embedded in rostra, read once (their
// test in agents keeps them loadable).
var shippedRules = sync.OnceValues(agents.LoadRules)

// screenPause is how long a pane's output must pause before its screen is
// matched against its agent's rules: a screen mid-redraw can match the
// wrong rule.
var screenPause = 200 * time.Millisecond

// startAgent gives a new attempt of a known agent its combiner and its
// row its first state, starting.
func (e *Engine) startAgent(a *attemptRT, row *statedir.DispatchRow) {
	kind, ok := agents.Parse(a.w.spec.Agent)
	if !ok {
		return
	}
	now := e.clock.Now()
	a.agent = &agentRT{kind: kind, comb: agents.NewCombiner(now)}
	if rules, err := shippedRules(); err == nil {
		a.agent.rules = rules.For(kind, "") // the CLI's version is not known: the newest rules
	}
	since := now.UTC()
	row.Agent = string(kind)
	row.AgentState = string(agents.Starting)
	row.AgentStateSince = &since
}

// observeAgent feeds o to a's combiner and records a change. It runs on
// the loop.
func (e *Engine) observeAgent(a *attemptRT, o agents.Observation) {
	if a.agent == nil {
		return
	}
	st, changed, err := a.agent.comb.Observe(o)
	if err != nil || !changed {
		return
	}
	d := &e.st.Dispatches[a.idx]
	since := st.Since.UTC()
	d.AgentState, d.AgentStateSince, d.AgentStateSource, d.AgentStateEvidence = string(st.State), &since, string(st.Source), st.Evidence
	e.dirty = true
	e.emit(statedir.Event{Type: statedir.EventAgentState, WorkerID: a.w.spec.ID, Attempt: a.plan.Attempt,
		AgentState: string(st.State), AgentStateSource: string(st.Source), Reason: st.Evidence})
	e.queueAgentState(a, st.State)
}

// watchAgentScreen follows an opened attempt's output for its pauses,
// when its surface can show its screen.
func (e *Engine) watchAgentScreen(a *attemptRT) {
	if a.agent == nil {
		return
	}
	if _, ok := a.handle.(AgentScreen); !ok {
		return
	}
	e.armOutputWake(a)
}

// agentOutput is a's output coming: once it pauses for screenPause the
// screen is matched (agentPaused).
func (e *Engine) agentOutput(a *attemptRT) {
	ag := a.agent
	if ag == nil || a.exited || ag.pause != nil {
		return
	}
	if ag.quiet != nil {
		ag.quiet.Stop()
		ag.quiet = nil
	}
	ag.pauseBytes = a.handle.OutputBytes()
	ag.pause = e.clock.AfterFunc(screenPause, func() { e.post(func() { e.agentPaused(a) }) })
}

// agentPaused looks at a's screen once its output has paused: the screen
// rules, else a bell rung since, are observations; attention_after of
// quiet more is one too.
func (e *Engine) agentPaused(a *attemptRT) {
	ag := a.agent
	ag.pause = nil
	if a.exited {
		return
	}
	if b := a.handle.OutputBytes(); b != ag.pauseBytes {
		// Still coming: look again a pause later.
		ag.pauseBytes = b
		ag.pause = e.clock.AfterFunc(screenPause, func() { e.post(func() { e.agentPaused(a) }) })
		return
	}
	scr := a.handle.(AgentScreen)
	now := e.clock.Now()
	matched := false
	if ag.rules != nil {
		if m, ok := ag.rules.Match(scr.ScreenRows(), ag.title); ok {
			matched = true
			e.observeAgent(a, agents.Observation{At: now, Source: agents.SourceScreen, State: m.State, Evidence: m.Evidence()})
		}
	}
	if bells := scr.Bells(); bells > ag.bells {
		ag.bells = bells
		if !matched {
			e.observeAgent(a, agents.Observation{At: now, Source: agents.SourceBell, State: agents.WaitingInput, Evidence: "the bell rang"})
		}
	}
	if after := e.plan.AttentionAfter; after > 0 {
		ag.quiet = e.clock.AfterFunc(after, func() {
			e.post(func() {
				if ag.quiet == nil || a.exited {
					return
				}
				ag.quiet = nil
				e.observeAgent(a, agents.Observation{At: e.clock.Now(), Source: agents.SourceQuiet, State: agents.WaitingInput, Evidence: "no output for " + after.String()})
			})
		})
	}
	e.armOutputWake(a)
}

// agentExited is the process's word that the agent is gone.
func (e *Engine) agentExited(a *attemptRT, why string) {
	if ag := a.agent; ag != nil {
		for _, t := range []Timer{ag.pause, ag.quiet} {
			if t != nil {
				t.Stop()
			}
		}
		ag.pause, ag.quiet = nil, nil
	}
	e.observeAgent(a, agents.Observation{At: e.clock.Now(), Source: agents.SourceProcess, State: agents.Exited, Evidence: why})
}

// Hook takes one call of an agent's hook, posted by `rostra hook` for
// attempt of worker: event is its event name, payload its JSON. A hook of
// an attempt that is not the worker's live one (retried, ended) is
// recorded as an agent-hook-ignored event and changes nothing. It does not
// wait for the loop.
func (e *Engine) Hook(worker string, attempt int, event string, payload map[string]any) {
	e.post(func() {
		w := e.byID[worker]
		if w == nil {
			return
		}
		a := w.cur
		why := ""
		switch {
		case a == nil || a.plan.Attempt != attempt:
			cur := 0
			if a != nil {
				cur = a.plan.Attempt
			}
			why = fmt.Sprintf("attempt %d is not current (the worker's current attempt is %d)", attempt, cur)
		case a.agent == nil:
			why = "the worker runs no known agent"
		case a.exited:
			why = fmt.Sprintf("attempt %d has exited", attempt)
		}
		if why != "" {
			e.emit(statedir.Event{Type: statedir.EventAgentHookIgnored, WorkerID: worker, Attempt: attempt, Hook: event, Reason: why})
			return
		}
		st, ev, ok := agents.FromHook(a.agent.kind, event, payload)
		if !ok {
			return
		}
		e.observeAgent(a, agents.Observation{At: e.clock.Now(), Source: agents.SourceHook, State: st, Evidence: ev})
	})
}

// agentSignals wires l's emulator callbacks to a's combiner: each posts
// to the loop (never blocking the pane's reader), tagged with the attempt.
func (e *Engine) agentSignals(a *attemptRT, l *LaunchSpec) {
	l.OnProgramStatus = func(state, kind, msg string) {
		st, ev, ok := agents.FromProgramStatus(state, kind, msg)
		if !ok {
			return
		}
		e.post(func() {
			e.observeAgent(a, agents.Observation{At: e.clock.Now(), Source: agents.SourceNotification, State: st, Evidence: ev})
		})
	}
	l.OnTitle = func(title string) {
		e.post(func() { a.agent.title = title })
	}
	l.OnNotification = func(title, body string) {
		st, ev := agents.FromNotification(title, body)
		e.post(func() {
			e.observeAgent(a, agents.Observation{At: e.clock.Now(), Source: agents.SourceNotification, State: st, Evidence: ev})
		})
	}
}

// hookEvents are the hook events rostra listens to per agent: those
// agents.FromHook reads (docs/agents.md lists what each fires). gemini's
// per-request events (BeforeModel, AfterModel) carry the whole request
// and are left out.
var hookEvents = map[agents.Agent][]string{
	agents.Claude: {"UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "Notification", "Stop", "StopFailure", "SessionEnd"},
	agents.Codex:  {"UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop"},
	agents.Gemini: {"BeforeAgent", "BeforeTool", "AfterTool", "Notification", "AfterAgent", "SessionEnd"},
	agents.Qwen:   {"UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "Notification", "Stop", "StopFailure", "SessionEnd"},
}

// systemSettingsEnv is the variable gemini and qwen read a system settings
// file's path from.
var systemSettingsEnv = map[agents.Agent]string{
	agents.Gemini: "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
	agents.Qwen:   "QWEN_CODE_SYSTEM_SETTINGS_PATH",
}

// hookSetup is how one attempt's agent is given rostra's hooks: the argv
// and environment to start it with, and the files to write in its folder
// first (absolute path → content). why says, when no hook could be
// given, the reason.
type hookSetup struct {
	argv  []string
	env   []string
	files map[string][]byte
	why   string
}

// hooksFor builds the setup of agent for an attempt whose folder is dir,
// argv its command and env its environment; hook is the shell command
// that runs `rostra hook`.
func hooksFor(agent agents.Agent, argv, env []string, dir, hook string) hookSetup {
	s := hookSetup{argv: argv}
	group := func() []any {
		return []any{map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "command", "command": hook}}}}
	}
	hooks := map[string]any{}
	for _, ev := range hookEvents[agent] {
		hooks[ev] = group()
	}
	at := programEnd(argv)
	switch agent {
	case agents.Claude:
		if at < 0 {
			s.why = "the command does not name claude itself (a wrapper?): --settings cannot be placed"
			return s
		}
		path := filepath.Join(dir, "claude-settings.json")
		s.files = map[string][]byte{path: mustJSON(map[string]any{"hooks": hooks})}
		s.argv = slices.Insert(slices.Clone(argv), at, "--settings", path)
	case agents.Codex:
		// codex runs only hooks whose hash the user trusted; the one way
		// to have it run rostra's, --dangerously-bypass-hook-trust, would
		// run every untrusted hook, a repository's included. Its state
		// comes from its own OSC 7501 program status (docs/agents.md).
		s.why = "codex runs only the hooks its user trusted, and rostra does not bypass that trust (it would run a repository's untrusted hooks too): its state comes from its own terminal status (OSC 7501) and its screen"
		return s
	case agents.Gemini, agents.Qwen:
		name := systemSettingsEnv[agent]
		for _, kv := range env {
			if strings.HasPrefix(kv, name+"=") {
				s.why = name + " is set already: rostra does not replace the system settings it names"
				return s
			}
		}
		path := filepath.Join(dir, string(agent)+"-system-settings.json")
		if agent == agents.Gemini {
			// gemini skips a system settings file below a folder others
			// may write to (docs/agents.md).
			if open := othersMayWrite(dir); open != "" {
				s.why = open + " may be written by other users, and gemini then ignores a settings file below it; put the state dir elsewhere"
				return s
			}
			s.files = map[string][]byte{path: mustJSON(map[string]any{"hooksConfig": map[string]any{"enabled": true, "notifications": false}, "hooks": hooks})}
		} else {
			s.files = map[string][]byte{path: mustJSON(map[string]any{"hooks": hooks})}
		}
		s.env = []string{name + "=" + path}
	}
	return s
}

// programEnd is the index after the word of argv that names the agent
// CLI (its program, past env and its assignments, or its package given
// to a package runner), or -1 when none does: rostra's arguments go
// there, before a subcommand.
func programEnd(argv []string) int {
	for i, arg := range argv {
		if _, ok := agents.Detect([]string{arg}); ok {
			return i + 1
		}
		if i > 0 && !strings.HasPrefix(arg, "-") {
			if _, ok := agents.Detect([]string{"npx", arg}); ok {
				return i + 1
			}
		}
	}
	return -1
}

// othersMayWrite is the first folder from dir up that a user other than
// its owner may write to, or "".
func othersMayWrite(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o002 != 0 {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // maps of strings only
	}
	return append(b, '\n')
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookCommand is the shell command an agent's hook runs: `rostra hook`,
// by the executable's absolute path.
func hookCommand(exe string) string {
	return shellQuote(exe) + " hook"
}

// applyHooks gives l the hooks of the attempt's agent, when the engine
// knows where rostra is (Options.HookCommand). The files are written by
// the open job, once the attempt's folder exists.
func (e *Engine) applyHooks(a *attemptRT, l *LaunchSpec) (files map[string][]byte, why string) {
	if a.agent == nil || e.opts.HookCommand == "" {
		return nil, ""
	}
	dir := filepath.Dir(a.plan.PromptFile)
	s := hooksFor(a.agent.kind, l.Argv, l.Env, dir, hookCommand(e.opts.HookCommand))
	if s.why != "" {
		return nil, s.why
	}
	l.Argv = s.argv
	l.Env = append(l.Env, s.env...)
	return s.files, ""
}

// writeHookFiles writes an attempt's hook configuration into its folder.
func (j openJob) writeHookFiles() error {
	for path, b := range j.hookFiles {
		rel, err := j.sfs.Rel(path)
		if err != nil {
			return err
		}
		if err := j.sfs.WriteAtomic(rel, b, 0o600); err != nil {
			return fmt.Errorf("write the agent's hook settings %s: %w", path, err)
		}
	}
	return nil
}
