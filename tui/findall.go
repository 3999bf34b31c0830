// findall.go is the search across every pane: f opens the prompt, Enter
// searches every worker's scrollback and screen and every earlier
// attempt's output.log (replayed at the pane's size, kept for < >), off
// the UI goroutine, and lists the matches grouped by worker as
// `worker · attempt · line · text`, earlier attempts marked. Enter on a row
// focuses the pane, shows that attempt and opens copy mode on the match,
// with the query's matches painted and n/N stepping through them.
//
// Data model: findSource is one terminal to search (a live one, snapshot
// when the search runs, or a log to replay); findHit is one match with the
// snapshot it was found in, so copy mode opens on the very lines that
// matched whatever the pane printed since; findList is the open list.
package tui

import (
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/panes/vt"
)

// findCap bounds the rows of the list; the count says when more matched.
const findCap = 5000

// findSource is one attempt's terminal to search.
type findSource struct {
	pane    int
	worker  string
	attempt int
	earlier bool         // not the worker's current attempt
	term    *vt.Terminal // snapshot and search it; nil: replay log
	log     string
	cols    int
	rows    int
}

// findHit is one match.
type findHit struct {
	src   *findSource
	term  *vt.Terminal // the terminal it was found in (a snapshot or a replay)
	match vt.Match     // Start and End
	text  string       // the line, whole up to findTextCap bytes
	from  int          // the match in text, bytes
	to    int
}

// findTextCap bounds the text kept of a matching line.
const findTextCap = 512

// findResult is what a search of every pane found.
type findResult struct {
	q        *vt.Query
	hits     []findHit
	total    int // matches found, past findCap too
	replayed []*findSource
	terms    map[*findSource]*vt.Terminal // the replays, to keep for < >
	errs     []string
	took     time.Duration
}

type findAllMsg struct {
	seq int
	res *findResult
}

// findSources lists what f searches: each worker's current attempt, then
// its earlier ones.
func (m *Model) findSources() []*findSource {
	var out []*findSource
	for i, p := range m.panes {
		d := p.cur()
		if d == nil {
			continue
		}
		if t := p.term; t != nil {
			out = append(out, &findSource{pane: i, worker: p.spec.ID, attempt: d.Attempt, term: t})
		} else if t := p.hist[d.Attempt]; t != nil {
			out = append(out, &findSource{pane: i, worker: p.spec.ID, attempt: d.Attempt, term: t})
		}
		cols, rows := m.historySize(i)
		for _, r := range p.rows {
			if r.Attempt >= d.Attempt || r.OutputLogPath == "" || r.Surface == "" {
				continue
			}
			src := &findSource{pane: i, worker: p.spec.ID, attempt: r.Attempt, earlier: true, log: r.OutputLogPath, cols: cols, rows: rows}
			if t := p.hist[r.Attempt]; t != nil {
				if c, rr := t.Size(); c == cols && rr == rows {
					src.term = t
				}
			}
			out = append(out, src)
		}
	}
	return out
}

// findAll searches every pane for q off the UI goroutine.
func (m *Model) findAll(q *vt.Query) tea.Cmd {
	srcs := m.findSources()
	if len(srcs) == 0 {
		m.note = "no pane has output to search yet"
		return nil
	}
	m.findSeq++
	seq := m.findSeq
	m.note = "searching " + strconv.Itoa(len(srcs)) + " attempt(s) for " + describeQuery(q) + "…"
	return func() tea.Msg {
		return findAllMsg{seq: seq, res: searchSources(srcs, q)}
	}
}

// searchSources searches every source, as many at once as there are
// CPUs, and puts the hits in roster order, attempts oldest first, lines
// in reading order.
func searchSources(srcs []*findSource, q *vt.Query) *findResult {
	start := time.Now()
	type found struct {
		hits  []findHit
		total int
		term  *vt.Terminal
		err   error
	}
	results := make([]found, len(srcs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(len(srcs), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				src := srcs[i]
				var t *vt.Terminal
				if src.term != nil {
					t = src.term.Snapshot()
				} else {
					var err error
					if t, err = replayLog(src.log, src.cols, src.rows); err != nil {
						results[i].err = err
						continue
					}
				}
				r := &results[i]
				r.term = t
				t.Search(q, func(mt *vt.Match) bool {
					r.total++
					if len(r.hits) < findCap {
						r.hits = append(r.hits, newHit(src, t, mt))
					}
					return true
				})
			}
		}()
	}
	for i := range srcs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	res := &findResult{q: q, terms: map[*findSource]*vt.Terminal{}}
	order := make([]int, len(srcs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		sa, sb := srcs[order[a]], srcs[order[b]]
		if sa.pane != sb.pane {
			return sa.pane < sb.pane
		}
		return sa.attempt < sb.attempt
	})
	for _, i := range order {
		r := results[i]
		src := srcs[i]
		if r.err != nil {
			res.errs = append(res.errs, fmt.Sprintf("%s attempt %d: %v", src.worker, src.attempt, r.err))
			continue
		}
		if src.term == nil {
			res.replayed = append(res.replayed, src)
			res.terms[src] = r.term
		}
		res.total += r.total
		for _, h := range r.hits {
			if len(res.hits) < findCap {
				res.hits = append(res.hits, h)
			}
		}
	}
	res.took = time.Since(start)
	return res
}

// newHit keeps a match and the text of its line.
func newHit(src *findSource, t *vt.Terminal, mt *vt.Match) findHit {
	text, from, to := mt.Text, mt.From, mt.To
	if len(text) > findTextCap {
		// Keep the match and what is around it.
		lo := max(0, min(from-findTextCap/4, len(text)-findTextCap))
		for lo > 0 && lo < len(text) && text[lo]&0xc0 == 0x80 {
			lo--
		}
		hi := min(len(text), lo+findTextCap)
		for hi < len(text) && text[hi]&0xc0 == 0x80 {
			hi++
		}
		text, from, to = text[lo:hi], from-lo, min(to-lo, hi-lo)
	}
	return findHit{src: src, term: t, match: vt.Match{Start: mt.Start, End: mt.End}, text: string(text), from: from, to: to}
}

// onFindAll opens the list of what was found.
func (m *Model) onFindAll(msg findAllMsg) {
	if msg.seq != m.findSeq {
		return // a newer search was asked for
	}
	res := msg.res
	// Replayed logs are kept for < > while the pane is still that size.
	for _, src := range res.replayed {
		p := m.panes[src.pane]
		if c, r := m.historySize(src.pane); c == src.cols && r == src.rows && !p.loading[src.attempt] {
			p.hist[src.attempt] = res.terms[src]
			delete(p.histErr, src.attempt)
		}
	}
	m.note = ""
	if len(res.errs) > 0 {
		m.note = "not searched: " + strings.Join(res.errs, "; ")
	}
	if len(res.hits) == 0 {
		if m.note == "" {
			m.note = describeQuery(res.q) + ": no match in any pane"
		}
		return
	}
	m.finds = &findList{res: res}
	m.overlay = overlayFind
	m.panelBox = nil
}

// findList is the open list of matches.
type findList struct {
	res      *findResult
	sel, top int
	rows     int // rows of hits the box shows
}

// The list's keys (keymap.go binds them).

func (m *Model) findMove(n int) {
	f := m.finds
	f.sel = max(0, min(f.sel+n, len(f.res.hits)-1))
	m.panelBox = nil
}

func (m *Model) findUp() tea.Cmd       { m.findMove(-1); return nil }
func (m *Model) findDown() tea.Cmd     { m.findMove(1); return nil }
func (m *Model) findPageUp() tea.Cmd   { m.findMove(-max(1, m.finds.rows)); return nil }
func (m *Model) findPageDown() tea.Cmd { m.findMove(max(1, m.finds.rows)); return nil }
func (m *Model) findFirst() tea.Cmd    { m.findMove(-len(m.finds.res.hits)); return nil }
func (m *Model) findLast() tea.Cmd     { m.findMove(len(m.finds.res.hits)); return nil }

func (m *Model) closeFind() tea.Cmd {
	m.overlay = overlayNone
	m.panelBox = nil
	return nil
}

// jumpToFind shows the selected match: its pane focused, its attempt on
// screen, copy mode on the match.
func (m *Model) jumpToFind() tea.Cmd {
	f := m.finds
	h := f.res.hits[f.sel]
	m.closeFind()
	cmd := m.setFocus(h.src.pane)
	p := m.panes[h.src.pane]
	p.top = -1
	p.view = 0
	if h.src.earlier {
		p.view = h.src.attempt
		if p.hist[h.src.attempt] == nil {
			p.hist[h.src.attempt] = h.term
		}
	}
	cm := m.enterCopyOn(h.src.pane, h.term)
	cm.found = findMatches(h.term, f.res.q)
	k := sort.Search(len(cm.found.all), func(i int) bool { return !cm.found.all[i].Start.Before(h.match.Start) })
	m.gotoMatch(min(k, len(cm.found.all)-1))
	return cmd
}

// findBox draws the list: one row per match, the selected one marked, the
// match painted in its line, grouped by worker (the name dimmed after its
// first row).
func (m *Model) findBox() []string {
	f := m.finds
	th := m.th
	w := max(20, min(m.width-2, 160))
	iw := w - th.box.GetHorizontalFrameSize()
	// The box's border, title and footer take 4 rows; the status bar one.
	f.rows = max(1, min(len(f.res.hits), m.height-1-2-4))
	if f.sel < f.top {
		f.top = f.sel
	}
	if f.sel >= f.top+f.rows {
		f.top = f.sel - f.rows + 1
	}
	wWorker, wWhere := 0, 0
	for _, h := range f.res.hits {
		wWorker = max(wWorker, ansi.StringWidth(printable.String(h.src.worker)))
	}
	where := func(h findHit) string {
		s := "attempt " + strconv.Itoa(h.src.attempt)
		if h.src.earlier {
			s += " (log)"
		}
		return s + " · line " + strconv.Itoa(h.match.Start.Line+1)
	}
	for _, h := range f.res.hits[f.top:min(len(f.res.hits), f.top+f.rows)] {
		wWhere = max(wWhere, ansi.StringWidth(where(h)))
	}
	lines := make([]string, 0, f.rows)
	for i := f.top; i < min(len(f.res.hits), f.top+f.rows); i++ {
		h := f.res.hits[i]
		name := printable.String(h.src.worker)
		name += strings.Repeat(" ", wWorker-ansi.StringWidth(name))
		if i > f.top && f.res.hits[i-1].src.pane == h.src.pane {
			name = paint(th.dim, name)
		}
		head := name + " · " + fit(where(h), wWhere) + " · "
		room := max(1, iw-2-ansi.StringWidth(head))
		mark := "  "
		if i == f.sel {
			mark = "› "
		}
		line := mark + head + hitText(h, room, th)
		if i == f.sel {
			line = paint(th.selected, ansi.Strip(line))
		}
		lines = append(lines, fit(line, iw))
	}
	title := fmt.Sprintf("%s: %d match(es) in %s", describeQuery(f.res.q), f.res.total, workersOf(f.res.hits))
	if f.res.total > len(f.res.hits) {
		title += fmt.Sprintf(", the first %d listed", len(f.res.hits))
	}
	foot := keyHints(m.keys.find, "go", "next", "closes") + fmt.Sprintf(" · %d of %d · (log): an earlier attempt, from its output.log", f.sel+1, len(f.res.hits))
	return box(th, title, strings.Join(lines, "\n"), w, foot)
}

// hitText is a match's line cut to room cells around the match, the match
// painted.
func hitText(h findHit, room int, th *theme) string {
	pre, mid, post := h.text[:h.from], h.text[h.from:h.to], h.text[h.to:]
	pre = strings.TrimLeft(pre, " ")
	// Keep up to a third of the room before the match.
	if pw := ansi.StringWidth(pre); pw > room/3 {
		pre = "…" + ansi.TruncateLeft(pre, pw-room/3+1, "")
	}
	s := pre + paint(th.match, mid) + post
	return fitText(s, room)
}

// workersOf says how many workers the hits are in.
func workersOf(hits []findHit) string {
	n, last := 0, -1
	for _, h := range hits {
		if h.src.pane != last {
			n++
			last = h.src.pane
		}
	}
	if n == 1 {
		return "1 worker"
	}
	return strconv.Itoa(n) + " workers"
}
