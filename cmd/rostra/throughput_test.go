// throughput_test.go measures what the UI costs a child that writes fast:
// `cat` of a coloured log (100 MiB by default; ROSTRA_BENCH_MIB changes it)
// through PTY panes with the whole UI running (engine, emulator, bubbletea
// drawing into io.Discard), against a plain pty drain of the same file in
// the same benchmark, and the same through a run server with one client
// attached (docs/server.md, "What it costs": ≥ 0.9 of the UI in the process). The targets: one pane ≥ 0.8 of the raw rate,
// four panes at once ≥ 0.7 of the raw aggregate.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/tui"
)

// benchLog writes a coloured log of about mib MiB, like a build's output.
func benchLog(b *testing.B, dir string) (string, int64) {
	mib := 100
	if v, err := strconv.Atoi(os.Getenv("ROSTRA_BENCH_MIB")); err == nil && v > 0 {
		mib = v
	}
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, "\x1b[2m%06d\x1b[m \x1b[3%dmINFO\x1b[m compiling \x1b[1mpkg/module%d/file%d.go\x1b[m … \x1b[32mok\x1b[m %d ms\n", i, i%7+1, i%13, i%101, i%997)
	}
	path := filepath.Join(dir, "colour.log")
	f, err := os.Create(path)
	require.NoError(b, err)
	for range mib {
		_, err := f.Write(buf.Bytes())
		require.NoError(b, err)
	}
	require.NoError(b, f.Close())
	return path, int64(mib) * int64(buf.Len())
}

// rawDrain cats path on n ptys at once and reads every master to the end.
func rawDrain(b *testing.B, path string, n int) {
	var wg sync.WaitGroup
	for range n {
		master, tty, err := panes.OpenPTY(100, 24)
		require.NoError(b, err)
		cmd := exec.Command("cat", path)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		require.NoError(b, cmd.Start())
		_ = tty.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				if _, err := master.Read(buf); err != nil {
					if !errors.Is(err, syscall.EIO) && !errors.Is(err, io.EOF) {
						b.Error(err)
					}
					break
				}
			}
			_ = cmd.Wait()
			_ = master.Close()
		}()
	}
	wg.Wait()
}

// How uiRun draws.
const (
	drawNone     = "engine"   // the engine and the emulators, no UI: what the emulator costs apart from the drawing
	drawDirect   = "ui"       // the UI in this process, as rostra run --no-server draws it
	drawAttached = "attached" // a run server, with one client attached over its socket
)

// uiRun runs n workers that cat path in PTY panes, drawn as draw says.
// The UI draws into io.Discard, and so does the attached client: the
// difference is the server's own cost (a program per client, the output
// queue, the socket, the client's reads).
// It returns the wall time and this process's CPU from the engine's start
// to the run's end.
func uiRun(b *testing.B, path string, n int, draw string) (wall, cpu time.Duration) {
	var rf bytes.Buffer
	fmt.Fprintf(&rf, "version: 1\nname: bench\nworkspace: .\npanes: { max: 16 }\nproviders:\n  shell: { command: [\"bash\", \"-c\", \"{prompt}\"] }\ndefaults: { max_attempts: 1, timeout: 0 }\nworkers:\n")
	for i := range n {
		fmt.Fprintf(&rf, "  - { id: cat%d, role: cat, provider: shell, prompt: \"exec cat %s\" }\n", i, path)
	}
	ws := runWorkspace(b, rf.String())
	plan, err := runfile.Load(filepath.Join(ws, "rostra.yaml"))
	require.NoError(b, err)
	opts, act, sizes := uiOptions(plan, 200, 50)
	eng, prep, code := startRun(plan, false, io.Discard, opts, nil)
	require.NotNil(b, eng, "start the run: exit %d", code)
	defer prep.Lock.Release()
	sub := eng.Subscribe()
	defer sub.Close()
	done := make(chan struct{})
	var p *tea.Program
	var client net.Conn
	served := make(chan int, 1)
	switch draw {
	case drawDirect:
		m := tui.New(eng, tui.Options{Events: sub, Activity: act, Sizes: sizes})
		// In colour, as on the terminal the attached client reports: with
		// io.Discard for output bubbletea would detect no terminal and
		// draw no colour at all.
		p = tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(200, 50), tea.WithoutSignalHandler(),
			tea.WithFPS(tui.RendererFPS), tea.WithRenderOnChange(),
			tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithColorProfile(colorprofile.ANSI256))
		go func() { defer close(done); _, _ = p.Run() }()
	case drawAttached:
		ln, err := server.Listen(plan.StateDir)
		require.NoError(b, err)
		srv := server.New(server.Config{Engine: eng, Activity: act, Sizes: sizes, Listener: ln, FPS: uiFPS})
		go func() { served <- srv.Serve() }()
		c, err := server.Dial(plan.StateDir)
		require.NoError(b, err)
		client = c
		require.NoError(b, server.WriteJSON(c, server.FrameHello, server.Hello{Rostra: server.ProtocolVersion, Mode: server.ModeAttach,
			Env: []string{"TERM=xterm-256color"}, Cols: 200, Rows: 50}))
		go func() {
			defer close(done)
			fr := server.NewFrameReader(bufio.NewReaderSize(c, 64<<10))
			for {
				if _, err := fr.ReadFrame(); err != nil {
					return
				}
			}
		}()
	default:
		close(done)
	}
	t0, c0 := time.Now(), processCPU()
	require.NoError(b, eng.Start())
	select {
	case <-eng.Finished():
	case <-time.After(5 * time.Minute):
		b.Fatal("the run did not finish")
	}
	wall, cpu = time.Since(t0), processCPU()-c0
	b.StopTimer()
	if p != nil {
		p.Quit()
	}
	if client != nil {
		// The run has finished: with its only client gone, the server
		// ends it.
		client.Close()
		<-done
		<-served
	} else {
		<-done
		require.NoError(b, eng.Shutdown())
	}
	require.Equal(b, 0, eng.ExitCode(), "every cat completed")
	b.StartTimer()
	return wall, cpu
}

func BenchmarkPaneThroughput(b *testing.B) {
	dir := b.TempDir()
	path, size := benchLog(b, dir)
	for _, n := range []int{1, 4} {
		var raw, ui, emu, att time.Duration
		b.Run("raw-"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(size * int64(n))
			start := time.Now()
			for b.Loop() {
				rawDrain(b, path, n)
			}
			raw = time.Since(start) / time.Duration(b.N)
		})
		b.Run("engine-"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(size * int64(n))
			start := time.Now()
			for b.Loop() {
				uiRun(b, path, n, drawNone)
			}
			emu = time.Since(start) / time.Duration(b.N)
		})
		b.Run("ui-"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(size * int64(n))
			start := time.Now()
			for b.Loop() {
				uiRun(b, path, n, drawDirect)
			}
			ui = time.Since(start) / time.Duration(b.N)
		})
		b.Run("attached-"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(size * int64(n))
			start := time.Now()
			for b.Loop() {
				uiRun(b, path, n, drawAttached)
			}
			att = time.Since(start) / time.Duration(b.N)
		})
		if raw > 0 && ui > 0 && emu > 0 {
			rate := func(d time.Duration) float64 { return float64(size*int64(n)) / d.Seconds() / (1 << 20) }
			fmt.Printf("%d pane(s): raw pty drain %.1f MiB/s; engine+emulator %.1f MiB/s (%.2f); with the UI %.1f MiB/s (ratio %.2f)\n",
				n, rate(raw), rate(emu), raw.Seconds()/emu.Seconds(), rate(ui), raw.Seconds()/ui.Seconds())
		}
		if ui > 0 && att > 0 {
			fmt.Printf("%d pane(s): through an attached client %.1f MiB/s, %.2f× the UI in this process (target: ≥ 0.9)\n",
				n, float64(size*int64(n))/att.Seconds()/(1<<20), ui.Seconds()/att.Seconds())
		}
	}
}

// BenchmarkAttachedThroughput is docs/server.md's throughput figure measured
// fairly on a loaded machine: each iteration runs one pane through the UI
// in this process and then through an attached client, so both see the
// same load; it reports the ratio of their rates and of the CPU this
// process spent per MiB (engine, emulator, UI, server, client; not cat),
// from the engine's start to the run's end (setup and teardown left out).
func BenchmarkAttachedThroughput(b *testing.B) {
	dir := b.TempDir()
	path, size := benchLog(b, dir)
	var wall, cpu [2]time.Duration
	for b.Loop() {
		for i, draw := range []string{drawDirect, drawAttached} {
			w, c := uiRun(b, path, 1, draw)
			wall[i] += w
			cpu[i] += c
		}
	}
	mib := float64(size) / (1 << 20) * float64(b.N)
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "attached/direct-rate")
	b.ReportMetric(cpu[1].Seconds()/cpu[0].Seconds(), "attached/direct-cpu")
	fmt.Printf("one pane, %d runs each, interleaved: direct %.1f MiB/s (%.0f ms CPU/MiB), attached %.1f MiB/s (%.0f ms CPU/MiB): rate %.2f× (target: ≥ 0.9), CPU %.2f×\n",
		b.N, mib/wall[0].Seconds(), cpu[0].Seconds()*1000/mib, mib/wall[1].Seconds(), cpu[1].Seconds()*1000/mib,
		wall[0].Seconds()/wall[1].Seconds(), cpu[1].Seconds()/cpu[0].Seconds())
}

// processCPU is the user and system CPU this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
