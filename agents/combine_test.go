// combine_test.go runs the Combiner on the recorded real-CLI sessions:
// the screen rules and the program status (OSC 7501) heard while a
// stream is replayed become observations, the stream's offset their time,
// and the states that result are checked.
package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

// combineStream replays file for agent and returns the Combiner's
// states as they changed.
func combineStream(t *testing.T, agent Agent, file string) []Status {
	t.Helper()
	rules, err := LoadRules()
	require.NoError(t, err)
	set := rules.For(agent, "")
	b, err := os.ReadFile(filepath.Join("..", "panes", "vt", "testdata", file))
	require.NoError(t, err)
	c := NewCombiner(t0)
	var out []Status
	observe := func(o Observation) {
		st, changed, err := c.Observe(o)
		require.NoError(t, err)
		if changed {
			out = append(out, st)
		}
	}
	now := t0
	title := ""
	term := vt.New(100, 30, vt.Options{
		OnTitle: func(s string) { title = s },
		OnAgentState: func(s vt.AgentState) {
			if st, why, ok := FromProgramStatus(s.State, s.Kind, s.Msg); ok {
				observe(Observation{At: now, Source: SourceNotification, State: st, Evidence: why})
			}
		},
	})
	for i := 0; i < len(b); i += 128 {
		now = t0.Add(time.Duration(i+1) * time.Microsecond)
		_, _ = term.Write(b[i:min(len(b), i+128)])
		if m, ok := set.Match(strings.Split(strings.TrimRight(term.Text(false), "\n"), "\n"), title); ok {
			observe(Observation{At: now, Source: SourceScreen, State: m.State, Evidence: m.Evidence()})
		}
	}
	return out
}

func statesOf(st []Status) []State {
	var out []State
	for _, s := range st {
		out = append(out, s.State)
	}
	return out
}

func TestCombinerOnCodexSession(t *testing.T) {
	got := combineStream(t, Codex, "term/agent-codex-permission@100x30.bin")
	require.True(t, isSubsequence(statesOf(got), []State{Working, WaitingPermission, Working, WaitingInput}), "%v", statesOf(got))
	firstWork := -1
	for i, s := range got {
		if s.State == Working && firstWork < 0 {
			firstWork = i
		}
		if firstWork >= 0 && i > firstWork && s.State.Waiting() {
			// Once codex's own state is heard, it owns the waits; the
			// screen still shows the prompt or the idle footer in
			// between, and does not overrule it.
			assert.Equal(t, SourceNotification, s.Source, "state %d: %+v", i, s)
		}
		if s.State == WaitingPermission {
			assert.Equal(t, "blocked: permission", s.Evidence)
		}
	}
	assert.Equal(t, WaitingInput, got[len(got)-1].State, "idle at the end: %v", statesOf(got))
}

func TestCombinerOnScreenAlone(t *testing.T) {
	// claude in tmux writes no program status (tmux does not answer its
	// probe), and no hook is heard: the screen rules alone.
	const cmd = "echo done > result.txt && echo marker-wrote-result"
	for _, tc := range []struct {
		agent    Agent
		file     string
		evidence string
	}{
		{Claude, "term/agent-claude-permission@100x30.bin", "Bash(" + cmd + ")"},
		{Qwen, "term/agent-qwen-permission@100x30.bin", "Shell(" + cmd + ")"},
		{Gemini, "agent-screens/agent-gemini-permission@100x30.bin", "Shell(" + cmd + ")"},
	} {
		t.Run(string(tc.agent), func(t *testing.T) {
			got := combineStream(t, tc.agent, tc.file)
			require.True(t, isSubsequence(statesOf(got), []State{WaitingInput, Working, WaitingPermission, Working, WaitingInput}), "%v", statesOf(got))
			for _, s := range got {
				assert.Equal(t, SourceScreen, s.Source)
				if s.State == WaitingPermission {
					assert.Equal(t, tc.evidence, s.Evidence)
					break
				}
			}
		})
	}
}
