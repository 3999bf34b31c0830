// signals.go names the signals that stop a run and the exit code each one
// gives. SIGINT and SIGTERM (a human, a supervisor), SIGHUP (the terminal
// closed) and SIGQUIT (Ctrl-\) all stop every worker gracefully and leave
// settled rows; the Go runtime's default for SIGHUP and SIGQUIT would kill
// rostra outright (a goroutine dump for SIGQUIT) with the state `running`
// and the terminal in raw mode.
package main

import (
	"os"
	"syscall"
)

// stopSignals stop a run as a quit does.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// signalExitCode is rostra's exit code after sig stopped the run: 128 plus
// the signal's number, as a shell reports a process the signal killed;
// SIGTERM gives 130 like SIGINT, as it always has (docs/commands.md §Exit codes).
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok && s != syscall.SIGTERM {
		return 128 + int(s)
	}
	return 130
}
