// viewnotify_test.go checks that a run's notification reaches a UI over
// many runs attached to it (viewnotify.go): its worker named as the UI
// names it, and what that UI did counted in the run's delivery.
package server

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/runfile"
)

func TestARunsNotificationReachesTheUIOverManyRuns(t *testing.T) {
	a, b := startServer(t, 1, ""), startServer(t, 2, "")
	m := openMulti(t, RunAddr{Ref: a.plan.StateDir}, RunAddr{Ref: b.plan.StateDir, Host: "box"})
	var mu sync.Mutex
	var got []engine.Notification
	quiet := false
	m.SetAnnouncer(func(n engine.Notification) engine.Delivery {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, n)
		if quiet {
			return engine.Delivery{Quiet: 1}
		}
		return engine.Delivery{Via: []string{"osc9"}}
	})
	// The view link is up once a mirror is there.
	mirrorOf(t, m, "box:srv/w01")

	n := engine.Notification{Run: "srv", Worker: "w01", Attempt: 1, Kind: runfile.NotifyPermission, State: "waiting-permission", Why: "Bash: rm -rf build", Method: "auto"}
	d := b.srv.announce(n)
	assert.Equal(t, []string{"osc9"}, d.Via, "the UI over many runs wrote its sequence, and the run hears of it")
	assert.Zero(t, d.Quiet)
	mu.Lock()
	require.Len(t, got, 1, "once")
	assert.Equal(t, engine.Notification{Run: "srv", Worker: "box:srv/w01", Attempt: 1, Kind: runfile.NotifyPermission,
		State: "waiting-permission", Why: "Bash: rm -rf build", Method: "auto"}, got[0], "its worker named as the UI names it")
	quiet = true
	mu.Unlock()

	// The human types into that pane there: no sequence, counted quiet.
	d = b.srv.announce(n)
	assert.Empty(t, d.Via)
	assert.Equal(t, 1, d.Quiet)

	// The other run's server has no notification to give: nothing came.
	mu.Lock()
	assert.Len(t, got, 2)
	mu.Unlock()

	// Once the UI has gone, the run's announcement waits for no one.
	m.Close()
	require.Eventually(t, func() bool {
		b.srv.viewNotes.mu.Lock()
		defer b.srv.viewNotes.mu.Unlock()
		return len(b.srv.viewNotes.clients) == 0
	}, 10*time.Second, 5*time.Millisecond, "the view client left")
	d = b.srv.announce(n)
	assert.Empty(t, d.Via, "no view client is told")
}
