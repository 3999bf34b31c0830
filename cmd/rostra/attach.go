// attach.go wires `rostra attach [PATH]` and the attaching half of
// `rostra run` and `rostra demo`: this terminal relays keys and output to
// the run's server (server.Attach) until the human detaches, leaves or
// stops the run. PATH, here and in every control command, is a run file or
// a state dir (runref.go).
//
// Exit codes: a detach (d, q then d, a closed terminal) exits 0 and says how
// to come back; a detach by a signal exits 128+n as a stopped run would
// (130 for SIGTERM); leaving or stopping the run exits with the run's code;
// no server exits 2.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/rostra-dev/rostra/server"
)

const attachUsage = `usage: rostra attach [--run PATH] [PATH...]

Shows the UI of the run whose server runs for PATH (a run file or a state
dir, or an ssh:// address; default ./rostra.yaml). d detaches again; the
run goes on. Given more than one PATH, shows every run's workers in one
UI, each pane's title led by its run (docs/remote.md).
`

func runAttach(args []string, stdout, stderr io.Writer) int {
	c := newControlCmd("attach", attachUsage, stderr)
	rest, code, ok := c.parseFlags(args)
	if !ok {
		return code
	}
	if refs := append(nonEmpty(*c.runFlag), rest...); len(refs) > 1 {
		if !themeEnvOK("attach", stderr) {
			return 2
		}
		return attachMany(refs, stdout, stderr) // attachmany.go
	}
	run, code, ok := newControlCmd("attach", attachUsage, stderr).parseRun(args)
	if !ok {
		return code
	}
	if !themeEnvOK("attach", stderr) {
		return 2
	}
	if run.remote {
		remoteInteractive = true // ssh may ask for a passphrase before the UI takes the terminal
	} else if c, err := server.Dial(run.stateDir); err != nil {
		fmt.Fprintf(stderr, "rostra attach: %v\n", err)
		if errors.Is(err, server.ErrNoServer) {
			fmt.Fprint(stderr, run.noServerHint())
		}
		return 2
	} else {
		c.Close()
	}
	if !isTerminal(stdout) || !isTerminal(os.Stdin) {
		fmt.Fprintf(stderr, "rostra attach: stdin and stdout must be a terminal (rostra status, logs and send work without one)\n")
		return 2
	}
	return attach(run, stderr)
}

// attach relays this terminal to run's server and says how it ended.
func attach(run runRef, stderr io.Writer) int {
	// What this process did before (the run file loaded, the server
	// started) is garbage its heap, far under the collector's goal, would
	// keep for as long as the relay runs, which allocates next to nothing
	// (docs/performance.md §Memory of a quiet pane).
	debug.FreeOSMemory()
	bye, err := server.Attach(run.stateDir, os.Stdin, os.Stdout, notifyEnviron(os.Environ()))
	switch {
	case errors.Is(err, server.ErrNoServer):
		fmt.Fprintf(stderr, "rostra attach: %v\n%s", err, run.noServerHint())
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "rostra attach: %v\n%s shows the run; if the server died, %s continues it\n",
			err, run.cmd("status"), run.cmd("run --resume"))
		return 1
	}
	switch bye.Reason {
	case server.ByeDetached:
		how := "detached"
		if bye.Message != "" {
			how += " (" + bye.Message + ")"
		}
		fmt.Fprintf(stderr, "rostra: %s from run %s; it goes on. %s comes back; %s ends it\n",
			how, run.runName(), run.cmd("attach"), run.cmd("stop"))
		if bye.Signal != 0 {
			return signalExitCode(bye.Signal)
		}
		return 0
	case server.ByeStopped, server.ByeLeft:
		if bye.Message != "" && bye.Reason == server.ByeStopped {
			fmt.Fprintf(stderr, "rostra: the run stopped: %s\n", bye.Message)
		}
		fmt.Fprintf(stderr, "rostra: state in %s\n", run.stateDir)
		return bye.Code
	case server.ByeRefused:
		fmt.Fprintf(stderr, "rostra attach: the server refused: %s\n", bye.Message)
		return 2
	}
	fmt.Fprintf(stderr, "rostra attach: %s: %s\n", bye.Reason, bye.Message)
	if bye.Code == 0 {
		return 1
	}
	return bye.Code
}

// nonEmpty is s as a list: none when it is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
