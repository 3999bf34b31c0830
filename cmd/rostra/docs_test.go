// docs_test.go keeps docs/runfile.md and docs/state.md true to the code:
// every run-file key the schema knows and every placeholder is in the
// run-file reference, whose complete example loads; every JSON key of the
// saved structs, every event type, status, failure class and containment
// is in the state-dir reference. The key lists and constants are read from
// the engine's source, so a key added there without its line in the docs
// fails here. The README's commands table is made from the command table
// (main.go), and docs/commands.md has a row for each command; every command
// the README names exists with its flags and a --help, and every link in
// README.md, ARCHITECTURE.md and docs/ leads to a file and heading.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	require.NoError(t, err)
	return string(data)
}

// engineSource parses the non-test files of the engine and of the packages
// that hold the run file's schema and the state's types.
func engineSource(t *testing.T) []*ast.File {
	t.Helper()
	var paths []string
	for _, pkg := range []string{"engine", "runfile", "statedir"} {
		p, err := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		require.NoError(t, err)
		paths = append(paths, p...)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	return files
}

// stringValues collects the string literals of the package-level values
// whose names match name, in constants and in slice literals alike.
func stringValues(files []*ast.File, name *regexp.Regexp) []string {
	var out []string
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				vs, ok := s.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, n := range vs.Names {
					if !name.MatchString(n.Name) || i >= len(vs.Values) {
						continue
					}
					ast.Inspect(vs.Values[i], func(x ast.Node) bool {
						if lit, ok := x.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if v, err := strconv.Unquote(lit.Value); err == nil {
								out = append(out, v)
							}
						}
						return true
					})
				}
			}
		}
	}
	return out
}

func TestRunFileDocHasEveryKeyAndPlaceholder(t *testing.T) {
	doc := readDoc(t, "runfile.md")
	keys := stringValues(engineSource(t), regexp.MustCompile(`^[a-z]+Keys$`))
	require.Contains(t, keys, "no_result_exit_code", "the schema's key lists were found")
	var missing []string
	for _, k := range keys {
		if !strings.Contains(doc, "`"+k+"`") {
			missing = append(missing, k)
		}
	}
	for _, p := range runfile.Placeholders {
		if !strings.Contains(doc, "`{"+p+"}`") {
			missing = append(missing, "{"+p+"}")
		}
	}
	assert.Empty(t, missing, "run-file keys and placeholders docs/runfile.md does not describe")
}

func TestRunFileDocExampleLoads(t *testing.T) {
	doc := readDoc(t, "runfile.md")
	_, after, ok := strings.Cut(doc, "<!-- example: docs_test.go loads this block with engine.Load -->\n```yaml\n")
	require.True(t, ok, "docs/runfile.md has its example block")
	example, _, ok := strings.Cut(after, "```")
	require.True(t, ok)
	ws := runWorkspace(t, example)
	plan, err := runfile.Load(filepath.Join(ws, "rostra.yaml"))
	require.NoError(t, err, "the example in docs/runfile.md")
	assert.Len(t, plan.Workers, 4)
	assert.Equal(t, "codex", plan.Workers[1].Provider)
}

func TestStateDocHasEveryFieldAndValue(t *testing.T) {
	doc := readDoc(t, "state.md")
	var missing []string
	for _, v := range []any{statedir.TeamState{}, statedir.WorkerRow{}, statedir.DispatchRow{}, statedir.StatusSidecar{}, statedir.Event{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			if !strings.Contains(doc, "`"+tag+"`") {
				missing = append(missing, typ.Name()+"."+tag)
			}
		}
	}
	values := stringValues(engineSource(t), regexp.MustCompile(`^(Event|Failure|Containment|Status|Run|Worktree|Isolation)[A-Z][A-Za-z]*$`))
	require.Contains(t, values, statedir.EventRunStarted, "the engine's constants were found")
	for _, v := range values {
		if !strings.Contains(doc, "`"+v+"`") {
			missing = append(missing, v)
		}
	}
	for _, name := range []string{statedir.TeamStateFile, statedir.EventsFile, statedir.LockFile, statedir.MarkerFile,
		statedir.TeamStateFile + statedir.PreviousSuffix, statedir.AttemptsDir, statedir.PreviousDir, statedir.ReportsDir,
		runfile.WorktreesDir, statedir.GitignoreFile, statedir.ReserveFile} {
		if !strings.Contains(doc, name) {
			missing = append(missing, name)
		}
	}
	assert.Empty(t, missing, "fields, values and files docs/state.md does not describe")
}

// updateDocs rewrites the README's generated commands table.
var updateDocs = flag.Bool("update", false, "rewrite README.md's commands table from the command table")

const (
	readmeCommandsStart = "<!-- commands: made from the command table in cmd/rostra/main.go; go test ./cmd/rostra -run Doc -update rewrites it -->\n"
	readmeCommandsEnd   = "<!-- /commands -->"
)

// readmeCommands is the README's commands table as the command table
// makes it: a command's synopsis is written once, in main.go.
func readmeCommands() string {
	var b strings.Builder
	b.WriteString("| command | what it does |\n|---|---|\n")
	group := groupMain
	for _, c := range commands {
		if c.group == groupHidden {
			continue
		}
		if c.group != group {
			group = c.group
			b.WriteString("| **control a run's server from any shell** | |\n")
		}
		head := strings.TrimSpace("rostra " + c.name + " " + c.synopsis)
		fmt.Fprintf(&b, "| `%s` | %s |\n", strings.ReplaceAll(head, "|", `\|`), strings.ReplaceAll(c.what, "|", `\|`))
	}
	return b.String()
}

func TestReadmeDocCommandsTableIsTheCommandTable(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	readme := string(raw)
	start := strings.Index(readme, readmeCommandsStart)
	end := strings.Index(readme, readmeCommandsEnd)
	require.True(t, start >= 0 && end > start, "README.md has no %q … %q block", readmeCommandsStart, readmeCommandsEnd)
	start += len(readmeCommandsStart)
	want := readmeCommands()
	if *updateDocs {
		readme = readme[:start] + want + readme[end:]
		require.NoError(t, os.WriteFile(path, []byte(readme), 0o644))
		end = start + len(want)
	}
	assert.Equal(t, want, readme[start:end], "README's commands table differs from cmd/rostra/main.go's: go test ./cmd/rostra -run Doc -update rewrites it")
}

// TestCommandsDocHasEveryCommand: docs/commands.md has a row for every
// command of the table (TestCommandTableMatchesEachUsage, firstrun_test.go,
// keeps each --help's usage line the table's synopsis).
func TestCommandsDocHasEveryCommand(t *testing.T) {
	doc := readDoc(t, "commands.md")
	for _, c := range commands {
		if c.group == groupHidden {
			continue
		}
		row := regexp.MustCompile("(?m)^\\| (`rostra [a-z-]+`, )*`rostra " + regexp.QuoteMeta(c.name) + "`[ ,]")
		assert.True(t, row.MatchString(doc), "docs/commands.md has a row for rostra %s", c.name)
	}
}

// markdownDocs are the repository's own Markdown files, relative to its
// root: README.md, ARCHITECTURE.md and docs/.
func markdownDocs(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	require.NoError(t, err)
	out := []string{filepath.Join("..", "..", "README.md"), filepath.Join("..", "..", "ARCHITECTURE.md")}
	return append(out, docs...)
}

var (
	mdLink       = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	mdInlineCode = regexp.MustCompile("`[^`\n]+`")
	slugDrop     = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// mdProse splits a Markdown text into its prose lines and its code (the
// fenced blocks' lines and the inline code spans).
func mdProse(text string) (prose, code []string) {
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			code = append(code, line)
			continue
		}
		prose = append(prose, line)
		for _, span := range mdInlineCode.FindAllString(line, -1) {
			code = append(code, strings.Trim(span, "`"))
		}
	}
	return prose, code
}

// mdAnchors are the anchors GitHub gives a Markdown text's headings:
// lower case, punctuation dropped, spaces as hyphens, repeats numbered.
func mdAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	prose, _ := mdProse(text)
	for _, line := range prose {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// TestDocLinksLeadSomewhere: every relative link in README.md,
// ARCHITECTURE.md and docs/ names a file or folder of the repository, and
// its #anchor a heading of that file.
func TestDocLinksLeadSomewhere(t *testing.T) {
	var broken []string
	for _, doc := range markdownDocs(t) {
		raw, err := os.ReadFile(doc)
		require.NoError(t, err)
		prose, _ := mdProse(string(raw))
		for _, line := range prose {
			line = mdInlineCode.ReplaceAllString(line, "")
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.Join(filepath.Dir(doc), file)
				}
				where := filepath.Base(doc) + ": " + target
				if _, err := os.Stat(path); err != nil {
					broken = append(broken, where+" (no such file)")
					continue
				}
				if anchor == "" {
					continue
				}
				text, err := os.ReadFile(path)
				if err != nil || !mdAnchors(string(text))[anchor] {
					broken = append(broken, where+" (no such heading)")
				}
			}
		}
	}
	assert.Empty(t, broken, "links in the docs that lead nowhere")
}

// readmeCommand is `rostra NAME` with its flags in the README's code.
var readmeCommand = regexp.MustCompile(`(?:^|[\s(])rostra ([a-z][a-z-]*)([^|;#)]*)`)

// TestReadmeDocCommandsAreTrue: every `rostra NAME` the README's code
// names is a command of the table, with a --help, and every flag written
// after it is in its synopsis.
func TestReadmeDocCommandsAreTrue(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	syn := map[string]string{}
	for _, c := range commands {
		if c.group != groupHidden {
			syn[c.name] = c.synopsis
		}
	}
	_, code := mdProse(string(raw))
	named := map[string]bool{}
	var wrong []string
	for _, line := range code {
		line, _, _ = strings.Cut(line, "#") // a shell comment is prose
		for _, m := range readmeCommand.FindAllStringSubmatch(line, -1) {
			name := m[1]
			s, ok := syn[name]
			if !ok {
				wrong = append(wrong, "rostra "+name+": no such command")
				continue
			}
			named[name] = true
			for _, f := range strings.Fields(m[2]) {
				if strings.HasPrefix(f, "-") && f != "--" && !regexp.MustCompile(`(^|[\[ |])`+regexp.QuoteMeta(f)+`\b`).MatchString(s) {
					wrong = append(wrong, "rostra "+name+" "+f+": not in its synopsis "+s)
				}
			}
		}
	}
	require.Contains(t, named, "demo", "the README's commands were found")
	for name := range named {
		var stdout, stderr strings.Builder
		if code := runCommand([]string{name, "--help"}, &stdout, &stderr); code != 0 {
			wrong = append(wrong, fmt.Sprintf("rostra %s --help exits %d", name, code))
		}
	}
	assert.Empty(t, wrong, "commands the README names that are not so")
}

// repoPath is a file of the repository as the docs write it in code:
// `workspace/git.go`, `panes/vt/key_table_test.go`.
var repoPath = regexp.MustCompile(`^(?:[a-z]+/)+[A-Za-z0-9_.-]+\.(?:go|sh|md)$`)

// TestDocFilePathsExist: every repository file README.md, ARCHITECTURE.md
// and docs/ name in inline code (`engine/engine.go`) exists, so a file moved to
// another package takes its docs with it.
func TestDocFilePathsExist(t *testing.T) {
	var missing []string
	for _, doc := range markdownDocs(t) {
		raw, err := os.ReadFile(doc)
		require.NoError(t, err)
		prose, _ := mdProse(string(raw))
		for _, span := range mdInlineCode.FindAllString(strings.Join(prose, "\n"), -1) {
			for _, word := range strings.FieldsFunc(span, func(r rune) bool { return strings.ContainsRune(" ,;()'\"`", r) }) {
				if !repoPath.MatchString(word) {
					continue
				}
				if _, err := os.Stat(filepath.Join("..", "..", word)); err != nil {
					missing = append(missing, filepath.Base(doc)+": "+word)
				}
			}
		}
	}
	assert.Empty(t, missing, "files the docs name that are not in the repository")
}

var (
	// commentSection is a comment's pointer at a section of a doc:
	// docs/design.md §Settlement, or docs/isolation.md, "Review and merge".
	commentSection = regexp.MustCompile(`(docs/[a-z]+\.md|ARCHITECTURE\.md|FAULTS\.md)(?: §([^)\n]+)|, "([^"\n]+)")`)
	mdHeading      = regexp.MustCompile(`(?m)^#+ (.+)$`)
)

// TestCommentDocSectionsExist: every section of a doc that a comment of
// rostra's Go source names is a heading of that doc (§Name: a heading the
// words after § begin with), so renaming a heading takes its pointers
// with it.
func TestCommentDocSectionsExist(t *testing.T) {
	root := filepath.Join("..", "..")
	headings := map[string][]string{}
	var wrong []string
	found := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "third_party" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range commentSection.FindAllStringSubmatch(string(src), -1) {
			doc := m[1]
			if doc == "FAULTS.md" {
				doc = "testdata/reliability/FAULTS.md"
			}
			if _, ok := headings[doc]; !ok {
				raw, err := os.ReadFile(filepath.Join(root, doc))
				if err != nil {
					wrong = append(wrong, path+": "+doc+": no such file")
					headings[doc] = nil
					continue
				}
				for _, h := range mdHeading.FindAllStringSubmatch(string(raw), -1) {
					headings[doc] = append(headings[doc], strings.ReplaceAll(h[1], "`", ""))
				}
			}
			found++
			ok := false
			for _, h := range headings[doc] {
				if (m[2] != "" && strings.HasPrefix(m[2], h)) || m[3] == h {
					ok = true
				}
			}
			if !ok {
				wrong = append(wrong, path+": "+m[0])
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, found, 20, "the comments' pointers were found")
	assert.Empty(t, wrong, "comments that name a section their doc does not have")
}
