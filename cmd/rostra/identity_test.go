// identity_test.go checks the environment a real rostra gives its children
// when it runs inside another terminal: a pane child sees rostra's terminal
// identity and none of the outer terminal's, a wrapper child the plain
// environment, and a worker's own env wins over both.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

func TestPaneChildrenGetRostrasTerminalIdentity(t *testing.T) {
	ws := runWorkspace(t, `version: 1
name: identity
providers:
  shell: { command: ["sh", "-c", "env > {prompt}"] }
workers:
  - { id: shell-pane, role: pane, prompt: out/pane.env, surfaces: [pane], completion: { result: out/pane.env } }
  - { id: shell-wrapper, role: wrapper, prompt: out/wrapper.env, surfaces: [wrapper], completion: { result: out/wrapper.env } }
  - id: shell-own
    role: own
    prompt: out/own.env
    surfaces: [pane]
    completion: { result: out/own.env }
    env: { TERM: screen-256color, TMUX: "/tmp/own,1,0" }
`)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "out"), 0o755))
	// rostra as it runs inside tmux inside kitty.
	outer := []string{
		"TERM=tmux-256color", "COLORTERM=24bit", "TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.3a",
		"TMUX=/tmp/tmux-0/default,1234,0", "TMUX_PANE=%3", "STY=1.pts-0.host",
		"ZELLIJ=0", "ZELLIJ_SESSION_NAME=s", "KITTY_WINDOW_ID=1", "KITTY_PID=9",
		"WEZTERM_PANE=2", "ITERM_SESSION_ID=w0t0p0", "VTE_VERSION=7200", "WT_SESSION=abc",
		"LC_TERMINAL=iTerm2", "TERMCAP=SC|screen", "KEEP_ME=yes",
	}
	cmd := exec.Command(rostraBin, "run", "--headless")
	cmd.Dir = ws
	cmd.Env = append(append([]string{}, os.Environ()...), outer...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	read := func(name string) map[string]string {
		data, err := os.ReadFile(filepath.Join(ws, "out", name))
		require.NoError(t, err)
		env := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				env[k] = v
			}
		}
		return env
	}
	pane := read("pane.env")
	assert.Equal(t, vt.Term, pane["TERM"])
	assert.Equal(t, "truecolor", pane["COLORTERM"])
	assert.Equal(t, "rostra", pane["TERM_PROGRAM"])
	// The binary's own version, which is not the test binary's: go build
	// stamps a clean clone with a VCS pseudo-version, go test does not.
	version, err := exec.Command(rostraBin, "version").Output()
	require.NoError(t, err)
	fields := strings.Fields(string(version)) // rostra <version> (...)
	require.GreaterOrEqual(t, len(fields), 2, "%s", version)
	assert.Equal(t, fields[1], pane["TERM_PROGRAM_VERSION"])
	assert.NotEmpty(t, pane["TERM_PROGRAM_VERSION"])
	assert.Equal(t, "yes", pane["KEEP_ME"], "the rest of the environment stays")
	for _, k := range []string{"TMUX", "TMUX_PANE", "STY", "ZELLIJ", "ZELLIJ_SESSION_NAME", "KITTY_WINDOW_ID", "KITTY_PID",
		"WEZTERM_PANE", "ITERM_SESSION_ID", "VTE_VERSION", "WT_SESSION", "LC_TERMINAL", "TERMCAP"} {
		assert.NotContains(t, pane, k, "a pane child is not in the outer terminal")
	}

	wrapper := read("wrapper.env")
	for _, kv := range outer {
		k, v, _ := strings.Cut(kv, "=")
		assert.Equal(t, v, wrapper[k], "a wrapper child keeps the plain environment: %s", k)
	}

	own := read("own.env")
	assert.Equal(t, "screen-256color", own["TERM"], "the worker's env wins")
	assert.Equal(t, "/tmp/own,1,0", own["TMUX"], "the worker's env wins")
	assert.Equal(t, "rostra", own["TERM_PROGRAM"])
	assert.NotContains(t, own, "TMUX_PANE")
}
