// runfile_yaml.go is the position-keeping YAML reader under the run-file
// schema (runfile.go): it parses the bytes into goccy/go-yaml's AST,
// resolves anchors, aliases, tags and merge keys, and reads typed values
// out of the tree, recording every problem with file:line:col.
//
// Data model: the walk carries a val (the node, where it was written and its
// key path such as "workers[2].completion.settle"). Every rule that fails adds
// a Problem with file:line:col, the key path and what to do; the walk never
// stops at the first one, so a user fixes a run file in one pass.
package runfile

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/rostra-dev/rostra/internal/printable"
)

// Problem is one thing wrong with a run file, where it was written and what
// to do about it.
type Problem struct {
	File    string // the run file as given to Load
	Line    int    // 1-based
	Col     int    // 1-based
	Path    string // key path, e.g. "workers[1].provider"; "" for the file as a whole
	Message string
}

// String is the problem as one line: "rostra.yaml:12:5: workers[1].provider: ...".
func (p Problem) String() string {
	if p.Path == "" {
		return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", p.File, p.Line, p.Col, p.Path, p.Message)
}

// ValidationError is every problem found in a run file. The CLI prints
// Error() and exits 2.
type ValidationError struct {
	Problems []Problem // sorted by line, then column
}

// Error is one line per problem.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// firstInvalidUTF8 finds the line and column (in characters, 1-based) of
// the first byte that is not valid UTF-8.
func firstInvalidUTF8(data []byte) (line, col int, ok bool) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col, false
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return 0, 0, true
}

// maxAliasDepth bounds alias and merge-key chains, so a self-referencing
// anchor is a problem rather than a hang.
const maxAliasDepth = 32

// The YAML parser's time grows with the square of the nesting depth (100k
// nested brackets take most of a minute), so input far beyond any real run
// file is refused before it is parsed.
const (
	maxRunFileSize = 1 << 20
	maxFlowDepth   = 1000
)

// loader is the state of one Load: the problems found so far and the
// anchors an alias may name.
type loader struct {
	file       string // as given to Load
	runFile    string // absolute
	problems   []Problem
	anchors    map[string][]*ast.AnchorNode // by name, in document order
	mergeDepth int                          // merge keys being expanded, one inside another
	mergeCount int                          // mappings merged so far, bounded by maxMerges
	realWS     string                       // the workspace with symlinks resolved
	// isolationAt is, per worker in roster order, where its isolation
	// was written (the worker's id when it was not).
	isolationAt []val
	hostAt      []val  // per worker: where its host was set (or the worker)
	home        string // $HOME, for ~/ in sandbox_writes
}

// maxMerges bounds the mappings merge keys bring in over a whole file: a
// chain of anchors that each merge the previous one several times would
// otherwise grow exponentially.
const maxMerges = 10000

// val is one node of the run file: n is the value (anchors, aliases and
// tags already resolved), at is where it was written, path its key path.
type val struct {
	n    ast.Node
	at   ast.Node
	path string
}

func (v val) child(key string) string { return joinPath(v.path, key) }

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// add records a problem at node n (nil: the top of the file).
func (l *loader) add(n ast.Node, path, format string, args ...any) {
	line, col := position(n)
	// One line per problem, whatever text the run file holds: a NUL or an
	// escape sequence from it shows as what it is (\x00, \e), never acts
	// on the terminal.
	msg := printable.String(fmt.Sprintf(format, args...))
	l.problems = append(l.problems, Problem{
		File: l.file, Line: line, Col: col, Path: printable.String(path), Message: msg,
	})
}

func (l *loader) addAt(v val, format string, args ...any) { l.add(v.at, v.path, format, args...) }

func position(n ast.Node) (line, col int) {
	// A block mapping starts where its first key is written.
	switch m := n.(type) {
	case *ast.MappingNode:
		if !m.IsFlowStyle && len(m.Values) > 0 && m.Values[0] != nil && m.Values[0].Key != nil {
			n = m.Values[0].Key
		}
	case *ast.MappingValueNode:
		if m.Key != nil {
			n = m.Key
		}
	}
	if n == nil {
		return 1, 1
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil || tk.Position.Line < 1 {
		return 1, 1
	}
	return tk.Position.Line, max(tk.Position.Column, 1)
}

func (l *loader) validationError() *ValidationError {
	ps := slices.Clone(l.problems)
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Col < ps[j].Col
	})
	ps = slices.Compact(ps)
	return &ValidationError{Problems: ps}
}

// parse turns the bytes into an AST. go-yaml is third-party code fed with
// user input; a panic inside it becomes a problem, not a crash of rostra.
func (l *loader) parse(data []byte) (f *ast.File) {
	defer func() {
		if r := recover(); r != nil {
			l.add(nil, "", "the YAML parser failed on this file (%v); check the syntax near the last edit", r)
			f = nil
		}
	}()
	// Duplicate keys are allowed through the parser so that the walk can
	// report every one of them, not just the first.
	f, err := parser.ParseBytes(data, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		var yerr yaml.Error
		if errors.As(err, &yerr) {
			tk := yerr.GetToken()
			var at ast.Node
			if tk != nil {
				at = ast.String(tk)
			}
			l.add(at, "", "invalid YAML: %s%s", yerr.GetMessage(), syntaxHint(data, tk))
		} else {
			l.add(nil, "", "invalid YAML: %v", err)
		}
		return nil
	}
	return f
}

// syntaxHint explains the usual causes of a syntax error in a run file: a
// tab in the indentation, which YAML does not allow, or a placeholder inside
// [ ] or at the start of a value, which YAML reads as a { } mapping. Each
// hint shows up when the failing line has the tab or the brace.
func syntaxHint(data []byte, tk *token.Token) string {
	if tk == nil || tk.Position == nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	n := tk.Position.Line
	if n < 1 || n > len(lines) {
		return ""
	}
	line := lines[n-1]
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	switch {
	case strings.Contains(indent, "\t"):
		return fmt.Sprintf("; line %d is indented with a tab, and YAML indents with spaces only: replace the tab with spaces", n)
	case strings.Contains(line, "{"):
		return `; quote values with {placeholders} in lists or at the start, like ["out/{worker}/result.md"]`
	}
	return ""
}

// flowDepth is how deep [ ] and { } nest, counting every bracket outside
// comments: an overestimate (brackets in quoted text count too) that is
// only compared with a bound no real run file comes near.
func flowDepth(data []byte) int {
	depth, deepest, comment := 0, 0, false
	for _, c := range data {
		switch {
		case c == '\n':
			comment = false
		case comment:
		case c == '#':
			comment = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

func (l *loader) load(data []byte) *Plan {
	// Editors on Windows start UTF-8 files with a byte order mark; YAML
	// allows one, and the reader would take it for part of the first key.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if line, col, ok := firstInvalidUTF8(data); !ok {
		// The YAML reader would turn such bytes into U+FFFD without a word,
		// and a prompt or env value would reach the worker changed.
		l.problems = append(l.problems, Problem{File: l.file, Line: line, Col: col,
			Message: "the run file is not valid UTF-8 here; save it as UTF-8 (YAML cannot carry other bytes)"})
		return nil
	}
	if d := flowDepth(data); d > maxFlowDepth {
		l.add(nil, "", "[ ] and { } nest %d deep; a run file needs a few levels, at most %d", d, maxFlowDepth)
		return nil
	}
	f := l.parse(data)
	if f == nil {
		return nil
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		l.add(nil, "", "the run file is empty; start it with version: 1, a name and workers")
		return nil
	}
	for _, d := range docs[1:] {
		l.add(d.Body, "", "a second YAML document; a run file holds exactly one (remove the --- and what follows)")
	}
	l.collectAnchors(docs[0])
	root := l.value(docs[0].Body, docs[0].Body, "")
	return l.run(root)
}

// anchorCollector gathers every anchor of the document for alias lookups.
type anchorCollector struct{ l *loader }

func (c anchorCollector) Visit(n ast.Node) ast.Visitor {
	if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
		name := a.Name.GetToken().Value
		c.l.anchors[name] = append(c.l.anchors[name], a)
	}
	return c
}

func (l *loader) collectAnchors(d *ast.DocumentNode) {
	l.anchors = map[string][]*ast.AnchorNode{}
	ast.Walk(anchorCollector{l}, d.Body)
}

// value resolves anchors, tags and aliases of n so the checks see the value
// itself; at stays where the value was written.
func (l *loader) value(n, at ast.Node, path string) val {
	for range maxAliasDepth {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			// "!!str 123" is the text "123".
			if v.Start != nil && v.Start.Value == "!!str" {
				if s, ok := v.Value.(ast.ScalarNode); ok && v.Value.Type() != ast.StringType {
					return val{n: ast.String(s.GetToken()), at: at, path: path}
				}
			}
			n = v.Value
		case *ast.AliasNode:
			n = l.anchored(v)
			if n == nil {
				name := ""
				if v.Value != nil {
					name = v.Value.GetToken().Value
				}
				l.add(at, path, "alias *%s names no anchor defined before it; define &%s first", name, name)
				return val{at: at, path: path}
			}
		default:
			return val{n: n, at: at, path: path}
		}
	}
	l.add(at, path, "aliases nest too deeply (an anchor that refers to itself?); write the value out")
	return val{at: at, path: path}
}

// anchored is the value of the last anchor of that name written before a.
func (l *loader) anchored(a *ast.AliasNode) ast.Node {
	if a.Value == nil || a.Value.GetToken() == nil {
		return nil
	}
	name := a.Value.GetToken().Value
	off := offset(a)
	var found ast.Node
	for _, anc := range l.anchors[name] {
		if offset(anc) < off {
			found = anc.Value
		}
	}
	return found
}

func offset(n ast.Node) int {
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Offset
	}
	return 0
}

func isNull(v val) bool {
	if v.n == nil {
		return true
	}
	_, null := v.n.(*ast.NullNode)
	return null
}

// describe names what a node holds, for type problems.
func describe(n ast.Node) string {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode:
		return fmt.Sprintf("the text %q", v.Value)
	case *ast.LiteralNode:
		return "a block of text"
	case *ast.IntegerNode:
		return "the number " + v.GetToken().Value
	case *ast.FloatNode:
		return "the number " + v.GetToken().Value
	case *ast.BoolNode:
		return "the boolean " + v.GetToken().Value
	default:
		if tk := n.GetToken(); tk != nil {
			return fmt.Sprintf("%q", tk.Value)
		}
		return "something else"
	}
}

func (l *loader) wrongType(v val, want string) {
	hint := ""
	if want == "a string" {
		if s, ok := v.n.(ast.ScalarNode); ok && v.n.Type() != ast.NullType {
			hint = fmt.Sprintf("; put it in quotes: \"%s\"", s.GetToken().Value)
		}
	}
	l.addAt(v, "expected %s, got %s%s", want, describe(v.n), hint)
}

// entry is one key: value pair of a mapping.
type entry struct {
	key string
	at  ast.Node // the key, for problems about the key itself
	val val
}

// entries lists the pairs of a mapping in the order written, reporting keys
// that are not plain names and keys given twice. Merge keys ("<<: *base")
// contribute the keys the mapping does not set itself.
func (l *loader) entries(v val) ([]entry, bool) {
	var pairs []*ast.MappingValueNode
	switch m := v.n.(type) {
	case *ast.MappingNode:
		pairs = m.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{m}
	default:
		l.wrongType(v, "a mapping of key: value")
		return nil, false
	}
	var own, merged []entry
	seen := map[string]ast.Node{}
	for _, p := range pairs {
		if p == nil || p.Key == nil {
			continue
		}
		if p.Key.Type() == ast.MergeKeyType {
			merged = append(merged, l.mergeEntries(l.value(p.Value, p.Value, v.path))...)
			continue
		}
		key, ok := l.keyName(p.Key, v.path)
		if !ok {
			continue
		}
		if first, dup := seen[key]; dup {
			line, _ := position(first)
			l.add(p.Key, v.path, "key %q is set twice (first on line %d); keep one", key, line)
			continue
		}
		seen[key] = p.Key
		own = append(own, entry{key: key, at: p.Key, val: l.value(p.Value, p.Value, v.child(key))})
	}
	for _, e := range merged {
		if _, set := seen[e.key]; set {
			continue
		}
		seen[e.key] = e.at
		e.val.path = v.child(e.key)
		own = append(own, e)
	}
	return own, true
}

// mergeEntries are the pairs a merge key brings in: one mapping, or a list
// of them where the earlier one wins. A merged mapping may merge others in
// turn; the depth is bounded so that one that merges itself ends.
func (l *loader) mergeEntries(v val) []entry {
	if l.mergeDepth >= maxAliasDepth {
		l.addAt(v, "merge keys nest too deeply (a mapping that merges itself?); write the keys out")
		return nil
	}
	if l.mergeCount++; l.mergeCount > maxMerges {
		if l.mergeCount == maxMerges+1 {
			l.addAt(v, "merge keys bring in more than %d mappings; write the keys out", maxMerges)
		}
		return nil
	}
	l.mergeDepth++
	defer func() { l.mergeDepth-- }()
	if s, ok := v.n.(*ast.SequenceNode); ok {
		var out []entry
		for _, item := range s.Values {
			iv := l.value(item, item, v.path)
			if _, nested := iv.n.(*ast.SequenceNode); nested {
				l.addAt(iv, "<< merges a mapping or a list of mappings, got a list inside the list")
				continue
			}
			out = append(out, l.mergeEntries(iv)...)
		}
		return out
	}
	switch v.n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		es, _ := l.entries(v)
		return es
	}
	l.addAt(v, "<< merges a mapping or a list of mappings, got %s", describe(v.n))
	return nil
}

func (l *loader) keyName(k ast.MapKeyNode, path string) (string, bool) {
	var n ast.Node = k
	if mk, ok := k.(*ast.MappingKeyNode); ok {
		n = mk.Value
	}
	kv := l.value(n, k, path)
	switch s := kv.n.(type) {
	case *ast.StringNode:
		return s.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return s.GetToken().Value, true
	}
	l.add(k, path, "a key must be a plain name, got %s", describe(kv.n))
	return "", false
}

// fields reads a mapping with a fixed set of keys: unknown keys are
// problems; keys set to nothing ("key:") count as absent.
func (l *loader) fields(v val, allowed []string) (map[string]val, bool) {
	es, ok := l.entries(v)
	if !ok {
		return nil, false
	}
	out := make(map[string]val, len(es))
	for _, e := range es {
		if v.path == "" && strings.HasPrefix(e.key, "x-") {
			// Top-level "x-" keys hold anchors for the rest of the file
			// to merge (as in docker compose); rostra ignores them.
			continue
		}
		if !slices.Contains(allowed, e.key) {
			msg := fmt.Sprintf("unknown key %q", e.key)
			if near := nearest(e.key, allowed); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			hint := ""
			if v.path == "" {
				hint = " (or an x- key for anchors)"
			}
			l.add(e.at, v.path, "%s; allowed keys: %s%s", msg, strings.Join(allowed, ", "), hint)
			continue
		}
		if isNull(e.val) {
			continue
		}
		out[e.key] = e.val
	}
	return out, true
}

// nearest is the allowed word w was probably meant to be, for "did you
// mean": one edit away, two for longer words, or a start of it ("work" for
// "worker"); "" when none is close.
func nearest(w string, allowed []string) string {
	best, bestDist := "", math.MaxInt
	for _, a := range allowed {
		d := editDistance(w, a)
		close := d <= 1 || d == 2 && len(w) > 4 ||
			len(w) >= 3 && (strings.HasPrefix(a, w) || strings.HasPrefix(w, a))
		if close && d < bestDist {
			best, bestDist = a, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (l *loader) str(v val) (string, bool) {
	switch s := v.n.(type) {
	case *ast.StringNode:
		return s.Value, true
	case *ast.LiteralNode:
		if s.Value == nil {
			return "", true
		}
		return s.Value.Value, true
	}
	l.wrongType(v, "a string")
	return "", false
}

func (l *loader) integer(v val) (int, bool) {
	if n, ok := v.n.(*ast.IntegerNode); ok {
		switch x := n.Value.(type) {
		case int64:
			if x >= math.MinInt32 && x <= math.MaxInt32 {
				return int(x), true
			}
		case uint64:
			if x <= math.MaxInt32 {
				return int(x), true
			}
		}
		l.addAt(v, "%s is out of range", n.GetToken().Value)
		return 0, false
	}
	if s, ok := v.n.(*ast.StringNode); ok {
		if _, err := strconv.Atoi(s.Value); err == nil {
			l.addAt(v, "expected a whole number, got the text %q; drop the quotes", s.Value)
			return 0, false
		}
	}
	l.wrongType(v, "a whole number")
	return 0, false
}

const durationHint = "write it like 30m, 90s or 500ms"

// duration reads a Go duration string ("30m", "500ms"); a bare 0 is allowed
// because "none" is most naturally written that way.
func (l *loader) duration(v val) (time.Duration, bool) {
	switch n := v.n.(type) {
	case *ast.StringNode:
		d, err := time.ParseDuration(strings.TrimSpace(n.Value))
		if err != nil {
			l.addAt(v, "%q is not a duration; %s", n.Value, durationHint)
			return 0, false
		}
		if d < 0 {
			l.addAt(v, "%s is negative; durations are 0 or more (0 means none where allowed)", n.Value)
			return 0, false
		}
		return d, true
	case *ast.IntegerNode, *ast.FloatNode:
		text := n.GetToken().Value
		if f, err := strconv.ParseFloat(text, 64); err == nil && f == 0 {
			return 0, true
		}
		if strings.HasPrefix(text, "-") {
			l.addAt(v, "%s is negative; durations are 0 or more (0 means none where allowed)", text)
			return 0, false
		}
		l.addAt(v, "%s has no unit; %s", text, durationHint)
		return 0, false
	}
	l.wrongType(v, "a duration ("+durationHint+")")
	return 0, false
}

// The optional getters read the key of a mapping read by fields. ok is
// false when the key is not set or its value is not of the type (a problem
// is then recorded), so a caller handles only a value it can use; v is
// where the value was written, for problems about the value itself.

func (l *loader) optStr(m map[string]val, key string) (s string, v val, ok bool) {
	if v, ok = m[key]; ok {
		s, ok = l.str(v)
	}
	return s, v, ok
}

func (l *loader) optInt(m map[string]val, key string) (n int, v val, ok bool) {
	if v, ok = m[key]; ok {
		n, ok = l.integer(v)
	}
	return n, v, ok
}

func (l *loader) optDuration(m map[string]val, key string) (d time.Duration, v val, ok bool) {
	if v, ok = m[key]; ok {
		d, ok = l.duration(v)
	}
	return d, v, ok
}

// optFields reads the key of m as a mapping with the allowed keys; nil when
// the key is not set or is not such a mapping (a problem is then recorded).
// Reading from a nil map finds nothing, so getters chain through it.
func (l *loader) optFields(m map[string]val, key string, allowed []string) map[string]val {
	v, ok := m[key]
	if !ok {
		return nil
	}
	f, _ := l.fields(v, allowed)
	return f
}

// strList reads a list of strings; the nodes come back for per-item problems.
func (l *loader) strList(v val) ([]string, []val, bool) {
	s, ok := v.n.(*ast.SequenceNode)
	if !ok {
		l.wrongType(v, "a list of strings like [a, b]")
		return nil, nil, false
	}
	out := []string{}
	var vals []val
	all := true
	for i, item := range s.Values {
		iv := l.value(item, item, indexPath(v.path, i))
		if item == nil {
			iv.at = s
		}
		str, ok := l.str(iv)
		if !ok {
			all = false
			continue
		}
		out = append(out, str)
		vals = append(vals, iv)
	}
	return out, vals, all
}
