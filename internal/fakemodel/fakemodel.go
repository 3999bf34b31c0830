// Package fakemodel is a scripted model server for tests that run the real
// agent CLIs offline (docs/agents.md). It listens on loopback only and
// speaks, streaming, the four wire formats the CLIs use:
//
//   - Anthropic Messages: POST /v1/messages (claude), SSE message_start,
//     content_block_start/delta/stop, message_delta, message_stop;
//   - OpenAI Responses: POST /v1/responses (codex), SSE response.created,
//     response.output_item.added/done, response.completed;
//   - OpenAI Chat Completions: POST /v1/chat/completions (qwen), SSE chunks
//     ending with [DONE];
//   - Gemini: POST /v1beta/models/MODEL:streamGenerateContent?alt=sse
//     (gemini), and :generateContent, :countTokens.
//
// Its data model: a Script is a list of Turns; each request of the main
// conversation takes the next turn, which is either a call of the shell
// tool the CLI offered (running Turn.Shell) or text that ends the turn.
// Once the script is used up, a main request gets the text "done".
//
// Main or side: a request belongs to the main conversation when it offers
// the model a shell tool (claude's Bash, codex's shell/shell_command/
// exec_command, gemini's and qwen's run_shell_command). The side requests
// the CLIs make — claude's title and quota calls on a small model, token
// counting, gemini's next-speaker and routing checks, model lists — offer
// no tools: they get a short harmless text (Script.SideText) or an empty
// answer, and never take a turn. Every request, main or side, is recorded
// with its body so a test can assert what the model was shown.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Turn is one answer of the model in the main conversation: a tool call
// of the CLI's shell tool running Shell, or (Shell empty) Text, ending the
// model's turn.
type Turn struct {
	Shell string
	Text  string
	// Escalate asks, where the shell tool offers it (codex's
	// sandbox_permissions), to run the command outside the CLI's sandbox:
	// codex then asks the human under -a on-request, which is how a test
	// gets its permission prompt (codex 0.171 has no approval policy that
	// asks for every command).
	Escalate bool
}

// Script is what a test has the model answer.
type Script struct {
	Turns []Turn
	// SideText answers side requests that want text (titles, checks);
	// empty means a JSON object that parses as a "no" for gemini's
	// next-speaker check and reads as a title for claude's.
	SideText string
}

// API names a wire format.
type API string

const (
	Anthropic API = "anthropic"
	Responses API = "responses"
	Chat      API = "chat"
	Gemini    API = "gemini"
	Other     API = "other"
)

// Request is one request the server received.
type Request struct {
	Method string
	Path   string // with its query
	API    API
	// Main is true for a request of the main conversation (it offered a
	// shell tool); Turn is then the index of the script turn it got, or
	// -1 once the script was used up.
	Main  bool
	Turn  int
	Model string
	// ShellTool is the name of the shell tool the request offered.
	ShellTool string
	Body      []byte
	At        time.Time
}

// Contains reports whether the request's body holds s, as sent or as JSON
// escapes it (a tool's output is a JSON string in every API).
func (r Request) Contains(s string) bool {
	if bytes.Contains(r.Body, []byte(s)) {
		return true
	}
	q, _ := json.Marshal(s)
	return bytes.Contains(r.Body, q[1:len(q)-1])
}

// Server is a running fake model server.
type Server struct {
	t      testing.TB
	srv    *httptest.Server
	script Script

	mu       sync.Mutex
	requests []Request
	mains    int
	changed  chan struct{} // closed and replaced on every new request
}

// Start starts a server answering from script on 127.0.0.1; it is closed
// when the test ends.
func Start(t testing.TB, script Script) *Server {
	t.Helper()
	s := &Server{t: t, script: script, changed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// URL is the server's base URL, http://127.0.0.1:PORT (no path).
func (s *Server) URL() string { return s.srv.URL }

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MainRequests returns the requests of the main conversation so far.
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// WaitMain waits up to timeout for the n-th (1-based) request of the main
// conversation and returns it; the test fails if it does not come, with
// every request received listed.
func (s *Server) WaitMain(n int, timeout time.Duration) Request {
	s.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		seen := 0
		for _, r := range s.requests {
			if r.Main {
				seen++
				if seen == n {
					s.mu.Unlock()
					return r
				}
			}
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			s.t.Fatalf("fakemodel: main request %d did not come within %v; received:\n%s", n, timeout, s.Summary())
			return Request{}
		}
	}
}

// Summary lists the requests received, one a line, for failure messages.
func (s *Server) Summary() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		fmt.Fprintf(&b, "%d. %s %s api=%s model=%q main=%v shell-tool=%q turn=%d body=%d bytes\n", i+1, r.Method, r.Path, r.API, r.Model, r.Main, r.ShellTool, r.Turn, len(r.Body))
	}
	if b.Len() == 0 {
		return "(no requests)\n"
	}
	return b.String()
}

// record stores a request and, for a main one, hands it its turn.
func (s *Server) record(r Request) (Turn, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	turn, idx := Turn{Text: "done"}, -1
	if r.Main {
		if s.mains < len(s.script.Turns) {
			turn, idx = s.script.Turns[s.mains], s.mains
		}
		s.mains++
	}
	r.Turn = idx
	s.requests = append(s.requests, r)
	close(s.changed)
	s.changed = make(chan struct{})
	return turn, idx
}

// take records r as a main request when it offers a shell tool (and
// gives it the script's next turn), else as a side request answered with
// the side text.
func (s *Server) take(r Request, tool shellTool, main bool) (Turn, int) {
	r.Main, r.ShellTool = main, tool.Name
	turn, idx := s.record(r)
	if !main {
		turn = Turn{Text: s.sideText()}
	}
	return turn, idx
}

func (s *Server) sideText() string {
	if s.script.SideText != "" {
		return s.script.SideText
	}
	return `{"title":"Fake session","isNewTopic":false,"next_speaker":"user","reasoning":"scripted"}`
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	path := req.URL.Path
	full := req.URL.RequestURI()
	r := Request{Method: req.Method, Path: full, Body: body, At: time.Now(), API: Other, Turn: -1}
	var probe struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Tools  json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &probe)
	r.Model = probe.Model
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/messages/count_tokens"):
		r.API = Anthropic
		s.record(r)
		writeJSON(w, map[string]any{"input_tokens": 10})
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		r.API = Anthropic
		tool, ok := findShellTool(probe.Tools)
		turn, idx := s.take(r, tool, ok)
		s.anthropic(w, probe.Model, probe.Stream, tool, turn, idx)
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		r.API = Responses
		tool, ok := findShellTool(probe.Tools)
		turn, idx := s.take(r, tool, ok)
		s.responses(w, probe.Model, tool, turn, idx)
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		r.API = Chat
		tool, ok := findShellTool(probe.Tools)
		turn, idx := s.take(r, tool, ok)
		s.chat(w, probe.Model, probe.Stream, tool, turn, idx)
	case req.Method == http.MethodPost && strings.Contains(path, "/models/") && strings.Contains(path, ":"):
		r.API = Gemini
		model, method, _ := strings.Cut(path[strings.Index(path, "/models/")+len("/models/"):], ":")
		r.Model = model
		var g struct {
			Tools []struct {
				FunctionDeclarations json.RawMessage `json:"functionDeclarations"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(body, &g)
		var tool shellTool
		ok := false
		for _, t := range g.Tools {
			if tool, ok = findShellTool(t.FunctionDeclarations); ok {
				break
			}
		}
		if method == "countTokens" {
			s.record(r)
			writeJSON(w, map[string]any{"totalTokens": 10})
			return
		}
		turn, idx := s.take(r, tool, ok)
		s.gemini(w, method == "streamGenerateContent", tool, turn, idx)
	case req.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		s.record(r)
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		s.record(r)
		// Telemetry, event logging and anything else: accepted, empty.
		writeJSON(w, map[string]any{})
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// shellTool is the shell tool a request offered: its name and how its
// argument holding the command is named and typed.
type shellTool struct {
	Name    string
	ArgName string // "command" or "cmd"
	Argv    bool   // the command is an argv array (codex's shell)
	// Escalatable: the tool takes sandbox_permissions (codex).
	Escalatable bool
}

// shellToolNames are the shell tools of the CLIs, by name.
var shellToolNames = map[string]bool{
	"Bash":              true, // claude
	"shell":             true, // codex
	"shell_command":     true, // codex
	"exec_command":      true, // codex
	"run_shell_command": true, // gemini, qwen
}

// findShellTool finds the shell tool among a request's tools, in any of
// the APIs' shapes: Anthropic {name, input_schema}, Responses {type,
// name, parameters}, Chat {type, function: {name, parameters}}, Gemini
// function declarations {name, parameters | parametersJsonSchema}.
func findShellTool(raw json.RawMessage) (shellTool, bool) {
	type schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	var tools []struct {
		Name                 string  `json:"name"`
		InputSchema          *schema `json:"input_schema"`
		Parameters           *schema `json:"parameters"`
		ParametersJSONSchema *schema `json:"parametersJsonSchema"`
		Function             *struct {
			Name       string  `json:"name"`
			Parameters *schema `json:"parameters"`
		} `json:"function"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &tools) != nil {
		return shellTool{}, false
	}
	for _, t := range tools {
		name, sc := t.Name, t.InputSchema
		if sc == nil {
			sc = t.Parameters
		}
		if sc == nil {
			sc = t.ParametersJSONSchema
		}
		if t.Function != nil {
			name, sc = t.Function.Name, t.Function.Parameters
		}
		if !shellToolNames[name] {
			continue
		}
		st := shellTool{Name: name, ArgName: "command"}
		if sc != nil {
			if _, ok := sc.Properties["command"]; !ok {
				if _, ok := sc.Properties["cmd"]; ok {
					st.ArgName = "cmd"
				}
			}
			if p, ok := sc.Properties[st.ArgName]; ok && p.Type == "array" {
				st.Argv = true
			}
			_, st.Escalatable = sc.Properties["sandbox_permissions"]
		}
		return st, true
	}
	return shellTool{}, false
}

// args is the JSON of the tool call's arguments running turn.Shell.
func (st shellTool) args(turn Turn) map[string]any {
	cmd := turn.Shell
	a := map[string]any{}
	if st.Argv {
		a[st.ArgName] = []string{"bash", "-lc", cmd}
	} else {
		a[st.ArgName] = cmd
	}
	if turn.Escalate && st.Escalatable {
		a["sandbox_permissions"] = "require_escalated"
		a["justification"] = "Run the scripted command?"
	}
	if st.Name == "Bash" || st.Name == "run_shell_command" {
		a["description"] = "Run the scripted command"
	}
	return a
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// sse writes Server-Sent Events and flushes each.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (e sse) event(name string, data any) {
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	d, ok := data.(string)
	if !ok {
		d = mustJSON(data)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", d)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) anthropic(w http.ResponseWriter, model string, stream bool, tool shellTool, turn Turn, idx int) {
	id := fmt.Sprintf("msg_fake_%d", idx+1)
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	var block map[string]any
	stop := "end_turn"
	if turn.Shell != "" {
		stop = "tool_use"
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%d", idx+1), "name": tool.Name, "input": tool.args(turn)}
	} else {
		block = map[string]any{"type": "text", "text": turn.Text}
	}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	if turn.Shell != "" {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": block["id"], "name": tool.Name, "input": map[string]any{}}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{
			"type": "input_json_delta", "partial_json": mustJSON(block["input"])}})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": turn.Text}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

func (s *Server) responses(w http.ResponseWriter, model string, tool shellTool, turn Turn, idx int) {
	id := fmt.Sprintf("resp_fake_%d", idx+1)
	var item map[string]any
	if turn.Shell != "" {
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake_%d", idx+1), "call_id": fmt.Sprintf("call_fake_%d", idx+1),
			"name": tool.Name, "arguments": mustJSON(tool.args(turn)), "status": "completed"}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_fake_%d", idx+1), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
	}
	e := newSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id, "model": model, "status": "in_progress"}})
	e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if turn.Shell == "" {
		e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": item["id"], "delta": turn.Text})
	}
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "model": model, "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}

func (s *Server) chat(w http.ResponseWriter, model string, stream bool, tool shellTool, turn Turn, idx int) {
	id := fmt.Sprintf("chatcmpl_fake_%d", idx+1)
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	msg := map[string]any{"role": "assistant", "content": turn.Text}
	finish := "stop"
	if turn.Shell != "" {
		finish = "tool_calls"
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_fake_%d", idx+1), "type": "function",
			"function": map[string]any{"name": tool.Name, "arguments": mustJSON(tool.args(turn))}}}}
	}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := newSSE(w)
	chunk := func(delta map[string]any, finish any, usage any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	e.event("", chunk(msg, nil, nil))
	e.event("", chunk(map[string]any{}, finish, usage))
	e.event("", "[DONE]")
}

func (s *Server) gemini(w http.ResponseWriter, stream bool, tool shellTool, turn Turn, idx int) {
	part := map[string]any{"text": turn.Text}
	if turn.Shell != "" {
		part = map[string]any{"functionCall": map[string]any{"name": tool.Name, "args": tool.args(turn)}}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "fake",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).event("", resp)
}
