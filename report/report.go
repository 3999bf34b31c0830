// report.go builds the run report of `rostra report STATE_DIR` (docs/commands.md):
// a Markdown file under <state_dir>/reports/ with the run's outcome, every
// attempt, the failures grouped by worker, surface and reason class, and
// every degradation with its reason; and a ReportSummary of the same counts
// for scripts.
//
// Data model: the report is a pure function of a TeamState, its events and
// the moment it is built (BuildReport); WriteReport only reads the state dir
// and writes the one report file. It never takes run.lock, so it works on a
// live run: team-state.json is replaced atomically and a torn last line of
// events.jsonl is skipped by ReadEvents.
//
// A failure's class is the dispatch row's failureClass, which the engine
// sets where it makes the reason (statedir/state.go, Failure*); the report never
// reads the reason's prose.
//
// The report is read in a terminal as often as in a viewer: every control
// character in it is escaped (a file name a worker made, a reason, a
// branch), newlines kept (docs/design.md, "Nothing raw reaches a
// terminal"). The JSON summary is escaped by its encoder.
package report

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// FailureClasses lists the failure classes in the order the report shows
// them; the JSON summary keys failuresByClass by them.
var FailureClasses = []string{
	statedir.FailureTimeout, statedir.FailureNoResult, statedir.FailureExitCode, statedir.FailureMissingOutputs,
	statedir.FailureWritePolicy, statedir.FailureRepository, statedir.FailureCancelled, statedir.FailureInterrupted, statedir.FailureNotStarted,
	statedir.FailureOther,
}

var failureClassLabels = map[string]string{
	statedir.FailureTimeout:        "timeout",
	statedir.FailureNoResult:       "no result",
	statedir.FailureExitCode:       "exit code",
	statedir.FailureMissingOutputs: "missing outputs",
	statedir.FailureWritePolicy:    "write policy",
	statedir.FailureRepository:     "repository changed",
	statedir.FailureCancelled:      "cancelled",
	statedir.FailureInterrupted:    "interrupted",
	statedir.FailureNotStarted:     "not started",
	statedir.FailureOther:          "other",
}

// failureClassOf is a settled attempt's failure class, or "" for an attempt
// that did not fail (completed, or not settled yet). A failed row without a
// class (written by an older rostra, or by hand) is "other".
func failureClassOf(d statedir.DispatchRow) string {
	switch d.Status {
	case statedir.StatusError, statedir.StatusTimeout, statedir.StatusCancelled:
	default:
		return ""
	}
	if _, known := failureClassLabels[d.FailureClass]; known {
		return d.FailureClass
	}
	return statedir.FailureOther
}

// ReportSummary is the JSON `rostra report` prints: the report's counts.
// Every map is present (empty rather than null); failuresByClass has every
// class, zero included, so a script can index it without checking.
type ReportSummary struct {
	Run               string         `json:"run"`
	Status            string         `json:"status"` // the run's status
	Workers           int            `json:"workers"`
	WorkersCompleted  int            `json:"workersCompleted"`
	WorkersByStatus   map[string]int `json:"workersByStatus"`
	Attempts          int            `json:"attempts"`
	AttemptsByStatus  map[string]int `json:"attemptsByStatus"`
	ManualAttempts    int            `json:"manualAttempts"`
	Failures          int            `json:"failures"` // attempts settled error, timeout or cancelled
	FailuresByWorker  map[string]int `json:"failuresByWorker"`
	FailuresBySurface map[string]int `json:"failuresBySurface"`
	FailuresByClass   map[string]int `json:"failuresByClass"`
	Degradations      int            `json:"degradations"`
	RosterNotUpdated  int            `json:"rosterNotUpdated"`
	Events            int            `json:"events"`
	// WorktreesKept counts isolated workers whose worktree the run's end
	// kept: their branch holds work not merged into the workspace.
	WorktreesKept int `json:"worktreesKept"`
}

// reportDegradation is one attempt that opened on a later surface.
type reportDegradation struct {
	dispatchID string
	from, to   runfile.SurfaceKind
	reason     string
}

// BuildReport renders the report of st and its events as of now.
func BuildReport(st *statedir.TeamState, events []statedir.Event, now time.Time) (markdown string, summary ReportSummary) {
	t := tally(st, events)
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	t.writeHeader(p, now.UTC())
	t.writeWorkers(p)
	t.writeAttempts(p, now.UTC())
	t.writeFailures(p)
	t.writeDegradations(p)
	t.writeSandbox(p)
	reportWorktrees(st, &t.summary, p)
	t.writeRosterNotUpdated(p)
	t.writeEvents(p)
	return printable.Lines(b.String()), t.summary
}

// reportTally is what the report counts before it writes: the summary
// scripts read, and the lists its sections show.
type reportTally struct {
	st               *statedir.TeamState
	events           []statedir.Event
	summary          ReportSummary
	failuresByClass  map[string][]string // class -> dispatch ids
	attemptsByWorker map[string]int
	degradations     []reportDegradation
	notUpdated       []statedir.Event
	eventCounts      map[string]int
}

func tally(st *statedir.TeamState, events []statedir.Event) *reportTally {
	t := &reportTally{st: st, events: events,
		failuresByClass: map[string][]string{}, attemptsByWorker: map[string]int{}, eventCounts: map[string]int{}}
	t.summary = ReportSummary{
		Run:               st.Run,
		Status:            st.Status,
		Workers:           len(st.Workers),
		WorkersByStatus:   map[string]int{},
		Attempts:          len(st.Dispatches),
		AttemptsByStatus:  map[string]int{},
		FailuresByWorker:  map[string]int{},
		FailuresBySurface: map[string]int{},
		FailuresByClass:   map[string]int{},
		Events:            len(events),
	}
	summary := &t.summary
	for _, c := range FailureClasses {
		summary.FailuresByClass[c] = 0
	}
	for _, w := range st.Workers {
		summary.WorkersByStatus[w.Status]++
		if w.Status == statedir.StatusCompleted {
			summary.WorkersCompleted++
		}
	}
	seen := map[string]bool{}
	for _, d := range st.Dispatches {
		id := reportDispatchID(d.WorkerID, d.Attempt, d.DispatchID)
		seen[id] = true
		summary.AttemptsByStatus[d.Status]++
		t.attemptsByWorker[d.WorkerID]++
		if d.Manual {
			summary.ManualAttempts++
		}
		if d.DegradedFrom != "" {
			t.degradations = append(t.degradations, reportDegradation{id, d.DegradedFrom, d.Surface, reportDegradedReason(d.DegradedReason)})
		}
		class := failureClassOf(d)
		if class == "" {
			continue
		}
		summary.Failures++
		summary.FailuresByWorker[d.WorkerID]++
		summary.FailuresBySurface[reportSurface(d.Surface)]++
		summary.FailuresByClass[class]++
		t.failuresByClass[class] = append(t.failuresByClass[class], id)
	}
	// A degradation is recorded as an event at the dispatch moment; on a live
	// run, or a team-state.json written before a crash, the row may lag.
	for _, ev := range events {
		t.eventCounts[ev.Type]++
		switch ev.Type {
		case statedir.EventWorkerDegraded:
			id := runfile.DispatchID(ev.WorkerID, ev.Attempt)
			if !seen[id] {
				seen[id] = true
				t.degradations = append(t.degradations, reportDegradation{id, ev.From, ev.To, reportDegradedReason(ev.Reason)})
			}
		case statedir.EventWorkerRosterNotUpdated:
			t.notUpdated = append(t.notUpdated, ev)
		}
	}
	summary.Degradations = len(t.degradations)
	summary.RosterNotUpdated = len(t.notUpdated)
	return t
}

// printer writes a piece of the report.
type printer func(format string, args ...any)

func (t *reportTally) writeHeader(p printer, now time.Time) {
	st, summary := t.st, t.summary
	p("# rostra report: %s\n\n", reportCell(st.Run))
	p("- Generated: %s\n", now.Format(time.RFC3339))
	p("- State dir: `%s`\n", st.StateDir)
	if st.RunFile != "" {
		p("- Run file: `%s`\n", st.RunFile)
	}
	p("- Run status: %s", reportOr(st.Status, "unknown"))
	if st.Status == statedir.RunRunning && st.Pid != 0 {
		p(" (driven by pid %d)", st.Pid)
	}
	p("\n")
	if !st.StartedAt.IsZero() {
		p("- Started: %s\n", st.StartedAt.UTC().Format(time.RFC3339))
		if st.EndedAt != nil {
			p("- Ended: %s (%s)\n", st.EndedAt.UTC().Format(time.RFC3339), reportDuration(st.EndedAt.Sub(st.StartedAt)))
		} else {
			p("- Running for: %s\n", reportDuration(now.Sub(st.StartedAt)))
		}
	}
	p("- Outcome: %s\n", reportOutcome(st, summary))
	p("- Attempts: %d (%d failed, %d manual); degradations: %d; events: %d\n\n",
		summary.Attempts, summary.Failures, summary.ManualAttempts, summary.Degradations, summary.Events)
}

func (t *reportTally) writeWorkers(p printer) {
	p("## Workers\n\n")
	if len(t.st.Workers) == 0 {
		p("No workers.\n\n")
		return
	}
	// A run over other hosts names each worker's (docs/remote.md §One roster over many hosts).
	hosts := slices.ContainsFunc(t.st.Workers, func(w statedir.WorkerRow) bool { return w.Host != "" })
	if hosts {
		p("| Worker | Host | Role | Provider | Status | Attempts | Reason |\n")
		p("|---|---|---|---|---|---|---|\n")
	} else {
		p("| Worker | Role | Provider | Status | Attempts | Reason |\n")
		p("|---|---|---|---|---|---|\n")
	}
	for _, w := range t.st.Workers {
		host := ""
		if hosts {
			host = " " + reportCell(reportOr(w.Host, runfile.LocalHost)) + " |"
		}
		p("| %s |%s %s | %s | %s | %d | %s |\n", reportCell(w.WorkerID), host, reportCell(w.Role), reportCell(w.Provider),
			reportCell(w.Status), w.Attempts, reportCell(reportOr(w.Reason, "—")))
	}
	p("\n")
}

func (t *reportTally) writeAttempts(p printer, now time.Time) {
	p("## Attempts\n\n")
	if len(t.st.Dispatches) == 0 {
		p("No attempts.\n\n")
		return
	}
	p("| Worker | Attempt | Surface | Degraded from / reason | Status | Reason | Exit code | Duration |\n")
	p("|---|---|---|---|---|---|---|---|\n")
	for _, d := range t.st.Dispatches {
		attempt := strconv.Itoa(d.Attempt)
		if d.Manual {
			attempt += " (manual)"
		}
		degraded := "—"
		if d.DegradedFrom != "" {
			degraded = string(d.DegradedFrom) + ": " + reportDegradedReason(d.DegradedReason)
		}
		exit := "—"
		if d.ExitCode != nil {
			exit = strconv.Itoa(*d.ExitCode)
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", reportCell(d.WorkerID), attempt,
			reportCell(reportSurface(d.Surface)), reportCell(degraded), reportCell(d.Status),
			reportCell(reportOr(d.Reason, "—")), exit, reportAttemptDuration(d, now))
	}
	p("\n")
}

func (t *reportTally) writeFailures(p printer) {
	summary := t.summary
	p("## Failures\n\n")
	if summary.Failures == 0 {
		p("No attempt failed.\n\n")
		return
	}
	p("%d of %d attempts failed (settled error, timeout or cancelled).\n\n", summary.Failures, summary.Attempts)
	p("### By worker\n\n| Worker | Failed | Attempts |\n|---|---|---|\n")
	for _, w := range slices.Sorted(maps.Keys(summary.FailuresByWorker)) {
		p("| %s | %d | %d |\n", reportCell(w), summary.FailuresByWorker[w], t.attemptsByWorker[w])
	}
	p("\n### By surface\n\n| Surface | Failed |\n|---|---|\n")
	for _, s := range slices.Sorted(maps.Keys(summary.FailuresBySurface)) {
		p("| %s | %d |\n", reportCell(s), summary.FailuresBySurface[s])
	}
	p("\n### By reason class\n\n| Class | Failed | Attempts |\n|---|---|---|\n")
	for _, c := range FailureClasses {
		ids := t.failuresByClass[c]
		p("| %s | %d | %s |\n", failureClassLabels[c], len(ids), reportCell(reportOr(strings.Join(ids, ", "), "—")))
	}
	p("\n")
}

func (t *reportTally) writeDegradations(p printer) {
	p("## Degradations\n\n")
	if len(t.degradations) == 0 {
		p("No attempt was degraded.\n\n")
		return
	}
	p("| Attempt | From | To | Reason |\n|---|---|---|---|\n")
	for _, dg := range t.degradations {
		p("| %s | %s | %s | %s |\n", reportCell(dg.dispatchID), reportCell(string(dg.from)),
			reportCell(reportSurface(dg.to)), reportCell(dg.reason))
	}
	p("\n")
}

// writeSandbox is the Sandbox section, for a run where an attempt asked
// for one (docs/sandbox.md): what each attempt ran with, and why one that
// asked for a sandbox ran without it.
func (t *reportTally) writeSandbox(p printer) {
	asked := false
	for _, d := range t.st.Dispatches {
		if d.Sandbox == runfile.SandboxWrites || d.SandboxDegradedReason != "" {
			asked = true
			break
		}
	}
	if !asked {
		return
	}
	p("## Sandbox\n\n| Attempt | Sandbox | Degraded reason |\n|---|---|---|\n")
	for _, d := range t.st.Dispatches {
		p("| %s | %s | %s |\n", reportDispatchID(d.WorkerID, d.Attempt, d.DispatchID),
			reportCell(reportOr(d.Sandbox, runfile.SandboxNone)), reportCell(reportOr(d.SandboxDegradedReason, "—")))
	}
	p("\n")
}

func (t *reportTally) writeRosterNotUpdated(p printer) {
	if len(t.notUpdated) == 0 {
		return
	}
	p("## Roster not updated\n\n| Attempt | Reason |\n|---|---|\n")
	for _, ev := range t.notUpdated {
		p("| %s | %s |\n", runfile.DispatchID(ev.WorkerID, ev.Attempt), reportCell(ev.Reason))
	}
	p("\n")
}

func (t *reportTally) writeEvents(p printer) {
	events := t.events
	p("## Events\n\n")
	if len(events) == 0 {
		p("No events.\n")
		return
	}
	first, last := events[0].TS, events[0].TS
	for _, ev := range events {
		if ev.TS.Before(first) {
			first = ev.TS
		}
		if ev.TS.After(last) {
			last = ev.TS
		}
	}
	p("%d events, %s to %s.\n\n| Type | Count |\n|---|---|\n", len(events),
		first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
	for _, typ := range slices.Sorted(maps.Keys(t.eventCounts)) {
		p("| %s | %d |\n", reportCell(typ), t.eventCounts[typ])
	}
}

// reportWorktrees is the Worktrees section, for a run with isolated
// workers: each worktree's branch, base, diff-stat and what the run's end
// did with it.
func reportWorktrees(st *statedir.TeamState, summary *ReportSummary, p printer) {
	var rows []statedir.WorkerRow
	for _, w := range st.Workers {
		if w.Isolation == runfile.IsolationWorktree {
			rows = append(rows, w)
		}
	}
	if len(rows) == 0 {
		return
	}
	p("## Worktrees\n\n| Worker | Branch | Base | Diff | At the run's end | Worktree |\n|---|---|---|---|---|---|\n")
	merged := 0
	for _, w := range rows {
		switch w.WorktreeOutcome {
		case statedir.WorktreeKept:
			summary.WorktreesKept++
		case workspace.KeptMergedSince:
			merged++
		}
		p("| %s | %s | %s | %s | %s | %s |\n", reportCell(w.WorkerID), reportCell(w.Branch), statedir.ShortCommit(w.BaseCommit),
			w.DiffStat, reportCell(reportOr(w.WorktreeOutcome, "in use")), reportCell(reportOr(w.Worktree, "—")))
	}
	if summary.WorktreesKept > 0 {
		p("\n%d kept with work not merged: `rostra diff WORKER` shows it, `rostra merge WORKER` merges it.\n", summary.WorktreesKept)
	}
	if merged > 0 {
		p("\n%d kept at the run's end and merged into the workspace since (`rostra merge`).\n", merged)
	}
	p("\n")
}

func reportOutcome(st *statedir.TeamState, s ReportSummary) string {
	if s.Workers == 0 {
		return "no workers"
	}
	if s.WorkersCompleted == s.Workers {
		return fmt.Sprintf("all %d workers completed", s.Workers)
	}
	var open []string
	for _, w := range st.Workers {
		if w.Status != statedir.StatusCompleted {
			open = append(open, w.WorkerID+" ("+w.Status+")")
		}
	}
	return fmt.Sprintf("%d of %d workers completed; not completed: %s", s.WorkersCompleted, s.Workers, strings.Join(open, ", "))
}

func reportDispatchID(worker string, attempt int, id string) string {
	if id != "" {
		return id
	}
	return runfile.DispatchID(worker, attempt)
}

// reportDegradedReason applies docs/design.md §Dispatch: a degradation's reason is never empty.
func reportDegradedReason(r string) string {
	return reportOr(r, "no reason reported")
}

// reportSurface names the surface of an attempt that never opened one.
func reportSurface(s runfile.SurfaceKind) string {
	return reportOr(string(s), "none")
}

func reportOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func reportAttemptDuration(d statedir.DispatchRow, now time.Time) string {
	switch {
	case d.StartedAt.IsZero():
		return "—"
	case d.EndedAt != nil:
		return reportDuration(d.EndedAt.Sub(d.StartedAt))
	default:
		return reportDuration(now.Sub(d.StartedAt)) + " (running)"
	}
}

// reportDuration keeps tenths under a minute (a CLI that dies in 1.6 s) and
// whole seconds above.
func reportDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// reportCell makes text safe for one Markdown table cell: one line, pipes
// escaped.
func reportCell(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.NewReplacer("\n", " ", "\r", " ", "|", `\|`).Replace(s)
	return s
}

// ErrNoRunState is wrapped by WriteReport when the state dir is missing or
// holds no readable team-state.json: bad input, not a failed report.
var ErrNoRunState = errors.New("no rostra run state")

// WriteReport reads the run in stateDir and writes its report to
// <stateDir>/reports/report-<UTC timestamp>.md (folder 0700, file 0600),
// replacing the file atomically. It writes nothing else and takes no lock.
func WriteReport(stateDir string, now time.Time) (path string, summary ReportSummary, err error) {
	info, err := os.Stat(stateDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", summary, fmt.Errorf("%w: state dir %s does not exist; pass the run's state_dir (by default <workspace>/.rostra/<name>)", ErrNoRunState, stateDir)
	case err != nil:
		return "", summary, fmt.Errorf("%w: state dir %s: %w", ErrNoRunState, stateDir, err)
	case !info.IsDir():
		return "", summary, fmt.Errorf("%w: %s is a file, not a state dir; pass the folder that holds %s", ErrNoRunState, stateDir, statedir.TeamStateFile)
	}
	st, err := statedir.ReadTeamState(stateDir)
	var recovered *statedir.RecoveredStateError
	note := ""
	if errors.As(err, &recovered) {
		// The previous good copy stands in; the report says so.
		note, err = printable.Lines(recovered.Error()), nil
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", summary, fmt.Errorf("%w: %s has no %s; is it a rostra state dir? pass the run's state_dir (by default <workspace>/.rostra/<name>)", ErrNoRunState, stateDir, statedir.TeamStateFile)
	case err != nil:
		return "", summary, fmt.Errorf("%w: %w", ErrNoRunState, err)
	}
	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A run that has not logged yet has no events file; a corrupt line
		// before the last one is damage a human must look at.
		return "", summary, fmt.Errorf("read events: %w", err)
	}
	workspace.MarkMergedSince(st)
	markdown, summary := BuildReport(st, events, now)
	if note != "" {
		title, rest, _ := strings.Cut(markdown, "\n")
		markdown = title + "\n\n> Note: " + note + "\n" + rest
	}
	dir := filepath.Join(stateDir, statedir.ReportsDir)
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A worker may write in the state dir: the report goes nowhere else.
		target, _ := os.Readlink(dir)
		return "", summary, fmt.Errorf("%s is a symlink (to %s); rostra never writes through a link in its state dir: remove it and run again", dir, target)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", summary, fmt.Errorf("create reports folder: %w", err)
	}
	path, err = writeNewFile(dir, "report-"+now.UTC().Format("20060102T150405Z"), ".md", []byte(markdown))
	if err != nil {
		return "", summary, err
	}
	return path, summary, nil
}

// writeNewFile writes data to dir/<stem><ext>, or, when that name is taken
// (a second report in the same second), to <stem>-2<ext>, -3 and so on: a
// file already there is never replaced. The file appears whole: it is
// written and synced under a temporary name, then linked to its name (which
// fails rather than replace one) and the temporary name removed.
func writeNewFile(dir, stem, ext string, data []byte) (string, error) {
	tmp, err := os.CreateTemp(dir, "."+stem+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Join(dir, stem+ext), err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Join(dir, stem+ext), err)
	}
	for n := 1; ; n++ {
		name := stem + ext
		if n > 1 {
			name = fmt.Sprintf("%s-%d%s", stem, n, ext)
		}
		path := filepath.Join(dir, name)
		err := os.Link(tmp.Name(), path)
		if err == nil {
			return path, statedir.SyncDir(dir)
		}
		if !errors.Is(err, fs.ErrExist) || n >= 1000 {
			return "", fmt.Errorf("write %s: %w", path, err)
		}
	}
}
