// search.go is search in a pane: / opens a prompt in the status bar, Enter
// finds every match of the query in the focused pane's scrollback and
// screen and shows them in copy mode (copymode.go), each match painted,
// the current one distinctly, the cursor on it and `match k of n` in the
// pane's border; n goes to the next older match, N to the next newer one
// (wrapping round at either end, and saying so). Smart case: a query
// without an upper-case letter ignores case. Ctrl-R in the prompt makes the
// query a regular expression (RE2 syntax) and back; the prompt says which.
// f opens the same prompt for a search of every pane (findall.go).
//
// Data model: paneMatches is every match of one query in one frozen
// terminal, in reading order, and which one is current.
package tui

import (
	"fmt"
	"sort"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/panes/vt"
)

// matchCap bounds the matches kept for one pane: past it the count says
// "at least".
const matchCap = 100000

// paneMatches is every match of a query in a copy mode's terminal.
type paneMatches struct {
	q      *vt.Query
	all    []vt.Match // Start and End only, in reading order
	cur    int        // the current match, -1 none
	capped bool
}

// findMatches searches t for q.
func findMatches(t *vt.Terminal, q *vt.Query) *paneMatches {
	pm := &paneMatches{q: q, cur: -1}
	t.Search(q, func(mt *vt.Match) bool {
		if len(pm.all) >= matchCap {
			pm.capped = true
			return false
		}
		pm.all = append(pm.all, vt.Match{Start: mt.Start, End: mt.End})
		return true
	})
	return pm
}

// each calls fn with the matches that touch absolute line `line`.
func (pm *paneMatches) each(line int, fn func(k int, mt vt.Match)) {
	k := sort.Search(len(pm.all), func(i int) bool { return pm.all[i].End.Line >= line })
	for ; k < len(pm.all) && pm.all[k].Start.Line <= line; k++ {
		fn(k, pm.all[k])
	}
}

// position is "match k of n" (k counted from the oldest).
func (pm *paneMatches) position() string {
	n := fmt.Sprint(len(pm.all))
	if pm.capped {
		n = "at least " + n
	}
	if pm.cur < 0 {
		return n + " matches"
	}
	return fmt.Sprintf("match %d of %s", pm.cur+1, n)
}

// describeQuery is the query as the status bar names it.
func describeQuery(q *vt.Query) string {
	s := fmt.Sprintf("%q", q.String())
	if q.Regex() {
		s = "regex " + s
	}
	if q.IgnoresCase() {
		s += " (any case)"
	}
	return s
}

// searchScope is what the prompt searches.
type searchScope int

const (
	scopePane searchScope = iota // the focused pane (or the one in copy mode)
	scopeAll                     // every pane, earlier attempts included
)

// openPrompt opens the search prompt for scope.
func (m *Model) openPrompt(scope searchScope) tea.Cmd {
	m.searchScope = scope
	m.mode = modeSearch
	m.searchInput.Reset()
	m.promptLabel()
	return m.searchInput.Focus()
}

// promptLabel says in the prompt what Enter will search, and how.
func (m *Model) promptLabel() {
	p := "/"
	if m.searchScope == scopeAll {
		p = "find in every pane: "
	}
	if m.searchRegex {
		p = "regex " + p
	}
	m.searchInput.Prompt = p
}

func (m *Model) toggleRegex() tea.Cmd {
	m.searchRegex = !m.searchRegex
	m.promptLabel()
	return nil
}

func (m *Model) startSearch() tea.Cmd {
	if m.focused().viewTerm() == nil {
		m.note = "nothing to search in " + m.focused().spec.ID + " yet"
		return nil
	}
	return m.openPrompt(scopePane)
}

func (m *Model) startFindAll() tea.Cmd { return m.openPrompt(scopeAll) }

func (m *Model) cancelSearch() tea.Cmd {
	m.searchInput.Blur()
	m.mode = modeNormal
	if m.copy != nil {
		m.mode = modeCopy
	}
	return nil
}

// runSearch runs what was typed.
func (m *Model) runSearch() tea.Cmd {
	text := m.searchInput.Value()
	m.cancelSearch()
	if text == "" {
		return nil
	}
	q, err := vt.NewQuery(text, m.searchRegex)
	if err != nil {
		m.note = err.Error() + "; " + keyOf(m.keys.search, "regex") + " in the prompt turns regular expressions off"
		return nil
	}
	m.query = q
	if m.searchScope == scopeAll {
		return m.findAll(q)
	}
	m.searchPane(q, false)
	return nil
}

// searchPane shows q's matches in copy mode on the focused pane (entering
// it when not in it), the cursor on the match nearest before it, or after
// it with newer.
func (m *Model) searchPane(q *vt.Query, newer bool) {
	cm := m.copy
	entered := false
	if cm == nil {
		if cm = m.enterCopy(m.focus); cm == nil {
			return
		}
		entered = true
	}
	if cm.found == nil || cm.found.q != q {
		cm.found = findMatches(cm.term, q)
	}
	if len(cm.found.all) == 0 {
		m.note = describeQuery(q) + ": no match in " + m.panes[cm.idx].spec.ID
		if entered {
			m.leaveCopy()
		} else {
			cm.found = nil
		}
		return
	}
	// The match nearest the cursor, in the direction asked.
	at := cm.cur
	k := sort.Search(len(cm.found.all), func(i int) bool { return !cm.found.all[i].Start.Before(at) })
	if entered && !newer {
		// From the live screen, the newest match comes first.
		k = len(cm.found.all)
	}
	if newer {
		if k < len(cm.found.all) && cm.found.all[k].Start == at {
			k++
		}
	} else {
		k--
	}
	m.gotoMatch(k)
}

// gotoMatch makes match k current (wrapping round) and puts the cursor on
// it.
func (m *Model) gotoMatch(k int) {
	cm := m.copy
	n := len(cm.found.all)
	wrapped := ""
	switch {
	case k < 0:
		k, wrapped = n-1, " · wrapped round to the newest"
	case k >= n:
		k, wrapped = 0, " · wrapped round to the oldest"
	}
	cm.found.cur = k
	h := m.copyRows(cm.idx)
	cm.moveTo(cm.found.all[k].Start, h)
	// The match in the middle of the pane, with what is around it.
	cm.top = cm.cur.Line - h/2
	cm.clampTop(h)
	m.note = describeQuery(cm.found.q) + ": " + cm.found.position() + wrapped + " · " +
		keyHints(m.keys.copy, "older", "newer", "select", "leave")
}

// olderMatch and newerMatch are n and N: the match before or after copy
// mode's cursor (in normal mode, copy mode opens on the focused pane and
// the last query's newest or oldest match).
func (m *Model) olderMatch() tea.Cmd { m.stepMatch(false); return nil }
func (m *Model) newerMatch() tea.Cmd { m.stepMatch(true); return nil }

func (m *Model) stepMatch(newer bool) {
	if m.query == nil {
		m.note = "no search yet: " + keyOf(m.keys.flat, "search") + " starts one"
		return
	}
	m.searchPane(m.query, newer)
}
