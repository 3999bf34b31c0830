// attachphases_bench_test.go splits the time `rostra attach` of a run on
// a test host (internal/testhost) takes to show all its panes into its
// phases, with timestamps: ssh's own connection (a command that does
// nothing), the bridge's start there (ssh running rostra, which exits at
// once), then in one attach through the bridge the first byte back (the
// server's welcome), the first View read whole, and the UI's frame with
// every pane's text.
package main

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/testhost"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/transport"
	"github.com/rostra-dev/rostra/tui"
)

// timedStream notes when its first byte came and counts the bytes.
type timedStream struct {
	server.Stream
	first atomic.Int64 // UnixNano
	bytes atomic.Int64
}

func (s *timedStream) Read(p []byte) (int, error) {
	n, err := s.Stream.Read(p)
	if n > 0 {
		s.first.CompareAndSwap(0, time.Now().UnixNano())
		s.bytes.Add(int64(n))
	}
	return n, err
}

func BenchmarkAttachOverSSHPhases(b *testing.B) {
	box := newRemoteHost(b, true)
	startRemoteRun(b, box, busyRunFile("far", 16, false))
	b.Setenv("ROSTRA_SSH", sshToHosts(b, map[string]*testhost.Host{"box1": box}))
	a, err := parseSSHAddr("ssh://box1/~/ws")
	require.NoError(b, err)
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	runSSH := func(script string) time.Duration {
		start := time.Now()
		out, err := a.command(true).Cmd(script).CombinedOutput()
		require.NoError(b, err, "%s", out)
		return time.Since(start)
	}
	var sshOnly, bridgeStart, firstByte, firstView, shown []time.Duration
	var viewBytes int64
	for b.Loop() {
		sshOnly = append(sshOnly, runSSH("true"))
		bridgeStart = append(bridgeStart, runSSH(transport.Rostra("--version")))

		var ts *timedStream
		start := time.Now()
		m, err := server.OpenMulti([]server.RunAddr{{Ref: "ssh://box1/~/ws", Host: "box1", Dial: func() (server.Stream, error) {
			s, err := dialSSH("ssh://box1/~/ws")
			if err != nil {
				return nil, err
			}
			ts = &timedStream{Stream: s}
			return ts, nil
		}}})
		require.NoError(b, err)
		opened := time.Since(start)
		viewBytes = ts.bytes.Load()
		ui := tui.New(m, tui.Options{Events: m, Activity: m.Activity(), Attached: true, Width: 240, Height: 80})
		ui.Update(tea.WindowSizeMsg{Width: 240, Height: 80})
		frame := ui.Render()
		shown = append(shown, time.Since(start))
		ui.Close()
		require.Contains(b, frame, " busy ")
		for _, w := range m.Plan().Workers {
			h, _ := m.Handle(w.ID)
			require.Contains(b, tui.TerminalOf(h).Text(false), " busy ", "%s's text with the first View", w.ID)
		}
		firstByte = append(firstByte, time.Duration(ts.first.Load()-start.UnixNano()))
		firstView = append(firstView, opened)
		m.Close()
	}
	fmt.Printf("attach over ssh, 16 busy panes (medians of %d): ssh alone %s, ssh + rostra --version %s; one attach: first byte %s, first View whole %s (%d bytes), frame with every pane %s\n",
		len(shown), median(sshOnly).Round(100*time.Microsecond), median(bridgeStart).Round(100*time.Microsecond),
		median(firstByte).Round(100*time.Microsecond), median(firstView).Round(100*time.Microsecond), viewBytes, median(shown).Round(100*time.Microsecond))
	b.ReportMetric(float64(median(shown).Microseconds())/1000, "ms-all-shown")
}
