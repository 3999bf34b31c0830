package testhost

import (
	"os/exec"
	"strings"
	"testing"

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
