// observe_test.go checks what each hook event, program status and
// notification maps to, with payloads in the shapes docs/agents.md
// records.
package agents

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFromHook(t *testing.T) {
	bash := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf build"}}
	for _, tc := range []struct {
		agent   Agent
		event   string
		payload map[string]any
		state   State
		why     string
		ok      bool
	}{
		{Claude, "SessionStart", map[string]any{"source": "startup"}, "", "", false},
		{Claude, "UserPromptSubmit", map[string]any{"prompt": "go"}, Working, "", true},
		{Claude, "PreToolUse", bash, Working, "Bash(rm -rf build)", true},
		{Claude, "PermissionRequest", bash, WaitingPermission, "Bash(rm -rf build)", true},
		{Claude, "PermissionRequest", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/w/a.go"}}, WaitingPermission, "Edit(/w/a.go)", true},
		{Claude, "PermissionRequest", map[string]any{"tool_name": "Task"}, WaitingPermission, "Task", true},
		{Claude, "PostToolUse", bash, Working, "", true},
		{Claude, "Notification", map[string]any{"notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash"}, WaitingPermission, "Claude needs your permission to use Bash", true},
		{Claude, "Notification", map[string]any{"notification_type": "idle_prompt", "message": "Claude is waiting for your input"}, WaitingInput, "Claude is waiting for your input", true},
		{Claude, "Notification", map[string]any{"notification_type": "auth_success"}, "", "", false},
		{Claude, "Stop", map[string]any{"last_assistant_message": "All done."}, WaitingInput, "turn ended", true},
		{Claude, "SessionEnd", map[string]any{"reason": "prompt_input_exit"}, Exited, "prompt_input_exit", true},
		{Claude, "MessageDisplay", nil, "", "", false},
		{Codex, "PermissionRequest", bash, WaitingPermission, "Bash(rm -rf build)", true},
		{Codex, "Stop", nil, WaitingInput, "turn ended", true},
		{Qwen, "PermissionRequest", map[string]any{"tool_name": "run_shell_command", "tool_input": map[string]any{"command": "echo hi"}}, WaitingPermission, "run_shell_command(echo hi)", true},
		{Qwen, "Notification", map[string]any{"notification_type": "permission_prompt", "message": "Qwen Code needs your permission to use run_shell_command"}, WaitingPermission, "Qwen Code needs your permission to use run_shell_command", true},
		{Gemini, "BeforeAgent", map[string]any{"prompt": "go"}, Working, "", true},
		{Gemini, "BeforeTool", map[string]any{"tool_name": "run_shell_command", "tool_input": map[string]any{"command": "ls"}}, Working, "run_shell_command(ls)", true},
		{Gemini, "Notification", map[string]any{"notification_type": "ToolPermission", "message": "Tool Confirm Shell Command requires execution", "details": map[string]any{"command": "rm -rf build"}}, WaitingPermission, "rm -rf build", true},
		{Gemini, "Notification", map[string]any{"notification_type": "ToolPermission", "message": "Tool Confirm requires execution"}, WaitingPermission, "Tool Confirm requires execution", true},
		{Gemini, "AfterAgent", map[string]any{"prompt_response": "done"}, WaitingInput, "turn ended", true},
		{Gemini, "SessionEnd", map[string]any{"reason": "exit"}, Exited, "exit", true},
		{Gemini, "Stop", nil, "", "", false},
		{Gemini, "SessionStart", nil, "", "", false},
	} {
		st, why, ok := FromHook(tc.agent, tc.event, tc.payload)
		assert.Equal(t, tc.ok, ok, "%s %s", tc.agent, tc.event)
		assert.Equal(t, tc.state, st, "%s %s", tc.agent, tc.event)
		assert.Equal(t, tc.why, why, "%s %s", tc.agent, tc.event)
	}
	_, why, _ := FromHook(Claude, "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": strings.Repeat("x", 500) + "\nmore"}})
	assert.Len(t, []rune(why), maxEvidence, "evidence is clipped")
	assert.NotContains(t, why, "\n")
}

func TestFromProgramStatus(t *testing.T) {
	for _, tc := range []struct {
		state, kind, msg string
		want             State
		why              string
		ok               bool
	}{
		{"working", "", "", Working, "", true},
		{"blocked", "permission", "", WaitingPermission, "blocked: permission", true},
		{"blocked", "permission", "approve Bash: echo done > result.txt", WaitingPermission, "approve Bash: echo done > result.txt", true},
		{"blocked", "", "login required", WaitingInput, "login required", true},
		{"blocked", "", "", WaitingInput, "blocked", true},
		{"idle", "", "", WaitingInput, "idle", true},
		{"done", "", "", WaitingInput, "done", true},
		{"clear", "", "", "", "", false},
		{"dancing", "", "", "", "", false},
	} {
		st, why, ok := FromProgramStatus(tc.state, tc.kind, tc.msg)
		assert.Equal(t, tc.ok, ok, "%+v", tc)
		assert.Equal(t, tc.want, st, "%+v", tc)
		assert.Equal(t, tc.why, why, "%+v", tc)
	}
}

func TestFromNotification(t *testing.T) {
	for _, tc := range []struct {
		title, body string
		want        State
		why         string
	}{
		{"Claude Code", "Claude needs your permission to use Bash", WaitingPermission, "Claude Code: Claude needs your permission to use Bash"},
		{"", "Approval needed in ws", WaitingPermission, "Approval needed in ws"},
		{"Claude Code", "Claude is waiting for your input", WaitingInput, "Claude Code: Claude is waiting for your input"},
		{"Build finished", "", WaitingInput, "Build finished"},
		{"", "Agent turn complete", WaitingInput, "Agent turn complete"},
	} {
		st, why := FromNotification(tc.title, tc.body)
		assert.Equal(t, tc.want, st, "%+v", tc)
		assert.Equal(t, tc.why, why, "%+v", tc)
	}
}
