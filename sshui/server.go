// Package sshui serves a run's UI to any SSH client
// (docs/remote.md §The SSH server): charmbracelet/wish is the SSH server, and each session is
// an attached client of the run's server as `rostra attach` is, relayed
// over the run's Unix socket (server.AttachTerminal). The UI program runs
// in the run's server with the session's own size (its pty request and
// window changes), TERM, colours and focus; the SSH server interprets
// nothing of what it relays.
//
// Who may log in: the keys of one authorized_keys file, and only keys;
// password and keyboard-interactive are not offered. The host key is the
// state dir's (hostkey.go). At most MaxSessions sessions at once.
//
// Data model: a Server is a listener, the wish server on it and the count
// of live sessions.
package sshui

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// MaxSessions is how many SSH sessions one server serves at once.
const MaxSessions = 8

// handshakeTimeout bounds a connection's handshake and login.
const handshakeTimeout = 30 * time.Second

// Config is what a Server is given.
type Config struct {
	StateDir       string    // the run's: its socket, and where the host key is kept
	Listen         string    // host:port (":2222" listens on every address)
	AuthorizedKeys string    // the file of the keys let in
	Log            io.Writer // logins refused, sessions; nil: discarded
	Version        string    // rostra's version, in the SSH version string
}

// Server is a listening SSH server for one run.
type Server struct {
	cfg  Config
	keys authorizedKeys
	ln   net.Listener
	srv  *ssh.Server
	log  io.Writer
	logm sync.Mutex

	mu       sync.Mutex
	sessions int
}

// Listen checks cfg (the authorized keys, the host key) and listens; Serve
// serves. Every error says what to do.
func Listen(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &Server{cfg: cfg, keys: authorizedKeys{path: cfg.AuthorizedKeys}, log: cfg.Log}
	if err := s.keys.check(); err != nil {
		return nil, err
	}
	signer, err := LoadHostKey(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	version := "rostra"
	if cfg.Version != "" {
		version += "_" + strings.NewReplacer(" ", "_", "-", "_").Replace(cfg.Version)
	}
	// The host key goes in as an option: wish.NewServer writes a new key
	// to ./id_ed25519 when none is set by its options.
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithVersion(version),
		wish.WithPublicKeyAuth(s.authorize),
		wish.WithMiddleware(s.serveSession),
	)
	if err != nil {
		return nil, fmt.Errorf("make the SSH server: %w", err)
	}
	// No password, no keyboard-interactive: wish sets neither handler
	// unless asked, and with a key handler set the server never allows a
	// login without one (ssh.Server.config).
	srv.PasswordHandler, srv.KeyboardInteractiveHandler = nil, nil
	// A connection that has not logged in within this is closed: one that
	// never does holds nothing for long.
	srv.HandshakeTimeout = handshakeTimeout
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("the SSH server cannot listen on %s: %w", cfg.Listen, err)
	}
	s.ln, s.srv = ln, srv
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// HostKey is the server's public host key.
func (s *Server) HostKey() gossh.PublicKey { return s.srv.HostSigners[0].PublicKey() }

// HostKeyFingerprint is the host key's SHA256 fingerprint, as ssh shows it
// when it asks whether to trust the host.
func (s *Server) HostKeyFingerprint() string { return gossh.FingerprintSHA256(s.HostKey()) }

// Serve serves until Close; it returns nil then.
func (s *Server) Serve() error {
	err := s.srv.Serve(s.ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops listening and ends every session (their clients see the
// connection close; the run goes on).
func (s *Server) Close() error { return s.srv.Close() }

func (s *Server) logf(format string, args ...any) {
	s.logm.Lock()
	defer s.logm.Unlock()
	fmt.Fprintf(s.log, "rostra ssh: "+format+"\n", args...)
}

// authorize lets in a key listed in the authorized keys.
func (s *Server) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	_, ok := s.keys.find(key, func(w string) { s.logf("%s", w) })
	if !ok {
		s.logf("refused key %s of %q from %s: not in %s", gossh.FingerprintSHA256(key), ctx.User(), ctx.RemoteAddr(), s.keys.path)
	}
	return ok
}

// serveSession is the only handler: every session is the UI, or refused
// with why.
func (s *Server) serveSession(ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		pty, winch, ok := sess.Pty()
		switch {
		case sess.RawCommand() != "":
			refuse(sess, "rostra's SSH server runs no command: it shows the run's UI; ssh without a command (rostra status and the other commands work through the host's own sshd)")
			return
		case !ok:
			refuse(sess, "rostra's SSH server shows the run's UI and needs a terminal: ssh -t, or an SSH app with a terminal")
			return
		}
		if !s.take() {
			refuse(sess, fmt.Sprintf("this run's SSH server already serves %d sessions, the most it serves: detach one (d) and try again", MaxSessions))
			return
		}
		defer s.give()
		s.serveUI(sess, pty, winch)
	}
}

func (s *Server) take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions >= MaxSessions {
		return false
	}
	s.sessions++
	return true
}

func (s *Server) give() {
	s.mu.Lock()
	s.sessions--
	s.mu.Unlock()
}

func refuse(sess ssh.Session, why string) {
	_, _ = io.WriteString(sess.Stderr(), "rostra: "+why+"\r\n")
	_ = sess.Exit(1)
}

// serveUI relays one session to the run's server until it ends.
func (s *Server) serveUI(sess ssh.Session, pty ssh.Pty, winch <-chan ssh.Window) {
	client := &statedir.UIClient{Via: "ssh", User: sess.User(), From: sess.RemoteAddr().String()}
	if key := sess.PublicKey(); key != nil {
		client.Key = gossh.FingerprintSHA256(key)
		client.KeyName, _ = s.keys.find(key, func(string) {})
	}
	// The first window is the pty request's, already on winch. A client
	// without a terminal of its own (ssh -tt from a pipe) asks for 0×0.
	asked := pty.Window
	size := server.Size{Cols: asked.Width, Rows: asked.Height}
	if size.Cols <= 0 || size.Rows <= 0 {
		size = server.Size{Cols: 80, Rows: 24}
	}
	sizes := make(chan server.Size, 1)
	// Ends with the session; the connection (and its context) may carry
	// other sessions and outlive it.
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		defer close(sizes)
		first := true
		for w := range winch {
			if first && w.Width == asked.Width && w.Height == asked.Height {
				first = false
				continue
			}
			first = false
			select {
			case sizes <- server.Size{Cols: w.Width, Rows: w.Height}:
			case <-ended:
				return
			}
		}
	}()
	env := append(sess.Environ(), "TERM="+pty.Term)
	bye, err := server.AttachTerminal(s.cfg.StateDir, server.Terminal{
		In: sess, Out: sess, Env: env, Size: size, Resizes: sizes, Client: client,
	})
	if err != nil {
		_, _ = io.WriteString(sess, "\r\nrostra: "+err.Error()+"\r\n")
		_ = sess.Exit(1)
		return
	}
	_, _ = io.WriteString(sess, byeLine(bye)+"\r\n")
	_ = sess.Exit(bye.Code)
}

// byeLine says how a session ended, as `rostra attach` says it.
func byeLine(bye server.Bye) string {
	switch bye.Reason {
	case server.ByeDetached:
		return "rostra: detached; the run goes on"
	case server.ByeStopped:
		if bye.Message != "" {
			return "rostra: the run stopped: " + bye.Message
		}
		return "rostra: the run stopped"
	case server.ByeLeft:
		return "rostra: the run has ended"
	case server.ByeRefused:
		return "rostra: the run's server refused: " + bye.Message
	}
	if bye.Message != "" {
		return fmt.Sprintf("rostra: %s: %s", bye.Reason, bye.Message)
	}
	return "rostra: " + bye.Reason
}
