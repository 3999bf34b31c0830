// The test's way to bound a CLI's run with a context.
package agenttest

import (
	"context"
	"os/exec"
)

// commandContext is cmd killed when ctx ends.
func commandContext(ctx context.Context, cmd *exec.Cmd) *exec.Cmd {
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Dir, c.Env = cmd.Dir, cmd.Env
	return c
}
