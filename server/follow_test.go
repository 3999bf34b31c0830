// follow_test.go checks the follow request (what `rostra logs -f` waits
// on): an attempt the worker never started is an error at once, naming
// the attempts it has; an attempt that runs is answered when it ends.
package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// followReply sends a follow and waits at most d for its answer.
func followReply(t *testing.T, stateDir, worker string, attempt int, d time.Duration) (Reply, bool) {
	t.Helper()
	cc, err := Control(stateDir)
	require.NoError(t, err)
	t.Cleanup(func() { cc.Close() })
	got := make(chan Reply, 1)
	go func() {
		rep, err := cc.Do(Request{Op: OpFollow, Worker: worker, Attempt: attempt})
		assert.NoError(t, err)
		got <- rep
	}()
	select {
	case rep := <-got:
		return rep, true
	case <-time.After(d):
		return Reply{}, false
	}
}

func TestFollowOfAnAttemptThatDoesNotExistIsAnError(t *testing.T) {
	h := startServer(t, 1, "")
	for _, attempt := range []int{-5, 0, 2, 1_000_000_000_000} {
		rep, ok := followReply(t, h.plan.StateDir, "w00", attempt, 5*time.Second)
		require.True(t, ok, "a follow of attempt %d is answered at once, not when the run ends", attempt)
		assert.Equal(t, 2, rep.Code, "attempt %d", attempt)
		assert.Contains(t, rep.Error, "has no attempt", "attempt %d", attempt)
		assert.Contains(t, rep.Error, "(attempts: 1)", "attempt %d: the error names the attempts that exist", attempt)
	}

	// The attempt that runs is followed until it ends.
	got := make(chan Reply, 1)
	go func() {
		rep, _ := followReply(t, h.plan.StateDir, "w00", 1, 20*time.Second)
		got <- rep
	}()
	select {
	case rep := <-got:
		t.Fatalf("the follow of a running attempt was answered before it ended: %+v", rep)
	case <-time.After(200 * time.Millisecond):
	}
	h.surf.handle("w00").end(0, "")
	select {
	case rep := <-got:
		assert.Equal(t, 0, rep.Code, rep.Error)
		assert.Equal(t, "w00 attempt 1 has ended", rep.Note)
	case <-time.After(20 * time.Second):
		t.Fatal("the follow of attempt 1 was not answered when it ended")
	}
}
