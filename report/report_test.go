// report_test.go checks the run report: a golden report (and summary) for a
// hand-built run with an attempt of every reason class and degradations, the
// classification of each reason text, and WriteReport on a real state dir
// that another process holds, with a torn last events line. The goldens are
// testdata/TestBuildReportGolden/*.golden, through x/exp/golden (rewrite
// them with `go test ./report -run TestBuildReportGolden -update`).
package report

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func reportIntPtr(n int) *int { return &n }

var reportT0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// reportAt is reportT0 plus a duration, as a pointer for EndedAt fields.
func reportAt(d time.Duration) *time.Time {
	t := reportT0.Add(d)
	return &t
}

// reportFixture is a run with one attempt of each reason class, two
// degradations (one without a reason), a manual attempt still running, a
// completed attempt whose roster row was refused, and a live-run degradation
// known only from the events.
func reportFixture() (*statedir.TeamState, []statedir.Event) {
	row := func(worker string, attempt int, surface runfile.SurfaceKind, status, reason, class string, exit *int, start, end time.Duration) statedir.DispatchRow {
		d := statedir.DispatchRow{
			DispatchID: runfile.DispatchID(worker, attempt), WorkerID: worker, Attempt: attempt,
			Surface: surface, Status: status, Reason: reason, FailureClass: class, ExitCode: exit,
			StartedAt: reportT0.Add(start),
		}
		if end > 0 {
			d.EndedAt = reportAt(end)
		}
		return d
	}
	implementer1 := row("claude-implementer", 1, runfile.SurfaceWrapper, statedir.StatusError, "exited with code 1", statedir.FailureExitCode, reportIntPtr(1), 0, 1600*time.Millisecond)
	implementer1.DegradedFrom, implementer1.DegradedReason = runfile.SurfacePane, "pane limit reached (2 of 2 in use)"
	implementer2 := row("claude-implementer", 2, runfile.SurfacePane, statedir.StatusError, "CLI ended cleanly without emitting a result", statedir.FailureNoResult, reportIntPtr(3), 4*time.Second, 2*time.Minute)
	implementer3 := row("claude-implementer", 3, runfile.SurfacePane, statedir.StatusCompleted, "exited with code 1; outputs present", "", reportIntPtr(1), 2*time.Minute+2*time.Second, 9*time.Minute)
	writer1 := row("docs-writer", 1, runfile.SurfaceWrapper, statedir.StatusError, "readonly source changed: go.mod, src/a.go, src/b.go, src/c.go, src/d.go (+2 more): model gpt-x is not in the catalog", statedir.FailureWritePolicy, reportIntPtr(0), 0, 3*time.Minute)
	writer1.DegradedFrom = runfile.SurfacePane // no reason given by the surface
	writer1.WritePolicy = []string{"docs/**"}
	writer1.WritePolicyDigest = runfile.WritePolicy{Globs: writer1.WritePolicy}.Digest()
	st := &statedir.TeamState{
		Version: 1, Run: "demo", RunFile: "/ws/rostra.yaml", Workspace: "/ws", StateDir: "/ws/.rostra/demo",
		Status: statedir.RunRunning, Pid: 4711, StartedAt: reportT0,
		Workers: []statedir.WorkerRow{
			{WorkerID: "claude-implementer", Role: "implementer", Provider: "claude", Status: statedir.StatusCompleted, ResultPath: "out/claude-implementer/result.json", Attempts: 3,
				Reason: "roster not updated: out/claude-implementer/result.json does not exist"},
			{WorkerID: "grok-verifier", Role: "verifier", Provider: "grok", Status: statedir.StatusTimeout, Attempts: 1, Reason: "attempt timed out after 30m0s"},
			{WorkerID: "shell-tester", Role: "tester", Provider: "shell", Status: statedir.StatusTimeout, Attempts: 1, Reason: "no output for 2m0s"},
			{WorkerID: "docs-writer", Role: "writer", Provider: "claude", Status: statedir.StatusError, Attempts: 1, Reason: writer1.Reason},
			{WorkerID: "lint", Role: "linter", Provider: "shell", Status: statedir.StatusError, Attempts: 3, Reason: "missing completion paths: out/lint/report.md, out/lint/summary.md"},
			{WorkerID: "reviewer", Role: "reviewer", Provider: "claude", Status: statedir.StatusRunning, Attempts: 2, Reason: ""},
			{WorkerID: "old-run", Role: "helper", Provider: "shell", Status: statedir.StatusRetrying, Attempts: 1, Reason: "interrupted (rostra pid 4242 died)"},
		},
		Dispatches: []statedir.DispatchRow{
			implementer1, implementer2, implementer3,
			row("grok-verifier", 1, runfile.SurfacePane, statedir.StatusTimeout, "attempt timed out after 30m0s", statedir.FailureTimeout, nil, 0, 30*time.Minute+5*time.Second),
			row("shell-tester", 1, runfile.SurfaceWrapper, statedir.StatusTimeout, "no output for 2m0s", statedir.FailureTimeout, reportIntPtr(-1), 0, 2*time.Minute+300*time.Millisecond),
			writer1,
			row("lint", 1, runfile.SurfaceWrapper, statedir.StatusError, "missing completion paths: out/lint/report.md, out/lint/summary.md", statedir.FailureMissingOutputs, reportIntPtr(0), 0, 20*time.Second),
			row("lint", 2, runfile.SurfaceWrapper, statedir.StatusError, "killed by signal killed", statedir.FailureExitCode, reportIntPtr(-1), 25*time.Second, 40*time.Second),
			row("lint", 3, "", statedir.StatusError, "no surface opened: pane: open pty: too many open files; wrapper: fork/exec /bin/lint: no such file or directory", statedir.FailureNotStarted, nil, 45*time.Second, 45*time.Second+100*time.Millisecond),
			row("reviewer", 1, runfile.SurfacePane, statedir.StatusCancelled, "cancelled by a human | from the UI", statedir.FailureCancelled, reportIntPtr(-1), 0, 5*time.Minute),
			row("reviewer", 2, runfile.SurfacePane, statedir.StatusRunning, "", "", nil, 5*time.Minute+time.Second, 0),
			row("old-run", 1, runfile.SurfacePane, statedir.StatusError, "interrupted (rostra pid 4242 died)", statedir.FailureInterrupted, nil, 0, 0),
		},
	}
	// Two isolated workers: one kept with its work, one removed as empty.
	impl, writer := &st.Workers[0], &st.Workers[3]
	impl.Isolation, impl.Branch, impl.BaseCommit = runfile.IsolationWorktree, "rostra/demo/claude-implementer", "0123456789abcdef0123456789abcdef01234567"
	impl.Worktree, impl.DiffStat, impl.WorktreeOutcome = "/ws/.rostra/demo/worktrees/claude-implementer", statedir.DiffStat{Files: 4, Additions: 12, Deletions: 3}, statedir.WorktreeKept
	writer.Isolation, writer.Branch, writer.BaseCommit = runfile.IsolationWorktree, "rostra/demo/docs-writer", impl.BaseCommit
	writer.WorktreeOutcome = statedir.WorktreeRemovedEmpty
	st.Dispatches[10].Manual = true
	// One attempt ran sandboxed; one asked for it on a kernel without
	// Landlock and ran without it (docs/sandbox.md).
	st.Dispatches[0].Sandbox = runfile.SandboxWrites
	st.Dispatches[1].Sandbox, st.Dispatches[1].SandboxDegradedReason = runfile.SandboxNone, "landlock: not supported by this kernel"
	st.Dispatches[11].StartedAt = time.Time{} // never recorded: a row written by a rostra that died early

	ev := func(d time.Duration, typ, worker string, attempt int) statedir.Event {
		return statedir.Event{TS: reportT0.Add(d), Type: typ, WorkerID: worker, Attempt: attempt}
	}
	degraded := ev(0, statedir.EventWorkerDegraded, "claude-implementer", 1)
	degraded.From, degraded.To, degraded.Reason = runfile.SurfacePane, runfile.SurfaceWrapper, "pane limit reached (2 of 2 in use)"
	// A degradation the team state has not caught up with yet.
	liveDegraded := ev(11*time.Minute, statedir.EventWorkerDegraded, "shell-tester", 2)
	liveDegraded.From, liveDegraded.To, liveDegraded.Reason = runfile.SurfacePane, runfile.SurfaceWrapper, "open pty: too many open files"
	notUpdated := ev(9*time.Minute, statedir.EventWorkerRosterNotUpdated, "claude-implementer", 3)
	notUpdated.Reason = "roster not updated: out/claude-implementer/result.json does not exist"
	events := []statedir.Event{
		ev(0, statedir.EventRunStarted, "", 0),
		ev(0, statedir.EventWorkerDispatched, "claude-implementer", 1), degraded,
		ev(0, statedir.EventWorkerDispatched, "grok-verifier", 1),
		ev(1600*time.Millisecond, statedir.EventWorkerFailed, "claude-implementer", 1),
		ev(2*time.Minute, statedir.EventWorkerFailed, "claude-implementer", 2),
		ev(2*time.Minute+300*time.Millisecond, statedir.EventWorkerTimeout, "shell-tester", 1),
		ev(5*time.Minute, statedir.EventWorkerCancelled, "reviewer", 1),
		ev(9*time.Minute, statedir.EventWorkerCompleted, "claude-implementer", 3), notUpdated,
		ev(30*time.Minute+5*time.Second, statedir.EventWorkerTimeout, "grok-verifier", 1),
		liveDegraded,
	}
	return st, events
}

func TestBuildReportGolden(t *testing.T) {
	st, events := reportFixture()
	markdown, summary := BuildReport(st, events, reportT0.Add(31*time.Minute))
	t.Run("report", func(t *testing.T) { golden.RequireEqual(t, markdown) })
	js, err := json.MarshalIndent(summary, "", "  ")
	require.NoError(t, err)
	t.Run("summary", func(t *testing.T) { golden.RequireEqual(t, append(js, '\n')) })

	// The counts a script reads, checked here and not only in the golden.
	assert.Equal(t, 10, summary.Failures)
	assert.Equal(t, map[string]int{
		statedir.FailureTimeout: 2, statedir.FailureNoResult: 1, statedir.FailureExitCode: 2, statedir.FailureMissingOutputs: 1,
		statedir.FailureWritePolicy: 1, statedir.FailureRepository: 0, statedir.FailureCancelled: 1, statedir.FailureInterrupted: 1, statedir.FailureNotStarted: 1, statedir.FailureOther: 0,
	}, summary.FailuresByClass)
	assert.Equal(t, 3, summary.Degradations)
	assert.Equal(t, 1, summary.WorkersCompleted)
	assert.Contains(t, markdown, "| docs-writer | 1 | wrapper | pane: no reason reported |")
	assert.Contains(t, markdown, `cancelled by a human \| from the UI`)
}

func TestBuildReportEmptyRun(t *testing.T) {
	st := &statedir.TeamState{Run: "empty", Status: statedir.RunFinished, StateDir: "/s", StartedAt: reportT0, EndedAt: reportAt(90 * time.Second)}
	markdown, summary := BuildReport(st, nil, reportT0.Add(time.Hour))
	assert.Contains(t, markdown, "- Run status: finished\n- Started: 2026-11-30T06:00:00Z\n- Ended: 2026-11-30T06:01:30Z (1m30s)\n- Outcome: no workers\n")
	assert.Contains(t, markdown, "No attempt failed.")
	assert.Contains(t, markdown, "No attempt was degraded.")
	js, err := json.Marshal(summary)
	require.NoError(t, err)
	assert.NotContains(t, string(js), "null", "every map is present for scripts")
	assert.Contains(t, string(js), `"failuresByClass":{"cancelled":0,"exitCode":0,"interrupted":0,"missingOutputs":0,"noResult":0,"notStarted":0,"other":0,"repository":0,"timeout":0,"writePolicy":0}`)
}

func TestFailureClassComesFromTheRow(t *testing.T) {
	tests := []struct {
		name string
		row  statedir.DispatchRow
		want string
	}{
		{"the class the engine stored", statedir.DispatchRow{Status: statedir.StatusError, Reason: "exited with code 2", FailureClass: statedir.FailureMissingOutputs}, statedir.FailureMissingOutputs},
		{"the reason's words do not count", statedir.DispatchRow{Status: statedir.StatusError, Reason: "missing completion paths: a"}, statedir.FailureOther},
		{"a class this rostra does not know", statedir.DispatchRow{Status: statedir.StatusTimeout, FailureClass: "cosmicRay"}, statedir.FailureOther},
		{"completed is no failure", statedir.DispatchRow{Status: statedir.StatusCompleted, Reason: "exited with code 1; outputs present"}, ""},
		{"running is no failure", statedir.DispatchRow{Status: statedir.StatusRunning}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, failureClassOf(tt.row))
		})
	}
}

// reportStateDir writes the fixture as a real state dir, with a torn last
// line in events.jsonl as a crash mid-append leaves it.
func reportStateDir(t *testing.T) (dir string, events []statedir.Event) {
	dir = t.TempDir()
	st, events := reportFixture()
	data, err := json.MarshalIndent(st, "", "  ")
	require.NoError(t, err)
	require.NoError(t, statedir.WriteFileAtomic(filepath.Join(dir, statedir.TeamStateFile), data, 0o600))
	log, err := statedir.OpenEventLog(filepath.Join(dir, statedir.EventsFile))
	require.NoError(t, err)
	for _, ev := range events {
		require.NoError(t, log.Append(ev))
	}
	require.NoError(t, log.Close())
	f, err := os.OpenFile(filepath.Join(dir, statedir.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"ts":"2026-11-30T06:40:00Z","type":"worker-fai`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return dir, events
}

// reportTree lists every file below dir with its content.
func reportTree(t *testing.T, dir string) map[string]string {
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	}))
	return files
}

func TestWriteReportOnLiveRunWithTornEvents(t *testing.T) {
	dir, events := reportStateDir(t)
	lock, err := statedir.AcquireRunLock(dir) // the rostra driving the run
	require.NoError(t, err)
	defer lock.Release()
	before := reportTree(t, dir)

	now := time.Date(2026, 11, 30, 7, 15, 0, 0, time.UTC)
	path, summary, err := WriteReport(dir, now)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "reports", "report-20261130T071500Z.md"), path)
	assert.Equal(t, len(events), summary.Events, "the torn line is skipped, every whole one counted")

	st, _ := reportFixture()
	st.StateDir = "/ws/.rostra/demo"
	want, _ := BuildReport(st, events, now)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(got))

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
	info, err = os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), info.Mode().Perm())

	// Nothing but the report was written: the torn tail is left for the
	// driving rostra to repair, the lock still names its holder.
	after := reportTree(t, dir)
	assert.Equal(t, string(got), after["reports/report-20261130T071500Z.md"])
	delete(after, "reports/report-20261130T071500Z.md")
	assert.Equal(t, before, after)
}

func TestWriteReportRefusesWhatIsNotAStateDir(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "team-state.json")
	require.NoError(t, os.WriteFile(file, []byte("{"), 0o600))
	notState := filepath.Join(tmp, "empty")
	require.NoError(t, os.Mkdir(notState, 0o700))

	for name, tt := range map[string]struct{ dir, mention string }{
		"missing":          {filepath.Join(tmp, "nope"), "does not exist"},
		"a file":           {file, "is a file, not a state dir"},
		"no team state":    {notState, "has no team-state.json"},
		"team state torn":  {tmp, "is not valid JSON"},
		"relative missing": {"no/such/dir", "no/such/dir does not exist"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := WriteReport(tt.dir, reportT0)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrNoRunState), "%v", err)
			assert.Contains(t, err.Error(), tt.mention)
			_, statErr := os.Stat(filepath.Join(tt.dir, statedir.ReportsDir))
			assert.True(t, errors.Is(statErr, fs.ErrNotExist) || strings.Contains(statErr.Error(), "not a directory"), "nothing written")
		})
	}
}

func TestWriteReportWithoutEventsFile(t *testing.T) {
	dir := t.TempDir()
	data, err := json.Marshal(statedir.TeamState{Run: "fresh", Status: statedir.RunRunning})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.TeamStateFile), data, 0o600))
	_, summary, err := WriteReport(dir, reportT0)
	require.NoError(t, err)
	assert.Equal(t, 0, summary.Events)
}

// TestWriteReportTwiceInTheSameSecondKeepsBoth: the second report gets a
// name of its own instead of replacing the first (FAULTS.md 32).
func TestWriteReportTwiceInTheSameSecondKeepsBoth(t *testing.T) {
	dir, _ := reportStateDir(t)
	now := time.Date(2026, 11, 30, 7, 15, 0, 0, time.UTC)
	first, _, err := WriteReport(dir, now)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(first, []byte("the first report, read and annotated\n"), 0o600))
	second, _, err := WriteReport(dir, now.Add(500*time.Millisecond))
	require.NoError(t, err)
	third, _, err := WriteReport(dir, now.Add(900*time.Millisecond))
	require.NoError(t, err)

	assert.Equal(t, filepath.Join(dir, "reports", "report-20261130T071500Z.md"), first)
	assert.Equal(t, filepath.Join(dir, "reports", "report-20261130T071500Z-2.md"), second)
	assert.Equal(t, filepath.Join(dir, "reports", "report-20261130T071500Z-3.md"), third)
	data, err := os.ReadFile(first)
	require.NoError(t, err)
	assert.Equal(t, "the first report, read and annotated\n", string(data))
	entries, err := os.ReadDir(filepath.Join(dir, "reports"))
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary file is left")
}

// TestWriteReportNeverWritesThroughAPlantedReportsLink: reports/ replaced
// by a link to a folder of the user's; the report is refused, naming it,
// and nothing is written there.
func TestWriteReportNeverWritesThroughAPlantedReportsLink(t *testing.T) {
	dir, _ := reportStateDir(t)
	outside := t.TempDir()
	require.NoError(t, os.RemoveAll(filepath.Join(dir, statedir.ReportsDir)))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, statedir.ReportsDir)))
	_, _, err := WriteReport(dir, time.Date(2026, 11, 30, 7, 15, 0, 0, time.UTC))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, statedir.ReportsDir)+" is a symlink (to "+outside+")")
	written, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, written)
}
