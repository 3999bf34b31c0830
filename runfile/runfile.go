// runfile.go is the run-file schema (docs/runfile.md): Load reads a run file through
// the YAML reader (runfile_yaml.go), checks every key and rule against the
// schema, and fills in the defaults to make a Plan.
//
// Load returns either a Plan or a *ValidationError holding every Problem,
// sorted by position. Reading the file itself can fail with an ordinary error.
package runfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/internal/regular"
)

// Defaults of docs/runfile.md, applied when the run file leaves a key out.
const (
	DefaultPanesMax       = 8
	DefaultMaxAttempts    = 3
	DefaultTimeout        = 30 * time.Minute
	DefaultIdleTimeout    = time.Duration(0)
	DefaultRetryBackoff   = 2 * time.Second
	DefaultStopGrace      = 5 * time.Second
	DefaultAttentionAfter = 30 * time.Second
	DefaultStable         = 500 * time.Millisecond
)

// DefaultSurfaces is the runtime chain a worker gets when none is given.
var DefaultSurfaces = []SurfaceKind{SurfacePane, SurfaceWrapper}

// Load reads, validates and completes the run file at path. A bad run file
// gives a *ValidationError; an unreadable one gives the file-system error.
func Load(path string) (*Plan, error) {
	data, size, err := regular.ReadCapped(path, maxRunFileSize)
	if err != nil {
		return nil, fmt.Errorf("read run file: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("run file %s: %w", path, err)
	}
	l := &loader{file: path, runFile: abs}
	l.home, _ = os.UserHomeDir()
	var plan *Plan
	if size > maxRunFileSize {
		l.add(nil, "", "the run file is %d bytes; a run file is at most %d bytes", size, maxRunFileSize)
	} else {
		plan = l.load(data)
	}
	if len(l.problems) > 0 {
		return nil, l.validationError()
	}
	return plan, nil
}

var (
	namePattern = regexp.MustCompile(`^[a-z0-9._-]{1,64}$`)

	runKeys      = []string{"version", "name", "workspace", "state_dir", "panes", "ui", "notify", "providers", "defaults", "workers", "hosts"}
	panesKeys    = []string{"max"}
	uiKeys       = []string{"theme", "ssh"}
	providerKeys = []string{"command", "no_result_exit_code", "delivery", "sandbox_required", "agent", "resume"}
	defaultsKeys = append([]string{"surfaces", "max_attempts", "timeout", "idle_timeout", "retry_backoff", "stop_grace", "attention_after", "isolation", "host"},
		sandboxKeys...)
	workerKeys = append([]string{
		"id", "role", "provider", "prompt", "command", "cwd", "env", "completion", "writes",
		"surfaces", "max_attempts", "timeout", "idle_timeout", "retry_backoff", "stop_grace",
		"isolation", "retry_from", "host",
	}, sandboxKeys...)
	completionKeys = []string{"result", "aliases", "paths", "settle", "stable"}
)

// validName is docs/runfile.md's [a-z0-9._-]{1,64} for run names and worker ids,
// less "." and "..": both become path elements of the state dir, where they
// would name the folder itself or its parent.
func validName(s string) bool {
	return namePattern.MatchString(s) && s != "." && s != ".."
}

func nameProblem(what, s string) string {
	if s == "." || s == ".." {
		return fmt.Sprintf("%q is not a valid %s: as a folder name it means this folder or its parent; add letters or digits", s, what)
	}
	return fmt.Sprintf("%q is not a valid %s; use 1-64 of a-z, 0-9, '.', '_' and '-'", s, what)
}

// template checks the placeholders of one template. forbidden maps names
// that are placeholders but not usable here to the reason.
func (l *loader) template(v val, s string, forbidden map[string]string) bool {
	names, err := TemplateNames(s)
	if err != nil {
		l.addAt(v, "a placeholder is not closed in %q; close it with } or write {{ for a literal brace", s)
		return false
	}
	ok := true
	for _, name := range names {
		if why, bad := forbidden[name]; bad {
			l.addAt(v, "{%s} cannot be used here: %s", name, why)
			ok = false
			continue
		}
		if !slices.Contains(Placeholders, name) {
			msg := fmt.Sprintf("unknown placeholder {%s}", name)
			if near := nearest(name, Placeholders); near != "" {
				msg += fmt.Sprintf(" (did you mean {%s}?)", near)
			}
			known := make([]string, len(Placeholders))
			for i, p := range Placeholders {
				known[i] = "{" + p + "}"
			}
			l.addAt(v, "%s; use one of %s, or {{ and }} for literal braces", msg, strings.Join(known, ", "))
			ok = false
		}
	}
	return ok
}

// runDefaults are the keys a worker may set and `defaults` sets for all.
type runDefaults struct {
	Surfaces     []SurfaceKind
	MaxAttempts  int
	Timeout      time.Duration
	IdleTimeout  time.Duration
	RetryBackoff time.Duration
	StopGrace    time.Duration
	Isolation    string
	isolationAt  val // where isolation was set; its n is nil when it was not
	Sandbox      sandboxSettings
	Host         string // "" for local
	hostAt       val
}

// overrides applies the keys of m that set runDefaults to d.
func (l *loader) overrides(m map[string]val, d runDefaults) runDefaults {
	if s, v, ok := l.optStr(m, "isolation"); ok {
		if s != IsolationNone && s != IsolationWorktree {
			l.addAt(v, "unknown isolation %q; use worktree (a git worktree per worker) or none (the shared workspace)", s)
		} else {
			d.Isolation, d.isolationAt = s, v
		}
	}
	if s, v, ok := l.optStr(m, "host"); ok {
		if s == LocalHost {
			s = ""
		}
		d.Host, d.hostAt = s, v
	}
	if v, ok := m["surfaces"]; ok {
		if s, ok := l.surfaces(v); ok {
			d.Surfaces = s
		}
	}
	d.Sandbox = l.sandbox(m, d.Sandbox)
	if n, v, ok := l.optInt(m, "max_attempts"); ok {
		if n < 1 {
			l.addAt(v, "must be 1 or more (the first attempt counts), got %d", n)
		} else {
			d.MaxAttempts = n
		}
	}
	for key, dst := range map[string]*time.Duration{
		"timeout": &d.Timeout, "idle_timeout": &d.IdleTimeout,
		"retry_backoff": &d.RetryBackoff, "stop_grace": &d.StopGrace,
	} {
		if dur, _, ok := l.optDuration(m, key); ok {
			*dst = dur
		}
	}
	return d
}

func (l *loader) surfaces(v val) ([]SurfaceKind, bool) {
	names, vals, ok := l.strList(v)
	if !ok {
		return nil, false
	}
	if len(names) == 0 {
		l.addAt(v, "the surfaces list is empty; list at least one of pane, wrapper")
		return nil, false
	}
	var out []SurfaceKind
	for i, name := range names {
		k := SurfaceKind(name)
		switch {
		case k != SurfacePane && k != SurfaceWrapper:
			l.addAt(vals[i], "unknown surface %q; use pane or wrapper", name)
			ok = false
		case slices.Contains(out, k):
			l.addAt(vals[i], "surface %q is listed twice; list each once", name)
			ok = false
		default:
			out = append(out, k)
		}
	}
	return out, ok
}

// run checks the top-level mapping and builds the plan from it.
func (l *loader) run(root val) *Plan {
	top, ok := l.fields(root, runKeys)
	if !ok {
		return nil
	}
	p := &Plan{RunFile: l.runFile, PanesMax: DefaultPanesMax, AttentionAfter: DefaultAttentionAfter, Theme: Themes[0]}

	if v, ok := top["version"]; !ok {
		l.add(root.at, "", "version is missing; add version: 1")
	} else if n, ok := l.integer(v); ok {
		if n != 1 {
			l.addAt(v, "unsupported version %d; this rostra reads version 1", n)
		}
		p.Version = n
	}

	if v, ok := top["name"]; !ok {
		l.add(root.at, "", "name is missing; add a name like name: demo")
	} else if s, ok := l.str(v); ok {
		if !validName(s) {
			l.addAt(v, "%s", nameProblem("name", s))
		}
		p.Name = s
	}

	wsRoot := l.workspace(p, top)
	if wsRoot != nil {
		defer wsRoot.Close()
	}
	l.stateDir(p, top)

	if n, v, ok := l.optInt(l.optFields(top, "panes", panesKeys), "max"); ok {
		if n < 0 {
			l.addAt(v, "must be 0 or more (0 runs every worker on its next surface), got %d", n)
		} else {
			p.PanesMax = n
		}
	}

	ui := l.optFields(top, "ui", uiKeys)
	l.uiSSH(p, ui)
	if s, v, ok := l.optStr(ui, "theme"); ok {
		if !slices.Contains(Themes, s) {
			l.addAt(v, "unknown theme %q; use one of: %s", s, strings.Join(Themes, ", "))
		} else {
			p.Theme = s
		}
	}

	l.notify(p, top)
	p.Providers = l.providers(top)
	hostAt := l.hosts(p, top)

	d := runDefaults{
		Surfaces:     DefaultSurfaces,
		MaxAttempts:  DefaultMaxAttempts,
		Timeout:      DefaultTimeout,
		IdleTimeout:  DefaultIdleTimeout,
		RetryBackoff: DefaultRetryBackoff,
		StopGrace:    DefaultStopGrace,
		Isolation:    IsolationNone,
		Sandbox:      sandboxSettings{Mode: SandboxNone},
	}
	if m := l.optFields(top, "defaults", defaultsKeys); m != nil {
		d = l.overrides(m, d)
		if dur, _, ok := l.optDuration(m, "attention_after"); ok {
			p.AttentionAfter = dur
		}
	}

	l.workers(p, top, root, d, wsRoot)
	l.worktrees(p)
	l.checkPlacement(p, hostAt, l.hostAt)
	return p
}

// worktrees gives each isolated worker its worktree, branch and place in
// it, once the workspace is known to lie in a git work tree. The git work
// tree is found as git finds it, by the nearest folder holding .git; that
// git can use it (a commit to start from) is checked when the run starts.
func (l *loader) worktrees(p *Plan) {
	var first *val
	for i := range p.Workers {
		if at := l.isolationAt[i]; p.Workers[i].Isolated() && first == nil {
			first = &at
		}
	}
	if first == nil || p.Workspace == "" || l.realWS == "" {
		return
	}
	root := GitRootOf(l.realWS)
	if root == "" {
		l.addAt(*first, "isolation: worktree needs a git repository at %s; run `git init` there and commit, or use isolation: none", p.Workspace)
		return
	}
	rel, err := filepath.Rel(root, l.realWS)
	if err != nil {
		l.addAt(*first, "the workspace %s cannot be placed in its git repository %s: %v", p.Workspace, root, err)
		return
	}
	p.PlaceWorktrees(root, rel)
	for i, w := range p.Workers {
		if why := refNameProblem(w.Branch); w.Isolated() && why != "" {
			l.addAt(l.isolationAt[i], "its branch %s cannot be a git branch: %s; rename the run or the worker", w.Branch, why)
		}
	}
}

// refNameProblem is why git would refuse name as a branch (git
// check-ref-format's rules that names of [a-z0-9._-] can break), or "".
func refNameProblem(name string) string {
	for _, part := range strings.Split(name, "/") {
		switch {
		case strings.HasPrefix(part, "."):
			return "a part of it starts with a dot"
		case strings.HasSuffix(part, ".lock"):
			return "a part of it ends with .lock"
		}
	}
	switch {
	case strings.Contains(name, ".."):
		return "it holds two dots in a row"
	case strings.HasSuffix(name, "."):
		return "it ends with a dot"
	}
	return ""
}

// GitRootOf is the nearest folder at or above dir that holds .git (a
// folder, or the file of a linked worktree or submodule), "" when none.
func GitRootOf(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// workspace resolves the workspace against the run file's folder and opens
// it as an os.Root, through which paths are checked for symlink escapes. It
// returns nil when the workspace is unusable (a problem is then recorded).
func (l *loader) workspace(p *Plan, top map[string]val) *os.Root {
	ws, at := ".", val{path: "workspace"}
	if v, ok := top["workspace"]; ok {
		s, ok := l.str(v)
		if !ok {
			return nil
		}
		if s == "" {
			l.addAt(v, "is empty; write . for the run file's folder")
			return nil
		}
		ws, at = s, v
	}
	if !filepath.IsAbs(ws) {
		ws = filepath.Join(filepath.Dir(l.runFile), ws)
	}
	p.Workspace = filepath.Clean(ws)
	fi, err := os.Stat(p.Workspace)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.addAt(at, "workspace %s does not exist; create it or fix the path (relative paths start at the run file's folder)", p.Workspace)
		return nil
	case err != nil:
		l.addAt(at, "workspace %s cannot be used: %v", p.Workspace, err)
		return nil
	case !fi.IsDir():
		l.addAt(at, "workspace %s is not a directory", p.Workspace)
		return nil
	}
	if real, err := filepath.EvalSymlinks(p.Workspace); err == nil {
		l.realWS = real
	}
	r, err := os.OpenRoot(p.Workspace)
	if err != nil {
		l.addAt(at, "workspace %s cannot be opened: %v", p.Workspace, err)
		return nil
	}
	return r
}

func (l *loader) stateDir(p *Plan, top map[string]val) {
	if v, ok := top["state_dir"]; ok {
		s, ok := l.str(v)
		if !ok {
			return
		}
		if s == "" {
			l.addAt(v, "is empty; leave the key out for <workspace>/.rostra/<name>")
			return
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(p.Workspace, s)
		}
		p.StateDir = filepath.Clean(s)
		if why := sharedFolder(p.StateDir, p.Workspace); why != "" {
			l.addAt(v, "%s is %s; rostra archives the files of a finished run inside its state dir, so it needs a folder of its own: leave state_dir out for <workspace>/.rostra/<name>, or name a new folder", p.StateDir, why)
		}
		return
	}
	p.StateDir = filepath.Join(p.Workspace, ".rostra", p.Name)
}

// sharedFolder says why dir cannot be a state dir: it is the root, the
// home folder, the workspace or a folder that holds one of them (each
// compared as written and with symlinks resolved); "" when it can be.
func sharedFolder(dir, workspace string) string {
	home, _ := os.UserHomeDir()
	for _, c := range []struct{ path, name string }{
		{"/", "the root folder"},
		{home, "the home folder"},
		{workspace, "the workspace"},
	} {
		if c.path == "" {
			continue
		}
		for _, d := range []string{dir, Resolved(dir)} {
			for _, p := range []string{c.path, Resolved(c.path)} {
				switch {
				case d == p:
					return c.name
				case strictlyInside(p, d):
					return "a folder that holds " + c.name + " (" + p + ")"
				}
			}
		}
	}
	return ""
}

// Resolved is path with the symlinks of its existing part resolved.
func Resolved(path string) string {
	missing := ""
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, missing)
		}
		if p == filepath.Dir(p) {
			return filepath.Clean(path)
		}
		missing = filepath.Join(filepath.Base(p), missing)
	}
}

// strictlyInside reports whether path lies inside dir and is not dir.
func strictlyInside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (l *loader) providers(top map[string]val) map[string]Provider {
	out := map[string]Provider{}
	v, ok := top["providers"]
	if !ok {
		return out
	}
	es, ok := l.entries(v)
	if !ok {
		return out
	}
	for _, e := range es {
		if e.key == "" {
			l.add(e.at, v.path, "a provider needs a name")
			continue
		}
		pr := Provider{Delivery: DeliveryArgs}
		m, ok := l.fields(e.val, providerKeys)
		if !ok {
			continue
		}
		if cv, ok := m["command"]; !ok {
			l.add(e.at, e.val.path, "command is missing; give the argv, like command: [\"claude\", \"-p\", \"{prompt}\"]")
		} else {
			pr.Command = l.command(cv)
		}
		if n, xv, ok := l.optInt(m, "no_result_exit_code"); ok {
			if n < 0 || n > 255 {
				l.addAt(xv, "an exit code is 0 to 255, got %d", n)
			} else {
				pr.NoResultExitCode = &n
			}
		}
		if s, dv, ok := l.optStr(m, "delivery"); ok {
			if s != DeliveryArgs && s != DeliveryType {
				l.addAt(dv, "unknown delivery %q; use one of: args, type", s)
			} else {
				pr.Delivery = s
			}
		}
		pr.SandboxRequired = l.sandboxRequired(m)
		pr.Agent = l.providerAgent(m, pr.Command)
		pr.Resume, _ = l.resumeCommand(m, pr.Agent)
		out[e.key] = pr
	}
	return out
}

// providerAgent is the agent CLI a provider runs (docs/agents.md): its
// agent key, else the one its command names (agents.Detect), else none.
// "none" says a command that looks like an agent is not one to rostra.
func (l *loader) providerAgent(m map[string]val, argv []string) string {
	if s, v, ok := l.optStr(m, "agent"); ok {
		if s == AgentNone {
			return ""
		}
		if a, known := agents.Parse(s); known {
			return string(a)
		}
		names := make([]string, len(agents.Known))
		for i, a := range agents.Known {
			names[i] = string(a)
		}
		l.addAt(v, "unknown agent %q; use one of: %s, or none for a command rostra should not treat as an agent", s, strings.Join(names, ", "))
		return ""
	}
	a, _ := agents.Detect(argv)
	return string(a)
}

// command reads an argv template; its placeholders must be known.
func (l *loader) command(v val) []string {
	argv, vals, ok := l.strList(v)
	if !ok {
		return nil
	}
	if len(argv) == 0 {
		l.addAt(v, "the command is empty; give at least the program, like [\"bash\", \"-c\", \"{prompt}\"]")
		return nil
	}
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			// exec cannot pass it: every attempt would fail to start.
			l.addAt(vals[i], "an argument cannot hold a NUL byte (\\0); remove it")
			continue
		}
		l.template(vals[i], a, nil)
	}
	if argv[0] == "" {
		l.addAt(vals[0], "the program name is empty")
	}
	return argv
}

// workerNodes remembers where a worker's path templates were written, to
// check them once they are expanded.
type workerNodes struct {
	at          val // the worker's id, else its mapping
	provider    val // the provider key, else the id
	result      val
	aliases     []val
	paths       []val
	writes      []val
	cwd         val
	isolation   val  // where its isolation was set (or its default)
	host        val  // where its host was set (or the worker)
	templates   bool // every template of the worker is well formed
	unsupported bool // neither a provider of the run nor a command of its own
}

// unsupported is a worker whose provider the run cannot drive.
type unsupported struct {
	worker, provider string
	at               val
}

func (l *loader) workers(p *Plan, top map[string]val, root val, d runDefaults, ws *os.Root) {
	v, ok := top["workers"]
	if !ok {
		l.add(root.at, "", "workers is missing; add at least one worker under workers:")
		return
	}
	seq, ok := v.n.(*ast.SequenceNode)
	if !ok {
		l.wrongType(v, "a list of workers")
		return
	}
	if len(seq.Values) == 0 {
		l.addAt(v, "no workers; add at least one")
		return
	}
	ids := map[string]val{}
	var nodes []workerNodes
	var missing []unsupported
	for i, item := range seq.Values {
		wv := l.value(item, item, indexPath("workers", i))
		if item == nil {
			wv.at = seq
		}
		w, wn, ok := l.worker(p, wv, d)
		if !ok {
			continue
		}
		if w.ID != "" {
			if first, dup := ids[w.ID]; dup {
				line, _ := position(first.at)
				l.add(wn.at.at, wn.at.path, "duplicate worker id %q (also %s, line %d); give each worker its own id", w.ID, strings.TrimSuffix(first.path, ".id"), line)
			} else {
				ids[w.ID] = wn.at
			}
		}
		if wn.unsupported && w.ID != "" {
			missing = append(missing, unsupported{worker: w.ID, provider: w.Provider, at: wn.provider})
		}
		p.Workers = append(p.Workers, w)
		nodes = append(nodes, wn)
		l.isolationAt = append(l.isolationAt, wn.isolation)
		l.hostAt = append(l.hostAt, wn.host)
	}
	if len(missing) > 0 {
		l.unsupported(missing, p.Providers)
	}
	for i := range p.Workers {
		l.workerPaths(p, &p.Workers[i], nodes[i], ws)
	}
}

// unsupported reports, in one problem, every worker that has neither a
// provider of this run nor a command of its own (the wording is docs/runfile.md's).
func (l *loader) unsupported(ws []unsupported, providers map[string]Provider) {
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	sort.Strings(names)
	supports := strings.Join(names, ", ")
	if supports == "" {
		supports = "none"
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%s (provider %s)", w.worker, w.provider)
	}
	// What to do, with the first one as the example: a provider of its
	// name under providers:, or a command of the worker's own.
	l.add(ws[0].at.at, "workers", "unsupported worker(s): %s (run supports: %s): add the provider under providers: "+
		"(%s: { command: [argv..., {prompt}] }), give the worker a command: of its own, or set its provider: to one the run has",
		strings.Join(parts, ", "), supports, ws[0].provider)
}

// ProviderName is the provider of a worker with no provider key: its id
// with a "-<role>" suffix removed (grok-verifier, role verifier: grok). The
// role itself is never a provider name.
func ProviderName(id, role string) string {
	if role != "" {
		if base, ok := strings.CutSuffix(id, "-"+role); ok && base != "" {
			return base
		}
	}
	return id
}

func (l *loader) worker(p *Plan, wv val, d runDefaults) (WorkerSpec, workerNodes, bool) {
	wn := workerNodes{at: wv, templates: true}
	m, ok := l.fields(wv, workerKeys)
	if !ok {
		return WorkerSpec{}, wn, false
	}
	w := WorkerSpec{Completion: Completion{Settle: SettleOnExit, Stable: DefaultStable}}

	if v, ok := m["id"]; !ok {
		l.addAt(wv, "id is missing; give the worker an id like id: claude-implementer")
	} else if s, ok := l.str(v); ok {
		if !validName(s) {
			l.addAt(v, "%s", nameProblem("worker id", s))
		}
		w.ID = s
		wn.at = v
	}
	wn.provider = wn.at
	explicitRole, _, _ := l.optStr(m, "role")
	// A worker without a role is its own role: the UI and the DEGRADED line
	// always have something to show.
	w.Role = explicitRole
	if w.Role == "" {
		w.Role = w.ID
	}
	w.Provider = ProviderName(w.ID, explicitRole)
	if s, v, ok := l.optStr(m, "provider"); ok {
		if s == "" {
			l.addAt(v, "is empty; name one of the run's providers or leave the key out")
		} else {
			w.Provider = s
			wn.provider = v
		}
	}
	pr, known := p.Providers[w.Provider]
	if known {
		w.Command = slices.Clone(pr.Command)
		w.Delivery = pr.Delivery
		w.NoResultExitCode = pr.NoResultExitCode
		w.Agent = pr.Agent
	} else {
		w.Delivery = DeliveryArgs
	}
	if v, ok := m["command"]; ok {
		w.Command = l.command(v)
		// A command of the worker's own says itself which agent it runs.
		a, _ := agents.Detect(w.Command)
		w.Agent = string(a)
	} else if !known {
		wn.unsupported = true
	}
	// The provider's resume goes with its command, not with a worker's
	// own: the agent's built-in one is made from that.
	if known && pr.Resume != nil && slices.Equal(w.Command, pr.Command) {
		w.Resume = slices.Clone(pr.Resume)
	} else if w.Resume = builtInResume(w.Agent, w.Command); w.Resume != nil {
		w.ResumeBuiltIn = true
	}

	if s, v, ok := l.optStr(m, "prompt"); ok {
		w.Prompt = s
		wn.templates = l.template(v, s, map[string]string{
			"prompt": "the prompt cannot contain itself",
		}) && wn.templates
	}

	if s, v, ok := l.optStr(m, "cwd"); ok && strings.ContainsRune(s, 0) {
		l.addAt(v, "a path cannot hold a NUL byte (\\0); remove it")
	} else if ok {
		w.Cwd = filepath.Clean(s)
		if s == "" || w.Cwd == "." {
			w.Cwd = ""
		}
		wn.cwd = v
	}

	if v, ok := m["env"]; ok {
		if es, ok := l.entries(v); ok {
			w.Env = make(map[string]string, len(es))
			for _, e := range es {
				if e.key == "" || strings.ContainsAny(e.key, "=\x00") {
					l.add(e.at, v.path, "%q is not an environment variable name; use letters, digits and _", e.key)
					continue
				}
				if isNull(e.val) {
					w.Env[e.key] = ""
					continue
				}
				s, ok := l.str(e.val)
				if !ok {
					continue
				}
				if strings.ContainsRune(s, 0) {
					// exec cannot pass it: every attempt would fail to start.
					l.addAt(e.val, "an environment value cannot hold a NUL byte (\\0); remove it")
					continue
				}
				w.Env[e.key] = s
				wn.templates = l.template(e.val, s, nil) && wn.templates
			}
		}
	}

	if v, ok := m["completion"]; ok {
		l.completion(v, &w, &wn)
	}

	if v, ok := m["writes"]; ok {
		globs, vals, ok := l.strList(v)
		if ok {
			w.Writes = globs
			wn.writes = vals
			for i, g := range globs {
				wn.templates = l.template(vals[i], g, pathForbidden) && wn.templates
			}
		} else {
			wn.templates = false
		}
	}

	r := l.overrides(m, d)
	w.Isolation = r.Isolation
	w.Host, wn.host = r.Host, r.hostAt
	if wn.host.n == nil {
		wn.host = wn.at
	}
	wn.isolation = r.isolationAt
	if wn.isolation.n == nil {
		wn.isolation = wn.at
	}
	if s, v, ok := l.optStr(m, "retry_from"); ok {
		switch {
		case s != RetryFromBase && s != RetryFromLast:
			l.addAt(v, "unknown retry_from %q; use base (each retry starts from the run's base commit) or last (from the tree the last attempt left)", s)
		case !w.Isolated():
			l.addAt(v, "retry_from needs isolation: worktree; in the shared workspace a retry starts from whatever is there")
		default:
			w.RetryFrom = s
		}
	}
	if w.Isolated() && w.RetryFrom == "" {
		w.RetryFrom = RetryFromBase
	}
	w.Sandbox, w.SandboxWrites, w.SandboxFallback = r.Sandbox.Mode, r.Sandbox.Writes, r.Sandbox.Fallback
	if w.Sandbox == SandboxWrites {
		line, col := position(r.Sandbox.at.at)
		w.SandboxAt = Problem{File: l.file, Line: line, Col: col, Path: r.Sandbox.at.path}
	}
	l.requireSandbox(&w, pr, r.Sandbox, wn)
	w.Surfaces = slices.Clone(r.Surfaces)
	w.MaxAttempts = r.MaxAttempts
	w.Timeout = r.Timeout
	w.IdleTimeout = r.IdleTimeout
	w.RetryBackoff = r.RetryBackoff
	w.StopGrace = r.StopGrace
	return w, wn, true
}

// pathForbidden are placeholders that make no sense inside a path.
var pathForbidden = map[string]string{
	"prompt": "it is the prompt text, not a path",
}

func (l *loader) completion(v val, w *WorkerSpec, wn *workerNodes) {
	m, ok := l.fields(v, completionKeys)
	if !ok {
		return
	}
	c := &w.Completion
	if s, rv, ok := l.optStr(m, "result"); ok {
		if s == "" {
			l.addAt(rv, "is empty; name the result file, like out/{worker}/result.json, or leave the key out")
		}
		c.Result = s
		wn.result = rv
		// Expand fills {result} and {prompt} only after the result.
		wn.templates = l.template(rv, s, map[string]string{
			"result": "the result path cannot contain itself",
			"prompt": pathForbidden["prompt"],
		}) && wn.templates
	}
	for _, key := range []string{"aliases", "paths"} {
		lv, ok := m[key]
		if !ok {
			continue
		}
		list, vals, ok := l.strList(lv)
		if !ok {
			wn.templates = false
			continue
		}
		for i, s := range list {
			wn.templates = l.template(vals[i], s, pathForbidden) && wn.templates
		}
		if key == "aliases" {
			c.Aliases, wn.aliases = list, vals
			if len(list) > 0 {
				if _, hasResult := m["result"]; !hasResult {
					l.addAt(lv, "aliases stand in for the result; set completion.result too")
				}
			}
		} else {
			c.Paths, wn.paths = list, vals
		}
	}
	if s, sv, ok := l.optStr(m, "settle"); ok {
		if s != SettleOnExit && s != SettleOnFiles {
			l.addAt(sv, "unknown settle %q; use on-exit or on-files", s)
		} else {
			c.Settle = s
		}
	}
	if c.Settle == SettleOnFiles && c.Result == "" && len(c.Paths) == 0 {
		l.addAt(v, "settle: on-files needs files to wait for; set result or paths")
	}
	if d, _, ok := l.optDuration(m, "stable"); ok {
		c.Stable = d
	}
}

// workerPaths checks the worker's paths once expanded for its first
// attempt (the attempt number does not change where a path points): each
// must be relative, stay inside the workspace lexically and, through ws,
// not leave it by a symlink. ws is nil when the workspace is unusable; the
// lexical checks are still made.
func (l *loader) workerPaths(p *Plan, w *WorkerSpec, wn workerNodes, ws *os.Root) {
	if wn.cwd.n != nil && w.Cwd != "" {
		if l.relative(wn.cwd, w.Cwd, "cwd", w.Cwd) && ws != nil {
			fi, err := ws.Stat(w.Cwd)
			switch {
			case err == nil && !fi.IsDir():
				l.addAt(wn.cwd, "%s is not a directory", w.Cwd)
			case errors.Is(err, fs.ErrNotExist):
				l.addAt(wn.cwd, "%s does not exist in the workspace; create it or fix the path", w.Cwd)
			case err != nil:
				l.escapes(wn.cwd, w.Cwd, err, ws)
			}
		}
	}
	if !wn.templates || p.Workspace == "" {
		return // a bad template or workspace is reported; an expansion would mislead
	}
	// The command plays no part in paths, and the provider's may hold a
	// bad placeholder (reported there) that would stop the expansion.
	paths := *w
	paths.Command = nil
	ap, err := p.Expand(&paths, 1)
	if err != nil {
		// Only a bad template fails an expansion, and each one is
		// reported where it was written (the provider's command, say).
		return
	}
	check := func(v val, tmpl, path, what string) {
		if tmpl == "" {
			path = "" // Expand cleans "" to "."
		}
		if l.relative(v, path, what, tmpl) && ws != nil {
			// A path that does not exist yet is fine: the worker creates it.
			if _, err := ws.Stat(path); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				l.escapes(v, path, err, ws)
			}
		}
	}
	if w.Completion.Result != "" {
		check(wn.result, w.Completion.Result, ap.Result, "the result path")
	}
	for i, a := range ap.Aliases {
		check(wn.aliases[i], w.Completion.Aliases[i], a, "an alias")
	}
	for i, a := range ap.Paths {
		check(wn.paths[i], w.Completion.Paths[i], a, "a completion path")
	}
	for i, g := range ap.Writes {
		if g == "" {
			l.addAt(wn.writes[i], "an empty glob; write a pattern like out/**")
			continue
		}
		if err := (WritePolicy{Globs: []string{g}}).Validate(); err != nil {
			l.addAt(wn.writes[i], "%v; write a doublestar pattern like out/** or src/*.go", err)
			continue
		}
		l.relative(wn.writes[i], filepath.Clean(g), "a write glob", w.Writes[i])
	}
}

// relative reports a path (expanded from tmpl) that is absolute or climbs
// out of the workspace.
func (l *loader) relative(v val, path, what, tmpl string) bool {
	clean := filepath.Clean(path)
	switch {
	case path == "":
		l.addAt(v, "%s is empty; name a file inside the workspace", what)
	case filepath.IsAbs(path):
		hint := "drop the leading part up to the workspace"
		for _, name := range []string{"workspace", "state_dir", "prompt_file"} {
			if strings.Contains(tmpl, "{"+name+"}") {
				hint = fmt.Sprintf("{%s} is an absolute path; write the path relative to the workspace instead", name)
				break
			}
		}
		l.addAt(v, "%s must be relative to the workspace, got %s; %s", what, path, hint)
	case clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)):
		l.addAt(v, "%s %s leaves the workspace through ..; keep it inside the workspace", what, path)
	case clean == "." && what != "a write glob":
		l.addAt(v, "%s names the workspace itself; name a file inside it", what)
	default:
		return true
	}
	return false
}

// escapes reports why a path could not be looked up inside the workspace,
// naming the symlink that leads out when there is one.
func (l *loader) escapes(v val, path string, err error, ws *os.Root) {
	parts := strings.Split(filepath.Clean(path), string(filepath.Separator))
	for i := range parts {
		prefix := filepath.Join(parts[:i+1]...)
		fi, lerr := ws.Lstat(prefix)
		if lerr != nil {
			break
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, rerr := ws.Readlink(prefix)
			if rerr == nil {
				if _, serr := ws.Stat(prefix); serr != nil && !errors.Is(serr, fs.ErrNotExist) {
					if filepath.IsAbs(target) && l.insideWorkspace(target) {
						// os.Root, which the engine looks through too,
						// follows no absolute target, even one inside.
						l.addAt(v, "%s goes through the symlink %s -> %s, and an absolute symlink target counts as outside the workspace; make the link relative or keep the path inside the workspace", path, prefix, target)
					} else {
						l.addAt(v, "%s resolves outside the workspace through the symlink %s -> %s; keep it inside the workspace", path, prefix, target)
					}
					return
				}
			}
		}
	}
	if regular.IsEscape(err) {
		l.addAt(v, "%s resolves outside the workspace through a symlink; keep it inside the workspace", path)
		return
	}
	l.addAt(v, "%s cannot be checked in the workspace: %v", path, err)
}

// insideWorkspace tells whether an absolute symlink target lands in the
// workspace, to explain that os.Root refuses it anyway.
func (l *loader) insideWorkspace(target string) bool {
	if l.realWS == "" {
		return false
	}
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	rel, err := filepath.Rel(l.realWS, filepath.Clean(target))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
