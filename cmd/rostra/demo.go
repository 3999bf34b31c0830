// demo.go wires `rostra demo [--detach]`: the embedded demo roster copied
// into a fresh temp workspace and run there as `rostra run` runs a roster
// (a server, attached to; headless without a terminal); the workspace's
// path is printed on exit so its state files can be read afterwards.
package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rostra-dev/rostra"
	"github.com/rostra-dev/rostra/engine"
)

func runDemo(args []string, stdout, stderr io.Writer) int {
	detach := len(args) == 1 && args[0] == "--detach"
	if len(args) > 0 && !detach {
		fmt.Fprint(stderr, "usage: rostra demo [--detach]\n")
		return 2
	}
	ws, err := copyDemo()
	if err != nil {
		fmt.Fprintf(stderr, "rostra demo: %v\n", err)
		return 1
	}
	file := filepath.Join(ws, "rostra.yaml")
	plan, err := engine.Load(file)
	if err != nil {
		fmt.Fprintf(stderr, "rostra demo: %v\n", err)
		return 2
	}
	var code int
	switch {
	case detach || isTerminal(stdout):
		// As `rostra run`: a server, attached to unless --detach.
		code = runServed(file, runRef{ref: file, stateDir: plan.StateDir, name: plan.Name}, plan, false, detach, stdout, stderr)
	default:
		code = runHeadless(plan, false, stdout, stderr)
	}
	fmt.Fprintf(stderr, "rostra demo: the demo workspace is %s\n", ws)
	return code
}

// copyDemo writes the embedded demo into a new temp folder.
func copyDemo() (string, error) {
	ws, err := os.MkdirTemp("", "rostra-demo-")
	if err != nil {
		return "", fmt.Errorf("create the demo workspace: %w", err)
	}
	sub, err := fs.Sub(rostra.Demo, rostra.DemoRoot)
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(ws, sub); err != nil {
		return "", fmt.Errorf("copy the demo into %s: %w", ws, err)
	}
	return ws, nil
}
