// Package agenttest runs the real agent CLIs (claude, codex, gemini, qwen,
// at the versions testdata/agents/install.sh pins) in tests, offline,
// against the scripted model server of internal/fakemodel.
//
// Bin finds the installed CLIs: $ROSTRA_TEST_AGENTS (the bin folder the
// install script prints) or the script's default folder. Missing CLIs fail
// the test when CI=true and skip it otherwise, saying how to install them.
//
// New gives one CLI a fresh HOME (XDG folders inside it) holding the config
// it needs to talk to the model server without a login and without its
// first-run dialogs, and an environment built from nothing but that: no
// variable of the developer's (an ANTHROPIC_API_KEY, a CODEX_HOME) leaks
// in. How each CLI is pointed at the server is in docs/agents.md.
package agenttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Kind names an agent CLI.
type Kind string

const (
	Claude Kind = "claude"
	Codex  Kind = "codex"
	Gemini Kind = "gemini"
	Qwen   Kind = "qwen"
)

// Pins are the packages testdata/agents/install.sh installs; the hash of
// this list (as the script prints it, one a line) names its cache folder.
const Pins = `@anthropic-ai/claude-code@2.1.332
@openai/codex@0.171.0
@google/gemini-cli@0.61.0
@qwen-code/qwen-code@0.24.4`

// Models are the model names the CLIs are given: claude's and gemini's are
// real names so no alias lookup or router runs; the fake server answers
// any name.
const (
	ClaudeModel = "claude-sonnet-4-6"
	CodexModel  = "gpt-5-codex"
	GeminiModel = "gemini-2.5-flash"
	QwenModel   = "qwen3-coder-plus"
)

// APIKey is the key every CLI is given; the fake server ignores it.
const APIKey = "sk-fake-rostra-test-0123456789abcdef"

// Bin returns the folder holding the installed CLIs.
func Bin(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("ROSTRA_TEST_AGENTS")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		sum := sha256.Sum256([]byte(Pins + "\n"))
		dir = filepath.Join(cache, "rostra-test-agents", hex.EncodeToString(sum[:])[:12], "node_modules", ".bin")
	}
	for _, k := range []Kind{Claude, Codex, Gemini, Qwen} {
		if _, err := os.Stat(filepath.Join(dir, string(k))); err != nil {
			msg := fmt.Sprintf("the agent CLIs are not installed in %s (%s missing): run testdata/agents/install.sh and set ROSTRA_TEST_AGENTS to the folder it prints", dir, k)
			// A folder named by ROSTRA_TEST_AGENTS (as .ci/run does) must
			// hold them: only a developer who never installed them skips.
			if os.Getenv("CI") == "true" || os.Getenv("ROSTRA_TEST_AGENTS") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return dir
}

// Agent is one CLI set up to talk to a model server.
type Agent struct {
	Kind Kind
	Path string // the CLI's executable
	Home string // its fresh HOME
	Dir  string // the folder it works in
	// Env is the whole environment of the CLI's process.
	Env []string
	// Args come before the test's own arguments: for codex, the -c
	// overrides that define the model provider.
	Args []string
}

// New sets up kind to run in dir against the model server at baseURL
// (fakemodel's URL, no path).
func New(t testing.TB, kind Kind, baseURL, dir string) *Agent {
	t.Helper()
	bin := Bin(t)
	home := t.TempDir()
	a := &Agent{Kind: kind, Path: filepath.Join(bin, string(kind)), Home: home, Dir: dir}
	a.Env = []string{
		"HOME=" + home,
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"USER=rostra-test",
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
		"COLORTERM=truecolor", // else gemini warns on every start
		"TMPDIR=" + filepath.Join(home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"NO_UPDATE_NOTIFIER=1",
		// The CLI runs as a person's would, also when the tests run in CI
		// (CI=true): gemini takes CI=true for "no terminal" and goes
		// headless, and ink-based screens draw differently (docs/agents.md).
		"CI=false",
	}
	require.NoError(t, os.MkdirAll(filepath.Join(home, "tmp"), 0o755))
	switch kind {
	case Claude:
		a.Env = append(a.Env,
			"ANTHROPIC_BASE_URL="+baseURL,
			"ANTHROPIC_API_KEY="+APIKey,
			"ANTHROPIC_MODEL="+ClaudeModel,
			"ANTHROPIC_SMALL_FAST_MODEL="+ClaudeModel,
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		)
		// The first-run dialogs (theme, onboarding, the API key, the
		// folder's trust) pre-accepted; the key is approved by its last
		// 20 characters, as claude stores it.
		writeJSON(t, filepath.Join(home, ".claude.json"), map[string]any{
			"hasCompletedOnboarding":        true,
			"lastOnboardingVersion":         "2.1.332",
			"theme":                         "dark",
			"numStartups":                   1,
			"bypassPermissionsModeAccepted": true,
			"autoUpdates":                   false,
			"customApiKeyResponses":         map[string]any{"approved": []string{APIKey[len(APIKey)-20:]}, "rejected": []string{}},
			"projects": map[string]any{dir: map[string]any{
				"hasTrustDialogAccepted":        true,
				"hasCompletedProjectOnboarding": true,
				"allowedTools":                  []string{},
			}},
		})
		writeJSON(t, filepath.Join(home, ".claude", "settings.json"), map[string]any{
			"autoUpdates": false,
		})
	case Codex:
		a.Env = append(a.Env, "FAKE_MODEL_API_KEY="+APIKey, "CODEX_HOME="+filepath.Join(home, ".codex"))
		require.NoError(t, os.MkdirAll(filepath.Join(home, ".codex"), 0o755))
		a.Args = []string{
			"-c", "model_provider=fake",
			"-c", "model_providers.fake.name=fake",
			"-c", "model_providers.fake.base_url=" + tomlString(baseURL+"/v1"),
			"-c", "model_providers.fake.wire_api=responses",
			"-c", "model_providers.fake.env_key=FAKE_MODEL_API_KEY",
			"-c", "model=" + CodexModel,
			"-c", "check_for_update_on_startup=false",
			"-c", "projects." + tomlString(dir) + ".trust_level=trusted",
		}
	case Gemini:
		a.Env = append(a.Env,
			"GOOGLE_GEMINI_BASE_URL="+baseURL,
			"GEMINI_API_KEY="+APIKey,
			"GEMINI_MODEL="+GeminiModel,
		)
		writeJSON(t, filepath.Join(home, ".gemini", "settings.json"), map[string]any{
			"security": map[string]any{
				"auth":        map[string]any{"selectedType": "gemini-api-key"},
				"folderTrust": map[string]any{"enabled": false},
			},
			// Both the older and the newer names of the update switches.
			"general": map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true,
				"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
			"ui":        map[string]any{"hideTips": true, "hideBanner": true},
		})
		a.Args = []string{"-m", GeminiModel}
	case Qwen:
		a.Env = append(a.Env,
			"OPENAI_BASE_URL="+baseURL+"/v1",
			"OPENAI_API_KEY="+APIKey,
			"OPENAI_MODEL="+QwenModel,
		)
		writeJSON(t, filepath.Join(home, ".qwen", "settings.json"), map[string]any{
			"security": map[string]any{
				"auth":        map[string]any{"selectedType": "openai"},
				"folderTrust": map[string]any{"enabled": false},
			},
			"general": map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true,
				"enableAutoUpdate": false},
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
			"model":     map[string]any{"name": QwenModel},
		})
	default:
		t.Fatalf("agenttest: unknown agent %q", kind)
	}
	return a
}

// Command is the CLI run with args (after a.Args) in a.Dir with a.Env,
// killed when ctx ends.
func (a *Agent) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, a.Path, append(append([]string(nil), a.Args...), args...)...)
	cmd.Dir = a.Dir
	cmd.Env = a.Env
	return cmd
}

// ShellLine is the command line of the CLI run with args, in a.Dir with
// exactly a.Env, for a shell (a tmux pane).
func (a *Agent) ShellLine(args ...string) string {
	words := []string{"cd", shellQuote(a.Dir), "&&", "exec", "env", "-i"}
	for _, e := range a.Env {
		words = append(words, shellQuote(e))
	}
	words = append(words, shellQuote(a.Path))
	for _, arg := range append(append([]string(nil), a.Args...), args...) {
		words = append(words, shellQuote(arg))
	}
	return strings.Join(words, " ")
}

// SetEnv adds or replaces a variable of the CLI's environment.
func (a *Agent) SetEnv(key, value string) {
	for i, e := range a.Env {
		if strings.HasPrefix(e, key+"=") {
			a.Env[i] = key + "=" + value
			return
		}
	}
	a.Env = append(a.Env, key+"="+value)
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// tomlString quotes s as a TOML basic string (codex's -c values are TOML).
func tomlString(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a TOML basic string for these paths and URLs
	return string(b)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
