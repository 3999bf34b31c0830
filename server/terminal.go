// terminal.go attaches a terminal that is not this process's own: an SSH
// session's channel and pty (docs/remote.md §The SSH server). It is the
// relay Attach runs, for a terminal given as streams and a channel of
// window sizes: keys become Input frames, a new size a Resize frame, the
// server's Output frames go to the terminal. Raw mode, signals and job
// control are the other side's (an SSH client stops itself, not this
// process), so a suspend from the UI is answered at once with a Resume.
package server

import (
	"bufio"
	"fmt"
	"io"
	"sync"

	"github.com/rostra-dev/rostra/statedir"
)

// Size is a terminal's size in cells.
type Size struct{ Cols, Rows int }

// Terminal is a client's terminal reached through streams.
type Terminal struct {
	In  io.Reader // what the terminal sends: keys, pastes, replies
	Out io.Writer // where the UI draws
	Env []string  // TERM, LANG, NO_COLOR…, as the client gives them (PickEnv)
	// Size is the terminal's size; Resizes its changes, closed (or nil)
	// when no more come.
	Size    Size
	Resizes <-chan Size
	// Client says who the terminal is, for events.jsonl; nil: not recorded.
	Client *statedir.UIClient
}

// AttachTerminal relays t to the run's server until the session ends:
// the UI detaches it, the run ends, or t.In ends (the client went away).
// It returns the server's Bye, or an error when the connection could not
// be made or dropped.
func AttachTerminal(stateDir string, t Terminal) (Bye, error) {
	c, err := dialStream(stateDir)
	if err != nil {
		return Bye{}, err
	}
	defer c.Close()
	fr := NewFrameReader(bufio.NewReaderSize(c, 64<<10))
	h := Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: PickEnv(t.Env), Cols: t.Size.Cols, Rows: t.Size.Rows, Client: t.Client}
	if bye, err := hello(c, fr, h); err != nil || bye != nil {
		if bye != nil {
			return *bye, nil
		}
		return Bye{}, err
	}
	r := &streamRelay{c: c, size: t.Size}
	go r.keys(t.In)
	done := make(chan struct{})
	defer close(done)
	go r.resizes(t.Resizes, done)
	return r.frames(fr, t.Out)
}

// streamRelay is one AttachTerminal's connection: the keys, the sizes and
// the frames from the server share it.
type streamRelay struct {
	c    Stream
	wmu  sync.Mutex // one frame written at a time
	size Size       // the latest size, under wmu
}

func (r *streamRelay) send(t FrameType, p []byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return WriteFrame(r.c, t, p)
}

// keys sends what the terminal sends until it ends; then the session is
// over for the server as when a terminal closes (the run goes on).
func (r *streamRelay) keys(in io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 && r.send(FrameInput, buf[:n]) != nil {
			return
		}
		if err != nil {
			_ = r.c.CloseWrite()
			return
		}
	}
}

func (r *streamRelay) resizes(sizes <-chan Size, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case s, ok := <-sizes:
			if !ok {
				return
			}
			if s.Cols <= 0 || s.Rows <= 0 {
				continue // a window change without cells: ignored (RFC 4254 §6.7)
			}
			r.wmu.Lock()
			r.size = s
			err := WriteFrame(r.c, FrameResize, AppendResize(nil, s.Cols, s.Rows))
			r.wmu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// frames writes the server's output to the terminal until its Bye.
func (r *streamRelay) frames(fr *FrameReader, out io.Writer) (Bye, error) {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			_, _ = io.WriteString(out, restoreTerminal)
			return Bye{}, fmt.Errorf("lost the connection to the server: %w", connErr(err))
		}
		switch f.Type {
		case FrameOutput:
			if _, err := out.Write(f.Payload); err != nil {
				return Bye{Reason: ByeDetached, Message: "the terminal is gone: " + err.Error()}, nil
			}
		case FrameSuspend:
			// The UI gave the terminal back for a Ctrl-Z; nothing here can
			// stop the client's side, so take it again at once.
			r.wmu.Lock()
			err := WriteFrame(r.c, FrameResume, AppendResize(nil, r.size.Cols, r.size.Rows))
			r.wmu.Unlock()
			if err != nil {
				return Bye{}, fmt.Errorf("lost the connection to the server: %w", connErr(err))
			}
		case FrameBye:
			var bye Bye
			if err := DecodeJSON(f.Payload, &bye); err != nil {
				_, _ = io.WriteString(out, restoreTerminal)
				return Bye{}, err
			}
			return bye, nil
		default:
			_, _ = io.WriteString(out, restoreTerminal)
			return Bye{}, fmt.Errorf("%w: the server sent a %s frame to an attached client", ErrFrame, f.Type)
		}
	}
}

// recordClient notes an SSH session's start or end in events.jsonl (which
// server.log prints too); a client of this machine's own terminal (c nil)
// is not.
func (s *Server) recordClient(c *statedir.UIClient, started bool, why string) {
	if c != nil {
		s.eng.RecordUIClient(*c, started, why)
	}
}
