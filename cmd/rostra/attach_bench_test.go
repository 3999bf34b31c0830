// attach_bench_test.go measures how soon an attaching client shows every
// pane (docs/server.md: within 100 ms of the connection, 16 busy panes): a real
// server (the binary, rostra run --detach) runs 16 workers that each print
// a coloured line every 20 ms; each iteration connects, says hello at
// 200×60, and feeds what the server sends into an emulator standing for
// the client's terminal until every pane's latest text is on it.
package main

import (
	"bufio"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
)

func BenchmarkAttachShowsEveryPane(b *testing.B) {
	const panes = 16
	var rf strings.Builder
	rf.WriteString("version: 1\nname: busy\nworkspace: .\npanes: { max: 16 }\nproviders:\n  shell: { command: [\"bash\", \"-c\", \"{prompt}\"] }\n")
	rf.WriteString("defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0 }\nworkers:\n")
	for i := range panes {
		fmt.Fprintf(&rf, "  - { id: w%02d, role: busy, provider: shell, prompt: \"i=0; while :; do i=$((i+1)); printf '\\\\033[3%%dmw%02d busy %%d\\\\033[m\\\\n' $((i%%7+1)) $i; sleep 0.02; done\" }\n", i, i)
	}
	ws := runWorkspace(b, rf.String())
	r := runBin(&testing.T{}, ws, "run", "--detach")
	require.Equal(b, 0, r.code, "%s%s", r.stdout, r.stderr)
	stateDir := filepath.Join(ws, ".rostra", "busy")
	b.Cleanup(func() {
		stop := runBin(&testing.T{}, ws, "stop")
		if stop.code != 130 {
			b.Errorf("rostra stop: %d %s", stop.code, stop.stderr)
		}
	})
	want := make([]string, panes)
	for i := range want {
		want[i] = fmt.Sprintf("w%02d busy", i)
	}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		c, err := server.Dial(stateDir)
		require.NoError(b, err)
		require.NoError(b, server.WriteJSON(c, server.FrameHello, server.Hello{Rostra: server.ProtocolVersion, Mode: server.ModeAttach,
			Env: []string{"TERM=xterm-256color"}, Cols: 200, Rows: 60}))
		term := vt.New(200, 60, vt.Options{})
		fr := server.NewFrameReader(bufio.NewReaderSize(c, 64<<10))
		for {
			f, err := fr.ReadFrame()
			require.NoError(b, err, "the screen so far:\n%s", term.Text(false))
			if f.Type != server.FrameOutput {
				continue
			}
			_, _ = term.Write(f.Payload)
			text := term.Text(false)
			if !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(text, w) }) {
				break
			}
		}
		took = append(took, time.Since(start))
		c.Close()
	}
	slices.Sort(took)
	med, worst := took[len(took)/2], took[len(took)-1]
	b.ReportMetric(float64(med.Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms-max")
	fmt.Printf("attach shows all %d busy panes: median %s, max %s over %d attaches (target: ≤ 100 ms)\n", panes, med.Round(100*time.Microsecond), worst.Round(100*time.Microsecond), len(took))
}
