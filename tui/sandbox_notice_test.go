// sandbox_notice_test.go checks the pane's DEGRADED line of an attempt run
// without its sandbox (noticesFor, pane.go; docs/sandbox.md).
package tui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rostra-dev/rostra/statedir"
)

func TestNoticesSayASandboxRanDegraded(t *testing.T) {
	d := &statedir.DispatchRow{Surface: "pane", Sandbox: "none", SandboxDegradedReason: "start bash: sandbox: the kernel has no Landlock"}
	assert.Equal(t, []string{"DEGRADED sandbox -> none: start bash: sandbox: the kernel has no Landlock"},
		trimmed(noticesFor(d, 80, nil)))

	d.DegradedFrom, d.Surface, d.DegradedReason = "pane", "wrapper", "open pty: no ptys"
	got := strings.Join(trimmed(noticesFor(d, 200, nil)), "")
	assert.Equal(t, "DEGRADED pane -> wrapper: open pty: no ptys; DEGRADED sandbox -> none: start bash: sandbox: the kernel has no Landlock", got)

	assert.Nil(t, noticesFor(&statedir.DispatchRow{Surface: "pane", Sandbox: "writes"}, 80, nil))
}

func trimmed(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}
