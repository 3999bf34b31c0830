//go:build linux

// reexec_linux.go runs this binary's hidden roles. Containment needs small
// processes of its own (contain_linux.go): the init of an attempt's PID
// namespace, the watchdog of the attempts' cgroups, and a probe; so does the
// sandbox (sandbox_linux.go), whose helper restricts itself and execs the
// worker. Rather than ship a second binary, rostra starts itself again
// (/proc/self/exe, which stays valid even if the file is replaced) under one
// of these names as argv[0]; this package's init sees the name and runs that
// role instead of the program, before main, in any binary that links panes
// (rostra and the test binaries alike).
package panes

import "os"

func init() {
	if len(os.Args) == 0 {
		return
	}
	switch os.Args[0] {
	case initArg0:
		os.Exit(attemptInit(os.Args[1:]))
	case watchdogArg0:
		os.Exit(cgroupWatchdog(os.Args[1:]))
	case sandboxArg0:
		os.Exit(sandboxExec(os.Args[1:]))
	case probeArg0:
		os.Exit(0)
	}
}
