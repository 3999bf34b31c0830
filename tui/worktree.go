// worktree.go is the UI's side of isolated workers (isolation: worktree):
// D shows the focused worker's diff against the run's base commit in its
// pane, scrollable and searchable as scrollback is (the coloured `git diff`
// fed through an emulator of the pane's width), and M merges its branch
// into the workspace after a confirmation. Both ask the engine, which runs
// git (workspace/review.go), off the UI goroutine, and come back as messages
// tagged with the worker they were made for.
package tui

import (
	"bytes"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/workspace"
)

// diffView is a pane's diff: on while shown (or being read), term once read.
type diffView struct {
	on   bool
	seq  int // which D press the term answers; older answers are dropped
	term *vt.Terminal
	info workspace.DiffInfo
	err  string
}

// caption is the line under a shown diff.
func (d *diffView) caption() string {
	if d.term == nil {
		return ""
	}
	caption := fmt.Sprintf("%s at %.12s %s against %.12s: %s", d.info.Branch, d.info.Commit, printable.String(d.info.Subject), d.info.Base, d.info.Stat)
	if n := len(d.info.Foreign); n > 0 {
		caption += fmt.Sprintf("; %d commit(s) not rostra's", n)
	}
	if d.info.Uncommitted != "" {
		caption += "; not committed yet, not shown: " + printable.String(d.info.Uncommitted)
	}
	return caption
}

// diffMsg is a diff read off the UI goroutine.
type diffMsg struct {
	worker string
	seq    int
	term   *vt.Terminal
	info   workspace.DiffInfo
	err    error
}

// diffScrollbackCap bounds the lines of a diff the pane keeps.
const diffScrollbackCap = 200000

// toggleDiff shows the focused isolated worker's diff, read afresh, or
// goes back to its screen.
func (m *Model) toggleDiff() tea.Cmd {
	p := m.focused()
	if p.diff.on {
		p.goLive()
		return nil
	}
	if p.worker.Isolation != runfile.IsolationWorktree {
		m.note = p.spec.ID + " runs in the shared workspace (isolation: none): it has no branch to diff"
		return nil
	}
	p.diff = diffView{on: true, seq: p.diff.seq + 1}
	p.view, p.top = 0, -1
	cols, rows := m.historySize(m.focus)
	eng := m.eng
	worker, seq := p.spec.ID, p.diff.seq
	return func() tea.Msg {
		out, info, err := eng.Diff(worker, true)
		if err != nil {
			return diffMsg{worker: worker, seq: seq, info: info, err: err}
		}
		// The emulator gets the bytes a terminal would: a line feed
		// returns the carriage too (a tty's onlcr).
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
		t := vt.New(cols, rows, vt.Options{Scrollback: min(diffScrollbackCap, bytes.Count(out, []byte("\n"))+rows)})
		t.Write(out)
		return diffMsg{worker: worker, seq: seq, term: t, info: info}
	}
}

func (m *Model) onDiff(msg diffMsg) {
	p := m.byID[msg.worker]
	if p == nil || !p.diff.on || p.diff.seq != msg.seq {
		return
	}
	p.diff.info = msg.info
	if msg.err != nil {
		p.diff.err = msg.err.Error()
		return
	}
	p.diff.term = msg.term
	p.top = 0 // a diff is read from its top
	if _, rows := msg.term.Size(); msg.term.LineCount() <= rows {
		p.top = -1
	}
}

// askMerge asks before merging the focused isolated worker's branch into
// the workspace's current branch.
func (m *Model) askMerge() tea.Cmd {
	p := m.focused()
	id := p.spec.ID
	switch {
	case p.worker.Isolation != runfile.IsolationWorktree:
		m.note = id + " runs in the shared workspace (isolation: none): its changes are in the workspace already"
		return nil
	case statedir.Unsettled(p.worker.Status):
		m.note = id + " is " + p.worker.Status + ": merge once it has settled"
		return nil
	}
	branch := p.worker.Branch
	// The commit D showed, if it was shown: the merge takes it or nothing.
	pin := p.diff.info.Commit
	m.confirm = &confirmDialog{
		title: "Merge " + branch + "?",
		lines: []string{
			fmt.Sprintf("%s's work (%s) is merged into the workspace's current branch", id, p.worker.DiffStat),
			"with a merge commit. Nothing changes if the workspace has uncommitted",
			"changes or the branch conflicts with it; " + keyOf(m.keys.flat, "diff") + " shows the diff first.",
		},
		yes: func() tea.Cmd { return m.merge(id, pin) },
	}
	return nil
}

// merge runs the merge off the UI goroutine.
func (m *Model) merge(worker, pin string) tea.Cmd {
	eng := m.eng
	m.note = "merging " + worker + "…"
	return func() tea.Msg {
		res, err := eng.Merge(worker, pin)
		switch {
		case errors.Is(err, workspace.ErrReview):
			return controlMsg{note: "not merged: " + err.Error()}
		case err != nil:
			return controlMsg{note: "merge failed: " + err.Error()}
		case res.AlreadyMerged:
			return controlMsg{note: res.Branch + " is merged into " + res.Into + " already"}
		}
		return controlMsg{note: fmt.Sprintf("merged %s into %s as %.12s (%s)", res.Branch, res.Into, res.Commit, res.Stat)}
	}
}
