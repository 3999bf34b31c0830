package agents

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResumeCommandOfEachAgent(t *testing.T) {
	for _, c := range []struct {
		agent Agent
		argv  []string
		want  []string
	}{
		{Claude, []string{"claude", "-p", "--permission-mode", "acceptEdits", "--", "{prompt}"},
			[]string{"claude", "--resume", "{session}", "-p", "--permission-mode", "acceptEdits", "--", "{prompt}"}},
		{Gemini, []string{"env", "A=1", "gemini", "--prompt={prompt}"}, []string{"env", "A=1", "gemini", "--resume", "{session}", "--prompt={prompt}"}},
		{Gemini, []string{"gemini", "--skip-trust", "--prompt-interactive={prompt}"}, []string{"gemini", "--resume", "{session}", "--skip-trust"}},
		{Gemini, []string{"gemini", "-i", "{prompt}", "-m", "x"}, []string{"gemini", "--resume", "{session}", "-m", "x"}},
		{Qwen, []string{"npx", "@qwen-code/qwen-code@0.24.4", "-i", "{prompt}"}, []string{"npx", "@qwen-code/qwen-code@0.24.4", "--resume", "{session}", "-i", "{prompt}"}},
		{Codex, []string{"codex", "exec", "--sandbox", "workspace-write", "--skip-git-repo-check", "--", "{prompt}"},
			[]string{"codex", "exec", "--sandbox", "workspace-write", "--skip-git-repo-check", "resume", "{session}", "--", "{prompt}"}},
		{Codex, []string{"codex", "-c", "model=x", "{prompt}"}, []string{"codex", "-c", "model=x", "resume", "{session}", "{prompt}"}},
		{Codex, []string{"codex", "--sandbox", "workspace-write"}, []string{"codex", "--sandbox", "workspace-write", "resume", "{session}"}},
		{Claude, []string{"my-wrapper", "{prompt}"}, nil},
	} {
		assert.Equal(t, c.want, ResumeCommand(c.agent, c.argv), "%s %q", c.agent, c.argv)
	}
}

func TestWithSessionID(t *testing.T) {
	got, ok := WithSessionID(Claude, []string{"claude", "-p", "x"}, "id-1")
	assert.True(t, ok)
	assert.Equal(t, []string{"claude", "--session-id", "id-1", "-p", "x"}, got)
	for _, argv := range [][]string{
		{"claude", "--resume", "old"}, {"claude", "-c"}, {"qwen", "--session-id=mine"}, {"wrapper", "x"},
	} {
		got, ok := WithSessionID(Claude, argv, "id-1")
		assert.False(t, ok, "%q picks its conversation itself or names no CLI", argv)
		assert.Equal(t, argv, got)
	}
	_, ok = WithSessionID(Codex, []string{"codex", "exec", "x"}, "id-1")
	assert.False(t, ok, "codex makes its own id")
}
