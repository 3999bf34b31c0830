// session_test.go drives the SSH server in-process with golang.org/x/crypto's
// client, under the race detector, against a stand-in for the run's
// server on a real Unix socket (it speaks the protocol: a Welcome, each
// Input echoed as Output, each Resize told, a Bye on "d"). The real run
// server and the system's ssh client are cmd/rostra's sshui_e2e_test.go.
package sshui

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

// standIn is the run's server as the SSH server sees it.
type standIn struct {
	mu     sync.Mutex
	hellos []server.Hello
}

func (f *standIn) serve(t *testing.T, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go f.session(t, c)
	}
}

func (f *standIn) session(t *testing.T, c net.Conn) {
	defer c.Close()
	fr := server.NewFrameReader(bufio.NewReader(c))
	fm, err := fr.ReadFrame()
	if err != nil || fm.Type != server.FrameHello {
		return
	}
	var h server.Hello
	if server.DecodeJSON(fm.Payload, &h) != nil {
		return
	}
	f.mu.Lock()
	f.hellos = append(f.hellos, h)
	f.mu.Unlock()
	_ = server.WriteJSON(c, server.FrameWelcome, server.Welcome{Rostra: server.ProtocolVersion, Run: "stand-in"})
	_ = server.WriteFrame(c, server.FrameOutput, fmt.Appendf(nil, "ui at %dx%d\n", h.Cols, h.Rows))
	for {
		fm, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch fm.Type {
		case server.FrameResize:
			cols, rows, _ := server.DecodeResize(fm.Payload)
			_ = server.WriteFrame(c, server.FrameOutput, fmt.Appendf(nil, "resized to %dx%d\n", cols, rows))
		case server.FrameInput:
			if bytes.Equal(fm.Payload, []byte("d")) {
				_ = server.WriteJSON(c, server.FrameBye, server.Bye{Reason: server.ByeDetached})
				return
			}
			_ = server.WriteFrame(c, server.FrameOutput, append([]byte("got "), fm.Payload...))
		}
	}
}

func (f *standIn) hello(i int) server.Hello {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hellos[i]
}

// sessionOut gathers what a session is sent.
type sessionOut struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *sessionOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *sessionOut) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

func (o *sessionOut) wait(t *testing.T, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(o.String(), want) }, 10*time.Second, 5*time.Millisecond,
		"never got %q; got %q", want, o.String())
}

func TestSessionsThroughTheSSHServer(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, statedir.SocketFile))
	require.NoError(t, err)
	defer ln.Close()
	f := &standIn{}
	go f.serve(t, ln)

	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	signer, err := gossh.NewSignerFromKey(priv)
	require.NoError(t, err)
	keys := filepath.Join(dir, "authorized_keys")
	require.NoError(t, os.WriteFile(keys, append(bytes.TrimSpace(gossh.MarshalAuthorizedKey(signer.PublicKey())), " me@test\n"...), 0o600))
	var log sessionOut
	cwd := t.TempDir()
	t.Chdir(cwd)
	srv, err := Listen(Config{StateDir: dir, Listen: "127.0.0.1:0", AuthorizedKeys: keys, Log: &log})
	require.NoError(t, err)
	written, err := os.ReadDir(cwd)
	require.NoError(t, err)
	assert.Empty(t, written, "nothing is written outside the state dir (wish makes ./id_ed25519 when it is given no host key)")
	go func() { _ = srv.Serve() }()
	defer srv.Close()

	dial := func(auth ...gossh.AuthMethod) (*gossh.Client, error) {
		return gossh.Dial("tcp", srv.Addr().String(), &gossh.ClientConfig{User: "me", Auth: auth,
			HostKeyCallback: gossh.FixedHostKey(srv.HostKey()), Timeout: 10 * time.Second})
	}
	// Password and keyboard-interactive are not offered.
	_, err = dial(gossh.Password("secret"), gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
		t.Error("the server asked a keyboard-interactive question")
		return nil, nil
	}))
	require.ErrorContains(t, err, "unable to authenticate, attempted methods [none], no supported methods remain")

	client, err := dial(gossh.PublicKeys(signer))
	require.NoError(t, err)
	defer client.Close()

	open := func(term string, w, h int) (*gossh.Session, io.WriteCloser, *sessionOut) {
		s, err := client.NewSession()
		require.NoError(t, err)
		out := &sessionOut{}
		s.Stdout, s.Stderr = out, out
		in, err := s.StdinPipe()
		require.NoError(t, err)
		require.NoError(t, s.Setenv("LANG", "C.UTF-8"))
		require.NoError(t, s.RequestPty(term, h, w, gossh.TerminalModes{}))
		require.NoError(t, s.Shell())
		return s, in, out
	}
	s1, in1, out1 := open("xterm-256color", 100, 30)
	out1.wait(t, "ui at 100x30")
	h := f.hello(0)
	assert.Equal(t, server.ModeAttach, h.Mode)
	assert.Contains(t, h.Env, "TERM=xterm-256color")
	assert.Contains(t, h.Env, "LANG=C.UTF-8")
	if assert.NotNil(t, h.Client) {
		assert.Equal(t, statedir.UIClient{Via: "ssh", User: "me", Key: gossh.FingerprintSHA256(signer.PublicKey()), KeyName: "me@test", From: h.Client.From}, *h.Client)
		assert.Contains(t, h.Client.From, "127.0.0.1:")
	}
	_, err = in1.Write([]byte("x"))
	require.NoError(t, err)
	out1.wait(t, "got x")
	require.NoError(t, s1.WindowChange(40, 120))
	out1.wait(t, "resized to 120x40")

	// Seven more (eight in all), then the ninth is told why.
	var more []*gossh.Session
	for range 7 {
		s, _, out := open("vt100", 80, 24)
		out.wait(t, "ui at 80x24")
		more = append(more, s)
	}
	s9, _, out9 := open("vt100", 80, 24)
	err = s9.Wait()
	var ee *gossh.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitStatus())
	assert.Contains(t, out9.String(), "rostra: this run's SSH server already serves 8 sessions")
	for _, s := range more {
		_ = s.Close()
	}

	// "d": the stand-in's Bye; the session says so and exits 0.
	_, err = in1.Write([]byte("d"))
	require.NoError(t, err)
	require.NoError(t, s1.Wait())
	assert.Contains(t, out1.String(), "rostra: detached; the run goes on")

	// Without a pty: refused.
	s, err := client.NewSession()
	require.NoError(t, err)
	said, err := s.CombinedOutput("")
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, string(said), "needs a terminal")
}
