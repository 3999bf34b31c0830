// gemini_typed_reliability_test.go starts the real gemini CLI (pinned,
// installed by testdata/agents/install.sh) in several panes of one run at
// once, each with a prompt rostra types (delivery: type), and checks that
// every prompt is submitted: the scripted model server receives it as a
// user turn. gemini reads its input only once it has finished starting;
// typed before, the prompt stays above its input box, never submitted
// (docs/runfile.md §Prompt delivery). Several at once is also load.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/agenttest"
	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/statedir"
)

func TestGeminiTypedPromptsAreSubmittedInFourPanesAtOnce(t *testing.T) {
	t.Parallel()
	const n = 4
	srv := fakemodel.Start(t, fakemodel.Script{}) // every turn answers "done"
	ws := t.TempDir()
	var workers strings.Builder
	var path string
	for i := range n {
		a := agenttest.New(t, agenttest.Gemini, srv.URL(), ws)
		path = a.Path
		fmt.Fprintf(&workers, "  - id: w%d\n    provider: gemini\n    prompt: \"PROMPT-W%d: say done\"\n    completion: { result: never.txt }\n    env:\n", i, i)
		workers.WriteString(envYAML(a.Env))
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(`version: 1
name: gemini-typed
workspace: .
panes: { max: 8 }
providers:
  gemini: { command: [`+jsonString(path)+`], delivery: type }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 2s, attention_after: 1h }
workers:
`+workers.String()), 0o644))
	stateDir := filepath.Join(ws, ".rostra", "gemini-typed")
	detachedRun(t, ws)

	submitted := func() map[int]bool {
		got := map[int]bool{}
		for _, r := range srv.MainRequests() {
			for i := range n {
				if r.Contains(fmt.Sprintf("PROMPT-W%d:", i)) {
					got[i] = true
				}
			}
		}
		return got
	}
	ok := assert.Eventually(t, func() bool { return len(submitted()) == n }, 4*time.Minute, 200*time.Millisecond)
	got := submitted()
	events, err := statedir.ReadEvents(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	for i := range n {
		worker := fmt.Sprintf("w%d", i)
		var typed, ready time.Time
		var started time.Time
		for _, ev := range events {
			switch {
			case ev.WorkerID != worker:
			case ev.Type == statedir.EventWorkerDispatched && started.IsZero():
				started = ev.TS
			case ev.Type == statedir.EventAgentState && ev.AgentState == "waiting-input" && ready.IsZero():
				ready = ev.TS
			case ev.Type == statedir.EventWorkerPromptDelivered:
				typed = ev.TS
			}
		}
		after := func(at time.Time) string {
			if at.IsZero() || started.IsZero() {
				return "never"
			}
			return at.Sub(started).Round(time.Millisecond).String() + " after its start"
		}
		t.Logf("%s: submitted %v; waiting-input %s, typed %s", worker, got[i], after(ready), after(typed))
		if !got[i] {
			r := runBin(t, ws, "logs", "--screen", worker)
			t.Logf("%s's screen:\n%s", worker, r.stdout)
		}
	}
	if !ok {
		t.Errorf("submitted: %d of %d (%v)", len(got), n, got)
	}
}
