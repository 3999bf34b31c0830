// history.go rebuilds the screen of an attempt the engine holds no live
// emulator for — an earlier attempt (< >), or the last attempt of a worker
// in a resumed run — from its output.log (every byte the child wrote) fed
// through a fresh emulator at the pane's size, read off the UI goroutine.
// The result is kept per attempt; loading marks attempts being read so each
// log is read once. When the pane changes size, the attempt on screen is
// rebuilt at the new size (the old screen stays up until the new one is
// read), as if it had run in a pane of today's size.
package tui

import (
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/panes/vt"
)

// historyLogCap bounds how much of a log is replayed: its tail, which is
// what the screen showed at the end.
const historyLogCap = 64 << 20

func (m *Model) loadHistory(i, attempt int) tea.Cmd {
	p := m.panes[i]
	cols, rows := m.historySize(i)
	if t := p.hist[attempt]; t != nil {
		if c, r := t.Size(); c == cols && r == rows {
			return nil
		}
	}
	var path string
	for _, d := range p.rows {
		if d.Attempt == attempt {
			path = d.OutputLogPath
		}
	}
	worker := p.spec.ID
	p.loading[attempt] = true
	return func() tea.Msg {
		t, err := replayLog(path, cols, rows)
		return historyMsg{worker: worker, attempt: attempt, term: t, err: err}
	}
}

// replayLog feeds a log's tail through a new emulator.
func replayLog(path string, cols, rows int) (*vt.Terminal, error) {
	if path == "" {
		return nil, fmt.Errorf("the attempt has no output.log")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open output.log: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > historyLogCap {
		if _, err := f.Seek(st.Size()-historyLogCap, io.SeekStart); err != nil {
			return nil, fmt.Errorf("read output.log: %w", err)
		}
	}
	t := vt.New(cols, rows, vt.Options{})
	if _, err := io.Copy(t, f); err != nil {
		return nil, fmt.Errorf("read output.log: %w", err)
	}
	return t, nil
}

func (m *Model) onHistory(msg historyMsg) {
	p := m.byID[msg.worker]
	if p == nil {
		return
	}
	delete(p.loading, msg.attempt)
	if msg.err != nil {
		p.histErr[msg.attempt] = msg.err.Error()
		return
	}
	delete(p.histErr, msg.attempt)
	if old := p.hist[msg.attempt]; old != nil {
		// A replay for a size the pane no longer has (it changed again
		// while the log was read) does not replace one that fits.
		i := m.indexOf(p)
		cols, rows := m.historySize(i)
		if c, r := msg.term.Size(); c != cols || r != rows {
			if c, r := old.Size(); c == cols && r == rows {
				return
			}
		}
	}
	p.hist[msg.attempt] = msg.term
}

// refitHistory rebuilds the earlier attempts on screen whose size is no
// longer their pane's.
func (m *Model) refitHistory() tea.Cmd {
	var cmds []tea.Cmd
	for i, p := range m.panes {
		attempt := p.view
		if d := p.cur(); attempt == 0 && p.term == nil && d != nil && p.hist[d.Attempt] != nil {
			attempt = d.Attempt // an ended attempt shown from its log
		}
		if attempt == 0 || p.hist[attempt] == nil {
			continue
		}
		cmds = append(cmds, m.loadHistory(i, attempt))
	}
	return tea.Batch(cmds...)
}

// indexOf is the index of pane p.
func (m *Model) indexOf(p *pane) int {
	for i, q := range m.panes {
		if q == p {
			return i
		}
	}
	return -1
}

// loadEnded loads the screen of each pane whose current attempt has ended
// without a handle to draw from (a resumed run's earlier attempts).
func (m *Model) loadEnded() tea.Cmd {
	var cmds []tea.Cmd
	for i, p := range m.panes {
		d := p.cur()
		if p.term != nil || d == nil || d.EndedAt == nil || d.OutputLogPath == "" || d.Surface == "" {
			continue
		}
		if p.hist[d.Attempt] != nil || p.loading[d.Attempt] || p.histErr[d.Attempt] != "" {
			continue
		}
		cmds = append(cmds, m.loadHistory(i, d.Attempt))
	}
	return tea.Batch(cmds...)
}
