// resume.go is a provider's `resume:` (docs/runfile.md §providers): the
// command that continues an agent's conversation by its session id, used
// for the attempt that follows one a crash cut off (docs/state.md
// §Resumed attempts). A provider of a known agent has one built in
// (agents.ResumeCommand); `resume: []` says its CLI cannot resume.
// ExpandResume makes such an attempt's plan: the resume command, and the
// prompt that tells the agent it was resumed.
package runfile

import (
	"fmt"
	"strings"

	"github.com/rostra-dev/rostra/agents"
)

// ResumePrompt is the prompt of a resumed attempt ({prompt}, or what is
// typed with delivery: type): the conversation holds the task already.
const ResumePrompt = "rostra was restarted after a crash and resumed this conversation. Carry on with the task from where you stopped; do not start it over."

// resumeCommand reads a provider's resume: an argv template that must
// hold {session}; set is false when the key is absent.
func (l *loader) resumeCommand(m map[string]val, agent string) (argv []string, set bool) {
	v, ok := m["resume"]
	if !ok {
		return nil, false
	}
	words, vals, ok := l.strList(v)
	if !ok {
		return nil, true
	}
	if len(words) == 0 {
		return []string{}, true // the CLI cannot resume
	}
	if agent == "" {
		l.addAt(v, "resume needs a known agent: rostra learns the session id to resume from the agent CLI (docs/agents.md); set agent: on the provider, or leave resume out")
	}
	has := false
	for i, w := range words {
		if strings.ContainsRune(w, 0) {
			l.addAt(vals[i], "an argument cannot hold a NUL byte (\\0); remove it")
			continue
		}
		has = has || strings.Contains(w, agents.SessionPlaceholder)
		l.template(vals[i], strings.ReplaceAll(w, agents.SessionPlaceholder, ""), nil)
	}
	if !has {
		l.addAt(v, "resume does not name the session: put {session} where the id goes, like [\"claude\", \"--resume\", \"{session}\"], or write resume: [] for a CLI that cannot resume")
	}
	if words[0] == "" {
		l.addAt(vals[0], "the program name is empty")
	}
	return words, true
}

// builtInResume is the resume command of a worker whose provider gives
// none: its agent's (agents.ResumeCommand), nil for no agent.
func builtInResume(agent string, command []string) []string {
	a, ok := agents.Parse(agent)
	if !ok {
		return nil
	}
	return agents.ResumeCommand(a, command)
}

// ExpandResume is Expand for an attempt that continues session: its argv
// is the worker's resume command and its prompt ResumePrompt. It fails
// for a worker that cannot resume.
func (p *Plan) ExpandResume(w *WorkerSpec, attempt int, session string) (AttemptPlan, error) {
	if len(w.Resume) == 0 {
		return AttemptPlan{}, fmt.Errorf("worker %s: its CLI has no resume command", w.ID)
	}
	resumed := *w
	resumed.Prompt = strings.ReplaceAll(strings.ReplaceAll(ResumePrompt, "{", "{{"), "}", "}}")
	// {session} is no placeholder of the other templates: it is put in
	// before the expansion, its braces made literal.
	literal := strings.ReplaceAll(strings.ReplaceAll(session, "{", "{{"), "}", "}}")
	resumed.Command = make([]string, len(w.Resume))
	for i, word := range w.Resume {
		resumed.Command[i] = strings.ReplaceAll(word, agents.SessionPlaceholder, literal)
	}
	return p.Expand(&resumed, attempt)
}

// CanResume reports whether w has a command to resume its agent with.
func (w *WorkerSpec) CanResume() bool {
	for _, word := range w.Resume {
		if strings.Contains(word, agents.SessionPlaceholder) {
			return true
		}
	}
	return false
}
