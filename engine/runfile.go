// runfile.go loads a run file (SPEC §2) into a Plan: it parses the YAML into
// goccy/go-yaml's AST, walks that AST against the run-file schema, checks
// every rule, and fills in the defaults.
//
// Data model: the walk carries a val (the node, where it was written and its
// key path such as "workers[2].completion.settle"). Every rule that fails adds
// a Problem with file:line:col, the key path and what to do; the walk never
// stops at the first one, so a user fixes a run file in one pass. Load returns
// either a Plan or a *ValidationError holding every Problem, sorted by
// position. Reading the file itself can fail with an ordinary error.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Defaults of SPEC §2, applied when the run file leaves a key out.
const (
	DefaultPanesMax       = 8
	DefaultMaxAttempts    = 3
	DefaultTimeout        = 30 * time.Minute
	DefaultIdleTimeout    = time.Duration(0)
	DefaultRetryBackoff   = 2 * time.Second
	DefaultStopGrace      = 5 * time.Second
	DefaultAttentionAfter = 30 * time.Second
	DefaultStable         = 500 * time.Millisecond
)

// DefaultSurfaces is the runtime chain a worker gets when none is given.
var DefaultSurfaces = []SurfaceKind{SurfacePane, SurfaceWrapper}

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

// Load reads, validates and completes the run file at path. A bad run file
// gives a *ValidationError; an unreadable one gives the file-system error.
func Load(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read run file: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("run file %s: %w", path, err)
	}
	l := &loader{file: path, runFile: abs}
	plan := l.load(data)
	if len(l.problems) > 0 {
		return nil, l.validationError()
	}
	return plan, nil
}

var (
	namePattern = regexp.MustCompile(`^[a-z0-9._-]{1,64}$`)

	runKeys      = []string{"version", "name", "workspace", "state_dir", "panes", "providers", "defaults", "workers"}
	panesKeys    = []string{"max"}
	providerKeys = []string{"command", "no_result_exit_code", "delivery"}
	defaultsKeys = []string{"surfaces", "max_attempts", "timeout", "idle_timeout", "retry_backoff", "stop_grace", "attention_after"}
	workerKeys   = []string{
		"id", "role", "provider", "prompt", "command", "cwd", "env", "completion", "writes",
		"surfaces", "max_attempts", "timeout", "idle_timeout", "retry_backoff", "stop_grace",
	}
	completionKeys = []string{"result", "aliases", "paths", "settle", "stable"}
)

// validName is SPEC §2's [a-z0-9._-]{1,64} for run names and worker ids,
// less "." and "..": both become path elements of the state dir, where they
// would name the folder itself or its parent.
func validName(s string) bool {
	return namePattern.MatchString(s) && s != "." && s != ".."
}

func nameProblem(what, s string) string {
	if s == "." || s == ".." {
		return fmt.Sprintf("%q is not a valid %s: as a folder name it means this folder or its parent; add letters or digits", s, what)
	}
	return fmt.Sprintf("%q is not a valid %s; use 1-64 of a-z, 0-9, '.', '_' and '-'", s, what)
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
	// One line per problem, whatever text the run file holds.
	msg := lineBreaks.Replace(fmt.Sprintf(format, args...))
	l.problems = append(l.problems, Problem{
		File: l.file, Line: line, Col: col, Path: lineBreaks.Replace(path), Message: msg,
	})
}

func (l *loader) addAt(v val, format string, args ...any) { l.add(v.at, v.path, format, args...) }

var lineBreaks = strings.NewReplacer("\n", `\n`, "\r", `\r`)

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
			l.add(at, "", "invalid YAML: %s%s", yerr.GetMessage(), flowHint(data, tk))
		} else {
			l.add(nil, "", "invalid YAML: %v", err)
		}
		return nil
	}
	return f
}

// flowHint explains the usual cause of a syntax error in a run file: a
// placeholder inside [ ] or at the start of a value, which YAML reads as a
// { } mapping. The hint shows up when the failing line has a brace.
func flowHint(data []byte, tk *token.Token) string {
	if tk == nil || tk.Position == nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n := tk.Position.Line; n >= 1 && n <= len(lines) && strings.Contains(lines[n-1], "{") {
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
	if len(data) > maxRunFileSize {
		l.add(nil, "", "the run file is %d bytes; a run file is at most %d bytes", len(data), maxRunFileSize)
		return nil
	}
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

// template checks the placeholders of one template. forbidden maps names
// that are placeholders but not usable here to the reason.
func (l *loader) template(v val, s string, forbidden map[string]string) bool {
	names, err := TemplateNames(s)
	if err != nil {
		l.addAt(v, "a placeholder is not closed in %q; close it with } or write {{ for a literal brace", s)
		return false
	}
	ok := true
	for _, name := range names {
		if why, bad := forbidden[name]; bad {
			l.addAt(v, "{%s} cannot be used here: %s", name, why)
			ok = false
			continue
		}
		if !slices.Contains(Placeholders, name) {
			msg := fmt.Sprintf("unknown placeholder {%s}", name)
			if near := nearest(name, Placeholders); near != "" {
				msg += fmt.Sprintf(" (did you mean {%s}?)", near)
			}
			known := make([]string, len(Placeholders))
			for i, p := range Placeholders {
				known[i] = "{" + p + "}"
			}
			l.addAt(v, "%s; use one of %s, or {{ and }} for literal braces", msg, strings.Join(known, ", "))
			ok = false
		}
	}
	return ok
}

// runDefaults are the keys a worker may set and `defaults` sets for all.
type runDefaults struct {
	Surfaces     []SurfaceKind
	MaxAttempts  int
	Timeout      time.Duration
	IdleTimeout  time.Duration
	RetryBackoff time.Duration
	StopGrace    time.Duration
}

// overrides applies the keys of m that set runDefaults to d.
func (l *loader) overrides(m map[string]val, d runDefaults) runDefaults {
	if v, ok := m["surfaces"]; ok {
		if s, ok := l.surfaces(v); ok {
			d.Surfaces = s
		}
	}
	if v, ok := m["max_attempts"]; ok {
		if n, ok := l.integer(v); ok {
			if n < 1 {
				l.addAt(v, "must be 1 or more (the first attempt counts), got %d", n)
			} else {
				d.MaxAttempts = n
			}
		}
	}
	for key, dst := range map[string]*time.Duration{
		"timeout": &d.Timeout, "idle_timeout": &d.IdleTimeout,
		"retry_backoff": &d.RetryBackoff, "stop_grace": &d.StopGrace,
	} {
		if v, ok := m[key]; ok {
			if dur, ok := l.duration(v); ok {
				*dst = dur
			}
		}
	}
	return d
}

func (l *loader) surfaces(v val) ([]SurfaceKind, bool) {
	names, vals, ok := l.strList(v)
	if !ok {
		return nil, false
	}
	if len(names) == 0 {
		l.addAt(v, "the surfaces list is empty; list at least one of pane, wrapper")
		return nil, false
	}
	var out []SurfaceKind
	for i, name := range names {
		k := SurfaceKind(name)
		switch {
		case k != SurfacePane && k != SurfaceWrapper:
			l.addAt(vals[i], "unknown surface %q; use pane or wrapper", name)
			ok = false
		case slices.Contains(out, k):
			l.addAt(vals[i], "surface %q is listed twice; list each once", name)
			ok = false
		default:
			out = append(out, k)
		}
	}
	return out, ok
}

// run checks the top-level mapping and builds the plan from it.
func (l *loader) run(root val) *Plan {
	top, ok := l.fields(root, runKeys)
	if !ok {
		return nil
	}
	p := &Plan{RunFile: l.runFile, PanesMax: DefaultPanesMax, AttentionAfter: DefaultAttentionAfter}

	if v, ok := top["version"]; !ok {
		l.add(root.at, "", "version is missing; add version: 1")
	} else if n, ok := l.integer(v); ok {
		if n != 1 {
			l.addAt(v, "unsupported version %d; this rostra reads version 1", n)
		}
		p.Version = n
	}

	if v, ok := top["name"]; !ok {
		l.add(root.at, "", "name is missing; add a name like name: demo")
	} else if s, ok := l.str(v); ok {
		if !validName(s) {
			l.addAt(v, "%s", nameProblem("name", s))
		}
		p.Name = s
	}

	wsRoot := l.workspace(p, top)
	if wsRoot != nil {
		defer wsRoot.Close()
	}
	l.stateDir(p, top)

	if v, ok := top["panes"]; ok {
		if m, ok := l.fields(v, panesKeys); ok {
			if mv, ok := m["max"]; ok {
				if n, ok := l.integer(mv); ok {
					if n < 0 {
						l.addAt(mv, "must be 0 or more (0 runs every worker on its next surface), got %d", n)
					} else {
						p.PanesMax = n
					}
				}
			}
		}
	}

	p.Providers = l.providers(top)

	d := runDefaults{
		Surfaces:     DefaultSurfaces,
		MaxAttempts:  DefaultMaxAttempts,
		Timeout:      DefaultTimeout,
		IdleTimeout:  DefaultIdleTimeout,
		RetryBackoff: DefaultRetryBackoff,
		StopGrace:    DefaultStopGrace,
	}
	if v, ok := top["defaults"]; ok {
		if m, ok := l.fields(v, defaultsKeys); ok {
			d = l.overrides(m, d)
			if av, ok := m["attention_after"]; ok {
				if dur, ok := l.duration(av); ok {
					p.AttentionAfter = dur
				}
			}
		}
	}

	l.workers(p, top, root, d, wsRoot)
	return p
}

// workspace resolves the workspace against the run file's folder and opens
// it as an os.Root, through which paths are checked for symlink escapes. It
// returns nil when the workspace is unusable (a problem is then recorded).
func (l *loader) workspace(p *Plan, top map[string]val) *os.Root {
	ws, at := ".", val{path: "workspace"}
	if v, ok := top["workspace"]; ok {
		s, ok := l.str(v)
		if !ok {
			return nil
		}
		if s == "" {
			l.addAt(v, "is empty; write . for the run file's folder")
			return nil
		}
		ws, at = s, v
	}
	if !filepath.IsAbs(ws) {
		ws = filepath.Join(filepath.Dir(l.runFile), ws)
	}
	p.Workspace = filepath.Clean(ws)
	fi, err := os.Stat(p.Workspace)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.addAt(at, "workspace %s does not exist; create it or fix the path (relative paths start at the run file's folder)", p.Workspace)
		return nil
	case err != nil:
		l.addAt(at, "workspace %s cannot be used: %v", p.Workspace, err)
		return nil
	case !fi.IsDir():
		l.addAt(at, "workspace %s is not a directory", p.Workspace)
		return nil
	}
	if real, err := filepath.EvalSymlinks(p.Workspace); err == nil {
		l.realWS = real
	}
	r, err := os.OpenRoot(p.Workspace)
	if err != nil {
		l.addAt(at, "workspace %s cannot be opened: %v", p.Workspace, err)
		return nil
	}
	return r
}

func (l *loader) stateDir(p *Plan, top map[string]val) {
	if v, ok := top["state_dir"]; ok {
		s, ok := l.str(v)
		if !ok {
			return
		}
		if s == "" {
			l.addAt(v, "is empty; leave the key out for <workspace>/.rostra/<name>")
			return
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(p.Workspace, s)
		}
		p.StateDir = filepath.Clean(s)
		return
	}
	p.StateDir = filepath.Join(p.Workspace, ".rostra", p.Name)
}

func (l *loader) providers(top map[string]val) map[string]Provider {
	out := map[string]Provider{}
	v, ok := top["providers"]
	if !ok {
		return out
	}
	es, ok := l.entries(v)
	if !ok {
		return out
	}
	for _, e := range es {
		if e.key == "" {
			l.add(e.at, v.path, "a provider needs a name")
			continue
		}
		pr := Provider{Delivery: DeliveryArgs}
		m, ok := l.fields(e.val, providerKeys)
		if !ok {
			continue
		}
		if cv, ok := m["command"]; !ok {
			l.add(e.at, e.val.path, "command is missing; give the argv, like command: [\"claude\", \"-p\", \"{prompt}\"]")
		} else {
			pr.Command = l.command(cv)
		}
		if xv, ok := m["no_result_exit_code"]; ok {
			if n, ok := l.integer(xv); ok {
				if n < 0 || n > 255 {
					l.addAt(xv, "an exit code is 0 to 255, got %d", n)
				} else {
					pr.NoResultExitCode = &n
				}
			}
		}
		if dv, ok := m["delivery"]; ok {
			if s, ok := l.str(dv); ok {
				if s != DeliveryArgs && s != DeliveryType {
					l.addAt(dv, "unknown delivery %q; use one of: args, type", s)
				} else {
					pr.Delivery = s
				}
			}
		}
		out[e.key] = pr
	}
	return out
}

// command reads an argv template; its placeholders must be known.
func (l *loader) command(v val) []string {
	argv, vals, ok := l.strList(v)
	if !ok {
		return nil
	}
	if len(argv) == 0 {
		l.addAt(v, "the command is empty; give at least the program, like [\"bash\", \"-c\", \"{prompt}\"]")
		return nil
	}
	for i, a := range argv {
		l.template(vals[i], a, nil)
	}
	if argv[0] == "" {
		l.addAt(vals[0], "the program name is empty")
	}
	return argv
}

// workerNodes remembers where a worker's path templates were written, to
// check them once they are expanded.
type workerNodes struct {
	at          val // the worker's id, else its mapping
	provider    val // the provider key, else the id
	result      val
	aliases     []val
	paths       []val
	writes      []val
	cwd         val
	templates   bool // every template of the worker is well formed
	unsupported bool // neither a provider of the run nor a command of its own
}

// unsupported is a worker whose provider the run cannot drive.
type unsupported struct {
	worker, provider string
	at               val
}

func (l *loader) workers(p *Plan, top map[string]val, root val, d runDefaults, ws *os.Root) {
	v, ok := top["workers"]
	if !ok {
		l.add(root.at, "", "workers is missing; add at least one worker under workers:")
		return
	}
	seq, ok := v.n.(*ast.SequenceNode)
	if !ok {
		l.wrongType(v, "a list of workers")
		return
	}
	if len(seq.Values) == 0 {
		l.addAt(v, "no workers; add at least one")
		return
	}
	ids := map[string]val{}
	var nodes []workerNodes
	var missing []unsupported
	for i, item := range seq.Values {
		wv := l.value(item, item, indexPath("workers", i))
		if item == nil {
			wv.at = seq
		}
		w, wn, ok := l.worker(p, wv, d)
		if !ok {
			continue
		}
		if w.ID != "" {
			if first, dup := ids[w.ID]; dup {
				line, _ := position(first.at)
				l.add(wn.at.at, wn.at.path, "duplicate worker id %q (also %s, line %d); give each worker its own id", w.ID, strings.TrimSuffix(first.path, ".id"), line)
			} else {
				ids[w.ID] = wn.at
			}
		}
		if wn.unsupported && w.ID != "" {
			missing = append(missing, unsupported{worker: w.ID, provider: w.Provider, at: wn.provider})
		}
		p.Workers = append(p.Workers, w)
		nodes = append(nodes, wn)
	}
	if len(missing) > 0 {
		l.unsupported(missing, p.Providers)
	}
	for i := range p.Workers {
		l.workerPaths(p, &p.Workers[i], nodes[i], ws)
	}
}

// unsupported reports, in one problem, every worker that has neither a
// provider of this run nor a command of its own (the wording is SPEC §2).
func (l *loader) unsupported(ws []unsupported, providers map[string]Provider) {
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	sort.Strings(names)
	supports := strings.Join(names, ", ")
	if supports == "" {
		supports = "none"
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%s (provider %s)", w.worker, w.provider)
	}
	l.add(ws[0].at.at, "workers", "unsupported worker(s): %s (run supports: %s)", strings.Join(parts, ", "), supports)
}

// ProviderName is the provider of a worker with no provider key: its id
// with a "-<role>" suffix removed (grok-verifier, role verifier: grok). The
// role itself is never a provider name.
func ProviderName(id, role string) string {
	if role != "" {
		if base, ok := strings.CutSuffix(id, "-"+role); ok && base != "" {
			return base
		}
	}
	return id
}

func (l *loader) worker(p *Plan, wv val, d runDefaults) (WorkerSpec, workerNodes, bool) {
	wn := workerNodes{at: wv, templates: true}
	m, ok := l.fields(wv, workerKeys)
	if !ok {
		return WorkerSpec{}, wn, false
	}
	w := WorkerSpec{Completion: Completion{Settle: SettleOnExit, Stable: DefaultStable}}

	if v, ok := m["id"]; !ok {
		l.addAt(wv, "id is missing; give the worker an id like id: claude-implementer")
	} else if s, ok := l.str(v); ok {
		if !validName(s) {
			l.addAt(v, "%s", nameProblem("worker id", s))
		}
		w.ID = s
		wn.at = v
	}
	wn.provider = wn.at
	explicitRole := ""
	if v, ok := m["role"]; ok {
		if s, ok := l.str(v); ok {
			explicitRole = s
		}
	}
	// A worker without a role is its own role: the UI and the DEGRADED line
	// always have something to show.
	w.Role = explicitRole
	if w.Role == "" {
		w.Role = w.ID
	}
	w.Provider = ProviderName(w.ID, explicitRole)
	if v, ok := m["provider"]; ok {
		if s, ok := l.str(v); ok {
			if s == "" {
				l.addAt(v, "is empty; name one of the run's providers or leave the key out")
			} else {
				w.Provider = s
				wn.provider = v
			}
		}
	}
	pr, known := p.Providers[w.Provider]
	if known {
		w.Command = slices.Clone(pr.Command)
		w.Delivery = pr.Delivery
		w.NoResultExitCode = pr.NoResultExitCode
	} else {
		w.Delivery = DeliveryArgs
	}
	if v, ok := m["command"]; ok {
		w.Command = l.command(v)
	} else if !known {
		wn.unsupported = true
	}

	if v, ok := m["prompt"]; ok {
		if s, ok := l.str(v); ok {
			w.Prompt = s
			wn.templates = l.template(v, s, map[string]string{
				"prompt": "the prompt cannot contain itself",
			}) && wn.templates
		}
	}

	if v, ok := m["cwd"]; ok {
		if s, ok := l.str(v); ok {
			w.Cwd = filepath.Clean(s)
			if s == "" || w.Cwd == "." {
				w.Cwd = ""
			}
			wn.cwd = v
		}
	}

	if v, ok := m["env"]; ok {
		if es, ok := l.entries(v); ok {
			w.Env = make(map[string]string, len(es))
			for _, e := range es {
				if e.key == "" || strings.ContainsAny(e.key, "=\x00") {
					l.add(e.at, v.path, "%q is not an environment variable name; use letters, digits and _", e.key)
					continue
				}
				if isNull(e.val) {
					w.Env[e.key] = ""
					continue
				}
				s, ok := l.str(e.val)
				if !ok {
					continue
				}
				if strings.ContainsRune(s, 0) {
					// exec cannot pass it: every attempt would fail to start.
					l.addAt(e.val, "an environment value cannot hold a NUL byte (\\0); remove it")
					continue
				}
				w.Env[e.key] = s
				wn.templates = l.template(e.val, s, nil) && wn.templates
			}
		}
	}

	if v, ok := m["completion"]; ok {
		l.completion(v, &w, &wn)
	}

	if v, ok := m["writes"]; ok {
		globs, vals, ok := l.strList(v)
		if ok {
			w.Writes = globs
			wn.writes = vals
			for i, g := range globs {
				wn.templates = l.template(vals[i], g, pathForbidden) && wn.templates
			}
		} else {
			wn.templates = false
		}
	}

	r := l.overrides(m, d)
	w.Surfaces = slices.Clone(r.Surfaces)
	w.MaxAttempts = r.MaxAttempts
	w.Timeout = r.Timeout
	w.IdleTimeout = r.IdleTimeout
	w.RetryBackoff = r.RetryBackoff
	w.StopGrace = r.StopGrace
	return w, wn, true
}

// pathForbidden are placeholders that make no sense inside a path.
var pathForbidden = map[string]string{
	"prompt": "it is the prompt text, not a path",
}

func (l *loader) completion(v val, w *WorkerSpec, wn *workerNodes) {
	m, ok := l.fields(v, completionKeys)
	if !ok {
		return
	}
	c := &w.Completion
	if rv, ok := m["result"]; ok {
		if s, ok := l.str(rv); ok {
			if s == "" {
				l.addAt(rv, "is empty; name the result file, like out/{worker}/result.json, or leave the key out")
			}
			c.Result = s
			wn.result = rv
			// Expand fills {result} and {prompt} only after the result.
			wn.templates = l.template(rv, s, map[string]string{
				"result": "the result path cannot contain itself",
				"prompt": pathForbidden["prompt"],
			}) && wn.templates
		}
	}
	for _, key := range []string{"aliases", "paths"} {
		lv, ok := m[key]
		if !ok {
			continue
		}
		list, vals, ok := l.strList(lv)
		if !ok {
			wn.templates = false
			continue
		}
		for i, s := range list {
			wn.templates = l.template(vals[i], s, pathForbidden) && wn.templates
		}
		if key == "aliases" {
			c.Aliases, wn.aliases = list, vals
			if len(list) > 0 {
				if _, hasResult := m["result"]; !hasResult {
					l.addAt(lv, "aliases stand in for the result; set completion.result too")
				}
			}
		} else {
			c.Paths, wn.paths = list, vals
		}
	}
	if sv, ok := m["settle"]; ok {
		if s, ok := l.str(sv); ok {
			if s != SettleOnExit && s != SettleOnFiles {
				l.addAt(sv, "unknown settle %q; use on-exit or on-files", s)
			} else {
				c.Settle = s
			}
		}
	}
	if c.Settle == SettleOnFiles && c.Result == "" && len(c.Paths) == 0 {
		l.addAt(v, "settle: on-files needs files to wait for; set result or paths")
	}
	if sv, ok := m["stable"]; ok {
		if d, ok := l.duration(sv); ok {
			c.Stable = d
		}
	}
}

// workerPaths checks the worker's paths once expanded for its first
// attempt (the attempt number does not change where a path points): each
// must be relative, stay inside the workspace lexically and, through ws,
// not leave it by a symlink. ws is nil when the workspace is unusable; the
// lexical checks are still made.
func (l *loader) workerPaths(p *Plan, w *WorkerSpec, wn workerNodes, ws *os.Root) {
	if wn.cwd.n != nil && w.Cwd != "" {
		if l.relative(wn.cwd, w.Cwd, "cwd", w.Cwd) && ws != nil {
			fi, err := ws.Stat(w.Cwd)
			switch {
			case err == nil && !fi.IsDir():
				l.addAt(wn.cwd, "%s is not a directory", w.Cwd)
			case errors.Is(err, fs.ErrNotExist):
				l.addAt(wn.cwd, "%s does not exist in the workspace; create it or fix the path", w.Cwd)
			case err != nil:
				l.escapes(wn.cwd, w.Cwd, err, ws)
			}
		}
	}
	if !wn.templates || p.Workspace == "" {
		return // a bad template or workspace is reported; an expansion would mislead
	}
	// The command plays no part in paths, and the provider's may hold a
	// bad placeholder (reported there) that would stop the expansion.
	paths := *w
	paths.Command = nil
	ap, err := p.Expand(&paths, 1)
	if err != nil {
		// Only a bad template fails an expansion, and each one is
		// reported where it was written (the provider's command, say).
		return
	}
	check := func(v val, tmpl, path, what string) {
		if tmpl == "" {
			path = "" // Expand cleans "" to "."
		}
		if l.relative(v, path, what, tmpl) && ws != nil {
			// A path that does not exist yet is fine: the worker creates it.
			if _, err := ws.Stat(path); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				l.escapes(v, path, err, ws)
			}
		}
	}
	if w.Completion.Result != "" {
		check(wn.result, w.Completion.Result, ap.Result, "the result path")
	}
	for i, a := range ap.Aliases {
		check(wn.aliases[i], w.Completion.Aliases[i], a, "an alias")
	}
	for i, a := range ap.Paths {
		check(wn.paths[i], w.Completion.Paths[i], a, "a completion path")
	}
	for i, g := range ap.Writes {
		if g == "" {
			l.addAt(wn.writes[i], "an empty glob; write a pattern like out/**")
			continue
		}
		if err := (WritePolicy{Globs: []string{g}}).Validate(); err != nil {
			l.addAt(wn.writes[i], "%v; write a doublestar pattern like out/** or src/*.go", err)
			continue
		}
		l.relative(wn.writes[i], filepath.Clean(g), "a write glob", w.Writes[i])
	}
}

// relative reports a path (expanded from tmpl) that is absolute or climbs
// out of the workspace.
func (l *loader) relative(v val, path, what, tmpl string) bool {
	clean := filepath.Clean(path)
	switch {
	case path == "":
		l.addAt(v, "%s is empty; name a file inside the workspace", what)
	case filepath.IsAbs(path):
		hint := "drop the leading part up to the workspace"
		for _, name := range []string{"workspace", "state_dir", "prompt_file"} {
			if strings.Contains(tmpl, "{"+name+"}") {
				hint = fmt.Sprintf("{%s} is an absolute path; write the path relative to the workspace instead", name)
				break
			}
		}
		l.addAt(v, "%s must be relative to the workspace, got %s; %s", what, path, hint)
	case clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)):
		l.addAt(v, "%s %s leaves the workspace through ..; keep it inside the workspace", what, path)
	case clean == "." && what != "a write glob":
		l.addAt(v, "%s names the workspace itself; name a file inside it", what)
	default:
		return true
	}
	return false
}

// escapes reports why a path could not be looked up inside the workspace,
// naming the symlink that leads out when there is one.
func (l *loader) escapes(v val, path string, err error, ws *os.Root) {
	parts := strings.Split(filepath.Clean(path), string(filepath.Separator))
	for i := range parts {
		prefix := filepath.Join(parts[:i+1]...)
		fi, lerr := ws.Lstat(prefix)
		if lerr != nil {
			break
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, rerr := ws.Readlink(prefix)
			if rerr == nil {
				if _, serr := ws.Stat(prefix); serr != nil && !errors.Is(serr, fs.ErrNotExist) {
					if filepath.IsAbs(target) && l.insideWorkspace(target) {
						// os.Root, which the engine looks through too,
						// follows no absolute target, even one inside.
						l.addAt(v, "%s goes through the symlink %s -> %s, and an absolute symlink target counts as outside the workspace; make the link relative or keep the path inside the workspace", path, prefix, target)
					} else {
						l.addAt(v, "%s resolves outside the workspace through the symlink %s -> %s; keep it inside the workspace", path, prefix, target)
					}
					return
				}
			}
		}
	}
	if isEscape(err) {
		l.addAt(v, "%s resolves outside the workspace through a symlink; keep it inside the workspace", path)
		return
	}
	l.addAt(v, "%s cannot be checked in the workspace: %v", path, err)
}

// insideWorkspace tells whether an absolute symlink target lands in the
// workspace, to explain that os.Root refuses it anyway.
func (l *loader) insideWorkspace(target string) bool {
	if l.realWS == "" {
		return false
	}
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	rel, err := filepath.Rel(l.realWS, filepath.Clean(target))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
