// typeready_test.go checks typeready.go over fake surfaces: a gemini
// worker's typed prompt awaits its agent's word, which the engine gives
// its handle once the agent's state says waiting-input; a claude worker's
// does not await it.
package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/runfile"
)

func (h *fakeHandle) AgentReady() { h.ready.Add(1) }

func TestAGeminiTypedPromptAwaitsItsAgentsWaitForInput(t *testing.T) {
	gemini := runfile.WorkerSpec{ID: "g", Agent: "gemini", Command: []string{"gemini"}, Delivery: runfile.DeliveryType, Prompt: "go"}
	h := startHarness(t, testPlan(t, gemini))
	fh := h.opened(h.pane)
	assert.True(t, fh.spec.TypeAwaitAgent, "gemini's typed prompt awaits its agent")
	assert.Equal(t, []byte("go"), fh.spec.TypePrompt)
	status(h, fh, "working")
	assert.Zero(t, fh.ready.Load(), "working is not ready")
	status(h, fh, "idle")
	assert.Equal(t, int32(1), fh.ready.Load(), "waiting-input tells the handle")
}

func TestAClaudeTypedPromptDoesNotAwaitItsAgent(t *testing.T) {
	claude := runfile.WorkerSpec{ID: "c", Agent: "claude", Command: []string{"claude"}, Delivery: runfile.DeliveryType, Prompt: "go"}
	h := startHarness(t, testPlan(t, claude))
	fh := h.opened(h.pane)
	assert.False(t, fh.spec.TypeAwaitAgent)
	assert.Equal(t, []byte("go"), fh.spec.TypePrompt)
}
