// init.go wires `rostra init [RUNFILE]`: it looks for the agent CLIs rostra
// knows on PATH and writes a commented run file (default ./rostra.yaml)
// with a worker for each one found, never over an existing file.
//
// Each CLI gets two providers: <cli>, its headless mode (the prompt in, an
// answer out, then it exits), and <cli>-live, its interactive session in
// the pane, which a human can type into and which stays open (a worker on
// it settles on its files). The commands were checked against each CLI's
// --help (claude 2.1, codex 0.171, gemini 0.61, qwen 0.15): the prompt is
// always one argument that cannot be read as a flag, even when it starts
// with "-" (after "--", or as --prompt=...).
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/rostra-dev/rostra/engine"
)

// agentCLI is an agent CLI init knows.
type agentCLI struct {
	name     string   // the executable, and the headless provider's name
	headless []string // argv that runs one prompt and exits
	live     []string // argv of an interactive session that starts on the prompt
	note     string   // a comment above its providers
}

var agentCLIs = []agentCLI{
	{
		name:     "claude",
		headless: []string{"claude", "-p", "--permission-mode", "acceptEdits", "--", "{prompt}"},
		live:     []string{"claude", "--permission-mode", "acceptEdits", "--", "{prompt}"},
		note: "claude -p prints its answer and exits; acceptEdits lets it edit files\n" +
			"without asking (it still asks before running commands, which -p refuses).",
	},
	{
		name:     "codex",
		headless: []string{"codex", "exec", "--sandbox", "workspace-write", "--skip-git-repo-check", "--", "{prompt}"},
		live:     []string{"codex", "--sandbox", "workspace-write", "--", "{prompt}"},
		note: "codex exec runs without asking; workspace-write lets it write in the\n" +
			"workspace only; --skip-git-repo-check lets it run outside a git repository.",
	},
	{
		name:     "gemini",
		headless: []string{"gemini", "--skip-trust", "--approval-mode", "auto_edit", "--prompt={prompt}"},
		live:     []string{"gemini", "--skip-trust", "--approval-mode", "auto_edit", "--prompt-interactive={prompt}"},
		note: "gemini --prompt runs headless; --skip-trust trusts the workspace for the\n" +
			"session (headless gemini refuses an untrusted folder); auto_edit approves edits.",
	},
	{
		name:     "qwen",
		headless: []string{"qwen", "--approval-mode", "auto-edit", "--prompt={prompt}"},
		live:     []string{"qwen", "--approval-mode", "auto-edit", "--prompt-interactive={prompt}"},
		note: "qwen --prompt runs headless (its positional prompt would take a prompt\n" +
			"starting with - for flags); auto-edit approves edits.",
	},
}

const initUsage = `usage: rostra init [RUNFILE]

Writes RUNFILE (default ./rostra.yaml): a commented run file with a worker
for each agent CLI found on PATH (claude, codex, gemini, qwen), each with a
headless and an interactive provider. It never overwrites a file.
`

func runInit(args []string, stdout, stderr io.Writer) int {
	path := defaultRunFile
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprint(stdout, initUsage)
		return 0
	case len(args) == 1 && !strings.HasPrefix(args[0], "-"):
		path = args[0]
	case len(args) > 0:
		fmt.Fprint(stderr, initUsage)
		return 2
	}
	if _, err := os.Lstat(path); err == nil {
		fmt.Fprintf(stderr, "rostra init: %s already exists; rostra init never overwrites a file: edit it, remove it, or name another (rostra init other.yaml)\n", path)
		return 2
	}
	var found []agentCLI
	var where, missing []string
	for _, c := range agentCLIs {
		if p, err := exec.LookPath(c.name); err == nil {
			found = append(found, c)
			where = append(where, p)
		} else {
			missing = append(missing, c.name)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		fmt.Fprintf(stderr, "rostra init: %v\n", err)
		return 2
	}
	text := initRunFile(runNameFor(filepath.Dir(abs)), found, where, missing)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(stderr, "rostra init: %s already exists; rostra init never overwrites a file\n", path)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "rostra init: %v\n", err)
		return 2
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		fmt.Fprintf(stderr, "rostra init: write %s: %v\n", path, err)
		return 1
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		fmt.Fprintf(stderr, "rostra init: write %s: %v\n", path, err)
		return 1
	}
	// What init writes must load; anything else is a bug here.
	if _, err := engine.Load(path); err != nil {
		fmt.Fprintf(stderr, "rostra init: the run file written to %s does not load (a bug in rostra init):\n%v\n", path, err)
		return 1
	}
	if len(found) == 0 {
		fmt.Fprintf(stdout, "wrote %s with a shell worker: none of %s is on PATH.\nInstall one (or put your own command in the file), then: rostra run %s\n",
			path, strings.Join(missing, ", "), path)
		return 0
	}
	var ids []string
	for _, c := range found {
		ids = append(ids, c.name+"-agent")
	}
	fmt.Fprintf(stdout, "wrote %s with %d worker(s): %s.\nWrite their task in the prompts, then: rostra run %s\n", path, len(found), strings.Join(ids, ", "), path)
	return 0
}

var notNameChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// runNameFor makes a run name of the folder's name: lower case, other
// characters as "-", "agents" when nothing is left.
func runNameFor(dir string) string {
	name := strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(filepath.Base(dir)), "-"), "-.")
	if len(name) > 64 {
		name = strings.Trim(name[:64], "-.")
	}
	if name == "" {
		return "agents"
	}
	return name
}

// yamlArgv writes an argv as a YAML flow list of double-quoted strings.
func yamlArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func comment(b *strings.Builder, indent, text string) {
	for _, l := range strings.Split(text, "\n") {
		b.WriteString(indent + "# " + l + "\n")
	}
}

// initRunFile is the run file init writes.
func initRunFile(name string, found []agentCLI, where, missing []string) string {
	var b strings.Builder
	b.WriteString("# A rostra run file, written by `rostra init`.\n")
	if len(found) > 0 {
		b.WriteString("# The agent CLIs found on PATH, one worker each:\n")
		for i, c := range found {
			fmt.Fprintf(&b, "#   %-7s %s\n", c.name, where[i])
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "# Not found on PATH: %s (run `rostra init` again once installed).\n", strings.Join(missing, ", "))
	}
	b.WriteString(`#
# Write each worker's task in its prompt, then check the file with
# ` + "`rostra validate`" + ` and start it with ` + "`rostra run`" + `. Every key, its default
# and the placeholders ({prompt}, {result}, {worker}, ...): docs/runfile.md
# in rostra's repository.
version: 1
name: ` + strconv.Quote(name) + `
workspace: .              # the folder the agents work in: this file's folder
# state_dir: .rostra/` + name + `   # the default: rostra keeps the run's state there
`)
	b.WriteString("\nproviders:\n")
	if len(found) == 0 {
		b.WriteString("  # No agent CLI was found: this provider runs the prompt as a bash script.\n")
		b.WriteString("  shell: { command: [\"bash\", \"-c\", \"{prompt}\"] }\n")
	}
	for _, c := range found {
		comment(&b, "  ", c.note)
		comment(&b, "  ", c.name+"-live is its interactive session in the pane: you can type into\n"+
			"it (i), it stays open, so a worker on it settles on its files.")
		fmt.Fprintf(&b, "  %s: { command: %s }\n", c.name, yamlArgv(c.headless))
		fmt.Fprintf(&b, "  %s-live: { command: %s }\n", c.name, yamlArgv(c.live))
	}
	b.WriteString(`
defaults:
  max_attempts: 2         # an attempt that ends without its result is retried once
  timeout: 30m            # wall clock per attempt
  stop_grace: 5s          # SIGTERM, then SIGKILL this long after
  attention_after: 1m     # the UI flags a running pane quiet this long

workers:
`)
	if len(found) == 0 {
		b.WriteString(`  - id: hello
    provider: shell
    prompt: "mkdir -p out/{worker} && echo hello > {result}"
    completion: { result: "out/{worker}/result.txt" }
`)
		return b.String()
	}
	for _, c := range found {
		fmt.Fprintf(&b, `  - id: %s-agent            # its provider is %s: the id less "-<role>"
    role: agent
    prompt: "Describe the task here. When you are done, write a short summary of what you did to {result}."
    completion: { result: "out/{worker}/summary.md" }
    # An interactive session instead, which stays open once the summary is written:
    # provider: %s-live
    # completion: { result: "out/{worker}/summary.md", settle: on-files }
`, c.name, c.name, c.name)
	}
	return b.String()
}
