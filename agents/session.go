// session.go is what rostra knows of each agent CLI's conversations
// (docs/agents.md §Sessions): which CLIs take a session id rostra makes at
// start (--session-id), and how a command is turned into the one that
// continues a session by its id, the built-in `resume:` of a provider
// ({session} stands for the id).
package agents

import (
	"slices"
	"strings"
)

// SessionPlaceholder is the word of a resume command the session id
// replaces.
const SessionPlaceholder = "{session}"

// TakesSessionID reports whether a's CLI starts a new conversation with an
// id it is given (--session-id UUID): claude, gemini and qwen do; codex
// makes its own.
func TakesSessionID(a Agent) bool {
	return a == Claude || a == Gemini || a == Qwen
}

// sessionFlags are the arguments by which a command already picks its
// conversation: rostra then gives it no id of its own.
var sessionFlags = []string{"--session-id", "--resume", "-r", "--continue", "-c", "--fork-session", "--session-file"}

// WithSessionID is argv with `--session-id id` placed after the word that
// names the CLI; false when a's CLI takes no id, argv does not name it, or
// argv picks its conversation itself.
func WithSessionID(a Agent, argv []string, id string) ([]string, bool) {
	if !TakesSessionID(a) {
		return argv, false
	}
	at := ProgramEnd(argv)
	if at < 0 {
		return argv, false
	}
	for _, arg := range argv[at:] {
		name, _, _ := strings.Cut(arg, "=")
		if slices.Contains(sessionFlags, name) {
			return argv, false
		}
	}
	return slices.Insert(slices.Clone(argv), at, "--session-id", id), true
}

// ResumeCommand is the built-in command that continues a session of a's
// CLI, made from the command that started it: claude, gemini and qwen get
// `--resume {session}` after their name (gemini without its interactive
// prompt); codex `resume {session}` as its subcommand, after its options,
// before its prompt. nil when argv does not name the CLI.
func ResumeCommand(a Agent, argv []string) []string {
	at := ProgramEnd(argv)
	if at < 0 {
		return nil
	}
	switch a {
	case Claude, Qwen:
		return slices.Insert(slices.Clone(argv), at, "--resume", SessionPlaceholder)
	case Gemini:
		// gemini 0.61 runs a --prompt-interactive prompt before it has
		// loaded the resumed conversation, which the model then never
		// sees (checked): the prompt is left out, and rostra types it
		// once gemini is ready (a resume command without {prompt}).
		out := slices.Insert(slices.Clone(argv[:at]), at, "--resume", SessionPlaceholder)
		for i := at; i < len(argv); i++ {
			switch {
			case argv[i] == "-i" || argv[i] == "--prompt-interactive":
				i++ // and its value
			case strings.HasPrefix(argv[i], "--prompt-interactive="), strings.HasPrefix(argv[i], "-i="):
			default:
				out = append(out, argv[i])
			}
		}
		return out
	case Codex:
		// The resume subcommand takes fewer options than exec or the
		// interactive codex (no --sandbox): the command's own options stay
		// before it, where they are its parent's, and the prompt (after
		// --, or the word holding {prompt}) after it. codex 0.171 parses
		// `codex exec --sandbox workspace-write resume ID -- PROMPT`.
		end := len(argv)
		for i := at; i < len(argv); i++ {
			if argv[i] == "--" || strings.Contains(argv[i], "{prompt") {
				end = i
				break
			}
		}
		return slices.Insert(slices.Clone(argv), end, "resume", SessionPlaceholder)
	}
	return nil
}

// ProgramEnd is the index after the word of argv that names the agent
// CLI (its program, past env and its assignments, or its package given
// to a package runner), or -1 when none does: rostra's arguments go
// there, before a subcommand.
func ProgramEnd(argv []string) int {
	for i, arg := range argv {
		if _, ok := Detect([]string{arg}); ok {
			return i + 1
		}
		if i > 0 && !strings.HasPrefix(arg, "-") {
			if _, ok := Detect([]string{"npx", arg}); ok {
				return i + 1
			}
		}
	}
	return -1
}
