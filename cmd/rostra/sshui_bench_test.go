// sshui_bench_test.go measures a keystroke's echo through rostra's SSH
// server (docs/remote.md §The SSH server) against an attach on the run's
// socket: the same run, a cat pane in input mode, each key timed from its
// write until cat's echo is on the client's screen (an emulator standing
// for the terminal). Through the SSH server the path is the system's ssh
// client, wish, the session's relay and then the socket. Run with
// -bench SSHServe (not part of go test); it prints the median and p95.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
)

// echoClient is an attached client's two ends: keys in, the screen out.
type echoClient struct {
	keys   io.Writer
	term   *vt.Terminal
	out    io.Reader // the terminal's bytes (ssh) or frames (socket)
	frames *server.FrameReader
	closer io.Closer // ends a client that hangs
}

// readUntil feeds the screen until done says so.
func (c *echoClient) readUntil(tb testing.TB, done func(string) bool) {
	buf := make([]byte, 64<<10)
	for !done(c.term.Text(false)) {
		if c.frames != nil {
			f, err := c.frames.ReadFrame()
			require.NoError(tb, err, "the screen so far:\n%s", c.term.Text(false))
			if f.Type == server.FrameOutput {
				_, _ = c.term.Write(f.Payload)
			}
			continue
		}
		n, err := c.out.Read(buf)
		require.NoError(tb, err, "the screen so far:\n%s", c.term.Text(false))
		_, _ = c.term.Write(buf[:n])
	}
}

// typistGap is the pause before each timed key.
const typistGap = 60 * time.Millisecond

// socketKeys writes keys as Input frames.
type socketKeys struct{ c server.Stream }

func (k socketKeys) Write(p []byte) (int, error) {
	return len(p), server.WriteFrame(k.c, server.FrameInput, p)
}

func BenchmarkSSHServeEcho(b *testing.B) {
	ws := runWorkspace(b, serverRunFile)
	r := runBin(&testing.T{}, ws, "run", "--detach")
	require.Equal(b, 0, r.code, "%s%s", r.stdout, r.stderr)
	b.Cleanup(func() { runBin(&testing.T{}, ws, "stop") })
	stateDir := filepath.Join(ws, ".rostra", "served")
	k := newSSHKeys(&testing.T{})
	serve := exec.Command(rostraBin, "serve-ssh", "--authorized-keys", k.authorized, "127.0.0.1:0")
	serve.Dir = ws
	serveErr, err := serve.StderrPipe()
	require.NoError(b, err)
	require.NoError(b, serve.Start())
	b.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	line, err := bufio.NewReader(serveErr).ReadString('\n')
	require.NoError(b, err)
	m := servesRx.FindStringSubmatch(line)
	require.NotNil(b, m, line)
	go func() { _, _ = io.Copy(io.Discard, serveErr) }()

	const cols, rows = 160, 40
	for _, via := range []struct {
		name string
		open func() *echoClient
	}{
		{"socket", func() *echoClient {
			c, err := server.Dial(stateDir)
			require.NoError(b, err)
			b.Cleanup(func() { c.Close() })
			require.NoError(b, server.WriteJSON(c, server.FrameHello, server.Hello{Rostra: server.ProtocolVersion, Mode: server.ModeAttach,
				Env: []string{"TERM=xterm-256color"}, Cols: cols, Rows: rows}))
			return &echoClient{keys: socketKeys{c}, term: vt.New(cols, rows, vt.Options{}), frames: server.NewFrameReader(bufio.NewReaderSize(c, 64<<10)), closer: c}
		}},
		{"wish", func() *echoClient {
			// ssh in a terminal of its own, as a person runs it: it sends
			// the terminal's size with its pty request.
			args := k.sshArgs(m[1], k.key, "-tt")
			ssh := exec.Command(args[0], args[1:]...)
			ssh.Env = append(os.Environ(), "TERM=xterm-256color")
			tty, err := pty.StartWithSize(ssh, &pty.Winsize{Cols: cols, Rows: rows})
			require.NoError(b, err)
			b.Cleanup(func() { _ = tty.Close(); _ = ssh.Process.Kill(); _ = ssh.Wait() })
			return &echoClient{keys: tty, term: vt.New(cols, rows, vt.Options{}), out: tty, closer: tty}
		}},
	} {
		b.Run(via.name, func(b *testing.B) {
			c := via.open()
			// A screen that never shows what is waited for fails, not hangs.
			watchdog := time.AfterFunc(5*time.Minute, func() { _ = c.closer.Close() })
			defer watchdog.Stop()
			c.readUntil(b, func(s string) bool { return strings.Contains(s, "cat-echo · echo") }) // its title: its first line may have scrolled off
			_, err := c.keys.Write([]byte("i"))
			require.NoError(b, err)
			c.readUntil(b, func(s string) bool { return strings.Contains(s, "INPUT → cat-echo") })
			var echo []time.Duration
			lineNo, typed := 0, ""
			newLine := func() {
				lineNo++
				typed = fmt.Sprintf("%s%03d:", via.name, lineNo)
				_, err := c.keys.Write([]byte(typed))
				require.NoError(b, err)
				c.readUntil(b, func(s string) bool { return strings.Contains(s, typed) })
			}
			newLine()
			for b.Loop() {
				if len(typed) >= 30 {
					_, err := c.keys.Write([]byte("\r"))
					require.NoError(b, err)
					done := typed
					c.readUntil(b, func(s string) bool { return strings.Count(s, done) == 2 })
					newLine()
				}
				// A typist's pace, slower than a frame (30 FPS): the renderer
				// draws a change at once when its last frame is a frame old,
				// else at that frame's end (third_party/bubbletea's
				// README.rostra.md), which keys typed back to back would time.
				time.Sleep(typistGap)
				key := string(rune('a' + len(echo)%26))
				typed += key
				start := time.Now()
				_, err := c.keys.Write([]byte(key))
				require.NoError(b, err)
				c.readUntil(b, func(s string) bool { return strings.Contains(s, typed) })
				echo = append(echo, time.Since(start))
			}
			slices.Sort(echo)
			med, p95 := echo[len(echo)/2], echo[len(echo)*95/100]
			b.ReportMetric(float64(med.Microseconds())/1000, "ms-echo-median")
			b.ReportMetric(float64(p95.Microseconds())/1000, "ms-echo-p95")
			load, _ := os.ReadFile("/proc/loadavg")
			fmt.Printf("%s: keystroke echo median %s, p95 %s, max %s (%d keys; load %s)\n", via.name,
				med.Round(10*time.Microsecond), p95.Round(10*time.Microsecond), echo[len(echo)-1].Round(10*time.Microsecond), len(echo), strings.Join(strings.Fields(string(load))[:3], " "))
			_, _ = c.keys.Write([]byte("\r\x1d"))
		})
	}
}
