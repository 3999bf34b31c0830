// Tests that each pinned CLI, headless, continues a conversation by its
// session id: the first run is given the id where the CLI accepts one
// (codex prints the one it made), the second resumes it, and the model's
// first request of the second run carries the first run's turns.
package agenttest

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/fakemodel"
)

func TestHeadlessResume(t *testing.T) {
	t.Parallel()
	const session = "0b7e4a3c-9f21-4d6a-8c55-3e2f1a0b9c8d"
	codexSession := regexp.MustCompile(`session id: ([0-9a-f-]{36})`)
	cases := []struct {
		kind   Kind
		first  []string
		resume func(id string) []string
	}{
		{Claude,
			[]string{"-p", "write the result file", "--allowedTools", "Bash", "--session-id", session},
			func(id string) []string {
				return []string{"-p", "say the second thing", "--allowedTools", "Bash", "--resume", id}
			}},
		{Codex,
			[]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "write the result file"},
			func(id string) []string {
				return []string{"exec", "resume", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", id, "say the second thing"}
			}},
		{Gemini,
			[]string{"-p", "write the result file", "--approval-mode", "yolo", "--session-id", session},
			func(id string) []string {
				return []string{"-p", "say the second thing", "--approval-mode", "yolo", "--resume", id}
			}},
		{Qwen,
			[]string{"-p", "write the result file", "--approval-mode", "yolo", "--session-id", session},
			func(id string) []string {
				return []string{"-p", "say the second thing", "--approval-mode", "yolo", "--resume", id}
			}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			script := toolScript()
			script.Turns = append(script.Turns, fakemodel.Turn{Text: "Second answer."})
			srv := fakemodel.Start(t, script)
			a := New(t, c.kind, srv.URL(), t.TempDir())
			run := func(args []string) string {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				out, err := a.Command(ctx, args...).CombinedOutput()
				t.Logf("%s %q:\n%s", c.kind, args, out)
				require.NoError(t, err, "%s exited with an error", c.kind)
				return string(out)
			}
			out := run(c.first)
			id := session
			if c.kind == Codex {
				m := codexSession.FindStringSubmatch(out)
				require.NotNil(t, m, "codex exec printed no session id")
				id = m[1]
			}
			out = run(c.resume(id))
			t.Logf("requests:\n%s", srv.Summary())
			assert.Contains(t, out, "Second answer.")
			third := srv.WaitMain(3, 10*time.Second)
			assert.True(t, third.Contains("write the result file"), "the resumed conversation lacks the first prompt")
			assert.True(t, third.Contains("marker-wrote-result"), "the resumed conversation lacks the first tool result")
			assert.True(t, third.Contains("say the second thing"), "the resumed request lacks the new prompt")
		})
	}
}
