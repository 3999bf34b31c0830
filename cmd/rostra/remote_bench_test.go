// remote_bench_test.go measures attaching to a run on a test host through
// ssh and the bridge against attaching to the same run on its socket:
// the time until every one of 16 busy panes is shown, and a keystroke's
// echo from a cat pane. Run with -bench Remote (not part of go test).
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

	"github.com/rostra-dev/rostra/internal/testhost"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
)

// attachScreen says hello as an attaching client at 200×60 on c and
// returns the emulator its output goes to and a function reading frames
// into it until done says so.
func attachScreen(tb testing.TB, c server.Stream, welcomed *time.Time) (*vt.Terminal, func(done func(string) bool)) {
	require.NoError(tb, server.WriteJSON(c, server.FrameHello, server.Hello{Rostra: server.ProtocolVersion, Mode: server.ModeAttach,
		Env: []string{"TERM=xterm-256color"}, Cols: 200, Rows: 60}))
	term := vt.New(200, 60, vt.Options{})
	fr := server.NewFrameReader(bufio.NewReaderSize(c, 64<<10))
	return term, func(done func(string) bool) {
		for {
			f, err := fr.ReadFrame()
			require.NoError(tb, err, "the screen so far:\n%s", term.Text(false))
			if f.Type == server.FrameWelcome {
				*welcomed = time.Now()
			}
			if f.Type != server.FrameOutput {
				continue
			}
			_, _ = term.Write(f.Payload)
			if done(term.Text(false)) {
				return
			}
		}
	}
}

func BenchmarkRemoteAttach(b *testing.B) {
	const panes = 16
	var rf strings.Builder
	rf.WriteString("version: 1\nname: busy\nworkspace: .\npanes: { max: 16 }\nproviders:\n  shell: { command: [\"bash\", \"-c\", \"{prompt}\"] }\n")
	rf.WriteString("defaults: { max_attempts: 1, timeout: 0, stop_grace: 1s, attention_after: 0 }\nworkers:\n")
	rf.WriteString("  - { id: cat, role: echo, provider: shell, prompt: \"echo cat is ready; exec cat\" }\n")
	for i := 1; i < panes; i++ {
		fmt.Fprintf(&rf, "  - { id: w%02d, role: busy, provider: shell, prompt: \"i=0; while :; do i=$((i+1)); printf '\\\\033[3%%dmw%02d busy %%d\\\\033[m\\\\n' $((i%%7+1)) $i; sleep 0.02; done\" }\n", i, i)
	}
	h := newRemoteHost(b, true)
	r := startRemoteRun(b, h, rf.String())
	b.Setenv("ROSTRA_SSH", h.SSHCommand())
	want := []string{"cat is ready"}
	for i := 1; i < panes; i++ {
		want = append(want, fmt.Sprintf("w%02d busy", i))
	}
	allShown := func(text string) bool {
		return !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(text, w) })
	}
	for _, via := range []struct {
		name string
		dial func() (server.Stream, error)
	}{
		{"ssh+bridge", func() (server.Stream, error) { return dialSSH(r.addr) }},
		{"socket", func() (server.Stream, error) { return server.Dial(filepath.Join(r.ws, ".rostra", "busy")) }},
	} {
		b.Run(via.name, func(b *testing.B) {
			var shown, afterWelcome, echo []time.Duration
			for b.Loop() {
				start := time.Now()
				c, err := via.dial()
				require.NoError(b, err)
				_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a screen that never comes fails
				var welcomed time.Time
				term, read := attachScreen(b, c, &welcomed)
				read(allShown)
				shown = append(shown, time.Since(start))
				afterWelcome = append(afterWelcome, time.Since(welcomed))
				// Input mode on the focused pane (cat), then keys, each
				// timed until its echo is on the screen.
				require.NoError(b, server.WriteFrame(c, server.FrameInput, []byte("i")))
				read(func(text string) bool { return strings.Contains(text, "INPUT → cat") })
				require.NoError(b, server.WriteFrame(c, server.FrameInput, []byte("zq")))
				read(func(text string) bool { return strings.Contains(text, "zq") })
				typed := "zq"
				for k := range 10 {
					key := string(rune('a' + k))
					typed += key
					start := time.Now()
					require.NoError(b, server.WriteFrame(c, server.FrameInput, []byte(key)))
					read(func(text string) bool { return strings.Contains(text, typed) })
					echo = append(echo, time.Since(start))
				}
				_ = term
				require.NoError(b, server.WriteFrame(c, server.FrameInput, []byte("\r\x1d")))
				c.Close()
			}
			slices.Sort(shown)
			slices.Sort(echo)
			slices.Sort(afterWelcome)
			b.ReportMetric(float64(shown[len(shown)/2].Microseconds())/1000, "ms-all-shown")
			b.ReportMetric(float64(echo[len(echo)/2].Microseconds())/1000, "ms-echo")
			b.ReportMetric(float64(afterWelcome[len(afterWelcome)/2].Microseconds())/1000, "ms-after-welcome")
			fmt.Printf("%s (%s): all %d panes shown median %s (%s after the welcome; max %s, %d attaches); keystroke echo median %s (max %s, %d keys)\n",
				via.name, testhost.Alias, panes, shown[len(shown)/2].Round(100*time.Microsecond), afterWelcome[len(afterWelcome)/2].Round(100*time.Microsecond), shown[len(shown)-1].Round(100*time.Microsecond), len(shown),
				echo[len(echo)/2].Round(10*time.Microsecond), echo[len(echo)-1].Round(10*time.Microsecond), len(echo))
		})
	}
}
