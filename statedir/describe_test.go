// describe_test.go pins the wording of event lines that the headless log
// and the UI's event log share.
package statedir

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/runfile"
)

func TestDescribe(t *testing.T) {
	code := 2
	cases := []struct {
		ev   Event
		want string
	}{
		{Event{Type: EventWorkerDegraded, WorkerID: "codex-documenter", Attempt: 1, From: runfile.SurfacePane, To: runfile.SurfaceWrapper,
			Reason: "pane limit reached (5 of 5 in use)"},
			"DEGRADED documenter: pane -> wrapper (pane limit reached (5 of 5 in use))"},
		{Event{Type: EventRunStarted}, "run started, state in /s"},
		{Event{Type: EventWorkerDispatched, WorkerID: "a", Attempt: 2, Surface: runfile.SurfacePane, Pid: 42, Manual: true},
			"a#2 started on pane (pid 42, manual)"},
		{Event{Type: EventWorkerFailed, WorkerID: "a", Attempt: 1, Reason: "exited with code 2", ExitCode: &code},
			"a#1 failed: exited with code 2"},
		{Event{Type: EventWorkerCompleted, WorkerID: "a", Attempt: 1}, "a#1 completed"},
		{Event{Type: EventWorkerRetry, WorkerID: "a", Attempt: 1, Reason: "attempt 2 of 3 in 2s"}, "a will retry: attempt 2 of 3 in 2s"},
		{Event{Type: EventWorkerRetry, WorkerID: "a", Attempt: 1, Manual: true}, "a retried by hand"},
		{Event{Type: EventWorkerPromptDelivered, WorkerID: "a", Attempt: 1, Delivery: "paste"}, "a#1 prompt delivered (paste)"},
		{Event{Type: EventRunFinished, Reason: "1 of 2 workers completed"}, "run finished: 1 of 2 workers completed"},
		{Event{Type: EventWorkerTimeout, WorkerID: "a", Attempt: 3, Reason: "no output for 1m0s"}, "a#3 timed out: no output for 1m0s"},
		{Event{Type: EventWorktreeKept, WorkerID: "a", Reason: "unmerged work on rostra/r/a"}, "a worktree kept: unmerged work on rostra/r/a"},
		{Event{Type: EventWorktreeArchived, Reason: "rostra/r/a renamed aside"}, "worktrees: rostra/r/a renamed aside"},
		{Event{Type: EventWorktreeBase, Reason: "a, b branch from abc1234"}, "worktrees: a, b branch from abc1234"},
		{Event{Type: "something-new", WorkerID: "a", Reason: "why"}, "something-new a: why"},
		{Event{Type: EventSSHSessionStarted, Client: &UIClient{Via: "ssh", User: "me", Key: "SHA256:abc", KeyName: "me@phone", From: "10.0.0.2:50122"}},
			"ssh session of me@phone (SHA256:abc) from 10.0.0.2:50122 started"},
		{Event{Type: EventSSHSessionEnded, Client: &UIClient{Via: "ssh", User: "me", Key: "SHA256:abc", From: "10.0.0.2:50122"}, Reason: "detached"},
			"ssh session of me (SHA256:abc) from 10.0.0.2:50122 ended: detached"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.ev.Describe("documenter", "/s"), tc.ev.Type)
	}
}
