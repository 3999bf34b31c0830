// Package hosts places a run's workers on other machines (docs/remote.md
// §One roster over many hosts). For each host with workers it brings the
// run's base commit there, writes the host's part of the run and starts
// it with the rostra there, then mirrors the part's rows and panes into
// the local engine (engine.Parts) and brings each attempt's commit home.
//
// transport.go is how a host is reached: a command that runs a shell
// script there. ssh: hosts run the system's ssh (or ROSTRA_SSH) with
// BatchMode, the script one word after the destination; transport: hosts
// run their argv with `sh -c SCRIPT` appended (kubectl exec -i POD --,
// docker exec -i CONTAINER, ip netns exec NS). git reaches the host
// through the same command (GIT_SSH_COMMAND).
package hosts

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/server"
)

// Transport runs commands on one host.
type Transport struct {
	Host runfile.HostSpec
	base []string
	ssh  bool
}

// NewTransport is the transport of h.
func NewTransport(h runfile.HostSpec) Transport {
	if len(h.Transport) > 0 {
		return Transport{Host: h, base: h.Transport}
	}
	args := strings.Fields(os.Getenv("ROSTRA_SSH"))
	if len(args) == 0 {
		args = []string{"ssh"}
	}
	// A host gone silent is known within 15 s rather than TCP's minutes;
	// a shorter cut is waited out on the same connection.
	args = append(args, "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3")
	if h.Port != "" {
		args = append(args, "-p", h.Port)
	}
	return Transport{Host: h, base: append(args, "--", h.SSH), ssh: true}
}

// Command is the command that runs script on the host.
func (t Transport) Command(script string) *exec.Cmd {
	args := append(append([]string(nil), t.base...), script)
	return exec.Command(args[0], args[1:]...)
}

// Run runs script on the host and returns its stdout; an error carries
// what the command said on stderr.
func (t Transport) Run(script string, stdin []byte) (string, error) {
	cmd := t.Command(script)
	var out, said strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &said
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	if err := cmd.Run(); err != nil {
		return out.String(), t.explain(err, said.String())
	}
	return out.String(), nil
}

// explain words how the command ended.
func (t Transport) explain(err error, said string) error {
	said = strings.TrimSpace(strings.ReplaceAll(said, "\r\n", "\n"))
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 255 && t.ssh:
		return fmt.Errorf("ssh to %s failed: %s", t.Host.SSH, said)
	case errors.As(err, &exit) && exit.ExitCode() == bridgeNoServer:
		return fmt.Errorf("%w on host %s: %s", errNoServer, t.Host.Name, said)
	case errors.As(err, &exit) && exit.ExitCode() == notFound:
		return fmt.Errorf("rostra is not installed on host %s (%s): install rostra %s there, on its PATH, or in ~/.cache/rostra/%s/rostra", t.Host.Name, said, vt.Version(), versionDir())
	case errors.As(err, &exit):
		if said == "" {
			said = err.Error()
		}
		return fmt.Errorf("on host %s: %s (exit code %d)", t.Host.Name, said, exit.ExitCode())
	}
	return fmt.Errorf("reach host %s: %w", t.Host.Name, err)
}

// GitSSH is the GIT_SSH_COMMAND, GIT_SSH_VARIANT and URL git reaches the
// repository at path on the host with.
func (t Transport) GitSSH(path string) (command, variant, url string) {
	words := make([]string, len(t.base))
	for i, w := range t.base {
		words[i] = Quote(w)
	}
	if t.ssh {
		// git adds the destination itself: drop ours, and the "--".
		// (a port stays with the command, as -p).
		words = words[:len(words)-2]
		return strings.Join(words, " "), "ssh", "ssh://" + t.Host.SSH + path
	}
	// git runs `COMMAND HOST 'git-receive-pack …'` through a shell: the
	// function drops the host word and hands the command line on.
	return `rostra_git() { shift; exec ` + strings.Join(words, " ") + ` "$1"; }; rostra_git`, "simple", "ssh://rostra-host" + path
}

// notFound is the exit code of the host's shell when no rostra is there.
const notFound = 127

// bridgeNoServer is `rostra __bridge`'s exit code when no server runs for
// the run (docs/remote.md §The bridge).
const bridgeNoServer = 3

// errNoServer: the part's server is not running there.
var errNoServer = errors.New("no server runs for the part")

// versionDir is this version's folder name under ~/.cache/rostra (as
// rostra --install names it, docs/remote.md §Installing rostra there).
func versionDir() string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '+' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, vt.Version())
}

// findRostra is the shell that sets R to the rostra to run there: this
// version's installed copy, else the one on PATH, else it exits notFound.
func findRostra() string {
	cached := "~/.cache/rostra/" + versionDir() + "/rostra"
	return fmt.Sprintf(`R=%s; if [ ! -x "$R" ]; then R=$(command -v rostra) || { echo "no rostra on PATH ($PATH) nor in %s" >&2; exit %d; }; fi`, cached, cached, notFound)
}

// rostraScript runs rostra with args there (each already quoted).
func rostraScript(args ...string) string {
	return findRostra() + `; exec "$R" ` + strings.Join(args, " ")
}

// Quote quotes s for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' || r == ',' || r == '=' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Stream starts script there with one end of a socket pair as its stdin
// and stdout, and returns the other end: the connection `rostra
// __bridge` makes to a run's server.
func (t Transport) Stream(script string) (server.Stream, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("make a socket pair for host %s: %w", t.Host.Name, err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "rostra-host"), os.NewFile(uintptr(fds[1]), "host-stdio")
	defer ours.Close()
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	if err != nil {
		return nil, fmt.Errorf("use the socket pair for host %s: %w", t.Host.Name, err)
	}
	cmd := t.Command(script)
	s := &stream{UnixConn: fc.(*net.UnixConn), t: t, cmd: cmd, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, theirs, &s.said
	if err := cmd.Start(); err != nil {
		fc.Close()
		return nil, fmt.Errorf("reach host %s: %w", t.Host.Name, err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// stream is a connection through the transport: a read that fails once
// the command has ended says what it said.
type stream struct {
	*net.UnixConn
	t       Transport
	cmd     *exec.Cmd
	said    lockedBuffer
	done    chan struct{}
	waitErr error
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.UnixConn.Read(p)
	if err != nil {
		err = s.why(err)
	}
	return n, err
}

func (s *stream) why(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		return err
	}
	if s.waitErr != nil {
		return s.t.explain(s.waitErr, s.said.String())
	}
	return err
}

// Close ends the connection and the command.
func (s *stream) Close() error {
	err := s.UnixConn.Close()
	select {
	case <-s.done:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return err
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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

// PartCommand is the command that runs `rostra CMD --run STATE ARGS` on h for
// the part of run there, STATE its state dir (found from the workspace,
// as the part's start placed it): how a command that reads a run's files,
// such as logs, reaches a remote worker's.
func PartCommand(h runfile.HostSpec, run, command string, args ...string) *exec.Cmd {
	words := make([]string, 0, len(args))
	for _, a := range args {
		words = append(words, Quote(a))
	}
	script := "cd " + remoteWord(h.Workspace) + ` && top=$(git rev-parse --show-toplevel) && ` + findRostra() +
		`; exec "$R" ` + Quote(command) + ` --run "$top"/.rostra/parts/` + Quote(run) + `/state ` + strings.Join(words, " ")
	return NewTransport(h).Command(script)
}
