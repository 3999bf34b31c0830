// multirun.go holds what the UI does when its engine is many runs at once
// (`rostra attach RUN...`; docs/ui.md §Many runs in one UI): the status
// bar counts each run's workers apart, and the panes of a run whose link
// dropped say so in their titles. The engine tells both through optional
// methods (Groups, LinkNote); a single run's engine has neither.
package tui

import (
	"strconv"
	"strings"
)

// RunGroup is one run of a UI over many: its name (the prefix of its
// workers' IDs) and its workers, in roster order.
type RunGroup struct {
	Name    string
	Workers []string
}

// linkKeysNote is what a key typed into a pane whose link is lost is
// told: it is dropped, not kept to go later (a key sent late is a key
// the human did not mean then), and typing works again with the link.
const linkKeysNote = "the key was dropped, not queued; keys go again once the link is back"

// linkTitleMin is the room a lost link's note leaves for the title at
// least (the run and the worker, cut): the note goes to its flag only in
// panes narrower than that.
const linkTitleMin = 12

type (
	runGroups interface{ Groups() []RunGroup }
	runLinks  interface{ LinkNote(worker string) string }
)

// readLinks takes each pane's link note from the engine.
func (m *Model) readLinks() {
	rl, ok := m.eng.(runLinks)
	if !ok {
		return
	}
	for _, p := range m.panes {
		was := p.link
		p.link = rl.LinkNote(p.spec.ID)
		if was != "" && p.link == "" && strings.HasPrefix(m.note, p.spec.ID+": ") && strings.HasSuffix(m.note, linkKeysNote) {
			// The link is back: keys go again, the note is over.
			m.note = ""
		}
	}
}

// groupCounts is the status bar's counts, run by run ("api ●2 ✓1 ·
// build-box:web ●1"); ok is false for a single run.
func (m *Model) groupCounts() (long, short string, ok bool) {
	rg, ok := m.eng.(runGroups)
	if !ok {
		return "", "", false
	}
	status := map[string]string{}
	for _, wr := range m.st.Workers {
		status[wr.WorkerID] = wr.Status
	}
	var longs, shorts []string
	for _, g := range rg.Groups() {
		counts := map[string]int{}
		for _, id := range g.Workers {
			counts[status[id]]++
		}
		var parts []string
		for _, s := range statusOrder {
			if counts[s] > 0 {
				parts = append(parts, paint(m.th.statusColour(s), statusGlyph(s)+strconv.Itoa(counts[s])))
			}
		}
		name := paint(m.th.barKey, g.Name)
		if m.groupLost(g) {
			name += paint(m.th.warn, " ⚠")
		}
		longs = append(longs, name+" "+strings.Join(parts, " "))
		shorts = append(shorts, strings.Join(parts, " "))
	}
	return " " + strings.Join(longs, paint(m.th.dim, " · ")), " " + strings.Join(shorts, paint(m.th.dim, " · ")), true
}

// groupLost reports whether the run's panes say its link is lost.
func (m *Model) groupLost(g RunGroup) bool {
	for _, id := range g.Workers {
		if p := m.byID[id]; p != nil && p.link != "" {
			return true
		}
	}
	return false
}
