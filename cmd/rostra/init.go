// init.go wires `rostra init [--add] [RUNFILE]`: it looks for the agent
// CLIs rostra knows on PATH and writes a commented run file (default
// ./rostra.yaml) with a worker for each one found, never over an existing
// file. --add edits an existing file as text, appending the providers and
// worker of each CLI on PATH it has no provider for to its providers: and
// workers: blocks, so the person's lines and comments stay as written.
//
// Each CLI gets three providers: <cli>, its headless mode (the prompt in, an
// answer out, then it exits), <cli>-live, its interactive session in
// the pane, which a human can type into and which stays open (a worker on
// it settles on its files), and <cli>-yolo, headless with its permission
// prompts off, marked sandbox_required: its workers need sandbox: writes
// (docs/runfile.md, "Sandbox"). The commands were checked against each CLI's
// --help (claude 2.1, codex 0.171, gemini 0.61, qwen 0.15): the prompt is
// always one argument that cannot be read as a flag, even when it starts
// with "-" (after "--", or as --prompt=...).
package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/rostra-dev/rostra/agents"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rostra-dev/rostra/runfile"
)

// agentCLI is an agent CLI init knows.
type agentCLI struct {
	name     string   // the executable, and the headless provider's name
	headless []string // argv that runs one prompt and exits
	live     []string // argv of an interactive session that starts on the prompt
	yolo     []string // headless with its permission prompts off: sandbox_required
	note     string   // a comment above its providers
}

var agentCLIs = []agentCLI{
	{
		name:     "claude",
		headless: []string{"claude", "-p", "--permission-mode", "acceptEdits", "--", "{prompt}"},
		live:     []string{"claude", "--permission-mode", "acceptEdits", "--", "{prompt}"},
		yolo:     []string{"claude", "-p", "--dangerously-skip-permissions", "--", "{prompt}"},
		note: "claude -p prints its answer and exits; acceptEdits lets it edit files\n" +
			"without asking (it still asks before running commands, which -p refuses).",
	},
	{
		name:     "codex",
		headless: []string{"codex", "exec", "--sandbox", "workspace-write", "--skip-git-repo-check", "--", "{prompt}"},
		live:     []string{"codex", "--sandbox", "workspace-write", "--", "{prompt}"},
		yolo:     []string{"codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--", "{prompt}"},
		note: "codex exec runs without asking; workspace-write lets it write in the\n" +
			"workspace only; --skip-git-repo-check lets it run outside a git repository.",
	},
	{
		name:     "gemini",
		headless: []string{"gemini", "--skip-trust", "--approval-mode", "auto_edit", "--prompt={prompt}"},
		live:     []string{"gemini", "--skip-trust", "--approval-mode", "auto_edit", "--prompt-interactive={prompt}"},
		yolo:     []string{"gemini", "--skip-trust", "--approval-mode", "yolo", "--prompt={prompt}"},
		note: "gemini --prompt runs headless; --skip-trust trusts the workspace for the\n" +
			"session (headless gemini refuses an untrusted folder); auto_edit approves edits.",
	},
	{
		name:     "qwen",
		headless: []string{"qwen", "--approval-mode", "auto-edit", "--prompt={prompt}"},
		live:     []string{"qwen", "--approval-mode", "auto-edit", "--prompt-interactive={prompt}"},
		yolo:     []string{"qwen", "--approval-mode", "yolo", "--prompt={prompt}"},
		note: "qwen --prompt runs headless (its positional prompt would take a prompt\n" +
			"starting with - for flags); auto-edit approves edits.",
	},
}

const initUsage = `usage: rostra init [--add] [RUNFILE]

Writes RUNFILE (default ./rostra.yaml): a commented run file with a worker
for each agent CLI found on PATH (claude, codex, gemini, qwen), each with a
headless, an interactive and a -yolo provider (its permission prompts
off, in the sandbox). It never overwrites a file.
--add adds to an existing RUNFILE the providers and the worker of each
agent CLI on PATH it has no provider for, and the -yolo provider of one
it has the others of, and changes nothing else in it (its text and
comments stay as they are).
`

func runInit(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("init", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, initUsage) }
	add := fset.Bool("add", false, "add the agent CLIs on PATH the run file has no provider for")
	rest, err := parseArgs(fset, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	case len(rest) > 1:
		fmt.Fprint(stderr, initUsage)
		return 2
	}
	path := defaultRunFile
	if len(rest) == 1 {
		path = rest[0]
	}
	found, where, missing := agentCLIsOnPath()
	if *add {
		return initAdd(path, found, where, stdout, stderr)
	}
	if _, err := os.Lstat(path); err == nil {
		fmt.Fprintf(stderr, "rostra init: %s already exists; rostra init never overwrites a file: %s adds the agent CLIs on PATH it lacks; or edit it, remove it, or name another (rostra init other.yaml)\n",
			path, initAddCmd(path))
		return 2
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
	if _, err := runfile.Load(path); err != nil {
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
		ids = append(ids, c.workerID())
	}
	fmt.Fprintf(stdout, "wrote %s with %d worker(s): %s.\nWrite their task in the prompts, then: rostra run %s\n", path, len(found), strings.Join(ids, ", "), path)
	return 0
}

// initAddCmd is the --add command line for path.
func initAddCmd(path string) string {
	if path == defaultRunFile {
		return "rostra init --add"
	}
	return "rostra init --add " + shellQuote(path)
}

// agentCLIsOnPath are the agent CLIs init knows that are on PATH (with
// where), and the names of those that are not.
func agentCLIsOnPath() (found []agentCLI, where, missing []string) {
	for _, c := range agentCLIs {
		if p, err := exec.LookPath(c.name); err == nil {
			found = append(found, c)
			where = append(where, p)
		} else {
			missing = append(missing, c.name)
		}
	}
	return found, where, missing
}

// initAdd adds to the run file at path the providers and worker of each
// CLI of found it has no provider for. The file is edited as text: the
// new lines go at the end of its providers: and workers: blocks, so
// every line and comment of it stays as it was.
func initAdd(path string, found []agentCLI, where []string, stdout, stderr io.Writer) int {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "rostra init --add: %s does not exist: rostra init writes it\n", path)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "rostra init --add: %v\n", err)
		return 2
	}
	plan, err := runfile.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "rostra init --add: %s must load before workers are added to it; fix it first:\n%v\n", path, err)
		return 2
	}
	var add, yolo []agentCLI
	var addWhere, yoloWhere []string
	for i, c := range found {
		if _, ok := plan.Providers[c.name]; !ok {
			add, addWhere = append(add, c), append(addWhere, where[i])
		} else if _, ok := plan.Providers[c.name+"-yolo"]; !ok {
			// A file written before rostra knew the sandbox has the CLI's
			// providers but not its -yolo one.
			yolo, yoloWhere = append(yolo, c), append(yoloWhere, where[i])
		}
	}
	if len(add)+len(yolo) == 0 {
		var names []string
		for _, c := range found {
			names = append(names, c.name)
		}
		if len(names) == 0 {
			fmt.Fprintf(stdout, "%s: none of the agent CLIs rostra init knows is on PATH; nothing to add\n", path)
		} else {
			fmt.Fprintf(stdout, "%s already has a provider for each agent CLI on PATH (%s); nothing to add\n", path, strings.Join(names, ", "))
		}
		return 0
	}
	text, ids, err := addAgentCLIs(string(data), add, addWhere, yolo, yoloWhere, func(id string) bool { _, ok := plan.Worker(id); return ok })
	if err != nil {
		fmt.Fprintf(stderr, "rostra init --add: %s: %v\n", path, err)
		return 2
	}
	if err := replaceFile(path, []byte(text)); err != nil {
		fmt.Fprintf(stderr, "rostra init --add: write %s: %v\n", path, err)
		return 1
	}
	if _, err := runfile.Load(path); err != nil {
		// What --add writes must load; put the file back as it was.
		_ = replaceFile(path, data)
		fmt.Fprintf(stderr, "rostra init --add: %s would not load with the workers added (a bug in rostra init); it is left as it was:\n%v\n", path, err)
		return 1
	}
	var names []string
	for _, c := range add {
		names = append(names, c.name)
	}
	for _, c := range yolo {
		names = append(names, c.name+"-yolo")
	}
	fmt.Fprintf(stdout, "added to %s: the providers of %s", path, strings.Join(names, ", "))
	if len(ids) > 0 {
		fmt.Fprintf(stdout, " and the worker(s) %s.\nWrite their task in the prompts", strings.Join(ids, ", "))
	}
	fmt.Fprintf(stdout, ", then: rostra run %s\n", path)
	return 0
}

// topLevelKey is a line that opens a top-level key of a YAML mapping.
var topLevelKey = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*:(.*)$`)

// addAgentCLIs adds the providers of add, and the -yolo provider of each
// of yolo, at the end of text's providers: block, and for add a worker each (unless hasWorker says its id is taken) at the
// end of its workers: block; a block that is missing is added at the end.
// A block written in flow style ({...}, [...]) is not edited: it is an
// error that says what to add by hand.
func addAgentCLIs(text string, add []agentCLI, where []string, yolo []agentCLI, yoloWhere []string, hasWorker func(string) bool) (string, []string, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines[len(lines)-1] += "\n"
	}
	// block finds key's block: the line after its key and the line after
	// its last indented line; the indent of its entries.
	block := func(key string) (start, end int, indent string, ok bool, err error) {
		for i, l := range lines {
			m := topLevelKey.FindStringSubmatch(strings.TrimRight(l, "\r\n"))
			if m == nil || m[1] != key {
				continue
			}
			if v := strings.TrimSpace(m[2]); v != "" && !strings.HasPrefix(v, "#") {
				return 0, 0, "", false, fmt.Errorf("its %s: is written on one line (%s); write it as a block, one entry a line, or add the entries by hand", key, v)
			}
			end = i + 1
		scan:
			for j := i + 1; j < len(lines); j++ {
				t := strings.TrimRight(lines[j], "\r\n")
				switch {
				case strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "#"):
					continue // blank lines and comments belong to what follows
				case t[0] == ' ' || t[0] == '\t' || (key == "workers" && strings.HasPrefix(t, "-")):
					if end == i+1 { // the block's first entry sets the indent
						indent = t[:len(t)-len(strings.TrimLeft(t, " \t"))]
					}
					end = j + 1
					continue
				}
				break scan
			}
			return i + 1, end, indent, true, nil
		}
		return 0, 0, "", false, nil
	}
	var note strings.Builder
	note.WriteString("# Added by `rostra init --add`:\n")
	for i, c := range add {
		fmt.Fprintf(&note, "#   %-7s %s\n", c.name, where[i])
	}
	for i, c := range yolo {
		fmt.Fprintf(&note, "#   %-7s %s (its -yolo provider)\n", c.name, yoloWhere[i])
	}

	_, pEnd, pIndent, pOK, err := block("providers")
	if err != nil {
		return "", nil, err
	}
	var ptext strings.Builder
	if pIndent == "" {
		pIndent = "  "
	}
	for _, l := range strings.Split(strings.TrimRight(note.String(), "\n"), "\n") {
		ptext.WriteString(pIndent + l + "\n")
	}
	for _, c := range add {
		ptext.WriteString(providersText(c, pIndent))
	}
	for _, c := range yolo {
		ptext.WriteString(yoloProviderText(c, pIndent))
	}
	var ids []string
	var wtext strings.Builder
	_, wEnd, wIndent, wOK, err := block("workers")
	if err != nil {
		return "", nil, err
	}
	if !wOK {
		wIndent = "  "
	}
	for _, c := range add {
		if hasWorker(c.workerID()) {
			continue
		}
		ids = append(ids, c.workerID())
		wtext.WriteString(workerText(c, wIndent))
	}

	// Insert the later block first, so the earlier's line numbers hold.
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	if pOK {
		ins = append(ins, insert{pEnd, ptext.String()})
	} else {
		ins = append(ins, insert{len(lines), "\nproviders:\n" + ptext.String()})
	}
	if wtext.Len() > 0 {
		if wOK {
			ins = append(ins, insert{wEnd, wtext.String()})
		} else {
			ins = append(ins, insert{len(lines), "\nworkers:\n" + wtext.String()})
		}
	}
	slices.SortStableFunc(ins, func(a, b insert) int { return b.at - a.at })
	for _, in := range ins {
		lines = slices.Insert(lines, in.at, in.text)
	}
	return strings.Join(lines, ""), ids, nil
}

// replaceFile writes data to path through a temporary file in its folder
// and a rename, keeping path's mode: a reader never sees half of it.
func replaceFile(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
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
		fmt.Fprintf(&b, "# Not found on PATH: %s (once installed, `rostra init --add` adds them).\n", strings.Join(missing, ", "))
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
		b.WriteString(providersText(c, "  "))
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
		b.WriteString(workerText(c, "  "))
	}
	return b.String()
}

// providersText is c's two providers, each key indented by indent, with
// the comments that say what they do.
func providersText(c agentCLI, indent string) string {
	var b strings.Builder
	comment(&b, indent, c.note)
	comment(&b, indent, c.name+"-live is its interactive session in the pane: you can type into\n"+
		"it (i), it stays open, so a worker on it settles on its files.")
	comment(&b, indent, "resume continues a conversation a crash cut off, by its session id\n"+
		"(rostra run --resume; docs/agents.md).")
	fmt.Fprintf(&b, "%s%s: { command: %s, agent: %s,\n%s  resume: %s }\n", indent, c.name, yamlArgv(c.headless), c.name, indent, c.resume(c.headless))
	fmt.Fprintf(&b, "%s%s-live: { command: %s, agent: %s,\n%s  resume: %s }\n", indent, c.name, yamlArgv(c.live), c.name, indent, c.resume(c.live))
	b.WriteString(yoloProviderText(c, indent))
	return b.String()
}

// yoloProviderText is c's -yolo provider, its comment above it.
func yoloProviderText(c agentCLI, indent string) string {
	var b strings.Builder
	comment(&b, indent, c.name+"-yolo asks before nothing (its permission prompts off): its workers\n"+
		"must have sandbox: writes, which has the kernel refuse their writes outside\n"+
		"the worker's folders (docs/sandbox.md).")
	fmt.Fprintf(&b, "%s%s-yolo: { command: %s, agent: %s, sandbox_required: true,\n%s  resume: %s }\n", indent, c.name, yamlArgv(c.yolo), c.name, indent, c.resume(c.yolo))
	return b.String()
}

// workerText is c's worker, a list item whose "- " stands at indent.
func workerText(c agentCLI, indent string) string {
	in := indent + "  "
	return fmt.Sprintf(`%s- id: %s            # its provider is %s: the id less "-<role>"
%srole: agent
%sprompt: "Describe the task here. When you are done, write a short summary of what you did to {result}."
%scompletion: { result: "out/{worker}/summary.md" }
%s# An interactive session instead, which stays open once the summary is written:
%s# provider: %s-live
%s# completion: { result: "out/{worker}/summary.md", settle: on-files }
%s# Or with its permission prompts off, in the kernel's sandbox:
%s# provider: %s-yolo
%s# sandbox: writes
`, indent, c.workerID(), c.name, in, in, in, in, in, c.name, in, in, in, c.name, in)
}

// workerID is the id of the worker init writes for c.
func (c agentCLI) workerID() string { return c.name + "-agent" }

// resume is the resume key init writes for a provider of c running argv:
// its agent's built-in one, written out (agents.ResumeCommand).
func (c agentCLI) resume(argv []string) string {
	a, _ := agents.Parse(c.name)
	return yamlArgv(agents.ResumeCommand(a, argv))
}
