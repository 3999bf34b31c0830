// part.go runs one host's part of a run and mirrors it into the local
// engine (docs/remote.md §One roster over many hosts).
//
// At the start: the host is probed (rostra, git, the workspace), the
// local HEAD is pushed to refs/rostra/base/<run> in the host's
// repository, a worktree of that commit is made (or kept, on --resume)
// at <repo>/.rostra/parts/<run>/tree, the part-run file written next to
// it (runfile.PartFile: the host's workers only, its state dir
// <repo>/.rostra/parts/<run>/state) and `rostra run --detach` started on
// it there; a part whose server already runs is attached to as it is. A
// start that fails fails the host's workers notStarted with what the
// host (or ssh) said and is tried again after their retry_backoff while
// their max_attempts allow.
//
// Then the part's server is joined in view mode over the bridge (pane.go):
// it pushes its state each time it changes, and each of its workers' rows
// and dispatch rows is copied into the engine (engine.Mirror) as it
// changes, once an attempt's commit has been fetched home as
// rostra/<run>/<worker>. The same link carries the panes, which the
// local grid draws and types into. A link that drops is dialled again
// (server.Multi's backoff); the part goes on meanwhile, and the link's
// first View catches the rows up.
package hosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/transport"
	"github.com/rostra-dev/rostra/workspace"
)

// Options are what the parts are given besides the plan.
type Options struct {
	// Activity wakes the UIs when a remote pane's terminal changes.
	Activity *vt.Activity
	// Resume: the local run is resumed, so a part found stopped there is
	// resumed too (rather than started afresh).
	Resume bool
	// Log takes one line per thing worth knowing (a link lost, a fetch
	// that failed); nil: discarded.
	Log io.Writer
}

// Parts are the parts of one run: engine.Parts.
type Parts struct {
	plan  *runfile.Plan
	opts  Options
	parts []*part
	stop  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
	ran   atomic.Bool
}

// New is the parts of plan, nil when no worker is placed on another host.
func New(plan *runfile.Plan, opts Options) *Parts {
	names := plan.HostNames()
	if len(names) == 0 {
		return nil
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	ps := &Parts{plan: plan, opts: opts, stop: make(chan struct{})}
	for _, n := range names {
		p := &part{ps: ps, name: n, t: NewTransport(plan.Hosts[n]), fetched: map[string]string{}, started: make(chan struct{})}
		for i := range plan.Workers {
			if plan.Workers[i].Host == n {
				p.workers = append(p.workers, &plan.Workers[i])
			}
		}
		ps.parts = append(ps.parts, p)
	}
	return ps
}

// Run implements engine.Parts.
func (ps *Parts) Run(m engine.Mirror) {
	ps.ran.Store(true)
	for _, p := range ps.parts {
		p.m = m
		ps.wg.Add(1)
		go func() {
			defer ps.wg.Done()
			p.run()
		}()
	}
}

// Stop implements engine.Parts: every part is stopped at once, each
// waited for at most stopWithin.
func (ps *Parts) Stop(reason string) {
	ps.once.Do(func() { close(ps.stop) })
	if !ps.ran.Load() {
		return // never run: nothing was started
	}
	var wg sync.WaitGroup
	for _, p := range ps.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stopPart(reason)
		}()
	}
	wg.Wait()
	ps.wg.Wait()
}

// Control implements engine.Parts.
func (ps *Parts) Control(op, worker string) error {
	for _, p := range ps.parts {
		for _, w := range p.workers {
			if w.ID != worker {
				continue
			}
			select {
			case <-p.started:
			default:
				return fmt.Errorf("%s %s: its part on host %s is being started; try again once its row shows it", op, worker, p.name)
			}
			if p.state == "" {
				return fmt.Errorf("%s %s: its part on host %s could not be started (its row says why)", op, worker, p.name)
			}
			c, err := p.dial()
			if err != nil {
				return fmt.Errorf("%s %s on host %s: %w", op, worker, p.name, err)
			}
			defer c.Close()
			rep, err := c.Do(server.Request{Op: op, Worker: worker})
			switch {
			case err != nil:
				return fmt.Errorf("%s %s on host %s: %w", op, worker, p.name, err)
			case rep.Error != "":
				return fmt.Errorf("on host %s: %s", p.name, rep.Error)
			}
			return nil
		}
	}
	return fmt.Errorf("%s %s: %w", op, worker, engine.ErrUnknownWorker)
}

// part is one host's part.
type part struct {
	ps      *Parts
	name    string
	t       Transport
	workers []*runfile.WorkerSpec
	m       engine.Mirror

	// Known once the host has been probed; written by the start alone,
	// read by others once started is closed.
	top, dir, file, state string
	repo                  workspace.HostRepo
	started               chan struct{} // closed once the start has succeeded or given up

	held atomic.Bool // the last mirror held a row back for its commit

	mu       sync.Mutex
	fetched  map[string]string // worker: the last commit brought home
	lastRows map[string]statedir.WorkerRow
	lastDisp map[string][]statedir.DispatchRow
	view     *paneView // the part's view link, once it is up (pane.go)
	closed   bool      // the part was stopped: no view is opened any more
}

func (p *part) logf(format string, args ...any) {
	fmt.Fprintf(p.ps.opts.Log, "rostra: host %s: "+format+"\n", append([]any{p.name}, args...)...)
}

// stopping reports whether the run is stopping.
func (p *part) stopping() bool {
	select {
	case <-p.ps.stop:
		return true
	default:
		return false
	}
}

// sleep waits d, or less when the run stops; false when it does.
func (p *part) sleep(d time.Duration) bool {
	select {
	case <-p.ps.stop:
		return false
	case <-time.After(d):
		return true
	}
}

func (p *part) run() {
	if !p.startPart() {
		return
	}
	p.follow()
}

// startPart starts the part, again after the workers' backoff while
// their attempts allow; false when it gave up or the run stopped.
func (p *part) startPart() bool {
	defer close(p.started)
	maxAttempts, backoff := 1, time.Duration(0)
	for _, w := range p.workers {
		maxAttempts = max(maxAttempts, w.MaxAttempts)
		backoff = max(backoff, w.RetryBackoff)
	}
	for n := 1; ; n++ {
		err := p.start()
		if err == nil {
			return true
		}
		final := n >= maxAttempts
		p.failStart(err, n, final)
		if final || !p.sleep(backoff) {
			return false
		}
	}
}

// start brings the part up on the host, or finds it up.
func (p *part) start() error {
	began := time.Now()
	f, err := Probe(p.t)
	if err != nil {
		return err
	}
	if probs := f.Problems(p.t); len(probs) > 0 {
		return errors.New(strings.Join(probs, "; "))
	}
	plan := p.ps.plan
	p.top = f.Top
	p.dir = path.Join(f.Top, ".rostra", "parts", plan.Name)
	p.file = path.Join(p.dir, "rostra.yaml")
	p.state = path.Join(p.dir, "state")
	cmd, variant, url := p.t.GitSSH(f.Top)
	p.repo = workspace.HostRepo{URL: url, SSHCommand: cmd, Variant: variant}

	if p.ps.opts.Resume {
		// A fresh run starts its parts afresh (a part left running by an
		// earlier run refuses, holding its lock); a resumed one finds
		// them running, most often.
		if c, err := p.dial(); err == nil {
			c.Close()
			p.logf("its part runs already: attached")
			return nil
		}
		if st, ok := p.partState(); ok && st.Status == statedir.RunFinished {
			p.logf("its part has finished there")
			return nil
		}
	}
	local := workspace.ReadGit(plan.Workspace)
	top, err := local.Line("rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("workers on other hosts need the workspace %s in a git repository: %w", plan.Workspace, err)
	}
	base, err := local.Line("rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil || base == "" {
		return fmt.Errorf("the repository %s has no commit yet; workers on other hosts start from HEAD: commit something first", top)
	}
	if out, err := local.Run("status", "--porcelain", "--untracked-files=no"); err == nil && len(strings.TrimSpace(string(out))) > 0 {
		p.logf("the workspace here has uncommitted changes: the part there starts from the base commit %s without them", statedir.ShortCommit(base))
	}
	rel, err := filepath.Rel(runfile.Resolved(top), runfile.Resolved(plan.Workspace))
	if err != nil {
		return fmt.Errorf("place the workspace %s in its repository %s: %w", plan.Workspace, top, err)
	}
	if err := p.repo.PushBase(plan.Workspace, base, "refs/rostra/base/"+plan.Name); err != nil {
		return err
	}
	data, err := os.ReadFile(plan.RunFile)
	if err != nil {
		return fmt.Errorf("read the run file for host %s's part: %w", p.name, err)
	}
	tree := path.Join(p.dir, "tree")
	partWS := path.Join(tree, filepath.ToSlash(rel))
	partFile, err := runfile.PartFile(data, p.name, partWS, p.state)
	if err != nil {
		return err
	}
	resume := p.ps.opts.Resume
	mode := "--fresh"
	if resume {
		mode = "--resume"
	}
	q := Quote
	script := strings.Join([]string{
		"set -e",
		transport.FindRostra(),
		"d=" + q(p.dir) + "; t=" + q(tree),
		`mkdir -p "$d"; printf '*\n' >"$d/.gitignore"`,
		// A resumed part keeps its tree; a fresh one starts from the base.
		`if [ -e "$t/.git" ]; then if [ ` + q(mode) + ` = --fresh ]; then git -C "$t" checkout -q --detach --force ` + base + ` && git -C "$t" clean -qfdx; fi; else git -C ` + q(p.top) + ` worktree prune; git -C ` + q(p.top) + ` worktree add -q --detach "$t" ` + base + `; fi`,
		`cat >"$d/rostra.yaml.new"; mv -f "$d/rostra.yaml.new" "$d/rostra.yaml"`,
		`if [ ` + q(mode) + ` = --resume ] && [ ! -e ` + q(path.Join(p.state, statedir.TeamStateFile)) + ` ]; then m=; else m=` + mode + `; fi`,
		`"$R" run --detach $m "$d/rostra.yaml" </dev/null >"$d/start.log" 2>&1 || { cat "$d/start.log" >&2; exit 1; }`,
	}, "\n")
	if _, err := p.t.Run(script, partFile); err != nil {
		return fmt.Errorf("start its part: %w", err)
	}
	p.logf("its part started in %s (%s)", p.dir, time.Since(began).Round(time.Millisecond))
	return nil
}

// resumePart starts the part's server there again on its state.
func (p *part) resumePart() {
	script := transport.FindRostra() + `; "$R" run --detach --resume ` + Quote(p.file) + ` </dev/null >` + Quote(path.Join(p.dir, "start.log")) + ` 2>&1 || { cat ` + Quote(path.Join(p.dir, "start.log")) + ` >&2; exit 1; }`
	if _, err := p.t.Run(script, nil); err != nil {
		p.logf("its part's server is gone, and resuming it failed: %v", err)
		return
	}
	p.logf("its part's server was gone: resumed it there")
}

// failStart fails every worker of the host for attempt n of its start.
func (p *part) failStart(err error, n int, final bool) {
	status := statedir.StatusRetrying
	if final {
		status = statedir.StatusError
	}
	now := time.Now().UTC()
	reason := "not started on host " + p.name + ": " + err.Error()
	p.logf("%s", reason)
	for _, w := range p.workers {
		d := statedir.DispatchRow{
			DispatchID: fmt.Sprintf("%s-%d", w.ID, n), WorkerID: w.ID, Attempt: n,
			Status: statedir.StatusError, Reason: reason, FailureClass: statedir.FailureNotStarted,
			StartedAt: now, EndedAt: &now,
		}
		p.mu.Lock()
		disp := append(append([]statedir.DispatchRow(nil), p.lastDisp[w.ID]...), d)
		if p.lastDisp == nil {
			p.lastDisp = map[string][]statedir.DispatchRow{}
		}
		p.lastDisp[w.ID] = disp
		p.mu.Unlock()
		p.m.MirrorRow(statedir.WorkerRow{
			WorkerID: w.ID, Role: w.Role, Provider: w.Provider, Status: status,
			Attempts: n, Reason: reason, Command: w.Command, Branch: w.Branch,
		}, disp)
	}
}

// dial opens a control connection to the part's server through the bridge.
func (p *part) dial() (*server.Conn, error) {
	s, err := p.t.Stream(p.bridge())
	if err != nil {
		return nil, err
	}
	return server.ControlOver(s)
}

// follow mirrors the part until it has finished or the run stops: its
// view link pushes each state the part's server publishes (pane.go), and
// each is copied in as it comes. A link that cannot be opened, or is
// over (the part's server gone), is opened again every second, the
// part's files read meanwhile, and a part that died there resumed.
func (p *part) follow() {
	lost := false
	for !p.stopping() {
		v, err := p.openView()
		if v == nil {
			if p.stopping() || p.readFiles() {
				return
			}
			if errors.Is(err, server.ErrNoServer) {
				// Its server died there with workers unsettled: resume it.
				p.resumePart()
			}
			if !lost {
				p.logf("its link is lost (%v); the part goes on there, and rostra dials it again every second", err)
				lost = true
			}
			if !p.sleep(time.Second) {
				return
			}
			continue
		}
		if lost {
			p.logf("its link is back")
			lost = false
		}
		if p.watch(v) {
			return
		}
		p.dropView(v)
	}
}

// watch copies in what v's link brings until the part is over or the run
// stops (true), or the link is over (false).
func (p *part) watch(v *paneView) bool {
	for {
		select {
		case <-p.ps.stop:
			return true
		case <-v.pushed:
		case <-v.over:
			st, _ := v.latest()
			return st != nil && p.mirror(st)
		}
		p.followPanes(v)
		if st, fresh := v.latest(); st != nil && (fresh || p.held.Load()) {
			// A row held for its commit is tried again with each View
			// (the server sends one at least every second).
			if p.mirror(st) {
				return true
			}
		}
	}
}

// readFiles mirrors the part's team-state.json when its server is gone
// (the part ended, or died); true when it had ended for good.
func (p *part) readFiles() bool {
	if p.state == "" {
		return false
	}
	st, ok := p.partState()
	return ok && p.mirror(&st)
}

// partState reads the part's team-state.json there.
func (p *part) partState() (statedir.TeamState, bool) {
	var st statedir.TeamState
	out, err := p.t.Run("cat "+Quote(path.Join(p.state, statedir.TeamStateFile)), nil)
	return st, err == nil && json.Unmarshal([]byte(out), &st) == nil
}

// mirror copies the part's rows into the engine; true once the part's
// run is over (finished or interrupted) and every row has been copied.
func (p *part) mirror(st *statedir.TeamState) bool {
	partOver := st.Status != statedir.RunRunning
	byWorker := map[string][]statedir.DispatchRow{}
	for _, d := range st.Dispatches {
		d.Worktree = "" // a path on the host
		byWorker[d.WorkerID] = append(byWorker[d.WorkerID], d)
	}
	held := false
	for _, row := range st.Workers {
		spec := p.spec(row.WorkerID)
		if spec == nil {
			continue
		}
		disp := byWorker[row.WorkerID]
		if !p.bringHome(spec, row, disp, partOver) {
			held = true
			continue
		}
		row.Worktree = ""
		p.mu.Lock()
		prev, seen := p.lastRows[row.WorkerID]
		same := seen && reflect.DeepEqual(prev, row) && reflect.DeepEqual(p.lastDisp[row.WorkerID], disp)
		if p.lastRows == nil {
			p.lastRows = map[string]statedir.WorkerRow{}
			p.lastDisp = map[string][]statedir.DispatchRow{}
		}
		p.lastRows[row.WorkerID], p.lastDisp[row.WorkerID] = row, disp
		p.mu.Unlock()
		if !same {
			p.m.MirrorRow(row, disp)
		}
	}
	p.held.Store(held)
	return partOver && !held
}

// bringHome fetches the branch of an isolated worker whose attempt left a
// commit not yet here; false while a settled row must wait for it (its
// commit is made once its process has ended, before the part finishes).
func (p *part) bringHome(spec *runfile.WorkerSpec, row statedir.WorkerRow, disp []statedir.DispatchRow, partOver bool) bool {
	if !spec.Isolated() || len(disp) == 0 {
		return true
	}
	last := disp[len(disp)-1]
	if last.WorkCommit == "" {
		// Settled with no commit yet: one may be on its way, or none
		// comes (nothing was left); the part's end says which.
		return statedir.Unsettled(row.Status) || partOver
	}
	p.mu.Lock()
	done := p.fetched[spec.ID] == last.WorkCommit
	p.mu.Unlock()
	if done {
		return true
	}
	if err := p.repo.FetchBranch(p.ps.plan.Workspace, spec.Branch); err != nil {
		p.logf("bring %s's work home: %v", spec.ID, err)
		return false
	}
	p.mu.Lock()
	p.fetched[spec.ID] = last.WorkCommit
	p.mu.Unlock()
	return true
}

func (p *part) spec(id string) *runfile.WorkerSpec {
	for _, w := range p.workers {
		if w.ID == id {
			return w
		}
	}
	return nil
}

// stopPart stops the part's server and mirrors its last rows.
func (p *part) stopPart(reason string) {
	defer p.closePanes()
	// A start under way finishes first (it sees the stop at its next
	// wait), so that no part is started after it was stopped.
	<-p.started
	if p.state == "" {
		return
	}
	c, err := p.dial()
	if err != nil {
		if !p.readFiles() {
			how := "rostra stop --run " + p.state + " there"
			if p.t.ssh() {
				how = "rostra stop --run ssh://" + p.t.Host.SSH + p.state
			}
			p.logf("its part could not be reached to stop it (%v): it goes on there; %s stops it", err, how)
		}
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Do(server.Request{Op: server.OpStop, Text: reason})
		c.WaitServerExit(10 * time.Second)
	}()
	select {
	case <-done:
	case <-time.After(stopWithin):
		p.logf("its part did not stop within %s", stopWithin)
	}
	c.Close()
	p.readFiles()
}

// stopWithin is how long a stop waits for a part.
const stopWithin = 30 * time.Second
