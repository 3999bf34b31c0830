// remote_flood_bench_test.go measures what a client attached from another
// machine costs a flooding child: a pane of a run on a test host writes 32
// MiB, unwatched, with a client attached on its socket there, and with one
// attached through ssh and the bridge; the child's own time for it is
// compared (interleaved rounds, medians). Run with -bench RemoteFlood (not
// part of go test).
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/testhost"
	"github.com/rostra-dev/rostra/server"
)

// floodRunFile's worker floods 32 MiB of lines each time a go-<n> file
// appears in its workspace and writes the nanoseconds it took to done-<n>.
const floodRunFile = `version: 1
name: flood
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0 }
workers:
  - id: flood
    provider: shell
    prompt: |
      n=0; echo flood is ready
      while :; do
        n=$((n+1)); while [ ! -e go-$n ]; do sleep 0.01; done
        s=$(date +%s%N); yes 'flood line 0123456789 abcdefghij ABCDEFGHIJ klmnopqrst' | head -c 33554432; e=$(date +%s%N)
        echo $((e-s)) > done-$n.tmp; mv done-$n.tmp done-$n
      done
`

// drainAttached says hello as an attaching client on c and reads every
// frame until c closes, counting their bytes in n; welcomed is closed once
// the server's welcome came.
func drainAttached(tb testing.TB, c server.Stream, n *atomic.Int64) (welcomed chan struct{}) {
	require.NoError(tb, server.WriteJSON(c, server.FrameHello, server.Hello{Rostra: server.ProtocolVersion, Mode: server.ModeAttach,
		Env: []string{"TERM=xterm-256color"}, Cols: 160, Rows: 48}))
	welcomed = make(chan struct{})
	go func() {
		fr := server.NewFrameReader(bufio.NewReaderSize(c, 64<<10))
		once := false
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			n.Add(int64(len(f.Payload)))
			if f.Type == server.FrameWelcome && !once {
				once = true
				close(welcomed)
			}
		}
	}()
	return welcomed
}

func BenchmarkRemoteFlood(b *testing.B) {
	h := newRemoteHost(b, true)
	r := startRemoteRun(b, h, floodRunFile)
	b.Setenv("ROSTRA_SSH", h.SSHCommand())
	stateDir := filepath.Join(r.ws, ".rostra", "flood")
	require.Eventually(b, func() bool {
		data, _ := os.ReadFile(filepath.Join(stateDir, "attempts", "flood", "1", "output.log"))
		return strings.Contains(string(data), "flood is ready")
	}, 30*time.Second, 20*time.Millisecond)

	conditions := []struct {
		name string
		dial func() (server.Stream, error)
	}{
		{"unwatched", nil},
		{"socket", func() (server.Stream, error) { return server.Dial(stateDir) }},
		{"ssh+bridge", func() (server.Stream, error) { return dialSSH(r.addr) }},
	}
	took := map[string][]time.Duration{}
	carried := map[string][]int64{}
	round := 0
	for b.Loop() {
		for _, cond := range conditions {
			round++
			var n atomic.Int64
			var c server.Stream
			if cond.dial != nil {
				var err error
				c, err = cond.dial()
				require.NoError(b, err)
				select {
				case <-drainAttached(b, c, &n):
				case <-time.After(30 * time.Second):
					b.Fatalf("%s: no welcome", cond.name)
				}
			}
			before := n.Load()
			require.NoError(b, os.WriteFile(filepath.Join(r.ws, "go-"+strconv.Itoa(round)), nil, 0o644))
			done := filepath.Join(r.ws, "done-"+strconv.Itoa(round))
			var ns int64
			require.Eventually(b, func() bool {
				data, err := os.ReadFile(done)
				if err != nil {
					return false
				}
				ns, err = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
				return err == nil
			}, 2*time.Minute, 5*time.Millisecond, "%s: the flood's end", cond.name)
			took[cond.name] = append(took[cond.name], time.Duration(ns))
			carried[cond.name] = append(carried[cond.name], n.Load()-before)
			if c != nil {
				c.Close()
			}
		}
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	base := median(took["unwatched"])
	for _, cond := range conditions {
		m := median(took[cond.name])
		bytes := carried[cond.name]
		slices.Sort(bytes)
		b.ReportMetric(float64(m.Microseconds())/1000, "ms-"+cond.name)
		fmt.Printf("%s (%s): the child wrote 32 MiB in %s median (%.2f× unwatched; %d rounds), the client got %d KiB meanwhile\n",
			cond.name, testhost.Alias, m.Round(time.Millisecond), float64(m)/float64(base), len(took[cond.name]), bytes[len(bytes)/2]>>10)
	}
}
