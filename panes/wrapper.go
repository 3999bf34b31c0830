//go:build linux

// wrapper.go holds the wrapper surface's process: a plain child in its own
// process group whose stdout and stderr are one pipe, so what it writes to
// either arrives in the order it wrote it.
//
// Data model: a WrapperProcess is the shared attempt process (process.go)
// whose output stream is the read end of that pipe, plus an optional stdin
// feeder (Launch.Stdin, then EOF). The log keeps the raw bytes; the Screen
// (its own emulator, as a pane's) gets lone "\n" as "\r\n", the
// translation a tty would have made.
package panes

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/rostra-dev/rostra/panes/vt"
)

// WrapperOptions configure StartWrapper.
type WrapperOptions struct {
	// Activity is the run's, as PTYOptions.Activity.
	Activity *vt.Activity
	// NewScreen, when not nil, makes the Screen the output is copied to in
	// place of the wrapper's own emulator (tests record through it). Its
	// replies are dropped: a wrapper child has no terminal to read them.
	NewScreen func(cols, rows int, reply func([]byte)) Screen
}

// WrapperProcess is an attempt running as a plain child with pipes.
type WrapperProcess struct {
	*process
}

// StartWrapper starts l.Argv with stdout and stderr on one pipe. The error
// is why the wrapper surface is unavailable: "start <argv0>: <error>".
func StartWrapper(l Launch, opts WrapperOptions) (*WrapperProcess, error) {
	token, err := newAttemptToken()
	if err != nil {
		return nil, err
	}
	startErr := func(err error) error { return fmt.Errorf("start %s: %w", l.Argv[0], err) }
	sb, env, err := prepareSandbox(l.Sandbox, childEnv(l.Env, token), "")
	if err != nil {
		return nil, startErr(&SandboxError{err})
	}
	cmd, err := newCommand(l, env)
	if err != nil {
		if sb != nil {
			sb.release()
		}
		return nil, err
	}

	var toClose []io.Closer
	fail := func(err error) (*WrapperProcess, error) {
		for _, f := range toClose {
			_ = f.Close()
		}
		if sb != nil {
			sb.release()
		}
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, startErr(fmt.Errorf("output pipe: %w", err))
	}
	out, err := newStream(r)
	if err != nil {
		_ = w.Close()
		return fail(startErr(fmt.Errorf("output pipe: %w", err)))
	}
	toClose = append(toClose, out, w)
	// One write end for both: the kernel keeps the order of the writes.
	cmd.Stdout, cmd.Stderr = w, w

	var stdinW *os.File
	if l.Stdin != nil {
		sr, sw, err := os.Pipe()
		if err != nil {
			return fail(startErr(fmt.Errorf("stdin pipe: %w", err)))
		}
		toClose = append(toClose, sr, sw)
		cmd.Stdin, stdinW = sr, sw
	} // nil: exec gives the child /dev/null

	log, ownLog, err := openOutputLog(l)
	if err != nil {
		return fail(err)
	}
	if ownLog {
		toClose = append(toClose, log)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true,
		// Dies with rostra, even by SIGKILL (see startLeader for why this
		// needs the spawn thread). Its own children are not covered.
		Pdeathsig: syscall.SIGKILL,
	}
	ref := &attemptRef{grace: graceOf(l)}
	cmd, h, err := startContained(cmd, ref, sb)
	if err != nil {
		return fail(startErr(err))
	}
	// The child has its ends; ours would keep EOF from coming.
	_ = w.Close()
	if sr, ok := cmd.Stdin.(*os.File); ok {
		_ = sr.Close()
	}

	p := &WrapperProcess{process: newProcess(cmd, out, log, token, graceOf(l), false, h, ref)}
	if sb != nil {
		p.release = append(p.release, sb.release)
	}
	cols, rows := l.Cols, l.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = defaultCols, defaultRows
	}
	p.screen = newScreen(&l, cols, rows, nil, opts.Activity, opts.NewScreen)
	var lastCR bool
	p.toScreen = func(dst, b []byte) []byte { return crlf(dst, b, &lastCR) }
	if stdinW != nil {
		data := append([]byte(nil), l.Stdin...)
		// Closing stdinW once the attempt is over ends a write the child
		// never read (or one stuck behind a grandchild holding stdin).
		p.release = append(p.release, func() { _ = stdinW.Close() })
		p.helpers.Add(1)
		go func() {
			defer p.helpers.Done()
			_, _ = stdinW.Write(data) // EPIPE when the child exits unread
			_ = stdinW.Close()
		}()
	}
	p.run()
	return p, nil
}

// Resize resizes the Screen (a wrapper has no terminal size of its own).
func (p *WrapperProcess) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 {
		return fmt.Errorf("resize: invalid size %dx%d", cols, rows)
	}
	p.screenMu.Lock()
	defer p.screenMu.Unlock()
	p.screen.Resize(cols, rows)
	return nil
}

// Screen is the wrapper's emulator (a *vt.Terminal the UI reads), or the
// sink made by WrapperOptions.NewScreen.
func (p *WrapperProcess) Screen() Screen { return p.screen }

// crlf appends b to out with each "\n" not preceded by "\r" turned into
// "\r\n"; lastCR carries the last byte's state across chunks.
func crlf(out, b []byte, lastCR *bool) []byte {
	prevCR := *lastCR
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b...)
			prevCR = b[len(b)-1] == '\r'
			break
		}
		out = append(out, b[:i]...)
		if i > 0 {
			prevCR = b[i-1] == '\r'
		}
		if !prevCR {
			out = append(out, '\r')
		}
		out = append(out, '\n')
		prevCR = false
		b = b[i+1:]
	}
	*lastCR = prevCR
	return out
}
