// session.go learns each agent attempt's session, the CLI's own id of its
// conversation (docs/agents.md §Sessions), and records it on the attempt's
// dispatch row (agentSession, agentSessionSource) as soon as it is known:
//
//   - given: for a CLI that takes one (claude, gemini, qwen), rostra makes
//     a UUID, records it on the row and in the attempt's folder
//     (agent-session) before the process starts, and passes --session-id;
//   - hook: every hook payload carries session_id, which wins when it
//     differs (a CLI that forked its conversation);
//   - files: codex makes its own id and names its rollout file after it;
//     codexSession finds the attempt's file under its CODEX_HOME, once its
//     first turn has ended (and again at a resume, resume.go).
//
// A resumed attempt (resume.go) is given the session it continues.
package engine

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rostra-dev/rostra/agents"
	"github.com/rostra-dev/rostra/statedir"
)

// SessionFile is the file in an attempt's folder that holds the session
// id rostra gave it, written before its process starts: a rostra that
// dies before the attempt's row is saved leaves the id there.
const SessionFile = "agent-session"

// newSessionID is a random UUID (version 4), the form every CLI takes.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// giveSession gives a new attempt of an agent that takes a session id its
// id: on its command line and on its row now, before its process starts,
// and in its folder (the returned file, written by the open job). A
// resumed attempt's row holds the session it continues already.
func (e *Engine) giveSession(a *attemptRT, l *LaunchSpec) map[string][]byte {
	if a.agent == nil {
		return nil
	}
	d := &e.st.Dispatches[a.idx]
	if d.ResumedFrom != nil {
		return nil
	}
	id := newSessionID()
	argv, ok := agents.WithSessionID(a.agent.kind, l.Argv, id)
	if !ok {
		return nil
	}
	l.Argv = argv
	d.AgentSession, d.AgentSessionSource = id, statedir.SessionGiven
	e.dirty = true
	e.emit(statedir.Event{Type: statedir.EventAgentSession, WorkerID: a.w.spec.ID, Attempt: a.plan.Attempt, Session: id, Reason: statedir.SessionGiven})
	return map[string][]byte{filepath.Join(filepath.Dir(a.plan.PromptFile), SessionFile): []byte(id + "\n")}
}

// learnSession records id, learnt from source, as a's session when it is
// news. It runs on the loop.
func (e *Engine) learnSession(a *attemptRT, id, source string) {
	id = strings.TrimSpace(id)
	d := &e.st.Dispatches[a.idx]
	if id == "" || id == d.AgentSession || !plausibleSession(id) {
		return
	}
	d.AgentSession, d.AgentSessionSource = id, source
	e.dirty = true
	e.emit(statedir.Event{Type: statedir.EventAgentSession, WorkerID: a.w.spec.ID, Attempt: a.plan.Attempt, Session: id, Reason: source})
}

// hookSession takes the session_id of a hook's payload.
func (e *Engine) hookSession(a *attemptRT, payload map[string]any) {
	if id, ok := payload["session_id"].(string); ok {
		e.learnSession(a, id, statedir.SessionHook)
	}
}

// plausibleSession refuses what cannot be a CLI's session id: it goes on
// a command line, so no option, no control character, no space.
func plausibleSession(id string) bool {
	if id == "" || len(id) > 128 || strings.HasPrefix(id, "-") {
		return false
	}
	for _, r := range id {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// savedSession is the id rostra wrote in an attempt's folder before its
// process started, "" when there is none.
func savedSession(attemptDir string) string {
	b, err := os.ReadFile(filepath.Join(attemptDir, SessionFile))
	if err != nil || len(b) > 256 {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if !plausibleSession(id) {
		return ""
	}
	return id
}

// codexHome is where codex keeps its sessions for an attempt whose
// environment is env: CODEX_HOME, else $HOME/.codex.
func codexHome(env []string) string {
	if d := envValue(env, "CODEX_HOME"); d != "" {
		return d
	}
	if h := envValue(env, "HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// codexMeta is the first line of a codex rollout file.
type codexMeta struct {
	Type    string `json:"type"`
	Payload struct {
		ID        string    `json:"id"`
		Cwd       string    `json:"cwd"`
		Timestamp time.Time `json:"timestamp"`
	} `json:"payload"`
}

// codexSession finds the session of a codex attempt that ran in dir from
// start to end (end zero: still running) in home's sessions folder
// (sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, its first line the
// session's meta: id, cwd, start): the earliest session begun in dir
// within the attempt's time. "" when none is found.
func codexSession(home, dir string, start, end time.Time) string {
	if home == "" {
		return ""
	}
	if end.IsZero() {
		end = time.Now()
	}
	best, bestAt := "", time.Time{}
	// The day folders are codex's local dates; a day either side covers
	// a clock in another zone.
	for day := start.AddDate(0, 0, -1); !day.After(end.AddDate(0, 0, 1)); day = day.AddDate(0, 0, 1) {
		folder := filepath.Join(home, "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
		entries, err := os.ReadDir(folder)
		if err != nil {
			continue
		}
		for _, ent := range entries {
			if !strings.HasPrefix(ent.Name(), "rollout-") || !strings.HasSuffix(ent.Name(), ".jsonl") {
				continue
			}
			m, ok := readCodexMeta(filepath.Join(folder, ent.Name()))
			if !ok || filepath.Clean(m.Payload.Cwd) != filepath.Clean(dir) {
				continue
			}
			at := m.Payload.Timestamp
			if at.Before(start.Add(-2*time.Second)) || at.After(end) {
				continue
			}
			if best == "" || at.Before(bestAt) {
				best, bestAt = m.Payload.ID, at
			}
		}
	}
	if !plausibleSession(best) {
		return ""
	}
	return best
}

// readCodexMeta reads a rollout file's first line, at most 1 MiB.
func readCodexMeta(path string) (codexMeta, bool) {
	var m codexMeta
	f, err := os.Open(path)
	if err != nil {
		return m, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &m) != nil || m.Type != "session_meta" || m.Payload.ID == "" {
		return m, false
	}
	return m, true
}

// mergeFiles is a with b's files added.
func mergeFiles(a, b map[string][]byte) map[string][]byte {
	if a == nil {
		a = map[string][]byte{}
	}
	for k, v := range b {
		a[k] = v
	}
	return a
}

// codexTurnEnded looks, off the loop, for the session of a codex attempt
// whose turn has ended and whose session is not known yet: its rollout
// file is written by then.
func (e *Engine) codexTurnEnded(a *attemptRT) {
	d := e.st.Dispatches[a.idx]
	if a.agent == nil || a.agent.kind != agents.Codex || d.AgentSession != "" || a.agent.lookingForSession {
		return
	}
	a.agent.lookingForSession = true
	env := slices.Clone(e.opts.Environ)
	for _, k := range slices.Sorted(maps.Keys(a.plan.Env)) {
		env = append(env, k+"="+a.plan.Env[k])
	}
	home, dir, start, end := codexHome(env), a.plan.Dir, d.StartedAt, e.clock.Now()
	e.startBackground()
	go func() {
		id := codexSession(home, dir, start, end.Add(time.Minute))
		e.post(func() {
			a.agent.lookingForSession = false
			if id != "" {
				e.learnSession(a, id, statedir.SessionFiles)
			}
			e.endBackground()
		})
	}()
}
