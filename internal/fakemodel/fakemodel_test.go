// Tests of the scripted model server over real HTTP on loopback, one
// request shape per wire format, without any agent CLI.
package fakemodel

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestTurnsInEachAPI(t *testing.T) {
	cases := []struct {
		name, path, main, side string
		wantTool, wantText     []string // in the answers to the two main requests
	}{
		{"anthropic", "/v1/messages",
			`{"model":"m","stream":true,"tools":[{"name":"Bash","input_schema":{"properties":{"command":{"type":"string"}}}}],"messages":[]}`,
			`{"model":"small","stream":true,"messages":[{"role":"user","content":"title?"}]}`,
			[]string{"event: message_start", `"type":"tool_use"`, `"name":"Bash"`, `\"command\":\"echo hi \\u003e f\"`, `"stop_reason":"tool_use"`, "event: message_stop"},
			[]string{`"text":"Done.","type":"text_delta"`, `"stop_reason":"end_turn"`}},
		{"responses", "/v1/responses",
			`{"model":"m","stream":true,"tools":[{"type":"function","name":"exec_command","parameters":{"properties":{"cmd":{"type":"string"},"sandbox_permissions":{"type":"string"}}}}]}`,
			`{"model":"m","stream":true}`,
			[]string{"event: response.created", `"type":"function_call"`, `"name":"exec_command"`, `\"cmd\":\"echo hi \\u003e f\"`, `sandbox_permissions\":\"require_escalated`, "event: response.completed"},
			[]string{`"text":"Done.","type":"output_text"`, "event: response.completed"}},
		{"chat", "/v1/chat/completions",
			`{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"run_shell_command","parameters":{"properties":{"command":{"type":"string"}}}}}]}`,
			`{"model":"m","stream":true,"messages":[]}`,
			[]string{`"tool_calls":[{`, `"name":"run_shell_command"`, `"finish_reason":"tool_calls"`, "data: [DONE]"},
			[]string{`"content":"Done."`, `"finish_reason":"stop"`, "data: [DONE]"}},
		{"gemini", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{"properties":{"command":{"type":"string"}}}}]}]}`,
			`{"contents":[]}`,
			[]string{`"functionCall":{"args":{"command":"echo hi \u003e f"`, `"name":"run_shell_command"`},
			[]string{`"text":"Done."`, `"finishReason":"STOP"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Start(t, Script{Turns: []Turn{{Shell: "echo hi > f", Escalate: true}, {Text: "Done."}}, SideText: "a side answer"})
			first := post(t, s.URL()+c.path, c.main)
			for _, w := range c.wantTool {
				assert.Contains(t, first, w)
			}
			// A side request takes no turn and gets the side text.
			assert.Contains(t, post(t, s.URL()+c.path, c.side), "a side answer")
			second := post(t, s.URL()+c.path, c.main+" ")
			for _, w := range c.wantText {
				assert.Contains(t, second, w)
			}
			// Past the script, the model says done.
			assert.Contains(t, post(t, s.URL()+c.path, c.main), "done")

			r := s.WaitMain(2, 5*time.Second)
			assert.Equal(t, 1, r.Turn)
			assert.True(t, r.Main)
			reqs := s.Requests()
			require.Len(t, reqs, 4)
			assert.False(t, reqs[1].Main)
			assert.Equal(t, -1, reqs[1].Turn)
			assert.Equal(t, -1, reqs[3].Turn)
			assert.Len(t, s.MainRequests(), 3)
		})
	}
}

func TestWaitMainWakesOnARequest(t *testing.T) {
	s := Start(t, Script{Turns: []Turn{{Text: "hello"}}})
	got := make(chan Request, 1)
	go func() { got <- s.WaitMain(1, time.Minute) }()
	post(t, s.URL()+"/v1/messages", `{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"the-prompt"}]}`)
	select {
	case r := <-got:
		assert.True(t, r.Contains("the-prompt"))
		assert.Equal(t, Anthropic, r.API)
	case <-time.After(time.Minute):
		t.Fatal("WaitMain did not return after the main request")
	}
}

func TestSideEndpoints(t *testing.T) {
	s := Start(t, Script{})
	assert.Contains(t, post(t, s.URL()+"/v1/messages/count_tokens", `{"model":"m"}`), `"input_tokens"`)
	assert.Contains(t, post(t, s.URL()+"/v1beta/models/g:countTokens", `{}`), `"totalTokens"`)
	resp, err := http.Get(s.URL() + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, s.MainRequests())
	assert.Len(t, s.Requests(), 3)
}
