//go:build linux

// pty.go holds the pane surface's process: a child that leads its own
// session on a pseudo-terminal, its output drained from the pty master into
// output.log and the pane's own emulator (its Screen, a vt.Terminal the UI
// reads), keys and prompt typing written back into it.
//
// Data model: a PTYProcess is the shared attempt process (process.go) whose
// output stream is the pty master, plus the writers into that master: Write
// (keys), the reply queue (the emulator's answers to queries) and the prompt
// typer. The master is a stream (stream_linux.go): non-blocking, kept out
// of Go's poller, and closing it ends a read or write waiting on it.
package panes

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/panes/vt"
)

// PTYOpener opens a pseudo-terminal of the given size; tests inject one
// that fails. The master may be in any blocking mode: StartPTY takes it over.
type PTYOpener func(cols, rows int) (master *os.File, tty *os.File, err error)

// OpenPTY is the default PTYOpener (creack/pty).
func OpenPTY(cols, rows int) (*os.File, *os.File, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		_ = master.Close()
		_ = tty.Close()
		return nil, nil, fmt.Errorf("set size: %w", err)
	}
	return master, tty, nil
}

// PTYOptions configure StartPTY.
type PTYOptions struct {
	Open PTYOpener // nil = OpenPTY
	// Activity is the run's (vt.Activity): the pane's emulator wakes the
	// UIs listening to it and answers colour queries from its Colors. nil:
	// an emulator nobody is woken by (a headless run).
	Activity *vt.Activity
	// NewScreen, when not nil, makes the Screen the output is copied to in
	// place of the pane's own emulator (tests record what arrives through
	// it). reply writes into the pty (the emulator's answers to queries); it
	// never blocks: replies queue, and are dropped if the child reads none.
	NewScreen func(cols, rows int, reply func([]byte)) Screen
}

// DefaultTypeQuiet is how long a pty's output must be quiet before a
// TypePrompt is typed, when Launch.TypeQuiet is zero.
const DefaultTypeQuiet = 300 * time.Millisecond

// DefaultTypeReadyLimit is how long a TypePrompt waits for the child to be
// ready for it (see typePrompt) before it is typed anyway, when
// Launch.TypeReadyLimit is zero.
const DefaultTypeReadyLimit = 30 * time.Second

// PTYProcess is an attempt running on a pty.
type PTYProcess struct {
	*process
	master    *stream
	replies   replyWriter
	delivered chan string
	ready     *readySignal // the agent's own readiness, when the typing waits for it (typeline.go)
}

// StartPTY starts l.Argv on a new pty. The error is why the pane surface is
// unavailable, as a human should read it: "open pty: <OS error>" or
// "start <argv0>: <error>".
func StartPTY(l Launch, opts PTYOptions) (*PTYProcess, error) {
	cols, rows := l.Cols, l.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = defaultCols, defaultRows
	}
	open := opts.Open
	if open == nil {
		open = OpenPTY
	}
	master, tty, err := open(cols, rows)
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	ptm, err := newStream(master)
	if err != nil {
		_ = tty.Close()
		return nil, fmt.Errorf("open pty: %w", err)
	}
	fail := func(err error) (*PTYProcess, error) {
		_ = ptm.Close()
		_ = tty.Close()
		return nil, err
	}
	token, err := newAttemptToken()
	if err != nil {
		return fail(err)
	}
	env := terminalEnv(childEnv(l.Env, token), l.EnvSet)
	sb, env, err := prepareSandbox(l.Sandbox, env, tty.Name())
	if err != nil {
		return fail(fmt.Errorf("start %s: %w", l.Argv[0], &SandboxError{err}))
	}
	if sb != nil {
		inner := fail
		fail = func(err error) (*PTYProcess, error) {
			sb.release()
			return inner(err)
		}
	}
	cmd, err := newCommand(l, env)
	if err != nil {
		return fail(err)
	}
	log, ownLog, err := openOutputLog(l)
	if err != nil {
		return fail(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid:  true,
		Setctty: true,
		Ctty:    0, // the child's fd 0, the tty
		// The master closing already hangs the session up when rostra
		// dies; SIGKILL also covers a leader that ignores SIGHUP.
		Pdeathsig: syscall.SIGKILL,
	}
	ref := &attemptRef{grace: graceOf(l)}
	cmd, h, err := startContained(cmd, ref, sb)
	if err != nil {
		if ownLog {
			_ = log.Close()
		}
		return fail(fmt.Errorf("start %s: %w", l.Argv[0], err))
	}
	_ = tty.Close() // the child has it; our copy would keep EIO from coming

	p := &PTYProcess{
		process:   newProcess(cmd, ptm, log, token, graceOf(l), true, h, ref),
		master:    ptm,
		delivered: make(chan string, 1),
	}
	if sb != nil {
		p.release = append(p.release, sb.release)
	}
	p.release = append(p.release, p.replies.close)
	p.screen = newScreen(&l, cols, rows, p.queueReply, opts.Activity, opts.NewScreen)
	if l.TypePrompt != nil {
		quiet := l.TypeQuiet
		if quiet <= 0 {
			quiet = DefaultTypeQuiet
		}
		limit := l.TypeReadyLimit
		if limit <= 0 {
			limit = DefaultTypeReadyLimit
		}
		if l.TypeAwaitAgent {
			p.ready = newReadySignal()
		}
		p.helpers.Add(1)
		go p.typePrompt(append([]byte(nil), l.TypePrompt...), l.PromptFile, quiet, limit)
	} else {
		close(p.delivered)
	}
	p.run()
	return p, nil
}

// Write types p into the child (keys). It blocks while the child's input
// queue is full and fails with os.ErrClosed once the attempt is over.
func (p *PTYProcess) Write(b []byte) (int, error) {
	return p.master.Write(b)
}

// Resize resizes the Screen, then the pty (the kernel sends SIGWINCH to the
// child's foreground group). It holds the screen lock, so the emulator is
// resized between two chunks of output, never inside one.
func (p *PTYProcess) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 || cols > 0xffff || rows > 0xffff {
		return fmt.Errorf("resize pty: invalid size %dx%d", cols, rows)
	}
	p.screenMu.Lock()
	defer p.screenMu.Unlock()
	p.screen.Resize(cols, rows)
	var ioErr error
	if err := p.master.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	}); err != nil {
		return fmt.Errorf("resize pty: %w", err)
	}
	if ioErr != nil {
		return fmt.Errorf("resize pty: %w", ioErr)
	}
	return nil
}

// Screen is the pane's emulator (a *vt.Terminal the UI reads), or the sink
// made by PTYOptions.NewScreen.
func (p *PTYProcess) Screen() Screen { return p.screen }

// PromptDelivered receives "paste" (bracketed paste) or "keys" once the
// TypePrompt has been typed, and is closed after that, or without a value
// when there was no prompt or the attempt ended first.
func (p *PTYProcess) PromptDelivered() <-chan string { return p.delivered }

// queueReply is the Screen's reply function: it never blocks the reader.
func (p *PTYProcess) queueReply(b []byte) { p.replies.push(b, &p.helpers, p.master.Write) }

// maxCanonLine is the longest line a child reading in canonical mode can
// be typed: Linux keeps 4096 bytes of a line (N_TTY_BUF_SIZE), newline
// included, and drops what comes after.
const maxCanonLine = 4095

// typeSettle is how many times the quiet spell a raw child that has not
// turned bracketed paste on must be quiet before a prompt is typed.
const typeSettle = 6

// typePrompt types the prompt once the child is ready for it, then Enter
// once the child has quietened after the text; exactly once. Ready means
// its agent said it waits for input, when that is awaited
// (Launch.TypeAwaitAgent), and its output has been quiet for quiet and either
//   - its tty is raw and it has drawn something: every agent CLI is a TUI
//     that goes raw, then draws its prompt, and may take many seconds to
//     start (gemini and qwen went raw after 13 and 18 s on a loaded
//     machine, claude drew 8 s after it went raw). Typed before that, the
//     prompt meets the line discipline: it is echoed, its Enter becomes a
//     newline, and the TUI later reads it as text without an Enter (claude,
//     qwen) or flushes it (gemini);
//   - or it is blocked reading the tty: a program that reads lines and
//     prints nothing first (cat, a read loop);
//   - or limit has passed since it started (a child that reads some other
//     way, or never looks ready).
//
// How the prompt is written depends on how the child reads:
//   - "paste": it enabled bracketed paste (the Screen says so);
//   - "keys": the prompt as typed keys; in canonical mode only when no
//     line of it is longer than the line buffer;
//   - "file": the child reads in canonical mode and a line of the prompt
//     would be cut at 4096 bytes: the prompt file's path is typed instead.
//
// Writes block while the child does not read (the stream waits, the
// kernel's flow control holds the bytes back), so a long prompt goes in as
// fast as the child takes it and none of it is dropped.
func (p *PTYProcess) typePrompt(prompt []byte, promptFile string, quiet, limit time.Duration) {
	defer p.helpers.Done()
	defer close(p.delivered)
	t := time.NewTimer(quiet)
	defer t.Stop()
	readyC := p.ready.wait()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
		case <-readyC:
			readyC = nil // heard: the loop looks at once, and waits on it no more
		}
		running := time.Since(p.startedAt)
		idle := running - time.Duration(p.lastOut.Load())
		if idle < quiet {
			t.Reset(quiet - idle)
			continue
		}
		if running < limit {
			tty := p.ttyState()
			drawn := !tty.canonical && p.outputBytes.Load() > 0
			// A TUI turns bracketed paste on once its input is live
			// (claude, codex, gemini and qwen all do); keys typed before
			// can be dropped (gemini). One that never does gets them
			// after a longer quiet spell.
			settled := p.screenModes().BracketedPaste || idle >= typeSettle*quiet
			if !(drawn && settled) && !tty.reading || p.ready.pending() {
				// Look again a little later: going raw or blocking in a
				// read makes no event rostra could wait on. An agent
				// whose readiness is awaited wakes the loop when it says
				// so.
				t.Reset(min(quiet, limit-running))
				continue
			}
		}
		how, data := p.promptBytes(prompt, promptFile)
		// Counted before the write: a tty in cooked mode echoes as it
		// takes the bytes, and the reader may count the echo before
		// Write returns.
		written := p.outputBytes.Load()
		if _, err := p.master.Write(data); err != nil {
			return
		}
		// Enter as its own write, once the child has taken the text in (it
		// echoes it) and quietened: a TUI that reads its input only once it
		// has finished starting (gemini, qwen) reads a CR that waits in the
		// tty with the text as part of a paste, and does not submit.
		if !p.waitEcho(written, quiet, 10*quiet) {
			return
		}
		if _, err := p.master.Write([]byte("\r")); err != nil {
			return
		}
		p.delivered <- how
		return
	}
}

// waitEcho waits until the child has written something since its output
// counter stood at since, then until its output has been quiet for quiet;
// limit bounds each of the two waits (a child that echoes nothing, one that
// never stops drawing). False when the attempt ended first.
func (p *PTYProcess) waitEcho(since int64, quiet, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for p.outputBytes.Load() == since && time.Now().Before(deadline) {
		select {
		case <-p.quit:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	deadline = time.Now().Add(limit)
	for {
		idle := time.Since(p.startedAt) - time.Duration(p.lastOut.Load())
		wait := min(quiet-idle, time.Until(deadline))
		if wait <= 0 {
			return true
		}
		select {
		case <-p.quit:
			return false
		case <-time.After(wait):
		}
	}
}

// promptBytes is what typePrompt writes, and how it names that.
func (p *PTYProcess) promptBytes(prompt []byte, promptFile string) (string, []byte) {
	if promptFile != "" && longestLine(prompt) > maxCanonLine && p.canonical() {
		return "file", []byte(promptFile)
	}
	if p.screenModes().BracketedPaste {
		return "paste", vt.EncodePaste(string(prompt), vt.Modes{BracketedPaste: true})
	}
	return "keys", prompt
}

// screenModes are the child's terminal modes as its Screen has parsed
// them; zero without a Screen that knows them.
func (p *PTYProcess) screenModes() vt.Modes {
	if s, ok := p.screen.(interface{ Modes() vt.Modes }); ok {
		return s.Modes()
	}
	return vt.Modes{}
}

// canonical says whether the child's side of the pty reads in canonical
// (line) mode; yes when it cannot tell, the case where typing could lose
// bytes.
func (p *PTYProcess) canonical() bool { return p.ttyState().canonical }

// longestLine is the length of the longest run of b without CR or LF.
func longestLine(b []byte) int {
	longest, n := 0, 0
	for _, c := range b {
		if c == '\n' || c == '\r' {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}
