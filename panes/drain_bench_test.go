//go:build linux

// drain_bench_test.go measures the pane pipeline against a bare pty drain
// of the same file, interleaved in one run: `cat` of a coloured log on a
// pty read to the end by a bare loop, and the same through StartPTY with
// output.log and an emulator. It reports the child's own time (start to
// exit), the time until the screen has every byte, and the CPU rostra
// spent per MiB. ROSTRA_BENCH_MIB sets the size (64 by default).
package panes

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/panes/vt"
)

func benchMiB() int {
	if v, err := strconv.Atoi(os.Getenv("ROSTRA_BENCH_MIB")); err == nil && v > 0 {
		return v
	}
	return 64
}

// colourLog writes mib MiB of coloured log lines to a file.
func colourLog(b *testing.B, mib int) string {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, "\x1b[2m%06d\x1b[m \x1b[3%dmINFO\x1b[m compiling \x1b[1mpkg/module%d/file%d.go\x1b[m … \x1b[32mok\x1b[m %d ms\n", i, i%7+1, i%13, i%101, i%997)
	}
	path := filepath.Join(b.TempDir(), "colour.log")
	f, err := os.Create(path)
	require.NoError(b, err)
	for range mib {
		_, err := f.Write(buf.Bytes()[:1<<20])
		require.NoError(b, err)
	}
	require.NoError(b, f.Close())
	return path
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bareDrain cats path on a pty and reads the master to the end, as cheaply
// as the pane's reader reads (a stream, readNow); it returns the child's
// time.
func bareDrain(b *testing.B, path string) time.Duration {
	master, tty, err := OpenPTY(120, 40)
	require.NoError(b, err)
	s, err := newStream(master)
	require.NoError(b, err)
	cmd := exec.Command("cat", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	start := time.Now()
	require.NoError(b, cmd.Start())
	_ = tty.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := readOnce(s, buf)
		if err != nil && !errors.Is(err, syscall.EIO) {
			b.Error(err)
		}
		if err != nil || n == 0 {
			break
		}
	}
	_ = cmd.Wait()
	took := time.Since(start)
	_ = s.Close()
	return took
}

// paneDrain runs the same cat through StartPTY; it returns the child's
// time (start to exit) and the time until the screen had every byte.
func paneDrain(b *testing.B, path string) (child, screen time.Duration) {
	l := Launch{Argv: []string{"cat", path}, OutputLog: filepath.Join(b.TempDir(), "output.log"), Cols: 120, Rows: 40}
	start := time.Now()
	p, err := StartPTY(l, PTYOptions{NewScreen: func(c, r int, reply func([]byte)) Screen {
		return vt.New(c, r, vt.Options{OnReply: reply})
	}})
	require.NoError(b, err)
	<-p.Exited()
	child = time.Since(start)
	<-p.Done()
	screen = time.Since(start)
	require.NoError(b, p.Close())
	require.NoError(b, os.Remove(l.OutputLog))
	return child, screen
}

func BenchmarkDrainVsBare(b *testing.B) {
	mib := benchMiB()
	path := colourLog(b, mib)
	var bare, child, screen, cpu []time.Duration
	for b.Loop() {
		bare = append(bare, bareDrain(b, path))
		c0 := cpuNow()
		c, s := paneDrain(b, path)
		cpu = append(cpu, cpuNow()-c0)
		child, screen = append(child, c), append(screen, s)
	}
	med := func(d []time.Duration) time.Duration {
		d = slices.Clone(d)
		slices.Sort(d)
		return d[len(d)/2]
	}
	mb, mc, ms := med(bare), med(child), med(screen)
	b.ReportMetric(mc.Seconds()/mb.Seconds(), "child/bare")
	b.ReportMetric((ms-mc).Seconds()*1000, "ms-catchup")
	b.ReportMetric(med(cpu).Seconds()*1000/float64(mib), "cpu-ms/MiB")
	b.Logf("%d MiB, %d rounds: bare %v, child %v (%.2f×), screen complete %v after start (%v after the child)",
		mib, len(bare), mb.Round(time.Millisecond), mc.Round(time.Millisecond), mc.Seconds()/mb.Seconds(),
		ms.Round(time.Millisecond), (ms - mc).Round(time.Millisecond))
}
