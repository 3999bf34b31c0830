// Package transport is how rostra reaches another machine
// (docs/remote.md): a command that runs one shell script there with its
// stdin and stdout joined to ours. An ssh:// address and an ssh: host run
// the system's ssh (or the command ROSTRA_SSH names), the script one word
// after the destination; a transport: host runs its argv with the script
// appended (kubectl exec -i POD -- sh -c, docker exec -i CONTAINER sh -c,
// ip netns exec NS sh -c). On it: the rostra found there (this version's
// copy in ~/.cache/rostra/<version>/, else the one on its PATH), the copy
// --install puts there (install.go), and the byte stream to a run's
// server through `rostra __bridge` (stream.go). What the command says when
// it fails is worded once, here: rostra not there, no server for the run,
// ssh's own refusal.
//
// cmd/rostra (ssh:// addresses) and hosts (a run's hosts) both use it.
package transport

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/server"
)

// Exit codes of the script there that mean something to rostra.
const (
	// NotFound is the shell's exit code when no rostra is there.
	NotFound = 127
	// NoServer is `rostra __bridge`'s exit code when no server runs for
	// the run (docs/remote.md §The bridge).
	NoServer = 3
	// sshFailed is ssh's own exit code when it could not do its part.
	sshFailed = 255
)

// Command is how one machine is reached.
type Command struct {
	// Name names the machine in messages: "build-box", "host a".
	Name string
	// Argv is the command; the script is appended to it as one word.
	Argv []string
	// Dest is ssh's destination when Argv is ssh's (its last word, after
	// "--"); "" for another transport.
	Dest string
}

// SSH is the ssh command to dest ([user@]host) with opts (ssh's -o
// options and such) and, when port is not "", -p port. ROSTRA_SSH, when
// set, is the ssh command (its words split at spaces), as GIT_SSH_COMMAND
// is git's. batch: ssh may not ask for anything (BatchMode=yes).
func SSH(name, dest, port string, batch bool, opts ...string) Command {
	args := strings.Fields(os.Getenv("ROSTRA_SSH"))
	if len(args) == 0 {
		args = []string{"ssh"}
	}
	if batch {
		args = append(args, "-o", "BatchMode=yes")
	}
	args = append(args, opts...)
	if port != "" {
		args = append(args, "-p", port)
	}
	return Command{Name: name, Argv: append(args, "--", dest), Dest: dest}
}

// Argv is the transport command argv (it takes the script as its last
// word).
func Argv(name string, argv []string) Command {
	return Command{Name: name, Argv: append([]string(nil), argv...)}
}

// Cmd is the command that runs script there.
func (c Command) Cmd(script string) *exec.Cmd {
	args := append(append([]string(nil), c.Argv...), script)
	return exec.Command(args[0], args[1:]...)
}

// Run runs script there (stdin its input, nil for none) and returns its
// stdout; an error says how it ended (Explain).
func (c Command) Run(script string, stdin []byte) (string, error) {
	cmd := c.Cmd(script)
	var out, said strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &said
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	if err := cmd.Run(); err != nil {
		return out.String(), c.Explain(err, said.String())
	}
	return out.String(), nil
}

// Explain words how the command there ended, err its Wait's error and
// said what it wrote on stderr.
func (c Command) Explain(err error, said string) error {
	said = strings.TrimSpace(strings.ReplaceAll(said, "\r\n", "\n")) // ssh ends its lines for a terminal
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("reach %s: %w", c.Name, err)
	}
	switch code := exit.ExitCode(); {
	case code == NotFound:
		return fmt.Errorf("rostra is not installed on %s (%s): install rostra %s there, on its PATH, or give --install to copy this binary to %s there (docs/remote.md)",
			c.Name, said, vt.Version(), CachedRostra())
	case code == NoServer:
		return &NoServerError{On: c.Name, Said: said}
	case code == sshFailed && c.Dest != "":
		return fmt.Errorf("ssh to %s failed: %s", c.Dest, said)
	case said == "":
		return fmt.Errorf("on %s: %v", c.Name, err)
	default:
		return fmt.Errorf("on %s: %s (exit code %d)", c.Name, said, code)
	}
}

// NoServerError is the bridge's answer when no server runs for the run:
// what the run's state files say there. It is a server.ErrNoServer.
type NoServerError struct{ On, Said string }

func (e *NoServerError) Error() string { return "on " + e.On + ": " + e.Said }
func (e *NoServerError) Unwrap() error { return server.ErrNoServer }

// VersionDir is this version's folder name under ~/.cache/rostra.
func VersionDir() string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '+' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, vt.Version())
}

// CachedRostra is where --install puts this version there, as the
// shell there reads it (~ its home).
func CachedRostra() string { return "~/.cache/rostra/" + VersionDir() + "/rostra" }

// FindRostra is the shell that sets R to the rostra to run there: this
// version's installed copy, else the one on its PATH, else it exits
// NotFound saying so.
func FindRostra() string {
	return fmt.Sprintf(`R=%s; if [ ! -x "$R" ]; then R=$(command -v rostra) || { echo "no rostra on PATH ($PATH) nor in %s" >&2; exit %d; }; fi`,
		CachedRostra(), CachedRostra(), NotFound)
}

// FindRostraQuiet sets R as FindRostra does, to "" when there is none.
func FindRostraQuiet() string {
	return fmt.Sprintf(`R=%s; if [ ! -x "$R" ]; then R=$(command -v rostra 2>/dev/null); fi`, CachedRostra())
}

// Rostra is the script that runs rostra with args there (each already
// quoted for its shell).
func Rostra(args ...string) string {
	return FindRostra() + `; exec "$R" ` + strings.Join(args, " ")
}

// Quote quotes s for a POSIX shell when it needs it.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' || r == ',' || r == '=' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Word quotes path for the shell there, a leading ~/ left to it (the
// home there).
func Word(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return "~/" + Quote(rest)
	}
	return Quote(path)
}
