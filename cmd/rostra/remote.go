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
// on its PATH.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
)

func init() { server.DialAddress = dialSSH }

// remoteInstall is --install: copy this binary to the host before using it.
var remoteInstall bool

// remoteInteractive: the command is attach, whose ssh may ask (no
// BatchMode); every other command's ssh may not.
var remoteInteractive bool

// installNotFound is the exit code of the host's shell when no rostra is
// there (command not found).
const installNotFound = 127

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

// versionDir is this version's folder name under ~/.cache/rostra.
func versionDir() string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '+' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, vt.Version())
}

// remoteWord quotes path for the host's shell, a leading ~/ left to it.
func remoteWord(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return "~/" + shellQuote(rest)
	}
	return shellQuote(path)
}

// rostraScript is the shell command that runs rostra with args on the
// host: this version's installed copy, else the rostra on its PATH.
func rostraScript(args ...string) string {
	words := strings.Join(args, " ")
	cached := "~/.cache/rostra/" + versionDir() + "/rostra"
	return fmt.Sprintf(`c=%s; if [ -x "$c" ]; then exec "$c" %s; fi; if command -v rostra >/dev/null 2>&1; then exec rostra %s; fi; echo "no rostra on PATH ($PATH) nor in %s" >&2; exit %d`,
		cached, words, words, cached, installNotFound)
}

// sshCmd is the ssh command running script on a's host. ROSTRA_SSH, when
// set, is the ssh command (its words split at spaces), as GIT_SSH_COMMAND
// is git's.
func sshCmd(a sshAddr, batch bool, script string) *exec.Cmd {
	args := strings.Fields(os.Getenv("ROSTRA_SSH"))
	if len(args) == 0 {
		args = []string{"ssh"}
	}
	if batch {
		args = append(args, "-o", "BatchMode=yes")
	}
	if a.port != "" {
		args = append(args, "-p", a.port)
	}
	args = append(args, "--", a.dest(), script)
	return exec.Command(args[0], args[1:]...)
}

// explainExit words how the ssh command for a's host ended, from its
// exit code and what it said on stderr.
func explainExit(a sshAddr, code int, said string) error {
	said = strings.TrimSpace(strings.ReplaceAll(said, "\r\n", "\n")) // ssh ends its lines for a terminal
	switch code {
	case installNotFound:
		return fmt.Errorf("rostra is not installed on %s (%s): install rostra %s there, on its PATH, or give --install to copy this binary to ~/.cache/rostra/%s/rostra there (docs/remote.md)",
			a.host, said, vt.Version(), versionDir())
	case bridgeNoServer:
		return &remoteNoServer{host: a.host, said: said}
	case 255:
		return fmt.Errorf("ssh to %s failed: %s", a.host, said)
	}
	return fmt.Errorf("on %s: %s (exit code %d)", a.host, said, code)
}

// remoteNoServer is the bridge's answer when no server runs for the run:
// what its state files say there.
type remoteNoServer struct{ host, said string }

func (e *remoteNoServer) Error() string { return "on " + e.host + ": " + e.said }
func (e *remoteNoServer) Unwrap() error { return server.ErrNoServer }

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
	return startStream(a, sshCmd(a, !remoteInteractive, rostraScript(bridgeMode, "--run", remoteWord(a.path))))
}

// startStream starts cmd with one end of a socket pair as its stdin and
// stdout and returns the other end.
func startStream(a sshAddr, cmd *exec.Cmd) (server.Stream, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("make a socket pair for ssh: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "rostra-ssh"), os.NewFile(uintptr(fds[1]), "ssh-stdio")
	defer ours.Close()
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	if err != nil {
		return nil, fmt.Errorf("use the socket pair for ssh: %w", err)
	}
	s := &cmdStream{UnixConn: fc.(*net.UnixConn), addr: a, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, theirs, &s.stderr
	if err := cmd.Start(); err != nil {
		fc.Close()
		return nil, fmt.Errorf("start ssh for %s: %w (ROSTRA_SSH names another ssh command)", a.host, err)
	}
	s.cmd = cmd
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// cmdStream is the connection through a transport command: a read or
// write that fails once the command has failed says why it did.
type cmdStream struct {
	*net.UnixConn
	addr    sshAddr
	cmd     *exec.Cmd
	stderr  lockedBuffer
	done    chan struct{}
	waitErr error
}

func (s *cmdStream) Read(p []byte) (int, error) {
	n, err := s.UnixConn.Read(p)
	if err != nil {
		err = s.why(err)
	}
	return n, err
}

func (s *cmdStream) Write(p []byte) (int, error) {
	n, err := s.UnixConn.Write(p)
	if err != nil {
		err = s.why(err)
	}
	return n, err
}

// why is err, or, when the command failed, what it said.
func (s *cmdStream) why(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		return err
	}
	var exit *exec.ExitError
	if errors.As(s.waitErr, &exit) {
		return explainExit(s.addr, exit.ExitCode(), s.stderr.String())
	}
	return err
}

// Close ends the connection and waits for the command to see it end.
func (s *cmdStream) Close() error {
	err := s.UnixConn.Close()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return err
}

// lockedBuffer is a command's stderr, written by exec's copier while a
// failed read asks for it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// unameNames is what `uname -sm` says on a machine this binary runs on.
func unameNames() (sys string, machines []string) {
	sys = map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD"}[runtime.GOOS]
	machines = map[string][]string{
		"amd64": {"x86_64", "amd64"}, "arm64": {"aarch64", "arm64"}, "386": {"i386", "i686"},
		"arm": {"armv6l", "armv7l"}, "riscv64": {"riscv64"}, "ppc64le": {"ppc64le"}, "s390x": {"s390x"},
	}[runtime.GOARCH]
	return sys, machines
}

// installOn copies this binary to ~/.cache/rostra/<version>/rostra on a's
// host when its OS and architecture are this one's.
func installOn(a sshAddr) error {
	var out, said bytes.Buffer
	cmd := sshCmd(a, true, "uname -sm")
	cmd.Stdout, cmd.Stderr = &out, &said
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install rostra on %s: uname -sm there: %v: %s", a.host, err, strings.TrimSpace(said.String()))
	}
	f := strings.Fields(out.String())
	sys, machines := unameNames()
	if len(f) != 2 || f[0] != sys || !slices.Contains(machines, f[1]) {
		return fmt.Errorf("install rostra on %s: it is %q (uname -sm), this rostra is built for %s/%s: build rostra for that machine (GOOS, GOARCH) and put it on its PATH",
			a.host, strings.TrimSpace(out.String()), runtime.GOOS, runtime.GOARCH)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("install rostra on %s: find this binary: %w", a.host, err)
	}
	bin, err := os.Open(exe)
	if err != nil {
		return fmt.Errorf("install rostra on %s: %w", a.host, err)
	}
	defer bin.Close()
	dir := "~/.cache/rostra/" + versionDir()
	said.Reset()
	cmd = sshCmd(a, true, fmt.Sprintf(`d=%s && mkdir -p "$d" && cat >"$d/rostra.part" && chmod 755 "$d/rostra.part" && mv -f "$d/rostra.part" "$d/rostra"`, dir))
	cmd.Stdin, cmd.Stderr = bin, &said
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install rostra on %s: copy it to %s/rostra: %v: %s", a.host, dir, err, strings.TrimSpace(said.String()))
	}
	return nil
}

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
			out[i] = remoteWord(a.path)
		}
	}
	if install {
		if err := installOn(a); err != nil {
			fmt.Fprintf(stderr, "rostra %s: %v\n", args[0], err)
			return 1, true
		}
	}
	cmd := sshCmd(a, true, rostraScript(out...))
	// The host's rostra writes to a pipe, so raw: a terminal here gets
	// its colours only (docs/design.md, "Nothing raw reaches a terminal").
	w := stdout
	if isTerminal(stdout) {
		w = printable.ColoursOnly(stdout)
	}
	var said lockedBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, w, io.MultiWriter(stderr, &said)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, true
	case errors.As(err, &exit) && (exit.ExitCode() == installNotFound || exit.ExitCode() == 255):
		fmt.Fprintf(stderr, "rostra %s: %v\n", args[0], explainExit(a, exit.ExitCode(), said.String()))
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
