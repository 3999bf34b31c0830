// plan.go holds the plan: the plain data a run file becomes once it is
// loaded, validated and given its defaults (runfile.go builds it), and the
// expansion of one worker's templates for one attempt. Nothing here touches a
// process or the terminal, so tests check plans as values.
//
// Data model: a Plan has Workers in roster order; each WorkerSpec still holds
// templates ("{worker}", "{attempt}", ...). AttemptPlan is a WorkerSpec with
// every placeholder replaced for attempt n: argv, environment, prompt text and
// the completion and write-policy paths, all relative to the workspace.
package runfile

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SurfaceKind names where an attempt runs (docs/design.md §Words).
type SurfaceKind string

const (
	SurfacePane    SurfaceKind = "pane"
	SurfaceWrapper SurfaceKind = "wrapper"
)

// Settle modes of completion (docs/runfile.md §completion).
const (
	SettleOnExit  = "on-exit"
	SettleOnFiles = "on-files"
)

// Prompt delivery modes of a provider (docs/runfile.md §Prompt delivery).
const (
	DeliveryArgs = "args"
	DeliveryType = "type"
)

// Isolation modes of a worker: where its attempts run (docs/isolation.md, "Why,
// and when").
const (
	IsolationNone     = "none"     // in the shared workspace
	IsolationWorktree = "worktree" // in a git worktree of its own, on a branch of its own
)

// Where an isolated worker's attempt n > 1 starts (retry_from).
const (
	RetryFromBase = "base" // the run's base commit: every attempt starts clean
	RetryFromLast = "last" // the tree the last attempt left
)

// Themes are the values of the run file's ui.theme, the default first:
// auto follows the outer terminal's background (ROSTRA_THEME overrides).
var Themes = []string{"auto", "dark", "light"}

// Placeholders are the names a template may use between braces (docs/runfile.md §Placeholders).
var Placeholders = []string{
	"run", "worker", "role", "attempt", "prompt", "prompt_file",
	"result", "workspace", "state_dir",
}

// Plan is a validated run file with its defaults applied.
type Plan struct {
	Version   int
	Name      string
	RunFile   string // absolute path of the run file
	Workspace string // absolute
	// GitRoot is the top folder of the git work tree that holds the
	// workspace ("" when none does, or no worker is isolated); Workspace
	// lies at the same place inside each isolated worker's worktree.
	GitRoot        string
	StateDir       string // absolute
	PanesMax       int
	AttentionAfter time.Duration
	Theme          string // ui.theme: one of Themes
	Notify         Notify // the notify section (notify.go)
	SSH            *UISSH // ui.ssh; nil: no SSH server
	Providers      map[string]Provider
	Workers        []WorkerSpec
	// Hosts are the other machines workers may be placed on (hosts.go);
	// nil when the run file names none.
	Hosts map[string]HostSpec
}

// Provider is one CLI the run can drive.
type Provider struct {
	Command          []string
	NoResultExitCode *int
	Delivery         string
	// SandboxRequired marks a provider that runs its CLI with the permission
	// prompts off: its workers must have sandbox: writes (sandbox.go).
	SandboxRequired bool
	// Agent is the agent CLI the command runs (claude, codex, gemini,
	// qwen: docs/agents.md), from the agent key or detected from the
	// command; "" for a plain command.
	Agent string
	// Resume is the command that continues a session ({session}: its
	// id), as the resume key gives it; nil when the key is absent (the
	// agent's built-in one applies), empty for a CLI that cannot resume.
	Resume []string
}

// AgentNone is the agent key's value for a command that is no agent.
const AgentNone = "none"

// Completion says which files finish a worker (docs/runfile.md §completion). Paths are
// templates relative to the workspace.
type Completion struct {
	Result  string
	Aliases []string
	Paths   []string
	Settle  string
	Stable  time.Duration
}

// WorkerSpec is one roster slot with its provider resolved and defaults
// applied. Command, Prompt, Env, Completion and Writes are templates.
type WorkerSpec struct {
	ID               string
	Role             string
	Provider         string
	Prompt           string
	Command          []string
	Delivery         string
	NoResultExitCode *int
	Agent            string // the provider's agent, or the one the worker's own command names; "" for none
	// Resume continues its agent's session ({session}: the id): the
	// provider's resume, else its agent's built-in one (ResumeBuiltIn);
	// empty when it cannot resume (resume.go).
	Resume        []string
	ResumeBuiltIn bool
	Cwd           string // relative to the workspace; "" is the workspace
	Env           map[string]string
	Completion    Completion
	Writes        []string // nil: no write policy, not audited
	Isolation     string   // IsolationNone or IsolationWorktree
	RetryFrom     string   // RetryFromBase or RetryFromLast; only with a worktree
	// Worktree, Branch and Workspace are set for an isolated worker:
	// its git worktree (<state_dir>/worktrees/<id>), the branch checked
	// out there (rostra/<run>/<id>), and where it runs inside it (its
	// workspace). Workspace is "" for a worker of the shared workspace.
	Worktree     string
	Branch       string
	Workspace    string
	Surfaces     []SurfaceKind
	MaxAttempts  int
	Timeout      time.Duration
	IdleTimeout  time.Duration
	RetryBackoff time.Duration
	StopGrace    time.Duration
	// Sandbox is SandboxNone or SandboxWrites (docs/sandbox.md);
	// SandboxWrites are the folders it may write besides its own
	// (absolute), SandboxFallback SandboxFallbackNone or "". SandboxAt is
	// where the sandbox was set (its Message empty), for a problem found
	// once the kernel is asked.
	Sandbox         string
	SandboxWrites   []string
	SandboxFallback string
	SandboxAt       Problem
	// Host is the host the worker runs on (a key of Plan.Hosts); "" is
	// this machine.
	Host string
}

// Worker returns the spec with the given id.
func (p *Plan) Worker(id string) (*WorkerSpec, bool) {
	for i := range p.Workers {
		if p.Workers[i].ID == id {
			return &p.Workers[i], true
		}
	}
	return nil, false
}

// Isolated reports whether the worker runs in a worktree of its own.
func (w *WorkerSpec) Isolated() bool { return w.Isolation == IsolationWorktree }

// HasIsolated reports whether any worker of the plan has a worktree of its
// own here (a worker on another host has its worktree there).
func (p *Plan) HasIsolated() bool {
	return slices.ContainsFunc(p.Workers, func(w WorkerSpec) bool { return w.Isolated() && !w.Remote() })
}

// WorkspaceOf is where w runs and its files are looked for: its place in
// its worktree, or the shared workspace.
func (p *Plan) WorkspaceOf(w *WorkerSpec) string {
	if w.Workspace != "" {
		return w.Workspace
	}
	return p.Workspace
}

// WorktreeBranch is the branch an isolated worker's worktree has checked out.
func WorktreeBranch(run, worker string) string { return "rostra/" + run + "/" + worker }

// WorktreesDir is the folder of the state dir that holds the worktrees.
const WorktreesDir = "worktrees"

// WorktreePath is where an isolated worker's worktree is made.
func WorktreePath(stateDir, worker string) string {
	return filepath.Join(stateDir, WorktreesDir, worker)
}

// PlaceWorktrees gives each isolated worker its worktree, branch and
// workspace (rel, the workspace's place in the git work tree root, is the
// same in each worktree).
func (p *Plan) PlaceWorktrees(root, rel string) {
	p.GitRoot = root
	for i := range p.Workers {
		w := &p.Workers[i]
		if !w.Isolated() || w.ID == "" {
			continue
		}
		if w.Remote() {
			// Its worktree is on its host; its branch comes here.
			w.Branch = WorktreeBranch(p.Name, w.ID)
			continue
		}
		w.Worktree = WorktreePath(p.StateDir, w.ID)
		w.Branch = WorktreeBranch(p.Name, w.ID)
		w.Workspace = filepath.Join(w.Worktree, rel)
	}
}

// AttemptDir is where attempt n of a worker keeps its files.
func (p *Plan) AttemptDir(worker string, attempt int) string {
	return filepath.Join(p.StateDir, "attempts", worker, strconv.Itoa(attempt))
}

// AttemptPlan is one worker's templates expanded for one attempt.
type AttemptPlan struct {
	Worker     string
	Attempt    int
	DispatchID string
	Workspace  string // absolute: where the paths below are relative to
	Argv       []string
	Dir        string            // absolute working directory
	Env        map[string]string // the worker's env, expanded
	Prompt     string            // expanded prompt text
	PromptFile string            // absolute
	OutputLog  string            // absolute
	StatusFile string            // absolute
	Result     string            // relative to the workspace; "" when none
	Aliases    []string
	Paths      []string
	Writes     []string // nil when the worker is not audited
}

// ExpectsFiles reports whether the attempt has completion files to look
// for; one without any completes on exit code 0 alone.
func (ap *AttemptPlan) ExpectsFiles() bool {
	return ap.Result != "" || len(ap.Paths) > 0
}

// DispatchID names attempt n of a worker in rows and events.
func DispatchID(worker string, attempt int) string {
	return worker + "#" + strconv.Itoa(attempt)
}

// Expand replaces every placeholder of w's templates for attempt n.
// {workspace} is the worker's own: its place in its worktree when it is
// isolated.
func (p *Plan) Expand(w *WorkerSpec, attempt int) (AttemptPlan, error) {
	dir := p.AttemptDir(w.ID, attempt)
	ws := p.WorkspaceOf(w)
	vars := map[string]string{
		"run":         p.Name,
		"worker":      w.ID,
		"role":        w.Role,
		"attempt":     strconv.Itoa(attempt),
		"workspace":   ws,
		"state_dir":   p.StateDir,
		"prompt_file": filepath.Join(dir, "prompt.txt"),
	}
	ap := AttemptPlan{
		Worker:     w.ID,
		Attempt:    attempt,
		DispatchID: DispatchID(w.ID, attempt),
		Workspace:  ws,
		Dir:        filepath.Join(ws, w.Cwd),
		PromptFile: vars["prompt_file"],
		OutputLog:  filepath.Join(dir, "output.log"),
		StatusFile: filepath.Join(dir, "status.json"),
	}
	var err error
	expand := func(field, s string) string {
		out, e := ExpandTemplate(s, vars)
		if e != nil && err == nil {
			err = fmt.Errorf("worker %s: %s: %w", w.ID, field, e)
		}
		return out
	}
	// result first: the prompt and the command may name it.
	ap.Result = filepath.Clean(expand("completion.result", w.Completion.Result))
	if w.Completion.Result == "" {
		ap.Result = ""
	}
	vars["result"] = ap.Result
	ap.Prompt = expand("prompt", w.Prompt)
	vars["prompt"] = ap.Prompt
	for _, a := range w.Command {
		ap.Argv = append(ap.Argv, expand("command", a))
	}
	ap.Env = make(map[string]string, len(w.Env))
	for k, v := range w.Env {
		ap.Env[k] = expand("env."+k, v)
	}
	for _, a := range w.Completion.Aliases {
		ap.Aliases = append(ap.Aliases, filepath.Clean(expand("completion.aliases", a)))
	}
	for _, a := range w.Completion.Paths {
		ap.Paths = append(ap.Paths, filepath.Clean(expand("completion.paths", a)))
	}
	if w.Writes != nil {
		ap.Writes = []string{}
		for _, g := range w.Writes {
			ap.Writes = append(ap.Writes, expand("writes", g))
		}
	}
	return ap, err
}

// ExpandTemplate replaces each {name} in s by vars[name]. A name that is not
// a placeholder, or a brace left open, is an error; "{{" and "}}" stand for
// literal braces.
func ExpandTemplate(s string, vars map[string]string) (string, error) {
	if !strings.ContainsAny(s, "{}") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return s, fmt.Errorf("unclosed placeholder in %q", s)
			}
			name := s[i+1 : i+1+end]
			v, ok := vars[name]
			if !ok {
				return s, fmt.Errorf("unknown placeholder {%s}", name)
			}
			b.WriteString(v)
			i += end + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// TemplateNames lists the placeholder names s uses, for validation.
func TemplateNames(s string) (names []string, err error) {
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "{{"), strings.HasPrefix(s[i:], "}}"):
			i++
		case s[i] == '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return names, fmt.Errorf("unclosed placeholder in %q", s)
			}
			names = append(names, s[i+1:i+1+end])
			i += end + 1
		}
	}
	return names, nil
}
