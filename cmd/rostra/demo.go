// demo.go wires `rostra demo`: the embedded demo roster copied into a
// fresh temp workspace and run there; the workspace's path is printed on
// exit so its state files can be read afterwards.
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
	if len(args) > 0 {
		fmt.Fprint(stderr, "usage: rostra demo\n")
		return 2
	}
	ws, err := copyDemo()
	if err != nil {
		fmt.Fprintf(stderr, "rostra demo: %v\n", err)
		return 1
	}
	plan, err := engine.Load(filepath.Join(ws, "rostra.yaml"))
	if err != nil {
		fmt.Fprintf(stderr, "rostra demo: %v\n", err)
		return 2
	}
	run := runHeadless
	if isTerminal(stdout) {
		run = runUI
	}
	code := run(plan, false, stdout, stderr)
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
