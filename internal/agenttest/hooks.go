// Hook recording: a hook command that appends the JSON a CLI gives its
// hook on stdin to a log, one line per call with the time it ran, and the
// per-CLI configuration that installs it for one run (docs/agents.md) —
// claude's --settings file, gemini's and qwen's system settings file
// named by an environment variable. A HookLog reads the lines back and
// waits for an event on the file's changes (fsnotify), not by polling.
package agenttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"
)

// ClaudeHookEvents are the hook events claude 2.1.332 knows (the list in
// its binary), less WorktreeCreate and WorktreeRemove: a hook of theirs
// replaces claude's own git worktree handling, so recording them would
// change what claude does.
var ClaudeHookEvents = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
	"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop",
	"StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
	"PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup",
	"TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult",
	"ConfigChange", "InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded",
	"MessageDisplay", "PreSkillShellCommand",
}

// GeminiHookEvents are the hook events gemini 0.61.0 knows (its
// HookEventName enum).
var GeminiHookEvents = []string{
	"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "BeforeTool", "AfterTool", "Notification", "PreCompress",
}

// QwenHookEvents are the hook events qwen 0.24.4 knows (its HookEventName
// enum: claude's names, and a few of its own).
var QwenHookEvents = []string{
	"SessionStart", "SessionEnd", "SessionDelete", "UserPromptSubmit", "UserPromptExpansion",
	"PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure",
	"PostToolBatch", "Notification", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
	"PreCompact", "PostCompact", "InstructionsLoaded", "MessageDisplay", "TodoCreated", "TodoCompleted",
}

// CodexHookEvents are the hook events codex 0.171.0 knows (the names in
// its binary's hook engine).
var CodexHookEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
	"Stop", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
}

// HookLog is the file a recording hook appends to.
type HookLog struct {
	Path string
}

// HookCall is one recorded call of a hook.
type HookCall struct {
	At      time.Time
	Event   string         // the payload's hook_event_name
	Payload map[string]any // the JSON the hook was given on stdin
	Raw     string
}

// NewHookLog makes an empty log in a folder of the test's own.
func NewHookLog(t testing.TB) *HookLog {
	t.Helper()
	l := &HookLog{Path: filepath.Join(t.TempDir(), "hooks.log")}
	require.NoError(t, os.WriteFile(l.Path, nil, 0o644))
	return l
}

// Command is the shell command of a recording hook: it reads its stdin
// whole and appends it in one write, after the time, as one line (JSON
// keeps newlines out of its strings, so dropping them changes nothing).
func (l *HookLog) Command() string {
	return "p=$(tr -d '\\n'); printf '%s %s\\n' \"$(date +%s.%N)\" \"$p\" >> " + shellQuote(l.Path)
}

// Calls reads the calls recorded so far.
func (l *HookLog) Calls(t testing.TB) []HookCall {
	t.Helper()
	b, err := os.ReadFile(l.Path)
	require.NoError(t, err)
	var calls []HookCall
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		stamp, raw, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		secs, _ := strconv.ParseFloat(stamp, 64)
		c := HookCall{At: time.Unix(0, int64(secs*1e9)), Raw: raw}
		if json.Unmarshal([]byte(raw), &c.Payload) == nil {
			c.Event, _ = c.Payload["hook_event_name"].(string)
		}
		calls = append(calls, c)
	}
	return calls
}

// Events are the event names of the calls so far, in order.
func (l *HookLog) Events(t testing.TB) []string {
	var names []string
	for _, c := range l.Calls(t) {
		names = append(names, c.Event)
	}
	return names
}

// Wait waits up to timeout for a call of event and returns the first.
func (l *HookLog) Wait(t testing.TB, event string, timeout time.Duration) HookCall {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Add(filepath.Dir(l.Path)))
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		for _, c := range l.Calls(t) {
			if c.Event == event {
				return c
			}
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			require.NoError(t, err, "watch the hook log %s", l.Path)
		case <-deadline.C:
			t.Fatalf("no %s hook within %v; the hooks that ran: %v", event, timeout, l.Events(t))
			return HookCall{}
		}
	}
}

// hooksFor is the "hooks" object of claude's settings shape, which gemini,
// qwen and codex share: per event, matcher groups of command hooks.
func (l *HookLog) hooksFor(events []string) map[string]any {
	hooks := map[string]any{}
	for _, ev := range events {
		hooks[ev] = []any{map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "command", "command": l.Command()}}}}
	}
	return hooks
}

// GeminiSettings writes a system settings file holding the recording hook
// for every gemini event, for GEMINI_CLI_SYSTEM_SETTINGS_PATH, and returns
// its path. gemini skips a system settings file below a folder others may
// write to (/tmp with its sticky bit too), so the file is made in the
// user's cache folder, not in the test's temporary folder.
func (l *HookLog) GeminiSettings(t testing.TB) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(cache, 0o755))
	dir, err := os.MkdirTemp(cache, "rostra-agenttest-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	path := filepath.Join(dir, "gemini-system-settings.json")
	writeJSON(t, path, map[string]any{"hooksConfig": map[string]any{"enabled": true, "notifications": false}, "hooks": l.hooksFor(GeminiHookEvents)})
	return path
}

// QwenSettings writes a system settings file holding the recording hook
// for every qwen event, for QWEN_CODE_SYSTEM_SETTINGS_PATH, and returns
// its path.
func (l *HookLog) QwenSettings(t testing.TB) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(l.Path), "qwen-system-settings.json")
	writeJSON(t, path, map[string]any{"hooks": l.hooksFor(QwenHookEvents)})
	return path
}

// CodexArgs are the -c overrides that install the recording hook for
// every codex event (codex's hooks feature on, its hooks table in
// claude's shape), to come before codex's subcommand. codex runs a hook
// only once its hash is trusted in the user's config, unless told
// --dangerously-bypass-hook-trust for the one run: these hooks are ours.
func (l *HookLog) CodexArgs() []string {
	args := []string{"--dangerously-bypass-hook-trust", "-c", "features.hooks=true"}
	for _, ev := range CodexHookEvents {
		args = append(args, "-c", "hooks."+ev+`=[{matcher="",hooks=[{type="command",command=`+tomlString(l.Command())+`}]}]`)
	}
	return args
}

// ClaudeSettings writes a settings file for claude's --settings that
// installs the recording hook for every event, and returns its path.
func (l *HookLog) ClaudeSettings(t testing.TB) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(l.Path), "claude-settings.json")
	writeJSON(t, path, map[string]any{"hooks": l.hooksFor(ClaudeHookEvents)})
	return path
}

// WaitFile waits up to timeout for path to exist.
func WaitFile(t testing.TB, path string, timeout time.Duration) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Add(filepath.Dir(path)))
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			require.NoError(t, err, "watch %s", filepath.Dir(path))
		case <-deadline.C:
			t.Fatalf("%s did not appear within %v", path, timeout)
		}
	}
}
