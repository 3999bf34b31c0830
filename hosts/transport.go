// Package hosts places a run's workers on other machines (docs/remote.md
// §One roster over many hosts). For each host with workers it brings the
// run's base commit there, writes the host's part of the run and starts
// it with the rostra there, then mirrors the part's rows and panes into
// the local engine (engine.Parts) and brings each attempt's commit home.
//
// transport.go is how a host is reached: package transport's command,
// made from the host's spec. ssh: hosts run the system's ssh (or
// ROSTRA_SSH) with BatchMode, the script one word after the destination;
// transport: hosts run their argv with the script appended (kubectl exec
// -i POD -- sh -c, docker exec -i CONTAINER sh -c, ip netns exec NS sh
// -c). git reaches the host through the same command (GIT_SSH_COMMAND).
package hosts

import (
	"os/exec"
	"strings"

	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/transport"
)

// Transport runs commands on one host.
type Transport struct {
	Host runfile.HostSpec
	transport.Command
}

// NewTransport is the transport of h.
func NewTransport(h runfile.HostSpec) Transport {
	name := "host " + h.Name
	if len(h.Transport) > 0 {
		return Transport{Host: h, Command: transport.Argv(name, h.Transport)}
	}
	// A host gone silent is known within 15 s rather than TCP's minutes;
	// a shorter cut is waited out on the same connection.
	return Transport{Host: h, Command: transport.SSH(name, h.SSH, h.Port, true, "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3")}
}

// ssh reports whether the host is reached by ssh.
func (t Transport) ssh() bool { return t.Dest != "" }

// GitSSH is the GIT_SSH_COMMAND, GIT_SSH_VARIANT and URL git reaches the
// repository at path on the host with.
func (t Transport) GitSSH(path string) (command, variant, url string) {
	words := make([]string, len(t.Argv))
	for i, w := range t.Argv {
		words[i] = Quote(w)
	}
	if t.ssh() {
		// git adds the destination itself: drop ours, and the "--".
		// (a port stays with the command, as -p).
		words = words[:len(words)-2]
		return strings.Join(words, " "), "ssh", "ssh://" + t.Host.SSH + path
	}
	// git runs `COMMAND HOST 'git-receive-pack …'` through a shell: the
	// function drops the host word and hands the command line on.
	return `rostra_git() { shift; exec ` + strings.Join(words, " ") + ` "$1"; }; rostra_git`, "simple", "ssh://rostra-host" + path
}

// Quote quotes s for a POSIX shell.
func Quote(s string) string { return transport.Quote(s) }

// bridge is the script that joins the part's server there.
func (p *part) bridge() string {
	return transport.Rostra("__bridge", "--run", Quote(p.state))
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
	script := "cd " + transport.Word(h.Workspace) + ` && top=$(git rev-parse --show-toplevel) && ` + transport.FindRostra() +
		`; exec "$R" ` + Quote(command) + ` --run "$top"/.rostra/parts/` + Quote(run) + `/state ` + strings.Join(words, " ")
	return NewTransport(h).Cmd(script)
}
