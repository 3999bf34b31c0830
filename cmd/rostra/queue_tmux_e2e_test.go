// queue_tmux_e2e_test.go queues a prompt through the real binary's UI as
// a person would, in a tmux server of its own
// (docs/agents.md §A queue of prompts, docs/ui.md §Keys): Q on a pane opens the dialog, Alt-Enter and
// Ctrl-J make new lines, Enter queues, Esc closes without queueing; the
// pane's title shows "1 queued", `rostra queue` lists the prompt, and it is
// typed, whole and once, when the scripted agent (its state from OSC 7501,
// as codex reports it) next waits for input.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pastingAgent turns bracketed paste on, as every agent CLI does, and
// reads its input raw: a prompt is what comes before a CR outside a paste,
// recorded as one JSON string a line in got.jsonl (the paste's marks
// dropped, its CRs as newlines). It works on its own prompt until go-idle
// exists, and half a second on each it reads.
const pastingAgent = `import json, os, sys, time, tty
def st(s):
    os.write(1, ("\033]7501;state=%s:app=codex\007" % s).encode())
tty.setraw(0)
os.write(1, b"\033[?2004h")
st("working")
os.write(1, b"working on its own prompt\r\n")
while not os.path.exists("go-idle"):
    time.sleep(0.05)
START, END = b"\033[200~", b"\033[201~"
while True:
    st("idle")
    os.write(1, b"> ")
    buf = b""
    while True:
        c = os.read(0, 4096)
        if not c:
            sys.exit(0)
        buf += c
        os.write(1, c.replace(START, b"").replace(END, b"").replace(b"\r", b"\r\n"))
        if buf.count(START) > buf.count(END):
            continue
        tail = buf.rsplit(END, 1)[-1]
        if b"\r" in tail:
            break
    cut = len(buf) - len(tail) + tail.index(b"\r")
    text = buf[:cut].replace(START, b"").replace(END, b"").replace(b"\r", b"\n").decode()
    with open("got.jsonl", "a") as f:
        f.write(json.dumps(text) + "\n")
    st("working")
    time.sleep(0.5)
`

func TestQueueDialogInTmuxQueuesAMultiLinePrompt(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "agent.py")
	require.NoError(t, os.WriteFile(bin, []byte(pastingAgent), 0o644))
	ws := runWorkspace(t, `version: 1
name: qdialog
providers:
  fake: { command: ["python3", `+jsonString(bin)+`, "{prompt}"], agent: codex }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - { id: a, provider: fake, prompt: go, completion: { result: out/done.txt } }
`)
	got := func() []string {
		b, _ := os.ReadFile(filepath.Join(ws, "got.jsonl"))
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l == "" {
				continue
			}
			var s string
			require.NoError(t, json.Unmarshal([]byte(l), &s), l)
			out = append(out, s)
		}
		return out
	}

	s := newTmux(t, "qdialog")
	s.run("new-session", "-d", "-s", "ui", "-x", "160", "-y", "40", "-c", ws,
		rostraBin+" run 2>"+filepath.Join(ws, "stderr")+"; sleep 60")
	s.waitScreen("the pane opens", "working on its own prompt", "attempt 1/1 · running")

	// Esc closes the dialog and queues nothing.
	s.keys("Q")
	s.waitScreen("the dialog opens", "queue a prompt for a", "typed when the agent next waits for input")
	s.keys("-l", "never sent")
	s.waitScreen("the text is in the dialog", "never sent")
	s.keys("Escape")
	require.Eventually(t, func() bool { return !strings.Contains(s.screen(), "queue a prompt for a") }, 15*time.Second, 50*time.Millisecond,
		"Esc closes the dialog: %s", s.screen())
	r := runBin(t, ws, "queue", "a")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "no prompts queued\n", r.stdout)

	// Three lines: Alt-Enter, then Ctrl-J, make the new lines; Enter queues.
	s.keys("Q")
	s.waitScreen("the dialog opens again", "queue a prompt for a")
	s.keys("-l", "first line")
	s.keys("M-Enter")
	s.keys("-l", "second line")
	s.keys("C-j")
	s.keys("-l", "third line")
	s.waitScreen("three lines in the dialog", "first line", "second line", "third line")
	s.keys("Enter")
	screen := s.waitScreen("the title counts it", "· 1 queued", "a: prompt 1 queued")
	assert.NotContains(t, screen, "queue a prompt for a", "Enter closes the dialog")
	r = runBin(t, ws, "queue", "a")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?s)WORKER +N +QUEUED +PROMPT\na +1 +\S+ +first line \(\+2 lines\)\n$`, r.stdout)
	r = runBin(t, ws, "status", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	q := statusQueuesOf(t, r.stdout)
	require.Contains(t, q, "a")
	assert.Equal(t, "first line\nsecond line\nthird line", q["a"].Prompts[0].Text)
	assert.Empty(t, got(), "the agent is working: nothing is typed")

	// The agent waits for input: the prompt is typed, whole, once.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go-idle"), nil, 0o644))
	require.Eventually(t, func() bool { return len(got()) > 0 }, 20*time.Second, 50*time.Millisecond, "screen:\n%s", s.screen())
	assert.Equal(t, []string{"first line\nsecond line\nthird line"}, got())
	require.Eventually(t, func() bool { return !strings.Contains(s.screen(), "· 1 queued") }, 15*time.Second, 50*time.Millisecond,
		"the title's count goes: %s", s.screen())
	r = runBin(t, ws, "queue", "a")
	assert.Equal(t, "no prompts queued\n", r.stdout)
	assert.Equal(t, []string{"first line\nsecond line\nthird line"}, got(), "typed once")
	r = runBin(t, ws, "stop")
	assert.Equal(t, 130, r.code, "stopped with its worker running: %s%s", r.stdout, r.stderr)
}
