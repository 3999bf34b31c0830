// client.go is the client's side of the socket: Attach, the thin relay
// `rostra attach` runs (its terminal in raw mode, keys to Input frames,
// SIGWINCH to Resize frames, Output frames to the terminal), and Control,
// a connection for control requests.
//
// The UI is drawn in the server; the relay interprets nothing. When the
// server ends a session it has already given the terminal back (the
// program's own shutdown sequences come through as output); when the
// connection drops without a Bye, the relay does it: alternate screen,
// mouse, paste and keyboard modes off, cursor on, cooked mode.
package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/cancelreader"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/tui"
)

// ClientEnv lists the environment a client passes to its UI in the server:
// what says how its terminal draws and which language it reads.
var ClientEnv = []string{
	"TERM", "COLORTERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "NO_COLOR",
	"CLICOLOR", "CLICOLOR_FORCE", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"TMUX", "STY", "WT_SESSION", "KITTY_WINDOW_ID", "WEZTERM_PANE", "VTE_VERSION",
	"SSH_TTY", "SSH_CONNECTION", "ROSTRA_THEME",
	// Which terminal is behind an outer tmux, and its passthrough, for
	// notifications (tui/notify.go).
	"LC_TERMINAL", "ITERM_SESSION_ID", "GHOSTTY_RESOURCES_DIR", "KONSOLE_VERSION", tui.TmuxPassthroughEnv,
}

// PickEnv is the part of environ a client passes on (ClientEnv).
func PickEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		for _, k := range ClientEnv {
			if len(kv) > len(k) && kv[len(k)] == '=' && kv[:len(k)] == k {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

// restoreTerminal gives a terminal back after a connection dropped in the
// middle of a session: the modes a bubbletea program sets, undone.
const restoreTerminal = ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent +
	ansi.ResetModeMouseExtSgr + ansi.ResetModeBracketedPaste + ansi.ResetModeFocusEvent +
	ansi.ResetModifyOtherKeys + "\x1b[<u" + ansi.ResetStyle + ansi.ShowCursor +
	ansi.ResetModeAltScreenSaveCursor

// Attach relays the terminal in/out to the run's server until the session
// ends. It returns the server's Bye, or an error when the connection could
// not be made or dropped (the terminal is restored either way).
func Attach(stateDir string, in, out *os.File, environ []string) (Bye, error) {
	c, err := dialStream(stateDir)
	if err != nil {
		return Bye{}, err
	}
	defer c.Close()
	cols, rows := termSize(out)
	// NO_COLOR drops the colours rostra adds (the server's UI reads it
	// from Env), not the panes' own: the profile is the terminal's.
	profile := colorprofile.Detect(out, tui.WithoutNoColor(environ))
	r := &relay{c: c, in: in, out: out, fr: NewFrameReader(bufio.NewReaderSize(c, 64<<10))}
	if bye, err := hello(c, r.fr, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: PickEnv(environ), Cols: cols, Rows: rows, Profile: &profile}); err != nil || bye != nil {
		if bye != nil {
			return *bye, nil
		}
		return Bye{}, err
	}

	if term.IsTerminal(in.Fd()) {
		state, err := term.MakeRaw(in.Fd())
		if err != nil {
			return Bye{}, fmt.Errorf("put the terminal in raw mode: %w", err)
		}
		r.cooked = state
		defer func() { _ = term.Restore(in.Fd(), state) }()
	}

	// Keys, as the terminal sends them.
	cr, err := cancelreader.NewReader(in)
	if err != nil {
		return Bye{}, fmt.Errorf("read the terminal: %w", err)
	}
	defer cr.Close()
	keysDone := make(chan struct{})
	go r.relayKeys(cr, keysDone)
	defer func() {
		cr.Cancel()
		<-keysDone
	}()

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGCONT)
	defer signal.Stop(sigs)
	sigDone := make(chan struct{})
	defer close(sigDone)
	go r.relaySignals(sigs, sigDone)

	return r.relayFrames()
}

// relay is an attached client's terminal and its connection to the
// server, while Attach runs: three goroutines share it (keys, signals,
// and the frames from the server, on Attach's own).
type relay struct {
	c       Stream
	in, out *os.File
	fr      *FrameReader
	cooked  *term.State // the terminal as it was, while it is raw; nil off a terminal

	wmu sync.Mutex // one frame written at a time

	sigMu  sync.Mutex
	gotSig os.Signal // the signal that ended the client
	// selfStopped: the frame loop stopped the client for a suspend; the
	// SIGCONT that ends it is the loop's to answer.
	selfStopped atomic.Bool
}

func (r *relay) send(t FrameType, p []byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return WriteFrame(r.c, t, p)
}

// relayKeys sends what the terminal reads to the server, until the
// reader is cancelled or the terminal is gone.
func (r *relay) relayKeys(cr cancelreader.CancelReader, done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 32<<10)
	for {
		n, err := cr.Read(buf)
		if n > 0 && r.send(FrameInput, buf[:n]) != nil {
			return
		}
		if err != nil {
			if !errors.Is(err, cancelreader.ErrCanceled) {
				// The terminal is gone (a closed window, a dropped
				// ssh): leave, and the run goes on.
				_ = r.c.CloseWrite()
			}
			return
		}
	}
}

// relaySignals answers window changes, the signals that end a client, and
// SIGTSTP (kill -TSTP), which asks the server to give the terminal back
// first. SIGCONT after a stop rostra did not make (kill -STOP): the shell
// took the terminal meanwhile (its "Stopped" line and prompt are on the
// screen, its modes on the tty), so take it again and ask for a whole
// frame, as tmux's client does on SIGCONT.
func (r *relay) relaySignals(sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case sig := <-sigs:
			switch sig {
			case syscall.SIGWINCH:
				if w, h, err := term.GetSize(r.out.Fd()); err == nil {
					_ = r.send(FrameResize, AppendResize(nil, w, h))
				}
			case syscall.SIGTSTP:
				_ = r.send(FrameSuspend, nil)
			case syscall.SIGCONT:
				if r.selfStopped.Load() {
					continue // the suspend's own stop: the frame loop resumes
				}
				// In the background (kill -CONT, not fg) the terminal is
				// the shell's: a tcsetattr would stop us again (SIGTTOU).
				// The frame is drawn whole either way; fg makes it raw.
				if r.cooked != nil && foreground(r.in) {
					_, _ = term.MakeRaw(r.in.Fd())
				}
				cols, rows := termSize(r.out)
				_ = r.send(FrameResume, AppendResize(nil, cols, rows))
			default:
				// The client goes; the session is over for the server
				// as when the terminal closes. The run goes on.
				r.sigMu.Lock()
				r.gotSig = sig
				r.sigMu.Unlock()
				_ = r.c.Close()
				return
			}
		}
	}
}

// relayFrames writes the server's output to the terminal until the
// server says goodbye, the connection drops or the terminal is gone.
func (r *relay) relayFrames() (Bye, error) {
	for {
		f, err := r.fr.ReadFrame()
		if err != nil {
			r.sigMu.Lock()
			sig := r.gotSig
			r.sigMu.Unlock()
			_, _ = io.WriteString(r.out, restoreTerminal)
			if sig != nil {
				bye := Bye{Reason: ByeDetached, Message: "rostra attach got " + SignalName(sig)}
				bye.Signal, _ = sig.(syscall.Signal)
				return bye, nil
			}
			return Bye{}, fmt.Errorf("lost the connection to the server: %w", connErr(err))
		}
		switch f.Type {
		case FrameOutput:
			if _, err := r.out.Write(f.Payload); err != nil {
				// The terminal is gone: leave; the server sees us go.
				return Bye{Reason: ByeDetached, Message: "the terminal is gone: " + err.Error()}, nil
			}
		case FrameSuspend:
			if err := r.suspend(); err != nil {
				return Bye{}, fmt.Errorf("lost the connection to the server: %w", connErr(err))
			}
		case FrameBye:
			var bye Bye
			if err := DecodeJSON(f.Payload, &bye); err != nil {
				_, _ = io.WriteString(r.out, restoreTerminal)
				return Bye{}, err
			}
			return bye, nil
		default:
			_, _ = io.WriteString(r.out, restoreTerminal)
			return Bye{}, fmt.Errorf("%w: the server sent a %s frame to an attached client", ErrFrame, f.Type)
		}
	}
}

// suspend answers the server's FrameSuspend: the output before it gave
// the terminal back (the server's UI stopped drawing), so the client stops
// as Ctrl-Z stops a program, and takes the terminal again when the shell's
// fg continues it.
func (r *relay) suspend() error {
	_, _ = io.WriteString(r.out, restoreTerminal)
	if r.cooked != nil {
		_ = term.Restore(r.in.Fd(), r.cooked)
	}
	r.selfStopped.Store(true)
	defer r.selfStopped.Store(false)
	StopSelf()
	if r.cooked != nil {
		_, _ = term.MakeRaw(r.in.Fd())
	}
	cols, rows := termSize(r.out)
	return r.send(FrameResume, AppendResize(nil, cols, rows))
}

// foreground reports whether this process's group is the terminal's
// foreground group.
func foreground(tty *os.File) bool {
	pgrp, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// termSize is the terminal's size, 80×24 when it has none to tell.
func termSize(out *os.File) (cols, rows int) {
	cols, rows, err := term.GetSize(out.Fd())
	if err != nil || cols <= 0 || rows <= 0 {
		return 80, 24
	}
	return cols, rows
}

// StopSelf stops rostra's process group as Ctrl-Z stops a shell's job, and
// returns once it is continued (the shell's fg sends SIGCONT; the wait is
// cut short when the kernel discards the stop, for an orphaned group). It
// sends SIGSTOP, not SIGTSTP: once a Go program has caught SIGTSTP, its
// runtime keeps a handler that ignores it, and rostra catches SIGTSTP to
// give the terminal back first. The shell says "Stopped (signal)".
func StopSelf() {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	_ = syscall.Kill(0, syscall.SIGSTOP)
	select {
	case <-cont:
	case <-time.After(time.Second):
	}
}

func connErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return errors.New("the server closed it (did it crash? see server.log in the state dir)")
	}
	return err
}

// SignalName names a signal as people write it (SIGTERM), not as Go
// prints it ("terminated"): in a detached client's message and in the
// reason a server's run was stopped.
func SignalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if n := unix.SignalName(s); n != "" {
			return n
		}
	}
	return sig.String()
}

// hello sends h and reads the server's answer: nil, nil for a Welcome; the
// Bye when the server refused. A server that refuses a peer at once (its
// uid) may have closed before the hello was written: its Bye is still
// there to read.
func hello(c net.Conn, fr *FrameReader, h Hello) (*Bye, error) {
	werr := WriteJSON(c, FrameHello, h)
	bye, err := readWelcome(fr)
	switch {
	case bye != nil:
		return bye, nil
	case werr != nil:
		return nil, fmt.Errorf("say hello to the server: %w", werr)
	}
	return nil, err
}

// readWelcome reads the server's answer to a Hello: nil, nil for a
// Welcome; the Bye when the server refused.
func readWelcome(fr *FrameReader) (*Bye, error) {
	f, err := fr.ReadFrame()
	if err != nil {
		return nil, fmt.Errorf("read the server's welcome: %w", connErr(err))
	}
	switch f.Type {
	case FrameWelcome:
		var w Welcome
		return nil, DecodeJSON(f.Payload, &w)
	case FrameBye:
		var bye Bye
		if err := DecodeJSON(f.Payload, &bye); err != nil {
			return nil, err
		}
		return &bye, nil
	}
	return nil, fmt.Errorf("%w: the server answered hello with a %s frame", ErrFrame, f.Type)
}

// Stream is a connection to a run's server: its Unix socket, or a byte
// stream to it through a transport (a command such as ssh running
// `rostra __bridge` on another machine; docs/remote.md).
type Stream interface {
	net.Conn
	CloseWrite() error
}

// DialAddress, when set, reaches a run named by an address
// (scheme://…, as IsAddress tells) instead of a state dir: cmd/rostra
// sets it to dial through ssh. Attach and Control use it.
var DialAddress func(addr string) (Stream, error)

// IsAddress reports whether ref names a run by an address (ssh://host/path)
// rather than a path on this machine.
func IsAddress(ref string) bool {
	i := strings.Index(ref, "://")
	return i > 0 && !strings.ContainsRune(ref[:i], '/')
}

func dialStream(stateDir string) (Stream, error) {
	if IsAddress(stateDir) && DialAddress != nil {
		return DialAddress(stateDir)
	}
	c, err := Dial(stateDir)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ErrRefused is returned by Control when the server refuses the client.
var ErrRefused = errors.New("refused by the server")

// Conn is a control connection.
type Conn struct {
	c  Stream
	fr *FrameReader
}

// Control opens a control connection to the run's server.
func Control(stateDir string) (*Conn, error) {
	c, err := dialStream(stateDir)
	if err != nil {
		return nil, err
	}
	return ControlOver(c)
}

// ControlOver opens a control connection on a stream already made (a
// transport the caller started); it closes c when the server refuses.
func ControlOver(c Stream) (*Conn, error) {
	fr := NewFrameReader(bufio.NewReader(c))
	bye, err := hello(c, fr, Hello{Rostra: ProtocolVersion, Mode: ModeControl})
	if err != nil {
		c.Close()
		return nil, err
	}
	if bye != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %s", ErrRefused, bye.Message)
	}
	return &Conn{c: c, fr: fr}, nil
}

// Do sends one request and reads its reply.
func (cc *Conn) Do(req Request) (Reply, error) {
	if err := WriteJSON(cc.c, FrameRequest, req); err != nil {
		return Reply{}, fmt.Errorf("send %s to the server: %w", req.Op, err)
	}
	f, err := cc.fr.ReadFrame()
	if err != nil {
		return Reply{}, fmt.Errorf("read the server's reply to %s: %w", req.Op, connErr(err))
	}
	var rep Reply
	switch f.Type {
	case FrameReply:
		return rep, DecodeJSON(f.Payload, &rep)
	case FrameBye:
		var bye Bye
		_ = DecodeJSON(f.Payload, &bye)
		return Reply{}, fmt.Errorf("%w: %s", ErrRefused, bye.Message)
	}
	return Reply{}, fmt.Errorf("%w: the server answered %s with a %s frame", ErrFrame, req.Op, f.Type)
}

// Close ends the connection.
func (cc *Conn) Close() error { return cc.c.Close() }

// WaitServerExit waits, at most d, for the server to close the connection,
// as it does by exiting once it has answered a stop; it reports whether it
// did.
func (cc *Conn) WaitServerExit(d time.Duration) bool {
	_ = cc.c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, cc.c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}
