// Tests of which hooks each pinned CLI fires in a headless run that calls
// the shell tool once, with the hooks given for that run only (a settings
// file named on the command line or by an environment variable, or -c
// overrides), never in the user's files.
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

func TestHeadlessHooks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind  Kind
		setup func(a *Agent, l *HookLog) []string // the arguments of the run
		want  []string                            // events that must fire, in this order
	}{
		{Claude, func(a *Agent, l *HookLog) []string {
			return []string{"-p", "write the result file", "--allowedTools", "Bash", "--settings", l.ClaudeSettings(t)}
		}, []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}},
		{Codex, func(a *Agent, l *HookLog) []string {
			return append(l.CodexArgs(), "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "write the result file")
		}, []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}},
		{Gemini, func(a *Agent, l *HookLog) []string {
			a.SetEnv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", l.GeminiSettings(t))
			return []string{"-p", "write the result file", "--approval-mode", "yolo"}
		}, []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"}},
		{Qwen, func(a *Agent, l *HookLog) []string {
			a.SetEnv("QWEN_CODE_SYSTEM_SETTINGS_PATH", l.QwenSettings(t))
			return []string{"-p", "write the result file", "--approval-mode", "yolo"}
		}, []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.Start(t, toolScript())
			dir := t.TempDir()
			a := New(t, c.kind, srv.URL(), dir)
			l := NewHookLog(t)
			args := c.setup(a, l)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := a.Command(ctx, args...).CombinedOutput()
			t.Logf("%s output:\n%s", c.kind, out)
			require.NoError(t, err)
			_, err = os.Stat(filepath.Join(dir, "result.txt"))
			require.NoError(t, err)
			calls := l.Calls(t)
			for _, call := range calls {
				t.Logf("%s %+.3fs %s", call.Event, call.At.Sub(calls[0].At).Seconds(), eventFields(call))
			}
			assert.Subset(t, l.Events(t), c.want)
			assertInOrder(t, l.Events(t), c.want)
			for _, call := range calls {
				assert.NotEmpty(t, call.Payload["session_id"], "%s's %s hook has no session_id", c.kind, call.Event)
			}
		})
	}
}

// assertInOrder checks that want's events come in got in want's order
// (first occurrences).
func assertInOrder(t *testing.T, got, want []string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	assert.Equal(t, len(want), i, "events %v do not come in the order %v", got, want)
}
