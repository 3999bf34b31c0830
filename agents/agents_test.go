// agents_test.go checks which agent a command runs.
package agents

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want Agent
	}{
		{[]string{"claude"}, Claude},
		{[]string{"/usr/local/bin/claude", "--permission-mode", "default"}, Claude},
		{[]string{"codex", "-a", "on-request"}, Codex},
		{[]string{"/opt/node/bin/gemini", "-m", "gemini-2.5-flash"}, Gemini},
		{[]string{"qwen"}, Qwen},
		{[]string{"codex.exe"}, Codex},
		{[]string{"env", "FOO=1", "-u", "BAR", "gemini"}, Gemini},
		{[]string{"env", "-i", "HOME=/h", "/x/qwen"}, Qwen},
		{[]string{"npx", "@anthropic-ai/claude-code"}, Claude},
		{[]string{"npx", "-y", "@openai/codex@0.171.0", "exec"}, Codex},
		{[]string{"npx", "--package=@google/gemini-cli", "gemini"}, Gemini},
		{[]string{"npx", "-p", "@qwen-code/qwen-code", "qwen"}, Qwen},
		{[]string{"npx", "claude"}, Claude},
		{[]string{"bunx", "@openai/codex"}, Codex},
		{[]string{"pnpm", "dlx", "@google/gemini-cli@latest"}, Gemini},
		{[]string{"npm", "exec", "--", "@anthropic-ai/claude-code"}, Claude},
		{[]string{"yarn", "dlx", "@qwen-code/qwen-code"}, Qwen},
		{[]string{"sh", "-c", "claude"}, ""},
		{[]string{"claude-wrapper.sh"}, ""},
		{[]string{"npx", "cowsay"}, ""},
		{[]string{"npx"}, ""},
		{[]string{"pnpm", "install"}, ""},
		{[]string{"env"}, ""},
		{nil, ""},
		{[]string{"Claude"}, ""},
	} {
		got, ok := Detect(tc.argv)
		assert.Equal(t, tc.want, got, "%q", tc.argv)
		assert.Equal(t, tc.want != "", ok, "%q", tc.argv)
	}
}

func TestParse(t *testing.T) {
	for _, a := range Known {
		got, ok := Parse(string(a))
		assert.True(t, ok)
		assert.Equal(t, a, got)
	}
	_, ok := Parse("aider")
	assert.False(t, ok)
}
