// Tests that gemini's and qwen's system settings file, the one rostra
// gives an attempt its hooks in (docs/agents.md, "What rostra gives each
// agent"), adds its hooks to the user's own in ~/.gemini/settings.json and
// ~/.qwen/settings.json rather than replacing them: in one headless run
// that calls the shell tool, the user's hook and the system file's both
// run, for the same events.
package agenttest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/fakemodel"
)

func TestSystemSettingsHooksMergeWithTheUsers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind     Kind
		settings string   // the user's settings file, below HOME
		events   []string // the events both hooks are given
		env      string
		system   func(l *HookLog, t *testing.T) string
		want     []string // events both must record
	}{
		{Gemini, ".gemini/settings.json", GeminiHookEvents, "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
			func(l *HookLog, t *testing.T) string { return l.GeminiSettings(t) },
			[]string{"BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent"}},
		{Qwen, ".qwen/settings.json", QwenHookEvents, "QWEN_CODE_SYSTEM_SETTINGS_PATH",
			func(l *HookLog, t *testing.T) string { return l.QwenSettings(t) },
			[]string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.Start(t, toolScript())
			dir := t.TempDir()
			a := New(t, c.kind, srv.URL(), dir)
			user, system := NewHookLog(t), NewHookLog(t)

			// The user's own hooks, in the settings New wrote.
			path := filepath.Join(a.Home, c.settings)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			var s map[string]any
			require.NoError(t, json.Unmarshal(b, &s))
			s["hooks"] = user.hooksFor(c.events)
			if c.kind == Gemini {
				s["hooksConfig"] = map[string]any{"enabled": true}
			}
			writeJSON(t, path, s)
			a.SetEnv(c.env, c.system(system, t))

			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := a.Command(ctx, "-p", "write the result file", "--approval-mode", "yolo").CombinedOutput()
			t.Logf("%s output:\n%s", c.kind, out)
			require.NoError(t, err)
			_, err = os.Stat(filepath.Join(dir, "result.txt"))
			require.NoError(t, err)
			t.Logf("the user's hooks ran for %v", user.Events(t))
			t.Logf("the system file's hooks ran for %v", system.Events(t))
			assert.Subset(t, user.Events(t), c.want, "the user's own hook")
			assert.Subset(t, system.Events(t), c.want, "the system settings file's hook")
		})
	}
}

// A user who turned gemini's hooks off (hooksConfig.enabled false in
// ~/.gemini/settings.json): what runs when a system settings file has
// hooks, with and without its own hooksConfig.enabled. gemini's system
// file overrides the user's scalars.
func TestGeminiHooksTurnedOffByTheUser(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name            string
		systemEnabled   any // nil: the system file does not say
		wantUser, wantS bool
	}{
		{"system file silent (as rostra writes it)", nil, false, false},
		{"system file enables (as rostra wrote it before)", true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.Start(t, toolScript())
			dir := t.TempDir()
			a := New(t, Gemini, srv.URL(), dir)
			user, system := NewHookLog(t), NewHookLog(t)
			path := filepath.Join(a.Home, ".gemini", "settings.json")
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			var s map[string]any
			require.NoError(t, json.Unmarshal(b, &s))
			s["hooks"] = user.hooksFor(GeminiHookEvents)
			s["hooksConfig"] = map[string]any{"enabled": false}
			writeJSON(t, path, s)
			sys := system.GeminiSettings(t)
			conf := map[string]any{"notifications": false}
			if c.systemEnabled != nil {
				conf["enabled"] = c.systemEnabled
			}
			writeJSON(t, sys, map[string]any{"hooksConfig": conf, "hooks": system.hooksFor(GeminiHookEvents)})
			a.SetEnv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", sys)

			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := a.Command(ctx, "-p", "write the result file", "--approval-mode", "yolo").CombinedOutput()
			require.NoError(t, err, "%s", out)
			t.Logf("user's hooks: %v; system file's: %v", user.Events(t), system.Events(t))
			assert.Equal(t, c.wantUser, len(user.Events(t)) > 0, "the user's hooks ran")
			assert.Equal(t, c.wantS, len(system.Events(t)) > 0, "the system file's hooks ran")
		})
	}
}
