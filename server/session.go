// session.go serves one attached client: a bubbletea program of its own,
// fed by the client's Input and Resize frames, drawing into the client's
// outbox, over the shared engine. The session ends when the program quits
// (the human detached, left a finished run, or the run stopped), when the
// client goes away (a closed terminal, a dropped ssh: the run goes on), or
// when the client is dropped (it sent a frame that cannot be read). A
// client that falls behind is not dropped: it gets a whole frame once it
// has caught up (outbox.go). Its last frame is a Bye with the code the
// client exits with.
package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/rostra-dev/rostra/tui"
)

type session struct {
	s     *Server
	conn  net.Conn
	out   *outbox
	model *tui.Model
	sizes *resizes // the client's latest size, handed to the program once a frame
	prog  *tea.Program
	in    *clientInput // what prog reads: the client's Input frames
	// kill ends the program (its context): safe at any time, unlike
	// Program.Kill, which races with a Run that has not started yet.
	kill context.CancelFunc
	done chan struct{} // closed when the session has ended
	// attached is when the client attached: the newest inherits the
	// ptys' layout when the client that set it goes.
	attached time.Time
	// suspended: the client stopped itself (Ctrl-Z); nothing is drawn to
	// it until it resumes. Used on the program's goroutine only.
	suspended bool

	mu sync.Mutex
	// cut is why the client's side ended the session (set by the reader
	// before it kills the program); gone means the client simply left.
	cut  error
	gone bool
}

func (ss *session) setCut(err error, gone bool) {
	ss.mu.Lock()
	ss.cut, ss.gone = err, gone
	ss.mu.Unlock()
}

// byeWait bounds how long the last frames may take to reach a client.
const byeWait = 2 * time.Second

func (s *Server) attach(c net.Conn, fr *FrameReader, h Hello) {
	s.mu.Lock()
	if s.stopping != "" {
		why := s.stopping
		s.mu.Unlock()
		s.refuse(c, 0, "the run is stopping: "+why)
		return
	}
	env := append([]string{}, h.Env...)
	var theme string
	var noColor bool
	if s.cfg.Colours != nil {
		var err error
		if theme, noColor, err = s.cfg.Colours(env); err != nil {
			s.mu.Unlock()
			s.refuse(c, 0, err.Error())
			return
		}
	}
	ss := &session{s: s, conn: c, done: make(chan struct{}), attached: time.Now()}
	ss.out = newOutbox(c, s.cfg.OutputLimit, func() { go ss.prog.Send(caughtUpMsg{}) })
	if err := ss.out.frame(FrameWelcome, mustJSON(s.welcome())); err != nil {
		s.mu.Unlock()
		return
	}
	sub := s.eng.Subscribe()
	ss.model = tui.New(s.eng, tui.Options{
		Events:   sub,
		Activity: s.cfg.Activity,
		Stop:     s.stopFromUI,
		Sizes:    s.cfg.Sizes,
		Attached: true,
		Width:    clampSize(h.Cols),
		Height:   clampSize(h.Rows),
		Theme:    theme,
		NoColor:  noColor,
		// A client's UI left alone stops drawing each second.
		Unwatched: s.cfg.Unwatched,
	})
	var model tea.Model = ss.model
	if s.cfg.WrapModel != nil {
		model = s.cfg.WrapModel(ss.model)
	}
	// The client detected its profile without NO_COLOR (which drops the
	// colours rostra adds, not the panes' own): see Attach.
	profile := colorprofile.Env(tui.WithoutNoColor(env))
	if h.Profile != nil && *h.Profile >= colorprofile.NoTTY && *h.Profile <= colorprofile.TrueColor {
		profile = *h.Profile
	}
	in := newClientInput()
	ss.in = in
	ctx, kill := context.WithCancel(context.Background())
	ss.kill = kill
	ss.prog = tea.NewProgram(model,
		tea.WithContext(ctx),
		tea.WithInput(in),
		tea.WithOutput(onlcr{ss.out}),
		tea.WithEnvironment(env),
		tea.WithColorProfile(profile),
		tea.WithWindowSize(clampSize(h.Cols), clampSize(h.Rows)),
		tea.WithoutSignalHandler(),
		tea.WithFPS(tui.RendererFPS),
		// Flush on change (our bubbletea patch): a key's echo is drawn at
		// once, output at most 30 times a second (the UI's own limit), and
		// an idle client costs no frame ticker.
		tea.WithRenderOnChange(),
		// A suspend (Ctrl-Z in the UI, or the client's own SIGTSTP) cannot
		// stop this process: the client stops itself, once the program has
		// given its terminal back (suspendClient).
		tea.WithFilter(func(mod tea.Model, msg tea.Msg) tea.Msg {
			switch msg.(type) {
			case tea.SuspendMsg:
				ss.suspendClient()
				return nil
			case clientResumedMsg:
				return ss.resumeClient()
			case caughtUpMsg:
				return ss.redraw()
			}
			return ss.model.Filter(mod, msg)
		}),
	)
	ss.sizes = newResizes(ss.prog.Send, s.cfg.FPS)
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	fmt.Fprintf(s.log, "rostra server: a client attached (%d×%d, TERM=%s); %d attached\n", h.Cols, h.Rows, envGet(env, "TERM"), s.attached())
	s.recordClient(h.Client, true, "")

	// The hello was read unbuffered: nothing of what follows it is lost
	// by reading the rest through a buffer (a flood of small frames then
	// costs a read per 64 KiB, not two per frame).
	go ss.read(NewFrameReader(bufio.NewReaderSize(c, 64<<10)), in)
	go ss.sizes.pace(ctx)
	_, runErr := ss.prog.Run()
	kill()
	_ = in.Close()
	ss.model.Close()
	sub.Close()

	bye := ss.bye(runErr)
	if err := ss.out.Close(FrameBye, mustJSON(bye), byeWait); err != nil && bye.Reason != ByeDropped {
		bye.Message = err.Error()
	}
	s.mu.Lock()
	delete(s.sessions, ss)
	n := len(s.sessions)
	var heir *session
	for o := range s.sessions {
		if heir == nil || o.attached.After(heir.attached) {
			heir = o
		}
	}
	s.mu.Unlock()
	if heir != nil {
		// The ptys may have followed this client's layout: the client
		// that attached last takes them over.
		go heir.prog.Send(tui.TakeSizes())
	}
	close(ss.done)
	why := ""
	if bye.Message != "" {
		why = " (" + bye.Message + ")"
	}
	fmt.Fprintf(s.log, "rostra server: a client %s%s; %d attached\n", bye.Reason, why, n)
	s.recordClient(h.Client, false, bye.Reason+why)
	select {
	case s.left <- struct{}{}:
	default:
	}
}

// bye is the session's last word: why it ended and the code the client
// exits with.
func (ss *session) bye(runErr error) Bye {
	s := ss.s
	ss.mu.Lock()
	cut, gone := ss.cut, ss.gone
	ss.mu.Unlock()
	switch {
	case ss.model.Detached():
		return Bye{Reason: ByeDetached, Code: 0}
	case gone:
		return Bye{Reason: ByeDetached, Code: 0, Message: "the client went away"}
	case cut != nil:
		return Bye{Reason: ByeDropped, Code: 1, Message: cut.Error()}
	}
	select {
	case <-s.over:
		return Bye{Reason: ByeStopped, Code: s.code, Message: s.stopReason()}
	default:
	}
	if runErr != nil {
		return Bye{Reason: ByeFailed, Code: 1, Message: "the UI failed: " + runErr.Error() + " (the run goes on: rostra attach comes back)"}
	}
	// The human left a run with nothing running.
	code := s.eng.ExitCode()
	return Bye{Reason: ByeLeft, Code: code}
}

func (s *Server) stopReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

// read feeds the program from the client's frames. A frame it cannot read,
// or the connection ending, ends the program (the session then ends).
func (ss *session) read(fr *FrameReader, in *clientInput) {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				ss.setCut(nil, true)
			} else {
				ss.setCut(fmt.Errorf("cannot read the client: %w", err), false)
			}
			_ = in.Close()
			ss.kill()
			return
		}
		if f.Type == FrameResize {
			// Only the latest size matters (resizes.go).
			cols, rows, err := DecodeResize(f.Payload)
			if err != nil {
				ss.setCut(err, false)
				ss.kill()
				return
			}
			ss.sizes.offer(cols, rows)
			continue
		}
		// What the client sent after a resize comes after it.
		ss.sizes.flush()
		switch f.Type {
		case FrameInput:
			if _, err := in.Write(f.Payload); err != nil {
				return // the program has ended
			}
		case FrameResume:
			// A Resume carries the size of the terminal the client is back in.
			cols, rows, err := DecodeResize(f.Payload)
			if err != nil {
				ss.setCut(err, false)
				ss.kill()
				return
			}
			ss.prog.Send(tea.WindowSizeMsg{Width: cols, Height: rows})
			ss.prog.Send(clientResumedMsg{})
		case FrameDetach:
			ss.prog.Send(tui.Detach())
		case FrameSuspend:
			ss.prog.Send(tea.Suspend())
		default:
			ss.setCut(fmt.Errorf("%w: a client may not send a %s frame once attached", ErrFrame, f.Type), false)
			ss.kill()
			return
		}
	}
}

// clientResumedMsg: the client is back in the foreground (its Resume).
type clientResumedMsg struct{}

// caughtUpMsg: the client read everything queued after output for it was
// discarded (outbox.go).
type caughtUpMsg struct{}

// suspendClient stops drawing to the client and gives its terminal back
// (the renderer writes what restores it), then tells the client to stop
// itself. It runs on the program's goroutine (the filter). The program's
// input reader stops too (see input.go) and a new one starts on resume;
// what the client sends meanwhile stays queued.
func (ss *session) suspendClient() {
	if ss.suspended {
		return
	}
	ss.suspended = true
	ss.in.pause()
	_ = ss.prog.ReleaseTerminal()
	_ = ss.out.frame(FrameSuspend, nil)
}

// resumeClient draws again to a client back from a suspend: its modes and
// then, with the message it returns (a clear screen), a whole frame. A
// client that was not suspended by the UI was stopped from outside
// (SIGSTOP, then SIGCONT): its shell may have written over the screen and
// set the terminal's modes meanwhile, so it gets the same, its terminal
// given back and taken again.
func (ss *session) resumeClient() tea.Msg {
	if !ss.suspended {
		return ss.redraw()
	}
	ss.suspended = false
	ss.in.resume()
	if err := ss.prog.RestoreTerminal(); err != nil {
		return tea.Quit()
	}
	return tea.ClearScreen()
}

// redraw gives the client's terminal back and takes it again, which draws
// its modes and a whole frame, whatever the terminal shows now (a shell's
// lines, or a screen that missed the output discarded for it). Nothing is
// drawn to a suspended client: its resume draws. Like resumeClient it
// returns the clear screen that draws the frame.
func (ss *session) redraw() tea.Msg {
	if ss.suspended {
		return nil
	}
	ss.in.pause()
	_ = ss.prog.ReleaseTerminal()
	ss.in.resume()
	if err := ss.prog.RestoreTerminal(); err != nil {
		return tea.Quit()
	}
	return tea.ClearScreen()
}

func envGet(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("rostra server: encode %T: %v", v, err))
	}
	return data
}
