// remote.go reaches runs on other machines by address,
// ssh://[user@]host[:port]/path (docs/remote.md): the system's ssh client
// (or the command ROSTRA_SSH names) runs `rostra __bridge --run PATH` on
// the host, and its stdin and stdout, one end of a socket pair, are the
// connection to the run's server. The user's ~/.ssh/config, agent,
// ProxyJump and known_hosts apply; a host key ssh refuses is its refusal,
// shown as it is.
//
// The control commands (status, retry, cancel, send, stop, wait) speak the
// protocol through the bridge. The commands that read a run's files
// (logs, diff, merge, report) run on the host instead, by ssh, their
// output relayed. Either way the rostra there is this version's copy in
// ~/.cache/rostra/<version>/ when --install put one there, else the one
// on its PATH. The ssh command, the script there, the stream and the
// words of its failures are package transport's, as a run's hosts use
// them (hosts/transport.go).
package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/transport"
)

func init() { server.DialAddress = dialSSH }

// remoteInstall is --install: copy this binary to the host before using it.
var remoteInstall bool

// remoteInteractive: the command is attach, whose ssh may ask (no
// BatchMode); every other command's ssh may not.
var remoteInteractive bool

// sshAddr is a parsed ssh:// address.
type sshAddr struct {
	user, host, port string
	path             string // as the host resolves it: absolute, or ~/…
}

func parseSSHAddr(s string) (sshAddr, error) {
	a, err := parseSSHHost(s)
	if err == nil && (a.path == "" || a.path == "/") {
		return sshAddr{}, fmt.Errorf("%s names no run: add its run file or state dir, ssh://%s/path/to/rostra.yaml (~/ for the home there)", s, a.dest())
	}
	return a, err
}

// parseSSHHost parses an address whose path may be empty (rostra ls
// ssh://host).
func parseSSHHost(s string) (sshAddr, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "ssh" {
		return sshAddr{}, fmt.Errorf("%s is not an address rostra reaches: use ssh://[user@]host[:port]/path (docs/remote.md)", s)
	}
	a := sshAddr{host: u.Hostname(), port: u.Port(), path: u.Path}
	if u.User != nil {
		a.user = u.User.Username()
	}
	if strings.HasPrefix(a.path, "/~") {
		a.path = a.path[1:] // ssh://host/~/x is x in the home there, as git writes it
	}
	switch {
	case a.host == "" || strings.HasPrefix(a.host, "-"):
		return sshAddr{}, fmt.Errorf("%s names no host: use ssh://[user@]host[:port]/path", s)
	}
	return a, nil
}

// dest is ssh's destination argument.
func (a sshAddr) dest() string {
	if a.user != "" {
		return a.user + "@" + a.host
	}
	return a.host
}

// command is the ssh command to a's host; batch: ssh may not ask.
func (a sshAddr) command(batch bool) transport.Command {
	return transport.SSH(a.host, a.dest(), a.port, batch)
}

// dialSSH connects to the server of the run at addr through ssh and the
// bridge.
func dialSSH(addr string) (server.Stream, error) {
	a, err := parseSSHAddr(addr)
	if err != nil {
		return nil, err
	}
	if remoteInstall {
		if err := installOn(a); err != nil {
			return nil, err
		}
	}
	return a.command(!remoteInteractive).Stream(transport.Rostra(bridgeMode, "--run", transport.Word(a.path)))
}

// installOn copies this binary to ~/.cache/rostra/<version>/rostra on a's
// host when its OS and architecture are this one's.
func installOn(a sshAddr) error { return a.command(true).Install() }

// filesCommands read a run's files, or list a host's runs (ls): given an
// address, they run on its host.
var filesCommands = []string{"logs", "diff", "merge", "report", "ls"}

// forwardRemote runs args (a command of filesCommands whose run is an
// address) on the run's host; ok is false when args are not that.
func forwardRemote(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 || !slices.Contains(filesCommands, args[0]) {
		return 0, false
	}
	out := []string{args[0]}
	var addr string
	install := false
	for i := 1; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			for _, rest := range args[i:] {
				out = append(out, shellQuote(rest))
			}
			i = len(args)
			continue
		case arg == "--install" || arg == "-install":
			install = true
			continue
		case (arg == "--run" || arg == "-run") && i+1 < len(args) && server.IsAddress(args[i+1]):
			addr = args[i+1]
			out = append(out, "--run", "\x00")
			i++
			continue
		case strings.HasPrefix(arg, "--run=") && server.IsAddress(arg[len("--run="):]):
			addr = arg[len("--run="):]
			out = append(out, "--run", "\x00")
			continue
		case server.IsAddress(arg):
			addr = arg
			out = append(out, "\x00")
			continue
		}
		out = append(out, shellQuote(arg))
	}
	if addr == "" {
		return 0, false
	}
	parse := parseSSHAddr
	if args[0] == "ls" {
		parse = parseSSHHost
	}
	a, err := parse(addr)
	if err != nil {
		fmt.Fprintf(stderr, "rostra %s: %v\n", args[0], err)
		return 2, true
	}
	for i := range out {
		if out[i] == "\x00" && args[0] == "ls" {
			out[i] = "" // the host's own runs
		} else if out[i] == "\x00" {
			out[i] = transport.Word(a.path)
		}
	}
	if install {
		if err := installOn(a); err != nil {
			fmt.Fprintf(stderr, "rostra %s: %v\n", args[0], err)
			return 1, true
		}
	}
	ssh := a.command(true)
	cmd := ssh.Cmd(transport.Rostra(out...))
	// The host's rostra writes to a pipe, so raw: a terminal here gets
	// its colours only (docs/design.md, "Nothing raw reaches a terminal").
	w := stdout
	if isTerminal(stdout) {
		w = printable.ColoursOnly(stdout)
	}
	var said strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, w, io.MultiWriter(stderr, &said)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, true
	case errors.As(err, &exit) && (exit.ExitCode() == transport.NotFound || exit.ExitCode() == 255):
		fmt.Fprintf(stderr, "rostra %s: %v\n", args[0], ssh.Explain(err, said.String()))
		return 2, true
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode(), true
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), true
		}
	}
	fmt.Fprintf(stderr, "rostra %s: %v\n", args[0], err)
	return 1, true
}
