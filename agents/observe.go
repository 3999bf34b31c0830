// observe.go turns what each source says into an Observation's state and
// evidence: a hook call (its event name and JSON payload), a program
// status (OSC 7501's state and kind, as codex and claude write it), a
// terminal notification (OSC 9, 777, 99: a title and a body). Which
// event fires when, per CLI and version, is in docs/agents.md.
package agents

import (
	"fmt"
	"regexp"
	"strings"
)

// maxEvidence bounds evidence taken from an agent's text, in runes.
const maxEvidence = 120

// FromHook returns the state a hook call of agent reports, with its
// evidence; false for an event that says nothing of the state
// (SessionStart, InstructionsLoaded, MessageDisplay, a Notification of
// another type). claude, codex and qwen use claude's event names; gemini
// its own.
func FromHook(agent Agent, event string, payload map[string]any) (State, string, bool) {
	str := func(k string) string { s, _ := payload[k].(string); return s }
	if agent == Gemini {
		switch event {
		case "BeforeAgent", "BeforeModel", "AfterModel", "BeforeToolSelection", "AfterTool":
			return Working, "", true
		case "BeforeTool":
			return Working, toolEvidence(payload), true
		case "Notification":
			if str("notification_type") == "ToolPermission" {
				ev := str("message")
				if d, ok := payload["details"].(map[string]any); ok {
					if c, ok := d["command"].(string); ok && c != "" {
						ev = c
					}
				}
				return WaitingPermission, clip(ev), true
			}
		case "AfterAgent":
			return WaitingInput, "turn ended", true
		case "SessionEnd":
			return Exited, clip(str("reason")), true
		}
		return "", "", false
	}
	switch event {
	case "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "SubagentStart", "PreCompact":
		return Working, "", true
	case "PreToolUse":
		return Working, toolEvidence(payload), true
	case "PermissionRequest":
		return WaitingPermission, toolEvidence(payload), true
	case "Notification":
		switch str("notification_type") {
		case "permission_prompt":
			return WaitingPermission, clip(str("message")), true
		case "idle_prompt":
			return WaitingInput, clip(str("message")), true
		}
	case "Stop", "StopFailure":
		return WaitingInput, "turn ended", true
	case "SessionEnd":
		return Exited, clip(str("reason")), true
	}
	return "", "", false
}

// toolEvidence is "Tool(argument)" from a hook's tool_name and the
// argument of tool_input a human knows the call by.
func toolEvidence(payload map[string]any) string {
	name, _ := payload["tool_name"].(string)
	in, _ := payload["tool_input"].(map[string]any)
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query"} {
		if v, ok := in[k].(string); ok && v != "" {
			return clip(name + "(" + v + ")")
		}
	}
	return clip(name)
}

// FromProgramStatus returns the state an OSC 7501 program status reports
// (its state and kind fields; msg is claude's decoded message, the
// evidence when given); false for clear (the program is leaving) and a
// state it does not know.
func FromProgramStatus(state, kind, msg string) (State, string, bool) {
	ev := func(s string) string {
		if msg != "" {
			return clip(msg)
		}
		return s
	}
	switch state {
	case "working":
		return Working, ev(""), true
	case "blocked":
		if kind == "permission" {
			return WaitingPermission, ev("blocked: permission"), true
		}
		return WaitingInput, ev(strings.TrimSuffix("blocked: "+kind, ": ")), true
	case "idle", "done":
		return WaitingInput, ev(state), true
	}
	return "", "", false
}

// asksPermission matches the words of a notification that asks for an
// approval ("Claude needs your permission to use Bash", "Approval
// needed").
var asksPermission = regexp.MustCompile(`(?i)\b(permission|approv\w*|allow|confirm\w*|action required)\b`)

// FromNotification returns the state a terminal notification reports: an
// agent that notifies wants the human, for a permission when its words
// say so, else at its prompt.
func FromNotification(title, body string) (State, string) {
	ev := strings.TrimSpace(title + ": " + body)
	ev = strings.TrimSuffix(strings.TrimPrefix(ev, ": "), ":")
	if asksPermission.MatchString(title + " " + body) {
		return WaitingPermission, clip(ev)
	}
	return WaitingInput, clip(ev)
}

// clip is s on one line, at most maxEvidence runes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxEvidence {
		return fmt.Sprintf("%s…", string(r[:maxEvidence-1]))
	}
	return s
}
