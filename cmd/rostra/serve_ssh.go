// serve_ssh.go wires the SSH server of a run's UI (package sshui,
// docs/remote.md §The SSH server): `rostra serve-ssh --run PATH ADDR` for
// a run whose server runs, and `rostra run --ssh ADDR` (or the run file's
// ui.ssh) for the run's own server, which then listens from its start to
// its end.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/sshui"
)

const serveSSHUsage = `usage: rostra serve-ssh [--run PATH] [--authorized-keys FILE] ADDR

Serves the UI of the run whose server runs for PATH (default ./rostra.yaml)
to SSH clients on ADDR (127.0.0.1:2222; :2222 listens on every address):
the keys in FILE (default ~/.ssh/authorized_keys) only, no passwords. It
runs until it is stopped (Ctrl-C) or the run ends; the run goes on.
`

// sshListen is rostra run's --ssh, handed to the server process.
var sshListen string

// sshFlag is the server process's flag for it.
const sshFlag = "--ssh"

func runServeSSH(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("serve-ssh", serveSSHUsage, stderr)
	keys := c.fs.String("authorized-keys", "", "the file of the keys let in (default ~/.ssh/authorized_keys)")
	rest, code, ok := c.parse(args, 1)
	if !ok {
		return code
	}
	run, code, ok := c.run()
	if !ok {
		return code
	}
	if run.remote {
		fmt.Fprintf(stderr, "rostra serve-ssh: serves a run of this machine; run it on %s's host instead\n", run.ref)
		return 2
	}
	if why := runfile.CheckListen(rest[0]); why != "" {
		fmt.Fprintf(stderr, "rostra serve-ssh: %s %s\n", rest[0], why)
		return 2
	}
	// The server's end ends this one: a control connection the server
	// closes as it exits.
	cc, err := server.Control(run.stateDir)
	if err != nil {
		fmt.Fprintf(stderr, "rostra serve-ssh: %v\n", err)
		if errors.Is(err, server.ErrNoServer) {
			fmt.Fprint(stderr, run.noServerHint())
		}
		return 2
	}
	defer cc.Close()
	srv, err := listenUISSH(run.stateDir, rest[0], *keys, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "rostra serve-ssh: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "rostra serve-ssh: serves run %s on %s (host key %s)\n", run.runName(), srv.Addr(), srv.HostKeyFingerprint())

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ended := make(chan struct{})
	go func() {
		for !cc.WaitServerExit(time.Hour) {
		}
		close(ended)
	}()
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	code = 0
	select {
	case sig := <-sigs:
		fmt.Fprintf(stderr, "rostra serve-ssh: got %s; the SSH server stops, the run goes on\n", server.SignalName(sig))
	case <-ended:
		fmt.Fprintf(stderr, "rostra serve-ssh: the run's server has ended; the SSH server stops\n")
	case err := <-served:
		fmt.Fprintf(stderr, "rostra serve-ssh: %v\n", err)
		code = 1
	}
	_ = srv.Close()
	return code
}

// listenUISSH starts listening for the run in stateDir on addr; keys ""
// is ~/.ssh/authorized_keys. Messages of the server go to log.
func listenUISSH(stateDir, addr, keys string, log io.Writer) (*sshui.Server, error) {
	keys, err := authorizedKeysPath(keys)
	if err != nil {
		return nil, err
	}
	return sshui.Listen(sshui.Config{StateDir: stateDir, Listen: addr, AuthorizedKeys: keys, Log: log, Version: vt.Version()})
}

// authorizedKeysPath is the authorized keys file: path with ~/ expanded,
// or the user's own when path is "".
func authorizedKeysPath(path string) (string, error) {
	if path != "" && !strings.HasPrefix(path, "~/") {
		return filepath.Abs(path)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the authorized keys: %w (name the file: --authorized-keys, or ui.ssh.authorized_keys)", err)
	}
	if path == "" {
		return filepath.Join(home, ".ssh", "authorized_keys"), nil
	}
	return filepath.Join(home, path[2:]), nil
}

// runSSH is the SSH server the run's own server starts: --ssh, else the
// run file's ui.ssh; nil when neither asks for one.
func runSSH(plan *runfile.Plan, log io.Writer) (*sshui.Server, error) {
	addr, keys := sshListen, ""
	if plan.SSH != nil {
		keys = plan.SSH.AuthorizedKeys
		if addr == "" {
			addr = plan.SSH.Listen
		}
	}
	if addr == "" {
		return nil, nil
	}
	return listenUISSH(plan.StateDir, addr, keys, log)
}

// checkSSHRun refuses an SSH server for a run that would have no server
// (noServer: --headless, --no-server, or no terminal without --detach).
func checkSSHRun(plan *runfile.Plan, noServer bool) error {
	if sshListen != "" {
		if why := runfile.CheckListen(sshListen); why != "" {
			return fmt.Errorf("--ssh %s %s", sshListen, why)
		}
	}
	if sshListen == "" && plan.SSH == nil {
		return nil
	}
	if noServer {
		return errors.New("the SSH server (--ssh, ui.ssh) serves the UI from the run's server: not with --headless or --no-server, nor without a terminal here unless --detach")
	}
	// The keys are read again when the server starts; a missing file is
	// said before anything of the run is touched.
	keys := ""
	if plan.SSH != nil {
		keys = plan.SSH.AuthorizedKeys
	}
	path, err := authorizedKeysPath(keys)
	if err != nil {
		return err
	}
	return sshui.CheckAuthorizedKeys(path)
}
