// hostgit.go is the one way rostra's git reaches another host's
// repository (docs/remote.md §One roster over many hosts): a run's base
// commit pushed there, and each attempt's branch fetched back. Every other
// git call of rostra's allows no transport (GitEnv); these allow ssh
// only, through the host's own command.
package workspace

import (
	"fmt"
	"strings"
)

// HostRepo is a repository on another host as git reaches it.
type HostRepo struct {
	URL string
	// SSHCommand and Variant are GIT_SSH_COMMAND and GIT_SSH_VARIANT.
	SSHCommand, Variant string
}

func (h HostRepo) git(dir string) GitRunner {
	return RostraGit(dir).with("GIT_ALLOW_PROTOCOL=ssh", "GIT_SSH_COMMAND="+h.SSHCommand, "GIT_SSH_VARIANT="+h.Variant)
}

// PushBase pushes commit from the repository at dir to ref there.
func (h HostRepo) PushBase(dir, commit, ref string) error {
	if _, err := h.git(dir).Run("push", "--quiet", "--force", "--no-verify", h.URL, commit+":"+ref); err != nil {
		return fmt.Errorf("push the base commit %s to %s: %w", commit, h.URL, err)
	}
	return nil
}

// FetchBranch fetches branch from there into the repository at dir, as
// the same branch (moved to wherever it is there).
func (h HostRepo) FetchBranch(dir, branch string) error {
	ref := "refs/heads/" + strings.TrimPrefix(branch, "refs/heads/")
	if _, err := h.git(dir).Run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", h.URL, "+"+ref+":"+ref); err != nil {
		return fmt.Errorf("fetch %s from %s: %w", branch, h.URL, err)
	}
	return nil
}
