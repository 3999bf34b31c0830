// find.go holds search over a Terminal's absolute line space: a Query (a
// literal or an RE2 regular expression, with smart case: a query without an
// upper-case letter ignores case, as in less, vim and tmux) and Search,
// which reports every match with the cells it covers. A line wrapped over
// several rows is searched as one line (its rows joined as Copy joins
// them, blanks kept), so a word cut by the pane's edge is still found.
//
// Search reads each line as plain text (appendLine, the fast path Window
// uses) and maps a match back to cells only when there is one, which is
// what keeps a search of 16 panes × 10,000 lines within a frame or two.
package vt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unsafe"
)

// Query is a compiled search.
type Query struct {
	text  string
	regex bool
	fold  bool
	lower bool           // search the text with its ASCII letters in lower case
	re    *regexp.Regexp // a regular expression, or a literal that needs Unicode case folding
	lit   []byte         // a literal
}

// NewQuery compiles text, a literal unless regex is set. Smart case: a
// query with no upper-case letter matches either case.
func NewQuery(text string, regex bool) (*Query, error) {
	if text == "" {
		return nil, fmt.Errorf("the query is empty")
	}
	q := &Query{text: text, regex: regex, fold: !hasUpper(text, regex)}
	switch {
	case !regex && !q.fold:
		q.lit = []byte(text)
		return q, nil
	case !regex && isASCIIString(text):
		q.lit, q.lower = []byte(strings.ToLower(text)), true
		return q, nil
	}
	src := text
	if !regex {
		src = regexp.QuoteMeta(text)
	}
	var err error
	if q.fold {
		src, err = lowerCased(src)
		q.lower = true
	}
	if err == nil {
		q.re, err = regexp.Compile(src)
	}
	if err != nil {
		return nil, fmt.Errorf("not a regular expression: %w", err)
	}
	return q, nil
}

// lowerCased rewrites a case-insensitive regular expression to run on
// text whose ASCII letters are in lower case: its ASCII literals become
// lower-case and case-sensitive, which lets regexp look for a literal
// prefix with a fast byte search instead of stepping its automaton through
// every byte (20 times faster on a pane's 10,000 lines). Other literals
// keep folding case.
func lowerCased(src string) (string, error) {
	re, err := syntax.Parse(src, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return "", err
	}
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase != 0 && isASCIIRunes(r.Rune) {
			for i, c := range r.Rune {
				r.Rune[i] = unicode.ToLower(c)
			}
			r.Flags &^= syntax.FoldCase
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return re.String(), nil
}

func isASCIIRunes(rs []rune) bool {
	for _, r := range rs {
		if r >= 0x80 {
			return false
		}
	}
	return true
}

// String is the query as typed.
func (q *Query) String() string { return q.text }

// Regex reports whether the query is a regular expression.
func (q *Query) Regex() bool { return q.regex }

// IgnoresCase reports whether smart case made the query case-insensitive.
func (q *Query) IgnoresCase() bool { return q.fold }

// hasUpper says whether a query asks for case to matter. In a regular
// expression a letter after a backslash is syntax (\S, \W), not text.
func hasUpper(s string, regex bool) bool {
	esc := false
	for _, r := range s {
		switch {
		case esc:
			esc = false
		case regex && r == '\\':
			esc = true
		case unicode.IsUpper(r):
			return true
		}
	}
	return false
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Match is one occurrence.
type Match struct {
	Start Pos // the first cell matched
	End   Pos // the cell after the last one matched (End.Col may be the width)
	// Text is the whole (wrapped) line the match is in and From, To the
	// match's bytes in it. Text is only valid during the callback.
	Text     []byte
	From, To int
}

// Search calls fn for each match, oldest line first, left to right, until
// fn returns false. An empty match (a regular expression such as `x*`) is
// not reported; ^ and $ are the ends of the (wrapped) line.
func (t *Terminal) Search(q *Query, fn func(*Match) bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	total := t.sb.len() + t.rows
	var buf, low []byte
	var rows []int // byte offset in buf where each row of the line starts
	var row Row
	var m Match
	first := 0
	for i := range total {
		if i == first {
			buf, rows = buf[:0], rows[:0]
		}
		rows = append(rows, len(buf))
		buf = t.appendPlain(buf, i)
		if n := t.wrappedLen(i); n > 0 && i < total-1 {
			// A wrapped row keeps its blanks, as Copy keeps them.
			for w := textCells(buf[rows[len(rows)-1]:]); w < n; w++ {
				buf = append(buf, ' ')
			}
			continue
		}
		lineFirst := first
		first = i + 1
		if len(buf) == 0 {
			continue
		}
		hay := buf
		if q.lower {
			low = lowerASCII(low, buf)
			hay = low
		}
		if q.re != nil {
			for _, loc := range q.re.FindAllIndex(hay, -1) {
				if loc[0] == loc[1] {
					continue
				}
				if !t.report(&m, buf, lineFirst, rows, loc[0], loc[1], &row, fn) {
					return
				}
			}
			continue
		}
		for off := 0; ; {
			k := bytes.Index(hay[off:], q.lit)
			if k < 0 {
				break
			}
			from := off + k
			off = from + len(q.lit)
			if !t.report(&m, buf, lineFirst, rows, from, off, &row, fn) {
				return
			}
		}
	}
}

// report maps a match's bytes to cells and hands it to fn. A match with no
// cells is not reported: scrollback keeps the main screen's width while the
// alternate screen is up, a narrower screen shows those lines cut, and a
// match in the part cut off would start where it ends.
func (t *Terminal) report(m *Match, line []byte, first int, rows []int, from, to int, row *Row, fn func(*Match) bool) bool {
	m.Start = t.cellAt(first, rows, from, false, row)
	m.End = t.cellAt(first, rows, to, true, row)
	if !m.Start.Before(m.End) {
		return true
	}
	m.Text, m.From, m.To = line, from, to
	return fn(m)
}

// appendPlain is appendLine(buf, i, false, false), faster for scrollback:
// a line's text is taken as it is stored, without decoding its styles,
// unless it holds half of a wide character.
func (t *Terminal) appendPlain(buf []byte, i int) []byte {
	if i < t.sb.len() {
		// 0xf4 starts the orphan marks (U+10FFFD, U+10FFFE), which text
		// does not show.
		if text, ok := storedText(t.sb.get(i)); ok && bytes.IndexByte(text, 0xf4) < 0 {
			n := len(text)
			for n > 0 && text[n-1] == ' ' {
				n--
			}
			return append(buf, text[:n]...)
		}
	}
	return t.appendLine(buf, i, false, false)
}

// storedText is the text of an encoded scrollback line (see scrollback.go),
// found by skipping the run headers without decoding the styles.
func storedText(s string) ([]byte, bool) {
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	if len(b) == 0 {
		return nil, true
	}
	i := 1
	var runs uint64 // the third of used, width and runs
	for range 3 {
		v, k := binary.Uvarint(b[i:])
		if k <= 0 {
			return nil, false
		}
		i += k
		runs = v
	}
	for range runs {
		_, k := binary.Uvarint(b[i:])
		if k <= 0 || i+k >= len(b) {
			return nil, false
		}
		i += k
		mask := b[i]
		i++
		if mask&encAttrs != 0 {
			i += 2
		}
		if mask&encUL != 0 {
			i++
		}
		for c := range 3 {
			switch mask >> (2 * c) & 3 {
			case 1:
				i++
			case 2:
				i += 3
			}
		}
		if i > len(b) {
			return nil, false
		}
	}
	return b[i:], true
}

// textCells is how many cells plain text takes.
func textCells(b []byte) int {
	if isASCII(b) {
		return len(b)
	}
	n := 0
	for _, r := range string(b) {
		n += runeWidth(r)
	}
	return n
}

// cellAt maps byte off of a line made of rows (rows[k] is where row
// first+k starts in the line's text) to a cell. An end offset belongs to
// the row its last byte is in, and names the cell after it.
func (t *Terminal) cellAt(first int, rows []int, off int, end bool, row *Row) Pos {
	k := len(rows) - 1
	for k > 0 && (rows[k] > off || (end && rows[k] == off)) {
		k--
	}
	t.readRow(first+k, row)
	rel := off - rows[k]
	n := row.Cols()
	for x := 0; x < n; x++ {
		if row.Padding(x) {
			continue
		}
		if end && row.start[x] >= rel {
			return Pos{first + k, x}
		}
		if !end && row.start[x+1] > rel {
			return Pos{first + k, x}
		}
	}
	return Pos{first + k, n}
}

// lowerTable maps each byte to its ASCII lower case.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// lowerASCII is src with ASCII letters in lower case, in dst's storage;
// every other byte is unchanged, so offsets stay those of src.
func lowerASCII(dst, src []byte) []byte {
	if cap(dst) < len(src) {
		dst = make([]byte, len(src), 2*len(src))
	}
	dst = dst[:len(src)]
	for i, c := range src {
		dst[i] = lowerTable[c]
	}
	return dst
}
