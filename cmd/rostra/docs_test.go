// docs_test.go keeps docs/runfile.md and docs/state.md true to the code:
// every run-file key the schema knows and every placeholder is in the
// run-file reference, whose complete example loads; every JSON key of the
// saved structs, every event type, status, failure class and containment
// is in the state-dir reference. The key lists and constants are read from
// the engine's source, so a key added there without its line in the docs
// fails here.
package main

import (
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
