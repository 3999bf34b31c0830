// Tests that each pinned CLI, in its headless mode with its permissions
// auto-approved, works against the scripted model server: the model asks
// for a shell command that writes a file, then ends its turn with text;
// the file must exist and the model must have been shown the command's
// output.
package agenttest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/fakemodel"
)

// toolScript is the two turns of every proof: a shell command that writes
// result.txt and prints a marker, then text.
func toolScript() fakemodel.Script {
	return fakemodel.Script{Turns: []fakemodel.Turn{
		{Shell: "echo done > result.txt && echo marker-wrote-result"},
		{Text: "All done."},
	}}
}

func TestHeadless(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind Kind
		args []string
	}{
		{Claude, []string{"-p", "write the result file", "--allowedTools", "Bash", "--output-format", "text"}},
		{Codex, []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "write the result file"}},
		{Gemini, []string{"-p", "write the result file", "--approval-mode", "yolo"}},
		{Qwen, []string{"-p", "write the result file", "--approval-mode", "yolo"}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.Start(t, toolScript())
			dir := t.TempDir()
			a := New(t, c.kind, srv.URL(), dir)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := a.Command(ctx, c.args...).CombinedOutput()
			t.Logf("%s output:\n%s", c.kind, out)
			t.Logf("requests:\n%s", srv.Summary())
			require.NoError(t, err, "%s exited with an error", c.kind)
			b, err := os.ReadFile(filepath.Join(dir, "result.txt"))
			require.NoError(t, err, "the scripted tool call did not write result.txt")
			assert.Equal(t, "done\n", string(b))
			second := srv.WaitMain(2, 10*time.Second)
			assert.True(t, second.Contains("marker-wrote-result"), "the second main request does not carry the tool's output")
			assert.Contains(t, string(out), "All done.")
		})
	}
}
