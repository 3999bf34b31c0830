// Package server keeps a run alive without a terminal: one process owns the
// engine and every pane, and serves the UI to any number of clients over
// the run's Unix socket (`rostra attach`), along with control requests
// from any shell (`rostra status`, `retry`, `cancel`, `send`, `logs`,
// `stop`, `wait`, `ls`).
//
// Each attached client gets its own bubbletea program in the server, as
// charmbracelet/wish serves one per SSH session: the program reads the
// client's keys from the socket, draws into the client's output queue, and
// takes the client's environment, colour profile and window size, so
// colours and keys follow each client's own terminal. Every program has its
// own tui.Model (focus, zoom, scroll, search, event subscription) over the
// one shared engine; new output wakes all of them (the run's vt.Activity,
// which every pane's emulator pokes), and the ptys take the layout of the
// client that was active last (tui.PaneSizes).
//
// Data model: sessions are the attached clients; the server's loop watches
// the engine and the sessions and decides when the run ends: on a stop (a
// client's q, `rostra stop`, SIGINT/SIGTERM), or when the run has finished
// and no client is attached. Every path out stops the workers through the
// engine's Shutdown, once, so the state files are complete.
package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/tui"
)

// Config is what a server is given.
type Config struct {
	Engine   *engine.Engine
	Activity *vt.Activity
	Sizes    *tui.PaneSizes
	Listener *Listener
	RunFile  string    // shown by `rostra ls`
	Log      io.Writer // the server's own messages (server.log); nil: discarded
	// OutputLimit is how many bytes may wait for one client before it is
	// dropped; 0: DefaultOutputLimit.
	OutputLimit int
	// FPS caps how often a client's resizes reach its UI and the Views a
	// many-runs client is sent each second; 0: 30, the UI's own output
	// frame rate. The renderer's ceiling is tui.RendererFPS.
	FPS int
	// WrapModel wraps each client's model (a test's fault injection); nil:
	// the model as it is.
	WrapModel func(*tui.Model) tea.Model
	// Colours gives a client's UI its theme and NO_COLOR from the client's
	// environment (the run file's ui.theme, ROSTRA_THEME, NO_COLOR); an
	// error refuses the client with it. nil: the defaults.
	Colours func(env []string) (theme string, noColor bool, err error)
	Now     func() time.Time
	// Unwatched is each client UI's tui.Options.Unwatched.
	Unwatched func()
}

// Server serves one run.
type Server struct {
	cfg     Config
	eng     *engine.Engine
	log     io.Writer
	started time.Time

	mu       sync.Mutex
	sessions map[*session]struct{}
	conns    map[net.Conn]struct{}
	// held are the connections of `rostra stop`s answered: open until the
	// process exits, so that each stop returns once the server has gone
	// (the run's lock released), not merely once the workers have.
	held     map[net.Conn]struct{}
	stopping string // why the run is being stopped; "" while it is not

	left    chan struct{} // a session ended
	stopReq chan string   // a reason to stop the run

	shutOnce sync.Once
	over     chan struct{} // closed once the engine has shut down and code is set
	shutErr  error
	code     int

	handlers sync.WaitGroup

	viewNotes viewNotices // viewnotify.go
}

// New makes a server for cfg; Serve runs it.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.FPS <= 0 {
		cfg.FPS = 30
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Server{
		cfg:      cfg,
		eng:      cfg.Engine,
		log:      cfg.Log,
		started:  cfg.Now(),
		sessions: map[*session]struct{}{},
		conns:    map[net.Conn]struct{}{},
		held:     map[net.Conn]struct{}{},
		left:     make(chan struct{}, 1),
		stopReq:  make(chan string, 1),
		over:     make(chan struct{}),
	}
}

// Stop asks the server to stop the run (a signal, say); Serve returns once
// every worker has stopped.
func (s *Server) Stop(reason string) {
	select {
	case s.stopReq <- reason:
	default:
	}
}

// Serve accepts clients until the run ends, and returns rostra's exit code
// for the run: 130 when it was stopped while workers ran, 1 when a worker
// did not complete or the state could not be saved, 0 otherwise. The
// listener is closed and the socket removed on return.
func (s *Server) Serve() int {
	s.eng.SetAnnouncer(s.announce)
	go s.accept()
	finished := s.eng.Finished()
	stopped := s.eng.Stopped()
	// Finished is closed once; a run retried after it finished can finish
	// again, which only its events tell.
	again := s.watchFinishes()
loop:
	for {
		select {
		case <-finished:
			finished = nil
			if s.attached() == 0 {
				s.beginStop("the run has finished and no client is attached")
			}
		case <-again:
			if s.attached() == 0 && s.eng.Status() == statedir.RunFinished {
				s.beginStop("the run has finished and no client is attached")
			}
		case <-s.left:
			if s.attached() == 0 && s.eng.Status() == statedir.RunFinished {
				s.beginStop("the run has finished and the last client left")
			}
		case reason := <-s.stopReq:
			s.beginStop(reason)
		case <-stopped:
			// The engine stopped by itself (its state could not be saved),
			// or after a stop began here.
			s.beginStop("the run stopped")
			break loop
		}
	}
	<-s.over
	s.endSessions(10 * time.Second)
	s.cfg.Listener.Close()
	// Control clients waiting on the run (stop, wait) are answering now;
	// what still holds a connection after that is closed.
	waitTimeout(&s.handlers, 2*time.Second)
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	waitTimeout(&s.handlers, 5*time.Second)
	fmt.Fprintf(s.log, "rostra server: the run ended, exit code %d\n", s.code)
	return s.code
}

// watchFinishes tells, until the engine stops, each time the run is seen
// finished after an event (a coalescing signal). It also binds the socket
// again when the engine made the deleted state dir again: the socket went
// with the folder, and no client could reach the run any more.
func (s *Server) watchFinishes() <-chan struct{} {
	sub := s.eng.Subscribe()
	c := make(chan struct{}, 1)
	go func() {
		<-s.eng.Stopped()
		sub.Close()
	}()
	go func() {
		for {
			ev, ok := sub.Next()
			if !ok {
				return
			}
			if ev.Type == engine.EventStateDirRecreated {
				s.rebind()
			}
			if s.eng.Status() == statedir.RunFinished {
				select {
				case c <- struct{}{}:
				default:
				}
			}
		}
	}()
	return c
}

// rebind listens again in a state dir made again.
func (s *Server) rebind() {
	again, err := s.cfg.Listener.Rebind()
	switch {
	case err != nil:
		fmt.Fprintf(s.log, "rostra server: the state dir was made again, but its socket could not be: %v (clients cannot reach this run; stop it with kill -TERM %d)\n", err, os.Getpid())
	case again:
		fmt.Fprintf(s.log, "rostra server: the state dir was made again: listening again on %s\n", s.cfg.Listener.Path())
	}
}

// beginStop starts stopping the run (once): every attached UI is told why
// and shows that the workers are being stopped; Shutdown runs on its own
// goroutine and closes over when done.
func (s *Server) beginStop(reason string) {
	s.mu.Lock()
	if s.stopping != "" {
		s.mu.Unlock()
		return
	}
	s.stopping = reason
	sessions := s.sessionList()
	s.mu.Unlock()
	fmt.Fprintf(s.log, "rostra server: stopping: %s\n", reason)
	go s.shutdown()
	for _, ss := range sessions {
		go ss.prog.Send(tui.Interrupt(reason))
	}
}

// shutdown stops every worker and saves the final state, once; it returns
// when that is done. The UIs' Stop calls it too.
func (s *Server) shutdown() error {
	s.shutOnce.Do(func() {
		s.shutErr = s.eng.Shutdown()
		if s.shutErr != nil {
			fmt.Fprintf(s.log, "rostra server: %v\n", s.shutErr)
		}
		switch {
		case s.eng.Status() == statedir.RunInterrupted:
			s.code = 130
		case s.shutErr != nil || s.eng.Err() != nil:
			s.code = 1
		default:
			s.code = s.eng.ExitCode()
		}
		close(s.over)
	})
	<-s.over
	return s.shutErr
}

// stopFromUI is each model's Stop: a human chose to stop the run.
func (s *Server) stopFromUI() error {
	s.beginStop("stopped from an attached client")
	return s.shutdown()
}

// endSessions waits for the attached UIs to quit (each got an Interrupt
// and quits once the workers are stopped), then ends what is left.
func (s *Server) endSessions(wait time.Duration) {
	deadline := time.After(wait)
	for {
		s.mu.Lock()
		list := s.sessionList()
		s.mu.Unlock()
		if len(list) == 0 {
			return
		}
		select {
		case <-list[0].done:
		case <-deadline:
			for _, ss := range list {
				ss.kill()
			}
			for _, ss := range list {
				<-ss.done
			}
			return
		}
	}
}

func (s *Server) sessionList() []*session {
	list := make([]*session, 0, len(s.sessions))
	for ss := range s.sessions {
		list = append(list, ss)
	}
	return list
}

// attached counts the attached clients.
func (s *Server) attached() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

func (s *Server) accept() {
	for {
		c, err := s.cfg.Listener.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				fmt.Fprintf(s.log, "rostra server: accept: %v\n", err)
				time.Sleep(100 * time.Millisecond) // EMFILE and the like: do not spin
				continue
			}
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.handlers.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.handlers.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				_, held := s.held[c]
				s.mu.Unlock()
				if !held {
					_ = c.Close()
				}
			}()
			s.serveConn(c)
		}()
	}
}

// helloTimeout bounds how long a connection may take to say hello.
const helloTimeout = 5 * time.Second

// serveConn checks who connected, reads its Hello and serves it. Nothing a
// client sends can stop the server: a bad frame ends this connection.
func (s *Server) serveConn(c *net.UnixConn) {
	uid, pid, err := PeerCred(c)
	if err != nil {
		fmt.Fprintf(s.log, "rostra server: refused a client: %v\n", err)
		return
	}
	if uid != os.Getuid() {
		fmt.Fprintf(s.log, "rostra server: refused pid %d of uid %d (this run belongs to uid %d)\n", pid, uid, os.Getuid())
		_ = WriteJSON(c, FrameBye, Bye{Reason: ByeRefused, Code: 2,
			Message: fmt.Sprintf("this run belongs to uid %d; uid %d may not attach to it or control it", os.Getuid(), uid)})
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(helloTimeout))
	fr := NewFrameReader(c)
	f, err := fr.ReadFrame()
	if errors.Is(err, io.EOF) {
		// Closed before a byte: a probe (rostra attach and run dial to
		// see whether a server answers), not a client to refuse.
		return
	}
	if err != nil {
		s.refuse(c, pid, fmt.Sprintf("no hello: %v", err))
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	var h Hello
	if f.Type != FrameHello {
		s.refuse(c, pid, "the first frame must be a hello, not a "+f.Type.String())
		return
	}
	if err := DecodeJSON(f.Payload, &h); err != nil {
		s.refuse(c, pid, err.Error())
		return
	}
	if h.Rostra != ProtocolVersion {
		s.refuse(c, pid, fmt.Sprintf("this server speaks protocol %d, the client %d: use the rostra binary that started the run", ProtocolVersion, h.Rostra))
		return
	}
	switch h.Mode {
	case ModeAttach:
		s.attach(c, fr, h)
	case ModeControl:
		s.control(c, fr)
	case ModeView:
		s.view(c, fr)
	default:
		s.refuse(c, pid, fmt.Sprintf("unknown mode %q", h.Mode))
	}
}

func (s *Server) refuse(c net.Conn, pid int, why string) {
	fmt.Fprintf(s.log, "rostra server: refused pid %d: %s\n", pid, why)
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_ = WriteJSON(c, FrameBye, Bye{Reason: ByeRefused, Code: 2, Message: why})
}

func (s *Server) welcome() Welcome {
	plan := s.eng.Plan()
	return Welcome{Rostra: ProtocolVersion, Run: plan.Name, StateDir: plan.StateDir, Pid: os.Getpid(), Started: s.started}
}

// waitTimeout waits for wg, at most d.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
