//go:build linux

package panes

import (
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChildrenOfListsThisProcesssChildren: the children started here are
// listed, and nothing else.
func TestChildrenOfListsThisProcesssChildren(t *testing.T) {
	var cmds []*exec.Cmd
	for range 3 {
		c := exec.Command("sleep", "60")
		require.NoError(t, c.Start())
		cmds = append(cmds, c)
	}
	got := childrenOf(os.Getpid())
	for _, c := range cmds {
		require.Contains(t, got, c.Process.Pid)
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	for _, c := range cmds {
		require.False(t, slices.Contains(childrenOf(os.Getpid()), c.Process.Pid))
	}
}

// BenchmarkChildrenOf is the supervisor's sweep of rostra's own children
// (before each start) with 100 of them.
func BenchmarkChildrenOf(b *testing.B) {
	var cmds []*exec.Cmd
	for range 100 {
		c := exec.Command("sleep", "600")
		require.NoError(b, c.Start())
		cmds = append(cmds, c)
	}
	b.Cleanup(func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})
	b.ReportAllocs()
	for b.Loop() {
		if n := len(childrenOf(os.Getpid())); n < 100 {
			b.Fatalf("%d children", n)
		}
	}
}
