// rules_test.go checks the shipped screen rules against the recorded
// streams of the real CLIs (panes/vt/testdata/term, and agent-screens for
// a stream tmux draws otherwise), and the rule files' validation.
package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// step is the match after one slice of a replayed stream.
type step struct {
	at    int // bytes fed
	match Match
	ok    bool
}

// replay feeds a recorded stream to a 100x30 terminal 128 bytes at a time
// and matches set's rules after each slice. (Slices end inside a frame at
// times, which a pane's reads do less often: the assertions below are on
// the order of the states, not on every slice.)
func replay(t *testing.T, set *RuleSet, file string) []step {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "panes", "vt", "testdata", file))
	require.NoError(t, err)
	title := ""
	term := vt.New(100, 30, vt.Options{OnTitle: func(s string) { title = s }})
	var steps []step
	for i := 0; i < len(b); i += 128 {
		_, _ = term.Write(b[i:min(len(b), i+128)])
		m, ok := set.Match(strings.Split(strings.TrimRight(term.Text(false), "\n"), "\n"), title)
		steps = append(steps, step{min(len(b), i+128), m, ok})
	}
	return steps
}

// states is the sequence of states the steps matched, repeats collapsed.
func states(steps []step) []State {
	var out []State
	for _, s := range steps {
		if s.ok && (len(out) == 0 || out[len(out)-1] != s.match.State) {
			out = append(out, s.match.State)
		}
	}
	return out
}

// isSubsequence reports whether want appears in got in order.
func isSubsequence(got, want []State) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func TestRulesOnPermissionSessions(t *testing.T) {
	rules, err := LoadRules()
	require.NoError(t, err)
	const cmd = "echo done > result.txt && echo marker-wrote-result"
	for _, tc := range []struct {
		agent    Agent
		version  string
		file     string
		evidence string // of the first permission match
	}{
		{Claude, "2.1.332", "term/agent-claude-permission@100x30.bin", "Bash(" + cmd + ")"},
		{Codex, "0.171.0", "term/agent-codex-permission@100x30.bin", cmd},
		{Gemini, "0.61.0", "agent-screens/agent-gemini-permission@100x30.bin", "Shell(" + cmd + ")"},
		{Qwen, "0.24.4", "term/agent-qwen-permission@100x30.bin", "Shell(" + cmd + ")"},
	} {
		t.Run(string(tc.agent), func(t *testing.T) {
			set := rules.For(tc.agent, tc.version)
			require.NotNil(t, set, "no rules for %s %s", tc.agent, tc.version)
			steps := replay(t, set, tc.file)
			got := states(steps)
			// The session: idle at the prompt, the prompt typed and sent,
			// the model's tool call, the permission prompt, approved, the
			// command, the last text, idle again.
			assert.True(t, isSubsequence(got, []State{WaitingInput, Working, WaitingPermission, Working, WaitingInput}),
				"the states in order: %v", got)
			var first *step
			for i := range steps {
				if steps[i].ok && steps[i].match.State == WaitingPermission {
					first = &steps[i]
					break
				}
			}
			require.NotNil(t, first)
			assert.Equal(t, tc.evidence, first.match.Evidence(), "the evidence of rule %s", first.match.Rule)
			// One stretch of permission: no prompt is seen before the
			// model asked or after the approval.
			n := 0
			for _, s := range got {
				if s == WaitingPermission {
					n++
				}
			}
			assert.Equal(t, 1, n, "the permission prompt comes and goes once: %v", got)
		})
	}
}

// TestRulesOnStartupStreams: the start-up recordings (typing at the idle
// prompt, then Esc and Ctrl-C) show the idle prompt and never a
// permission prompt.
func TestRulesOnStartupStreams(t *testing.T) {
	rules, err := LoadRules()
	require.NoError(t, err)
	for _, tc := range []struct {
		agent   Agent
		version string
	}{
		{Claude, "2.1.197"}, {Codex, "0.171.0"}, {Gemini, "0.61.0"}, {Qwen, "0.15.10"},
	} {
		for _, file := range []string{"term/agent-" + string(tc.agent) + "@100x30.bin", "term/agent-" + string(tc.agent) + "-in-tmux@100x30.bin"} {
			t.Run(file, func(t *testing.T) {
				set := rules.For(tc.agent, tc.version)
				require.NotNil(t, set)
				got := states(replay(t, set, file))
				assert.Contains(t, got, WaitingInput, "the idle prompt is never recognised")
				assert.NotContains(t, got, WaitingPermission, "a permission prompt is seen where there is none")
			})
		}
	}
}

func TestRulesFor(t *testing.T) {
	rules, err := LoadRules()
	require.NoError(t, err)
	for _, a := range Known {
		require.NotNil(t, rules.For(a, ""), "%s has no rules", a)
	}
	assert.Equal(t, "claude.yaml", rules.For(Claude, "2.1.332").File)
	assert.Nil(t, rules.For(Claude, "1.0.0"), "a version no file covers")
	assert.Nil(t, rules.For(Codex, "0.172.0"))
	assert.Nil(t, rules.For(Qwen, "not-a-version"))

	two, err := ParseRules(fstest.MapFS{
		"claude.yaml":     {Data: []byte("agent: claude\nversions: {min: '2.1.0', below: '2.2.0'}\nrules: [{name: a, state: working, line: x}]\n")},
		"claude-2.2.yaml": {Data: []byte("agent: claude\nversions: {min: '2.2.0'}\nrules: [{name: b, state: working, line: y}]\n")},
	})
	require.NoError(t, err)
	assert.Equal(t, "claude-2.2.yaml", two.For(Claude, "").File, "an unknown version takes the newest rules")
	assert.Equal(t, "claude-2.2.yaml", two.For(Claude, "3.0.1").File)
	assert.Equal(t, "claude.yaml", two.For(Claude, "2.1.9-beta").File)
}

func TestMatchEvidenceAndTitle(t *testing.T) {
	set, err := parseRuleSet("gemini.yaml", []byte(`agent: gemini
rules:
  - {name: p, state: waiting-permission, line: 'Allow (\w+)\?', tool: 'Allow (\w+)\?', argument: '^\$ (.*)$'}
  - {name: t, state: waiting-permission, title: 'Action Required'}
  - {name: i, state: waiting-input, line: '^> ', unless: ['esc to cancel']}
`))
	require.NoError(t, err)
	m, ok := set.Match([]string{"  Allow Shell?   ", "$ rm -rf build  "}, "")
	require.True(t, ok)
	assert.Equal(t, Match{Rule: "p", State: WaitingPermission, Line: "Allow Shell?", Tool: "Shell", Argument: "rm -rf build"}, m)
	assert.Equal(t, "Shell(rm -rf build)", m.Evidence())
	m, ok = set.Match([]string{"> "}, "✋  Action Required (ws)")
	require.True(t, ok)
	assert.Equal(t, "t", m.Rule, "rules are tried in order")
	assert.Equal(t, "✋  Action Required (ws)", m.Evidence())
	m, ok = set.Match([]string{"> hello"}, "")
	require.True(t, ok)
	assert.Equal(t, "> hello", m.Evidence())
	_, ok = set.Match([]string{"> hello", "⠋ Thinking (esc to cancel)"}, "")
	assert.False(t, ok, "unless")
	assert.Equal(t, "Bash", Match{Tool: "Bash"}.Evidence())
	assert.Equal(t, "ls", Match{Argument: "ls"}.Evidence())
}

func TestRuleFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"unknown agent", "aider.yaml", "agent: aider\nrules: [{name: a, state: working, line: x}]", `screen rules aider.yaml: agent "aider" is not one of`},
		{"file named for another agent", "codex.yaml", "agent: claude\nrules: [{name: a, state: working, line: x}]", "screen rules codex.yaml: the file of agent claude must be named claude.yaml or claude-VERSIONS.yaml"},
		{"unknown field", "claude.yaml", "agent: claude\nrules: [{name: a, state: working, lines: x}]", `screen rules claude.yaml: `},
		{"no rules", "claude.yaml", "agent: claude\n", "screen rules claude.yaml: no rules"},
		{"no name", "claude.yaml", "agent: claude\nrules: [{state: working, line: x}]", "screen rules claude.yaml: rule 1: no name"},
		{"two of a name", "claude.yaml", "agent: claude\nrules: [{name: a, state: working, line: x}, {name: a, state: working, line: y}]", "screen rules claude.yaml: rule 2 (a): a second rule of that name"},
		{"a state no screen shows", "claude.yaml", "agent: claude\nrules: [{name: a, state: exited, line: x}]", `screen rules claude.yaml: rule 1 (a): state "exited" is not one a screen shows`},
		{"neither line nor title", "claude.yaml", "agent: claude\nrules: [{name: a, state: working}]", "screen rules claude.yaml: rule 1 (a): give one of line"},
		{"both line and title", "claude.yaml", "agent: claude\nrules: [{name: a, state: working, line: x, title: y}]", "screen rules claude.yaml: rule 1 (a): give one of line"},
		{"a bad pattern", "claude.yaml", "agent: claude\nrules: [{name: a, state: working, line: 'x('}]", "screen rules claude.yaml: rule 1 (a): line: error parsing regexp"},
		{"a bad unless", "claude.yaml", "agent: claude\nrules: [{name: a, state: working, line: x, unless: [ok, '[']}]", "screen rules claude.yaml: rule 1 (a): unless[1]: error parsing regexp"},
		{"evidence without a group", "claude.yaml", "agent: claude\nrules: [{name: a, state: working, line: x, tool: 'Bash'}]", "screen rules claude.yaml: rule 1 (a): tool: the pattern must have one group, the text to take (it has 0)"},
		{"a bad version", "claude.yaml", "agent: claude\nversions: {min: two}\nrules: [{name: a, state: working, line: x}]", `screen rules claude.yaml: versions.min: version "two" is not dotted numbers`},
		{"an empty range", "claude.yaml", "agent: claude\nversions: {min: '2.0', below: '2.0.0'}\nrules: [{name: a, state: working, line: x}]", "screen rules claude.yaml: versions: min 2.0 is not below 2.0.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRules(fstest.MapFS{tc.file: {Data: []byte(tc.text)}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := ParseRules(fstest.MapFS{
		"claude.yaml":     {Data: []byte("agent: claude\nversions: {min: '2.1.0'}\nrules: [{name: a, state: working, line: x}]")},
		"claude-2.2.yaml": {Data: []byte("agent: claude\nversions: {min: '2.2.0'}\nrules: [{name: a, state: working, line: x}]")},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "screen rules claude.yaml: versions [2.1.0, no bound) of claude overlap those of claude-2.2.yaml")
}

// BenchmarkMatch is the cost of matching one settled 100x30 screen (the
// qwen prompt, whose rules are tried to the first).
func BenchmarkMatch(b *testing.B) {
	rules, err := LoadRules()
	require.NoError(b, err)
	data, err := os.ReadFile(filepath.Join("..", "panes", "vt", "testdata", "term", "agent-qwen@100x30.bin"))
	require.NoError(b, err)
	term := vt.New(100, 30, vt.Options{})
	_, _ = term.Write(data)
	screen := strings.Split(strings.TrimRight(term.Text(false), "\n"), "\n")
	set := rules.For(Qwen, "")
	b.ReportAllocs()
	for b.Loop() {
		set.Match(screen, "")
	}
}
