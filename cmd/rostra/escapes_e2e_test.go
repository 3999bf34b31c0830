// escapes_e2e_test.go attacks the reader's terminal through the real
// binary, as a hostile agent would: a file named with a clipboard write
// (ESC ] 52 … BEL) in an audited worker's writes, inside a workspace whose
// own path holds one, must reach rostra status, rostra ls, the headless
// lines, server.log, the report and stderr escaped; a worker's output.log
// full of sequences that act on a terminal must reach one through rostra
// logs (and logs -f) with its colours only, and --raw or a pipe must give
// its bytes. See docs/design.md, "Nothing raw reaches a terminal".
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clipboardWrite is the attack's payload: OSC 52, which would put "hi" on
// the reader's clipboard. escapedClipboardWrite is how rostra shows it.
const (
	clipboardWrite        = "\x1b]52;c;aGk=\x07"
	escapedClipboardWrite = `\e]52;c;aGk=\x07`
)

// hostileNameRunFile's writer makes a file named with clipboardWrite,
// outside its write policy: the audit fails the attempt naming it. The
// waiter keeps a served run alive until the test has looked.
const hostileNameRunFile = `version: 1
name: hostile
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: writer
    provider: shell
    prompt: 'touch "$(printf "evil\033]52;c;aGk=\007.txt")"; echo wrote it; exit 0'
    writes: ["out/**"]
  - id: waiter
    provider: shell
    prompt: 'echo waiting; read line; exit 0'
`

// assertEscaped fails when text holds a raw ESC or BEL; want, when not
// empty, must be in it (the hostile text shown, escaped).
func assertEscaped(t *testing.T, what, text, want string) {
	t.Helper()
	assert.NotContains(t, text, "\x1b", "%s holds a raw ESC:\n%q", what, text)
	assert.NotContains(t, text, "\x07", "%s holds a raw BEL:\n%q", what, text)
	if want != "" {
		assert.Contains(t, text, want, "%s shows the hostile text escaped", what)
	}
}

func TestAHostileFileNameReachesNoTerminalRaw(t *testing.T) {
	t.Parallel()
	// The workspace's own path holds the payload too: it is in the state
	// dir's path, which status, ls, server.log and the report all print.
	ws := filepath.Join(t.TempDir(), "ws"+clipboardWrite)
	require.NoError(t, os.Mkdir(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(hostileNameRunFile), 0o644))
	stateDir := filepath.Join(ws, ".rostra", "hostile")

	v := runBin(t, ws, "validate", "rostra.yaml")
	require.Equal(t, 0, v.code, v.stderr)
	assertEscaped(t, "rostra validate", v.stdout, "ws"+escapedClipboardWrite)

	d := runBin(t, ws, "run", "--detach")
	require.Equal(t, 0, d.code, "run --detach: %s%s", d.stdout, d.stderr)
	m := serverPidRx.FindStringSubmatch(d.stdout)
	require.NotNil(t, m, "no server pid in %q", d.stdout)
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { stopServer(t, ws, pid) })
	assertEscaped(t, "rostra run --detach", d.stdout+d.stderr, "ws"+escapedClipboardWrite)

	// logs -f returns once the writer's attempt has ended. Its output.log
	// is made as the attempt opens, after run --detach returns.
	waitForFile(t, filepath.Join(stateDir, "attempts", "writer", "1", "output.log"))
	r := runBin(t, ws, "logs", "-f", "writer")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "wrote it")

	live := runBin(t, ws, "status")
	require.Equal(t, 0, live.code, live.stderr)
	assert.Contains(t, live.stdout, "live from its server")
	assertEscaped(t, "rostra status (live)", live.stdout, "evil"+escapedClipboardWrite+".txt")

	ls := runBin(t, ws, "ls")
	require.Equal(t, 0, ls.code, ls.stderr)
	assertEscaped(t, "rostra ls", ls.stdout, "ws"+escapedClipboardWrite)

	// A control command's error carries what it was given.
	bad := runBin(t, ws, "cancel", "no"+clipboardWrite+"body")
	assert.NotEqual(t, 0, bad.code)
	assertEscaped(t, "rostra cancel's error", bad.stderr+bad.stdout, "]52;c;aGk=")

	// stop returns once the server has exited: server.log is complete.
	stop := runBin(t, ws, "stop")
	assert.Equal(t, 130, stop.code, "the waiter was still running: %s", stop.stderr)
	assertEscaped(t, "rostra stop", stop.stdout+stop.stderr, "")

	log, err := os.ReadFile(filepath.Join(stateDir, serverLogFile))
	require.NoError(t, err)
	assertEscaped(t, "server.log", string(log), "evil"+escapedClipboardWrite+".txt")
	assert.Contains(t, string(log), "ws"+escapedClipboardWrite, "server.log names the state dir")

	off := runBin(t, ws, "status")
	require.Equal(t, 0, off.code, off.stderr)
	assertEscaped(t, "rostra status (from the files)", off.stdout, "evil"+escapedClipboardWrite+".txt")

	rep := runBin(t, ws, "report")
	require.Equal(t, 0, rep.code, rep.stderr)
	assertEscaped(t, "rostra report's output", rep.stdout+rep.stderr, "")
	reports, err := filepath.Glob(filepath.Join(stateDir, "reports", "report-*.md"))
	require.NoError(t, err)
	require.Len(t, reports, 1)
	md, err := os.ReadFile(reports[0])
	require.NoError(t, err)
	assertEscaped(t, "the report's .md", string(md), "evil"+escapedClipboardWrite+".txt")
	assert.Contains(t, string(md), "ws"+escapedClipboardWrite, "the report names the state dir")

	// status --json keeps JSON's own escapes, as before.
	js := runBin(t, ws, "status", "--json")
	require.Equal(t, 0, js.code, js.stderr)
	assert.Contains(t, js.stdout, `evil\u001b]52;c;aGk=\u0007.txt`)
}

func TestHeadlessLinesEscapeAHostileFileName(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	runFile := strings.ReplaceAll(hostileNameRunFile, "read line; exit 0", "exit 0")
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(runFile), 0o644))
	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assertEscaped(t, "the headless lines", r.stdout, "evil"+escapedClipboardWrite+".txt")
	assertEscaped(t, "the headless run's stderr", r.stderr, "")
}

func TestAWorkerIDWithControlCharactersIsRefusedAndShownEscaped(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	// YAML's "\e" and "\a" put a raw ESC and BEL in the id.
	runFile := strings.Replace(hostileNameRunFile, "id: writer", `id: "w\e]52;c;aGk=\a"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(runFile), 0o644))
	for _, args := range [][]string{{"validate", "rostra.yaml"}, {"run", "--headless"}} {
		r := runBin(t, ws, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "is not a valid worker id", args)
		assertEscaped(t, strings.Join(args, " "), r.stderr, "")
	}
}

// hostileOutput is what a worker prints in the logs tests: red text, then
// every sequence a terminal would act on. hostileOutputKept is what rostra
// logs shows of it on a terminal.
var hostileOutput = []struct{ name, seq string }{
	{"OSC 52 clipboard write", clipboardWrite},
	{"OSC 8 hyperlink", "\x1b]8;;https://evil.example/\x1b\\"},
	{"DCS tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\"},
	{"APC kitty graphics", "\x1b_Gf=100,a=T;iVBORw0KGgo=\x1b\\"},
	{"OSC 1337 iTerm2 file", "\x1b]1337;File=inline=1:aGk=\x07"},
	{"DECRQSS", "\x1bP$qm\x1b\\"},
	{"CSI 21t title report", "\x1b[21t"},
	{"cursor movement", "\x1b[3A\x1b[1;1H"},
}

// printfHostile is a shell printf of hostileOutput between two markers.
func printfHostile(marker string) string {
	var b strings.Builder
	b.WriteString(`printf '` + marker + `-start \033[31mred\033[0m `)
	for _, h := range hostileOutput {
		for _, c := range []byte(h.seq) {
			if c < 0x20 || c == '\\' || c == '\'' || c == '%' {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteString(` ` + marker + `-end\n'`)
	return b.String()
}

// assertColoursOnly checks what rostra logs wrote to a terminal.
func assertColoursOnly(t *testing.T, out, marker string) {
	t.Helper()
	assert.Contains(t, out, marker+"-start \x1b[31mred\x1b[0m ", "the colours are kept")
	assert.Contains(t, out, marker+"-end")
	for _, h := range hostileOutput {
		assert.NotContains(t, out, h.seq, "%s reached the terminal", h.name)
	}
	for _, intro := range []string{"\x1b]", "\x1bP", "\x1b_", "\x1b[21t", "\x1b[3A", "\x07"} {
		assert.NotContains(t, out, intro, "%q reached the terminal: %q", intro, out)
	}
}

func TestLogsOnATerminalKeepColoursOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	runFile := `version: 1
name: logs
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: printer
    provider: shell
    prompt: ` + yamlQuote(printfHostile("one")+"; read line; "+printfHostile("two")+"; exit 0") + `
`
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(runFile), 0o644))
	detachedRun(t, ws)
	waitForFile(t, filepath.Join(ws, ".rostra", "logs", "attempts", "printer", "1", "output.log"))

	// logs -f on a terminal, while the attempt runs: the first part, then
	// the second once the worker reads a line, each through the filter.
	follow := startOnPty(t, ws, "logs", "-f", "printer")
	follow.waitFor(t, "one-end")
	send := runBin(t, ws, "send", "--enter", "printer", "go")
	require.Equal(t, 0, send.code, send.stderr)
	out, code := follow.wait(t)
	require.Equal(t, 0, code, out)
	assertColoursOnly(t, out, "one")
	assertColoursOnly(t, out, "two")

	// The ended attempt, on a terminal (from its server, or from the
	// files once the run has ended).
	out, code = startOnPty(t, ws, "logs", "printer").wait(t)
	require.Equal(t, 0, code, out)
	assertColoursOnly(t, out, "one")
	assertColoursOnly(t, out, "two")

	// --raw on a terminal, and a pipe, give the bytes.
	out, code = startOnPty(t, ws, "logs", "--raw", "printer").wait(t)
	require.Equal(t, 0, code, out)
	piped := runBin(t, ws, "logs", "printer")
	require.Equal(t, 0, piped.code, piped.stderr)
	for _, h := range hostileOutput {
		assert.Contains(t, out, h.seq, "--raw gives %s", h.name)
		assert.Contains(t, piped.stdout, h.seq, "a pipe gets %s", h.name)
	}
}

// yamlQuote is s as a YAML single-quoted scalar.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ptyRun is rostra started with a pty for its stdin, stdout and stderr;
// what it writes there is collected as it comes.
type ptyRun struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	more chan struct{} // a token after each read
	done chan struct{} // closed once the pty is drained
}

func startOnPty(t *testing.T, dir string, args ...string) *ptyRun {
	t.Helper()
	cmd := exec.Command(rostraBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 200, Rows: 50})
	require.NoError(t, err)
	p := &ptyRun{cmd: cmd, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer master.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
			// EIO: every end of the pty's other side is closed.
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.EIO) {
					t.Errorf("read the pty: %v", err)
				}
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

func (p *ptyRun) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until the output holds want.
func (p *ptyRun) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(p.output(), want) {
		select {
		case <-p.more:
		case <-p.done:
			require.Contains(t, p.output(), want, "the command ended")
		case <-deadline:
			require.FailNow(t, "no "+want+" on the pty after 30 s", "%q", p.output())
		}
	}
}

// wait waits for the command's end and the pty's last bytes.
func (p *ptyRun) wait(t *testing.T) (string, int) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			require.NoError(t, err)
		}
	case <-time.After(60 * time.Second):
		require.FailNow(t, "rostra did not end within 60 s", "%q", p.output())
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the pty was not drained 10 s after rostra ended", "%q", p.output())
	}
	return p.output(), p.cmd.ProcessState.ExitCode()
}

// waitForFile waits, on file-system events, until path exists: it watches
// the deepest folder of path that exists, deeper as folders are made.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer w.Close()
	deepest := func() string {
		dir := filepath.Dir(path)
		for {
			if _, err := os.Stat(dir); err == nil || dir == filepath.Dir(dir) {
				return dir
			}
			dir = filepath.Dir(dir)
		}
	}
	deadline := time.After(30 * time.Second)
	for {
		dir := deepest()
		require.NoError(t, w.Add(dir))
		if _, err := os.Stat(path); err == nil {
			return
		}
		if deepest() != dir {
			continue // made before the watch: watch deeper
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			require.NoError(t, err)
		case <-deadline:
			require.FailNow(t, "no "+path+" after 30 s")
		}
	}
}
