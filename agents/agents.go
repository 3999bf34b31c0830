// Package agents is what rostra knows about the agent CLIs it supervises,
// as plain logic on plain strings (docs/agents.md): which agent a command
// runs, the state an attempt of one is in, how observations from its hooks,
// its terminal sequences, its screen and rostra's own signals combine into
// that state (Combiner), and the per-agent screen rules, data files
// embedded from rules/ (Rules). It imports nothing of rostra's: the engine
// feeds it strings and times and stores what it returns.
package agents

import (
	"path/filepath"
	"strings"
)

// Agent names a known agent CLI, as the run file's provider names it
// (`agent: claude`).
type Agent string

const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
	Qwen   Agent = "qwen"
)

// Known are the agents rostra knows, in the order docs/agents.md lists
// them.
var Known = []Agent{Claude, Codex, Gemini, Qwen}

// Parse returns the agent named name, or false for a name rostra does not
// know.
func Parse(name string) (Agent, bool) {
	for _, a := range Known {
		if string(a) == name {
			return a, true
		}
	}
	return "", false
}

// packages are the npm packages the CLIs ship in, for a command that runs
// one through a package runner (npx @anthropic-ai/claude-code).
var packages = map[string]Agent{
	"@anthropic-ai/claude-code": Claude,
	"@openai/codex":             Codex,
	"@google/gemini-cli":        Gemini,
	"@qwen-code/qwen-code":      Qwen,
}

// Detect returns the agent a command runs, from its argv: the basename of
// argv[0] (claude, codex, gemini, qwen, a path to one, or a name with an
// .exe or .js ending), through env and its assignments, or a package runner
// (npx, bunx, pnpm dlx, yarn dlx, npm exec) given the CLI's package, with
// or without a version. A command it does not know is no agent (false):
// detection only fills in a provider's agent when the run file does not
// say it, so a wrapper script must name it there.
func Detect(argv []string) (Agent, bool) {
	for len(argv) > 0 {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(argv[0]), ".exe"), ".js")
		if a, ok := Parse(name); ok {
			return a, true
		}
		switch name {
		case "env":
			argv = argv[1:]
			for len(argv) > 0 && (strings.Contains(argv[0], "=") || strings.HasPrefix(argv[0], "-")) {
				if argv[0] == "-u" || argv[0] == "-C" || argv[0] == "--unset" || argv[0] == "--chdir" {
					argv = argv[1:] // their value
				}
				if len(argv) > 0 {
					argv = argv[1:]
				}
			}
			continue
		case "npx", "bunx":
			return detectPackage(argv[1:])
		case "pnpm", "yarn":
			if len(argv) > 1 && argv[1] == "dlx" {
				return detectPackage(argv[2:])
			}
		case "npm":
			if len(argv) > 1 && (argv[1] == "exec" || argv[1] == "x") {
				return detectPackage(argv[2:])
			}
		}
		return "", false
	}
	return "", false
}

// detectPackage reads a package runner's arguments: flags are skipped
// (--yes, -y; "--package=NAME" and "-p NAME" name it), the first other word
// is the package, as NAME or NAME@VERSION.
func detectPackage(args []string) (Agent, bool) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			continue
		case strings.HasPrefix(arg, "--package="):
			arg = strings.TrimPrefix(arg, "--package=")
		case arg == "-p" || arg == "--package":
			if i+1 >= len(args) {
				return "", false
			}
			i++
			arg = args[i]
		case strings.HasPrefix(arg, "-"):
			continue
		}
		if a, ok := packages[packageName(arg)]; ok {
			return a, true
		}
		return Detect([]string{arg})
	}
	return "", false
}

// packageName strips a version from an npm package spec:
// "@openai/codex@0.171.0" is "@openai/codex".
func packageName(spec string) string {
	if i := strings.LastIndex(spec, "@"); i > 0 {
		return spec[:i]
	}
	return spec
}
