// attachmany_bench_test.go measures `rostra attach RUN...`: how soon one
// UI over many runs shows every pane (from the first dial to a frame of
// the UI with every pane's latest text), for runs on this machine and on
// two test hosts (internal/testhost) over ssh and the bridge, each worker
// printing a coloured line every 20 ms; and how soon a key typed into a
// remote pane through the view comes back on its screen.
package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/testhost"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/tui"
)

// busyRunFile is a run of n busy workers, the first of them cat when
// withCat.
func busyRunFile(name string, n int, withCat bool) string {
	var rf strings.Builder
	fmt.Fprintf(&rf, "version: 1\nname: %s\nworkspace: .\npanes: { max: 32 }\nproviders:\n  shell: { command: [\"bash\", \"-c\", \"{prompt}\"] }\n", name)
	rf.WriteString("defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0 }\nworkers:\n")
	for i := range n {
		if i == 0 && withCat {
			rf.WriteString("  - { id: cat, role: echo, provider: shell, prompt: \"echo cat is ready; exec cat\" }\n")
			continue
		}
		fmt.Fprintf(&rf, "  - { id: w%02d, role: busy, provider: shell, prompt: \"i=0; while :; do i=$((i+1)); printf '\\\\033[3%%dmw%02d busy %%d\\\\033[m\\\\n' $((i%%7+1)) $i; sleep 0.02; done\" }\n", i, i)
	}
	return rf.String()
}

func startLocalBusy(b *testing.B, name string, n int) string {
	ws := runWorkspace(b, busyRunFile(name, n, false))
	r := runBin(&testing.T{}, ws, "run", "--detach")
	require.Equal(b, 0, r.code, "%s%s", r.stdout, r.stderr)
	b.Cleanup(func() { runBin(&testing.T{}, ws, "stop") })
	return filepath.Join(ws, ".rostra", name)
}

// allPanesShown opens the runs and returns once a frame of the UI over
// them shows every pane's text.
func allPanesShown(b *testing.B, runs []server.RunAddr) (*server.Multi, time.Duration) {
	start := time.Now()
	m, err := server.OpenMulti(runs)
	require.NoError(b, err)
	ids := make([]string, 0, len(m.Plan().Workers))
	for _, w := range m.Plan().Workers {
		ids = append(ids, w.ID)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		missing := slices.ContainsFunc(ids, func(id string) bool {
			h, _ := m.Handle(id)
			t := tui.TerminalOf(h)
			if t == nil {
				return true
			}
			text := t.Text(false)
			return !strings.Contains(text, "busy") && !strings.Contains(text, "cat is ready")
		})
		if !missing {
			break
		}
		require.True(b, time.Now().Before(deadline), "the panes never all showed")
		wake, stop := m.Activity().Listen()
		select {
		case <-wake:
		case <-time.After(50 * time.Millisecond):
		}
		stop()
	}
	ui := tui.New(m, tui.Options{Events: m, Activity: m.Activity(), Attached: true, Width: 240, Height: 80})
	ui.Update(tea.WindowSizeMsg{Width: 240, Height: 80})
	frame := ui.Render()
	took := time.Since(start)
	ui.Close()
	require.Contains(b, frame, " busy ")
	return m, took
}

// reportShown runs a sub-benchmark that attaches to runs again and again.
func reportShown(b *testing.B, name string, runs []server.RunAddr, panes int) {
	b.Run(name, func(b *testing.B) {
		var took []time.Duration
		for b.Loop() {
			m, d := allPanesShown(b, runs)
			took = append(took, d)
			m.Close()
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-all-shown")
		fmt.Printf("attach %s: %d runs, %d busy panes: all shown median %s, max %s (%d attaches)\n", name, len(runs), panes,
			took[len(took)/2].Round(100*time.Microsecond), took[len(took)-1].Round(100*time.Microsecond), len(took))
	})
}

func BenchmarkAttachManyRuns(b *testing.B) {
	report := reportShown
	var local []server.RunAddr
	for i := range 8 {
		local = append(local, server.RunAddr{Ref: startLocalBusy(b, fmt.Sprintf("busy%d", i), 4)})
	}
	report(b, "local-1x4", local[:1], 4)
	report(b, "local-4x4", local[:4], 16)
	report(b, "local-8x4", local[:8], 32)
}

// BenchmarkAttachManyRunsOverSSH is apart from the local one: their 32
// busy workers would take the CPU this one measures with.
func BenchmarkAttachManyRunsOverSSH(b *testing.B) {
	report := reportShown
	local := []server.RunAddr{{Ref: startLocalBusy(b, "near", 4)}}

	box1, box2 := newRemoteHost(b, true), newRemoteHost(b, true)
	far1 := startRemoteRun(b, box1, busyRunFile("far", 8, true))
	startRemoteRun(b, box2, busyRunFile("far", 8, false))
	b.Setenv("ROSTRA_SSH", sshToHosts(b, map[string]*testhost.Host{"box1": box1, "box2": box2}))
	remote := []server.RunAddr{{Ref: "ssh://box1/~/ws", Host: "box1"}, {Ref: "ssh://box2/~/ws", Host: "box2"}}
	report(b, "remote-1x8", remote[:1], 8)
	report(b, "remote-2x8", remote, 16)
	report(b, "local-1x4+remote-2x8", append([]server.RunAddr{local[0]}, remote...), 20)

	// A key into box1's cat through the view, until its echo is on the
	// mirrored screen; and the same through the run's own socket there.
	for _, via := range []server.RunAddr{remote[0], {Ref: filepath.Join(far1.ws, ".rostra", "far"), Host: "socket"}} {
		b.Run("echo-"+via.Host, func(b *testing.B) {
			m, _ := allPanesShown(b, []server.RunAddr{via})
			defer m.Close()
			h, _ := m.Handle(via.Host + ":far/cat")
			kh := h.(interface{ Write([]byte) (int, error) })
			t := tui.TerminalOf(h)
			// The size the UI gives its pane (a detached run's ptys are
			// as small as a terminal it never had).
			require.NoError(b, h.(interface{ Resize(int, int) error }).Resize(120, 30))
			require.Eventually(b, func() bool { c, _ := t.Size(); return c == 120 }, 10*time.Second, time.Millisecond)
			var echo []time.Duration
			line, typed := 0, ""
			for b.Loop() {
				if typed == "" || len(typed) > 40 {
					// A line of its own, marked, so that an earlier
					// one never matches.
					// cat's copy of the line ended comes after its
					// echo: wait for it before the next line starts.
					b.StopTimer()
					line++
					_, _ = kh.Write([]byte("\r"))
					time.Sleep(100 * time.Millisecond)
					typed = "Q" + via.Host + strconv.Itoa(line) + ":"
					_, _ = kh.Write([]byte(typed))
					require.Eventually(b, func() bool { return strings.Contains(t.Text(false), typed) }, 10*time.Second, time.Millisecond)
					b.StartTimer()
				}
				key := string(rune('a' + len(typed)%26))
				typed += key
				start := time.Now()
				_, _ = kh.Write([]byte(key))
				for !strings.Contains(t.Text(false), typed) {
					require.Less(b, time.Since(start), 10*time.Second, "no echo of %q: %s", typed, t.Text(false))
					time.Sleep(100 * time.Microsecond)
				}
				echo = append(echo, time.Since(start))
			}
			slices.Sort(echo)
			b.ReportMetric(float64(echo[len(echo)/2].Microseconds())/1000, "ms-echo")
			fmt.Printf("echo through the view (%s): median %s, max %s (%d keys)\n", via.Host, echo[len(echo)/2].Round(10*time.Microsecond), echo[len(echo)-1].Round(10*time.Microsecond), len(echo))
		})
	}
}
