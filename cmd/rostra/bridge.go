// bridge.go wires `rostra __bridge --run PATH`: it joins its stdin and
// stdout to the socket of the run at PATH, so that any transport giving a
// byte stream to a command on this machine (ssh, the way rostra's own
// ssh:// addresses use it) reaches the run's server with the protocol as
// it is (docs/remote.md). Authentication is the transport's; the server
// still checks that the bridge runs as the run's user.
//
// The bridge reads the client's Hello before passing it on: a client of
// another protocol version is refused here with both versions and what to
// do, as the server refuses one on its socket. When no server runs, the
// bridge says what the state files say on stderr and exits with
// bridgeNoServer, which the client reads as "no server" (not a failure
// of the transport).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/transport"
)

// bridgeMode is the hidden command the transport runs on the run's machine.
const bridgeMode = "__bridge"

// bridgeNoServer is the bridge's exit code when no server runs for the run.
const bridgeNoServer = transport.NoServer

func runBridge(args []string, _, stderr io.Writer) int {
	fs := flag.NewFlagSet(bridgeMode, flag.ContinueOnError)
	fs.SetOutput(stderr)
	runFlag := fs.String("run", "", "the run file or state dir")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 || *runFlag == "" {
		fmt.Fprintf(stderr, "usage: rostra %s --run PATH (joins stdin/stdout to the run's socket)\n", bridgeMode)
		return 2
	}
	r, err := resolveRun(expandHome(*runFlag))
	if err != nil {
		fmt.Fprintf(stderr, "rostra: %v\n", err)
		return 2
	}
	c, err := server.Dial(r.stateDir)
	if err != nil {
		fmt.Fprintf(stderr, "rostra: %v\n", err)
		if errors.Is(err, server.ErrNoServer) {
			fmt.Fprint(stderr, r.noServerHint())
			return bridgeNoServer
		}
		return 2
	}
	defer c.Close()
	return bridge(c, os.Stdin, os.Stdout, stderr)
}

// bridge relays in to c and c to out, once the Hello read from in has
// passed the version check.
func bridge(c server.Stream, in io.Reader, out io.Writer, stderr io.Writer) int {
	br := bufio.NewReaderSize(in, 64<<10)
	f, err := server.NewFrameReader(br).ReadFrame()
	if err != nil {
		fmt.Fprintf(stderr, "rostra %s: read the client's hello: %v\n", bridgeMode, err)
		return 2
	}
	var h server.Hello
	if f.Type != server.FrameHello || server.DecodeJSON(f.Payload, &h) != nil {
		fmt.Fprintf(stderr, "rostra %s: the client's first frame is a %s, not a hello\n", bridgeMode, f.Type)
		return 2
	}
	if h.Rostra != server.ProtocolVersion {
		host, _ := os.Hostname()
		_ = server.WriteJSON(out, server.FrameBye, server.Bye{Reason: server.ByeRefused, Code: 2, Message: fmt.Sprintf(
			"rostra %s on %s speaks protocol %d, the client protocol %d: use the same rostra version on both machines (the client's --install copies its own binary there)",
			vt.Version(), host, server.ProtocolVersion, h.Rostra)})
		return 0
	}
	if err := server.WriteFrame(c, server.FrameHello, f.Payload); err != nil {
		fmt.Fprintf(stderr, "rostra %s: pass the hello on: %v\n", bridgeMode, err)
		return 2
	}
	go func() {
		_, _ = io.Copy(c, br)
		// The client is gone (its ssh closed): the server sees us go.
		_ = c.CloseWrite()
	}()
	if _, err := io.Copy(out, c); err != nil {
		fmt.Fprintf(stderr, "rostra %s: %v\n", bridgeMode, err)
		return 1
	}
	return 0
}

// expandHome makes a leading ~/ of path this user's home (an address's
// path is given to the bridge as written, not through a shell).
func expandHome(path string) string {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return filepath.Join(home, strings.TrimPrefix(path, "~"))
}
