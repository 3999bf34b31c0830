package runfile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadProviderResume(t *testing.T) {
	p, _ := loadOK(t, `
version: 1
name: resume
providers:
  claude: { command: ["claude", "-p", "{prompt}"] }
  own: { command: ["claude", "-p", "{prompt}"], resume: ["claude", "-p", "{prompt}", "-r", "{session}"] }
  never: { command: ["claude", "-p", "{prompt}"], resume: [] }
  codex: { command: ["codex", "exec", "--sandbox", "workspace-write", "--", "{prompt}"] }
  shell: { command: ["bash", "-c", "{prompt}"] }
workers:
  - { id: a, provider: claude }
  - { id: b, provider: own }
  - { id: c, provider: never }
  - { id: d, provider: codex }
  - { id: e, provider: shell }
  - { id: f, provider: own, command: ["gemini", "-i", "{prompt}"] }
`)
	want := map[string][]string{
		"a": {"claude", "--resume", "{session}", "-p", "{prompt}"},
		"b": {"claude", "-p", "{prompt}", "-r", "{session}"},
		"c": {},
		"d": {"codex", "exec", "--sandbox", "workspace-write", "resume", "{session}", "--", "{prompt}"},
		"e": nil,
		"f": {"gemini", "--resume", "{session}"}, // its own command: the built-in one (its prompt typed)
	}
	for _, w := range p.Workers {
		assert.Equal(t, want[w.ID], w.Resume, w.ID)
	}
	assert.True(t, p.Workers[0].CanResume())
	assert.False(t, p.Workers[2].CanResume(), "resume: []")
	assert.False(t, p.Workers[4].CanResume(), "a plain command")

	ap, err := p.ExpandResume(&p.Workers[1], 2, "s-{1}")
	require.NoError(t, err)
	assert.Equal(t, []string{"claude", "-p", ResumePrompt, "-r", "s-{1}"}, ap.Argv, "the session as it is, braces and all")
	assert.Equal(t, ResumePrompt, ap.Prompt)
	_, err = p.ExpandResume(&p.Workers[2], 2, "s")
	assert.Error(t, err)
}

func TestLoadProviderResumeProblems(t *testing.T) {
	for _, c := range []struct{ name, provider, want string }{
		{"no session", `{ command: ["claude"], resume: ["claude", "--resume"] }`, "resume does not name the session: put {session} where the id goes"},
		{"no agent", `{ command: ["bash", "-c", "{prompt}"], resume: ["bash", "{session}"] }`, "resume needs a known agent"},
		{"unknown placeholder", `{ command: ["claude"], resume: ["claude", "--resume", "{sesion}"] }`, "unknown placeholder {sesion}"},
		{"not a list", `{ command: ["claude"], resume: "claude --resume" }`, "resume"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := loadProblems(t, t.TempDir(), "version: 1\nname: r\nproviders:\n  p: "+c.provider+"\nworkers:\n  - { id: a, provider: p }\n")
			var got []string
			for _, p := range ps {
				got = append(got, p.Path+": "+p.Message)
			}
			assert.Contains(t, strings.Join(got, "\n"), c.want)
		})
	}
}
