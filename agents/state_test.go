// state_test.go checks every rule of the Combiner (state.go) on sequences
// of observations.
package agents

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// obs is an observation at second sec of the attempt.
type obs struct {
	sec    int
	source Source
	state  State
	why    string
}

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func TestCombinerRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		obs     []obs
		changed []bool // whether each observation changed the state
		want    Status
	}{
		{"starts at starting", nil, nil, Status{State: Starting, Since: at(0)}},
		{"a hook applies", []obs{{1, SourceHook, Working, "UserPromptSubmit"}, {2, SourceHook, WaitingPermission, "Bash(rm -rf build)"}},
			[]bool{true, true}, Status{WaitingPermission, at(2), SourceHook, "Bash(rm -rf build)"}},
		{"a hook overrules a less trusted state at once", []obs{{1, SourceScreen, WaitingInput, "❯"}, {2, SourceHook, Working, ""}},
			[]bool{true, true}, Status{Working, at(2), SourceHook, ""}},
		{"the same state again changes nothing, the first report stays",
			[]obs{{1, SourceHook, WaitingPermission, "Bash(ls)"}, {2, SourceScreen, WaitingPermission, "Do you want to proceed?"}, {3, SourceHook, WaitingPermission, "again"}},
			[]bool{true, false, false}, Status{WaitingPermission, at(1), SourceHook, "Bash(ls)"}},
		{"a stale observation does not win", []obs{{5, SourceHook, Working, "late"}, {3, SourceHook, WaitingInput, "Stop, delivered late"}},
			[]bool{true, false}, Status{Working, at(5), SourceHook, "late"}},
		{"a stale working does not end a newer wait", []obs{{5, SourceNotification, WaitingPermission, "blocked"}, {4, SourceNotification, Working, "working"}},
			[]bool{true, false}, Status{WaitingPermission, at(5), SourceNotification, "blocked"}},
		{"an observation at the same instant is not stale", []obs{{2, SourceHook, Working, ""}, {2, SourceHook, WaitingPermission, "Bash"}},
			[]bool{true, true}, Status{WaitingPermission, at(2), SourceHook, "Bash"}},
		{"screen does not promote once the program status spoke", []obs{{1, SourceNotification, Working, "state=working"}, {2, SourceScreen, WaitingPermission, "Do you want to proceed?"}},
			[]bool{true, false}, Status{Working, at(1), SourceNotification, "state=working"}},
		{"screen alone promotes", []obs{{1, SourceScreen, Working, "esc to interrupt"}, {2, SourceScreen, WaitingPermission, "Do you want to proceed?"}},
			[]bool{true, true}, Status{WaitingPermission, at(2), SourceScreen, "Do you want to proceed?"}},
		{"screen does not promote once a hook spoke since the working signal",
			[]obs{{1, SourceHook, Working, "UserPromptSubmit"}, {2, SourceScreen, WaitingInput, "❯"}},
			[]bool{true, false}, Status{Working, at(1), SourceHook, "UserPromptSubmit"}},
		{"screen does not promote when a hook spoke after the working signal",
			[]obs{{1, SourceScreen, Working, "spinner"}, {2, SourceHook, Working, "PreToolUse"}, {3, SourceScreen, WaitingPermission, "prompt"}},
			[]bool{true, false, false}, Status{Working, at(1), SourceScreen, "spinner"}},
		{"the screen's working does not end a wait the hook declared a moment before (its prompt still being drawn)",
			[]obs{{1, SourceHook, WaitingPermission, "Bash"}, {1, SourceScreen, Working, "esc to interrupt"}, {1, SourceScreen, WaitingInput, "❯"}},
			[]bool{true, false, false}, Status{WaitingPermission, at(1), SourceHook, "Bash"}},
		{"the program status's working ends a hook's wait at once (an approval)",
			[]obs{{1, SourceHook, WaitingPermission, "Bash"}, {1, SourceNotification, Working, "state=working"}},
			[]bool{true, true}, Status{Working, at(1), SourceNotification, "state=working"}},
		{"screen promotes when the hook's word is older than the last working signal",
			[]obs{{1, SourceHook, WaitingPermission, "Bash"}, {3, SourceScreen, Working, "esc to interrupt"}, {9, SourceScreen, WaitingPermission, "Do you want to proceed?"}},
			[]bool{true, true, true}, Status{WaitingPermission, at(9), SourceScreen, "Do you want to proceed?"}},
		{"before any working signal a hook's word still owns the waiting states",
			[]obs{{1, SourceHook, WaitingInput, "SessionStart"}, {2, SourceScreen, WaitingPermission, "prompt"}},
			[]bool{true, false}, Status{WaitingInput, at(1), SourceHook, "SessionStart"}},
		{"working from a less trusted source ends a hook's wait (an approval has no hook)",
			[]obs{{1, SourceHook, WaitingPermission, "Bash"}, {2, SourceScreen, Working, "esc to interrupt"}},
			[]bool{true, true}, Status{Working, at(2), SourceScreen, "esc to interrupt"}},
		{"a late notification does not overrule the hooks (claude's comes 6 s after)",
			[]obs{{1, SourceHook, WaitingPermission, "Bash"}, {3, SourceHook, Working, "PostToolUse"}, {7, SourceNotification, WaitingPermission, "Claude needs your permission"}},
			[]bool{true, true, false}, Status{Working, at(3), SourceHook, "PostToolUse"}},
		{"a notification promotes when no hook spoke", []obs{{1, SourceNotification, Working, "state=working"}, {2, SourceNotification, WaitingPermission, "state=blocked"}},
			[]bool{true, true}, Status{WaitingPermission, at(2), SourceNotification, "state=blocked"}},
		{"screen does not overrule the agent's own state sequence",
			[]obs{{1, SourceNotification, Working, "state=working"}, {2, SourceNotification, WaitingPermission, "state=blocked"}, {3, SourceNotification, Working, "state=working"}, {4, SourceScreen, WaitingPermission, "prompt still drawn"}},
			[]bool{true, true, true, false}, Status{Working, at(3), SourceNotification, "state=working"}},
		{"the screen moves a permission wait to input (a refused prompt)",
			[]obs{{1, SourceHook, Working, ""}, {2, SourceHook, WaitingPermission, "Bash"}, {5, SourceScreen, WaitingInput, "❯"}},
			[]bool{true, true, true}, Status{WaitingInput, at(5), SourceScreen, "❯"}},
		{"a notification does not move a permission wait to input",
			[]obs{{1, SourceHook, Working, ""}, {2, SourceHook, WaitingPermission, "Bash"}, {5, SourceNotification, WaitingInput, "idle"}},
			[]bool{true, true, false}, Status{WaitingPermission, at(2), SourceHook, "Bash"}},
		{"the bell promotes when nothing else spoke", []obs{{1, SourceBell, WaitingInput, "bell"}},
			[]bool{true}, Status{WaitingInput, at(1), SourceBell, "bell"}},
		{"the bell does not overrule the screen's word since the working signal",
			[]obs{{1, SourceScreen, Working, "spinner"}, {2, SourceBell, WaitingInput, "bell"}},
			[]bool{true, false}, Status{Working, at(1), SourceScreen, "spinner"}},
		{"quiet does not overrule a bell's", []obs{{1, SourceNotification, Working, "w"}, {2, SourceQuiet, WaitingInput, "quiet 5m"}},
			[]bool{true, false}, Status{Working, at(1), SourceNotification, "w"}},
		{"quiet promotes when only older words were heard", []obs{{1, SourceBell, WaitingInput, "bell"}, {2, SourceHook, Working, ""}, {2, SourceQuiet, WaitingInput, "quiet 5m"}},
			[]bool{true, true, false}, Status{Working, at(2), SourceHook, ""}},
		{"the source that reported the working owns the wait that follows",
			[]obs{{1, SourceBell, WaitingInput, "bell"}, {3, SourceScreen, Working, "spinner"}, {9, SourceQuiet, WaitingInput, "quiet 5m"}},
			[]bool{true, true, false}, Status{Working, at(3), SourceScreen, "spinner"}},
		{"quiet promotes when nothing more trusted ever spoke", []obs{{4, SourceQuiet, WaitingInput, "quiet 5m"}},
			[]bool{true}, Status{WaitingInput, at(4), SourceQuiet, "quiet 5m"}},
		{"a bell after quiet is the same wait", []obs{{4, SourceQuiet, WaitingInput, "quiet 5m"}, {5, SourceBell, WaitingInput, "bell"}},
			[]bool{true, false}, Status{WaitingInput, at(4), SourceQuiet, "quiet 5m"}},
		{"exited is final", []obs{{1, SourceHook, Working, ""}, {2, SourceProcess, Exited, "exit status 0"}, {3, SourceHook, WaitingInput, "Stop"}, {4, SourceProcess, Working, ""}},
			[]bool{true, true, false, false}, Status{Exited, at(2), SourceProcess, "exit status 0"}},
		{"exited from any source applies", []obs{{1, SourceHook, Working, ""}, {2, SourceScreen, Exited, "shell prompt"}},
			[]bool{true, true}, Status{Exited, at(2), SourceScreen, "shell prompt"}},
		{"nothing goes back to starting", []obs{{1, SourceHook, Working, ""}, {2, SourceHook, Starting, ""}},
			[]bool{true, false}, Status{Working, at(1), SourceHook, ""}},
		{"an observation before the attempt began is stale", []obs{{-1, SourceHook, Working, ""}},
			[]bool{false}, Status{State: Starting, Since: at(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCombiner(at(0))
			require.Len(t, tc.changed, len(tc.obs))
			for i, o := range tc.obs {
				st, changed, err := c.Observe(Observation{At: at(o.sec), Source: o.source, State: o.state, Evidence: o.why})
				require.NoError(t, err)
				assert.Equal(t, tc.changed[i], changed, "observation %d %+v", i, o)
				assert.Equal(t, c.Status(), st)
			}
			assert.Equal(t, tc.want, c.Status())
		})
	}
}

func TestCombinerRefusesUnknownValues(t *testing.T) {
	c := NewCombiner(at(0))
	_, changed, err := c.Observe(Observation{At: at(1), Source: "telepathy", State: Working})
	require.ErrorContains(t, err, `unknown source "telepathy"`)
	assert.False(t, changed)
	_, changed, err = c.Observe(Observation{At: at(1), Source: SourceHook, State: "thinking"})
	require.ErrorContains(t, err, `unknown state "thinking"`)
	assert.False(t, changed)
	assert.Equal(t, Starting, c.Status().State)
}

func TestTrustOrder(t *testing.T) {
	for i := 1; i < len(Sources); i++ {
		assert.Greater(t, Sources[i-1].Trust(), Sources[i].Trust())
	}
	assert.Zero(t, Source("x").Trust())
	assert.True(t, WaitingPermission.Waiting())
	assert.True(t, WaitingInput.Waiting())
	assert.False(t, Working.Waiting())
}
