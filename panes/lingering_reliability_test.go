//go:build linux

// lingering_reliability_test.go checks StopRunLeftovers on real processes:
// what a SIGKILLed rostra left of a run (a child ignoring SIGTERM, its own
// child) is found by the run's environment entry and stopped; a process of
// another run is not touched.
package panes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReliabilityStopRunLeftovers(t *testing.T) {
	dead := t.TempDir()  // the state dir of the run whose rostra died
	other := t.TempDir() // another run's
	gcFile := filepath.Join(t.TempDir(), "gc.pid")
	start := func(stateDir, script string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), "ROSTRA_STATE_DIR="+stateDir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_, _ = cmd.Process.Wait()
		})
		return cmd
	}
	leftover := start(dead, `trap "" TERM; sleep 30 & echo $! > `+gcFile+`; wait`)
	bystander := start(other, `exec sleep 30`)
	var gc int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(gcFile)
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(data), &gc)
		return err == nil && gc > 0
	}, 5*time.Second, 5*time.Millisecond)

	began := time.Now()
	found, left := StopRunLeftovers("ROSTRA_STATE_DIR", dead, 300*time.Millisecond)
	assert.ElementsMatch(t, []int{leftover.Process.Pid, gc}, found)
	assert.Empty(t, left)
	assert.GreaterOrEqual(t, time.Since(began), 300*time.Millisecond, "the leader ignored SIGTERM: only SIGKILL after the grace ended it")
	assert.True(t, pidGone(gc) || isZombie(gc), "grandchild %d still running", gc)
	assert.False(t, pidGone(bystander.Process.Pid), "another run's process is left alone")

	found, _ = StopRunLeftovers("ROSTRA_STATE_DIR", t.TempDir(), time.Second)
	assert.Empty(t, found)
}

func isZombie(pid int) bool {
	st, ok := readProcStat(pid)
	return ok && dead(st)
}
