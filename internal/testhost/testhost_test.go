package testhost

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A host answers over ssh with its own HOME and PATH, from its own
// address, and leaves no namespace behind.
func TestHostAnswersOverSSH(t *testing.T) {
	var ns []string
	t.Run("host", func(t *testing.T) {
		h := New(t)
		ns = []string{h.ClientNS, h.HostNS}
		out := h.Run(t, `echo "$HOME|$PATH|$SSH_CONNECTION"`)
		assert.Contains(t, out, h.Home+"|"+h.Home+"/bin:")
		assert.Contains(t, out, ClientAddr)
		assert.Contains(t, out, HostAddr+" 22")
	})
	list, err := exec.Command("ip", "netns", "list").Output()
	require.NoError(t, err)
	for _, n := range ns {
		assert.False(t, strings.Contains(string(list), n), "%s left behind", n)
	}
}

// A test process killed before its cleanup (a timeout, SIGKILL) leaves
// nothing: its watcher kills sshd and deletes the namespaces.
func TestHostRemovedWhenTheTestProcessDies(t *testing.T) {
	if os.Getenv("ROSTRA_TESTHOST_CHILD") != "" {
		h := New(t)
		fmt.Println("namespaces", h.ClientNS, h.HostNS)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	child := exec.Command(os.Args[0], "-test.run=^TestHostRemovedWhenTheTestProcessDies$", "-test.v")
	child.Env = append(os.Environ(), "ROSTRA_TESTHOST_CHILD=1")
	out, _ := child.CombinedOutput()
	m := regexp.MustCompile(`namespaces (\S+) (\S+)`).FindStringSubmatch(string(out))
	require.NotNil(t, m, "the child made no host: %s", out)
	gone := func() bool {
		list, _ := exec.Command("ip", "netns", "list").Output()
		return !strings.Contains(string(list), m[1]) && !strings.Contains(string(list), m[2])
	}
	// The watcher looks once a second.
	require.Eventually(t, gone, 10*time.Second, 50*time.Millisecond, "the dead test's namespaces are removed")
	sshds, _ := exec.Command("pgrep", "-f", "sshd -D -e -f /tmp/TestHostRemovedWhenTheTestProcessDies").Output()
	assert.Empty(t, strings.TrimSpace(string(sshds)), "its sshd is gone")
}
