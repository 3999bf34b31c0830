// completion.go wires `rostra completion bash|zsh|fish`: a completion
// script for the shell, made from the command table (main.go), so a new
// command or flag completes as soon as it is in the table.
//
// Data model: each command's synopsis is read into its flags (those that
// take a value say so, as `[--size 120x40]` does; flag alternatives are
// split at " | ") and the kind of its arguments: RUNFILE completes *.yaml and *.yml
// files, PATH those and folders (a run file or a state dir), LOG any file,
// a|b|c one of the words, WORKER the worker ids of the run (the scripts
// ask the hidden `rostra __workers [--run PATH]`, which reads them from the
// run's server, its state or its run file); TEXT is typed.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// cmdSpec is what completion knows of a command.
type cmdSpec struct {
	name, what string
	flags      []flagSpec
	args       argKind
	words      []string // argWords: the choices
}

type flagSpec struct {
	name  string // with its dashes: --headless, -f
	value bool   // takes a value
	path  bool   // the value is a PATH (a run file or a state dir)
}

type argKind int

const (
	argNone argKind = iota
	argRunFile
	argPath // a run file or a state dir
	argFile
	argWords
	argWorker // a worker id of the run, first of the arguments
)

// workersMode is the hidden command the completion scripts run for the
// worker ids of a run.
const workersMode = "__workers"

var (
	bracketed       = regexp.MustCompile(`\[([^\]]*)\]`)
	wordsInSynopsis = regexp.MustCompile(`^[a-z]+(\|[a-z]+)+$`)
)

// specs reads the command table.
func specs() []cmdSpec {
	var out []cmdSpec
	for _, c := range commands {
		if c.group == groupHidden {
			continue
		}
		s := cmdSpec{name: c.name, what: c.what}
		// The synopsis less its flags (read into s.flags on the way) is
		// its arguments.
		positional := strings.Fields(bracketed.ReplaceAllStringFunc(c.synopsis, func(group string) string {
			inner := strings.Trim(group, "[]")
			if !strings.HasPrefix(inner, "-") {
				return inner // an optional argument, as [PATH]
			}
			for _, alt := range strings.Split(inner, " | ") { // flags one of which is given; "a|b" is a value
				f := strings.Fields(alt)
				if len(f) > 0 {
					s.flags = append(s.flags, flagSpec{name: f[0], value: len(f) > 1, path: len(f) > 1 && f[1] == "PATH"})
				}
			}
			return ""
		}))
		for _, tok := range positional {
			switch {
			case tok == "RUNFILE":
				s.args = argRunFile
			case tok == "PATH":
				s.args = argPath
			case tok == "LOG":
				s.args = argFile
			case tok == "WORKER":
				s.args = argWorker
			case wordsInSynopsis.MatchString(tok):
				s.args, s.words = argWords, strings.Split(tok, "|")
			}
		}
		out = append(out, s)
	}
	return out
}

const completionUsage = "usage: rostra completion bash|zsh|fish\n\n" +
	"Prints the shell's completion script. To use it now:\n" +
	"  bash: source <(rostra completion bash)\n" +
	"  zsh:  source <(rostra completion zsh)     (after compinit)\n" +
	"  fish: rostra completion fish | source\n" +
	"For every new shell, add that line to ~/.bashrc or ~/.zshrc, or write\n" +
	"the fish script to ~/.config/fish/completions/rostra.fish.\n"

func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, completionUsage)
		return 2
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, bashCompletion(specs()))
	case "zsh":
		fmt.Fprint(stdout, zshCompletion(specs()))
	case "fish":
		fmt.Fprint(stdout, fishCompletion(specs()))
	case "-h", "--help":
		fmt.Fprint(stdout, completionUsage)
	default:
		fmt.Fprintf(stderr, "rostra completion: no completion for the shell %q; bash, zsh and fish have one\n%s", args[0], completionUsage)
		return 2
	}
	return 0
}

func bashCompletion(cmds []cmdSpec) string {
	var b strings.Builder
	names := []string{"--help", "--version"}
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, `# bash completion for rostra: source <(rostra completion bash)
# _rostra_workers completes the run's worker ids (of --run PATH if given),
# as the first argument only.
_rostra_workers() {
	local i run=() n=0
	for ((i = 2; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--run) run=(--run "${COMP_WORDS[i+1]}"); ((i++)) ;;
		--color|--size) ((i++)) ;;
		-*) ;;
		*) ((n++)) ;;
		esac
	done
	((n == 0)) && COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" `+workersMode+` "${run[@]}" 2>/dev/null)" -- "$cur"))
}
_rostra() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W %q -- "$cur"))
		return
	fi
	case ${COMP_WORDS[1]} in
`, strings.Join(names, " "))
	const (
		runFiles = `$(compgen -d -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -f -X '!*.yml' -- "$cur")`
		anyFile  = `$(compgen -f -- "$cur")`
	)
	for _, c := range cmds {
		var flags, valued, paths []string
		for _, f := range c.flags {
			flags = append(flags, f.name)
			switch {
			case f.path:
				paths = append(paths, f.name)
			case f.value:
				valued = append(valued, f.name)
			}
		}
		fmt.Fprintf(&b, "\t%s)\n", c.name)
		if len(paths) > 0 {
			fmt.Fprintf(&b, "\t\tcase $prev in %s) COMPREPLY=(%s); return ;; esac\n", strings.Join(paths, "|"), runFiles)
		}
		if len(valued) > 0 {
			fmt.Fprintf(&b, "\t\tcase $prev in %s) return ;; esac\n", strings.Join(valued, "|"))
		}
		if len(flags) > 0 {
			fmt.Fprintf(&b, "\t\tif [[ $cur == -* ]]; then\n\t\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n", strings.Join(flags, " "))
		}
		switch c.args {
		case argRunFile, argPath:
			fmt.Fprintf(&b, "\t\tCOMPREPLY=(%s)\n", runFiles)
		case argFile:
			fmt.Fprintf(&b, "\t\tCOMPREPLY=(%s)\n", anyFile)
		case argWords:
			fmt.Fprintf(&b, "\t\t((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", strings.Join(c.words, " "))
		case argWorker:
			b.WriteString("\t\t_rostra_workers\n")
		}
		b.WriteString("\t\t;;\n")
	}
	b.WriteString("\tesac\n}\ncomplete -o filenames -F _rostra rostra\n")
	return b.String()
}

// zshQuote quotes s for zsh in single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func zshCompletion(cmds []cmdSpec) string {
	var b strings.Builder
	b.WriteString(`#compdef rostra
# zsh completion for rostra: source <(rostra completion zsh) after compinit,
# or save it as _rostra in a folder of $fpath.
_rostra_workers() {
	local -a ws run
	local i=${words[(i)--run]}
	((i < CURRENT)) && run=(--run ${words[i+1]})
	ws=(${(f)"$(rostra ` + workersMode + ` $run 2>/dev/null)"})
	compadd -a ws
}
_rostra() {
	local -a commands
	commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t\t%s\n", zshQuote(c.name+":"+strings.ReplaceAll(c.what, ":", `\:`)))
	}
	b.WriteString(`	)
	if ((CURRENT == 2)); then
		_describe -t commands 'rostra command' commands
		return
	fi
	case $words[2] in
`)
	for _, c := range cmds {
		var specs []string
		for _, f := range c.flags {
			spec := f.name
			switch {
			case f.path:
				spec += `:run file or state dir:_files -g "*.(yaml|yml)(-.)"`
			case f.value:
				spec += ":" + strings.TrimLeft(f.name, "-") + ":"
			}
			specs = append(specs, zshQuote(spec))
		}
		switch c.args {
		case argRunFile:
			specs = append(specs, zshQuote(`*:run file:_files -g "*.(yaml|yml)(-.)"`))
		case argPath:
			specs = append(specs, zshQuote(`*:run file or state dir:_files -g "*.(yaml|yml)(-.)"`))
		case argFile:
			specs = append(specs, zshQuote(`*:file:_files`))
		case argWords:
			specs = append(specs, zshQuote("1:"+c.name+":("+strings.Join(c.words, " ")+")"))
		case argWorker:
			specs = append(specs, zshQuote("1:worker:_rostra_workers"))
		}
		if len(specs) == 0 {
			fmt.Fprintf(&b, "\t%s) ;;\n", c.name)
			continue
		}
		fmt.Fprintf(&b, "\t%s) _arguments %s ;;\n", c.name, strings.Join(specs, " "))
	}
	b.WriteString("\tesac\n}\nif [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n\t_rostra \"$@\"\nelse\n\tcompdef _rostra rostra\nfi\n")
	return b.String()
}

func fishCompletion(cmds []cmdSpec) string {
	var b strings.Builder
	b.WriteString("# fish completion for rostra: rostra completion fish | source\ncomplete -c rostra -f\n")
	b.WriteString(`function __rostra_workers
	set -l args (commandline -opc)
	set -l run
	if set -l i (contains -i -- --run $args)
		set run --run $args[(math $i + 1)]
	end
	rostra ` + workersMode + ` $run 2>/dev/null
end
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c rostra -n '__fish_use_subcommand' -a %s -d %s\n", c.name, zshQuote(c.what))
	}
	b.WriteString("complete -c rostra -n '__fish_use_subcommand' -l help -d 'print the help'\n")
	b.WriteString("complete -c rostra -n '__fish_use_subcommand' -l version -d \"print rostra's version\"\n")
	for _, c := range cmds {
		on := "-n '__fish_seen_subcommand_from " + c.name + "'"
		for _, f := range c.flags {
			opt := "-l " + strings.TrimPrefix(f.name, "--")
			if !strings.HasPrefix(f.name, "--") {
				opt = "-s " + strings.TrimPrefix(f.name, "-")
			}
			fmt.Fprintf(&b, "complete -c rostra %s %s", on, opt)
			switch {
			case f.path:
				b.WriteString(" -r -F")
			case f.value:
				b.WriteString(" -x")
			}
			b.WriteString("\n")
		}
		switch c.args {
		case argRunFile, argPath, argFile:
			fmt.Fprintf(&b, "complete -c rostra %s -F\n", on)
		case argWords:
			fmt.Fprintf(&b, "complete -c rostra %s -a %s\n", on, zshQuote(strings.Join(c.words, " ")))
		case argWorker:
			fmt.Fprintf(&b, "complete -c rostra %s -a '(__rostra_workers)'\n", on)
		}
	}
	return b.String()
}

// runWorkers is `rostra __workers [--run PATH] [PATH]`: the worker ids of
// the run, one a line, for the completion scripts: from its server when
// one runs, else its team-state.json, else its run file. Quiet: a
// completion has nowhere to say why it has nothing.
func runWorkers(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd(workersMode, "usage: rostra "+workersMode+" [--run PATH] [PATH]\n", io.Discard)
	rest, code, ok := c.parseFlags(args)
	if !ok {
		return code
	}
	ref, err := runRefFrom(*c.runFlag, rest)
	if err != nil {
		return 2
	}
	var ids []string
	if r, err := resolveRun(ref); err == nil {
		if cc, err := server.Control(r.stateDir); err == nil {
			rep, err := cc.Do(server.Request{Op: server.OpStatus})
			cc.Close()
			if err == nil && rep.State != nil {
				for _, w := range rep.State.Workers {
					ids = append(ids, w.WorkerID)
				}
			}
		}
		if st, _ := statedir.ReadTeamState(r.stateDir); ids == nil && st != nil {
			for _, w := range st.Workers {
				ids = append(ids, w.WorkerID)
			}
		}
	}
	if ids == nil {
		file := ref
		if file == "" {
			file = defaultRunFile
		}
		if fi, err := os.Stat(file); err == nil && fi.IsDir() {
			file += "/" + defaultRunFile
		}
		plan, err := runfile.Load(file)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return 1
		}
		if plan != nil {
			for _, w := range plan.Workers {
				ids = append(ids, w.ID)
			}
		}
	}
	for _, id := range ids {
		fmt.Fprintln(stdout, id)
	}
	return 0
}
