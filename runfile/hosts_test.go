// hosts_test.go checks the hosts: key and the workers' host: (hosts.go):
// what a valid one gives, and every problem of a bad one listed at once.
package runfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadHostsPlacesWorkers(t *testing.T) {
	p, _ := loadOK(t, `
version: 1
name: spread
hosts:
  box: { ssh: "me@box:2222", workspace: /srv/proj, max_workers: 2 }
  pod: { transport: [kubectl, exec, -i, pod-1, --], workspace: "~/proj" }
defaults: { host: box }
workers:
  - { id: a, command: ["true"] }
  - { id: b, command: ["true"], host: pod }
  - { id: c, command: ["true"], host: local }
`)
	require.Len(t, p.Hosts, 2)
	box := p.Hosts["box"]
	assert.Equal(t, "me@box", box.SSH)
	assert.Equal(t, "2222", box.Port)
	assert.Equal(t, "/srv/proj", box.Workspace)
	assert.Equal(t, 2, box.MaxWorkers)
	assert.Equal(t, 5, box.At.Line)
	pod := p.Hosts["pod"]
	assert.Equal(t, []string{"kubectl", "exec", "-i", "pod-1", "--"}, pod.Transport)
	assert.Equal(t, "~/proj", pod.Workspace)
	assert.Equal(t, "box", p.Workers[0].Host)
	assert.Equal(t, "pod", p.Workers[1].Host)
	assert.Equal(t, "", p.Workers[2].Host, "host: local is this machine")
	assert.Equal(t, []string{"box", "pod"}, p.HostNames())
}

func TestLoadHostsProblemsAllAtOnce(t *testing.T) {
	ps := loadProblems(t, t.TempDir(), `
version: 1
name: spread
hosts:
  box: { ssh: "me@box", workspace: /srv/proj, max_workers: 1 }
  both: { ssh: x, transport: [y], workspace: /p }
  none: { workspace: rel }
  local: { ssh: x, workspace: /x }
  typo: { ssh: x, workspace: /x, max_worker: 2 }
defaults: { host: box }
workers:
  - { id: a, command: ["true"] }
  - { id: b, command: ["true"] }
  - { id: c, command: ["true"], host: nowhere }
`)
	assert.Equal(t, []string{
		"hosts.box: host box takes at most 1 worker(s) (max_workers) and the run places 2 there: raise max_workers or place some elsewhere",
		"hosts.both.transport: a host is reached by ssh: or by transport:, not both; drop one",
		"hosts.none: host none says neither ssh: (user@box) nor transport: ([argv...]); add one",
		`hosts.none.workspace: "rel" is neither absolute nor in the home there (~/…): write the repository's path on none`,
		"hosts.local: local is this machine, always there: give the host another name",
		`hosts.typo: unknown key "max_worker" (did you mean "max_workers"?); allowed keys: ssh, transport, workspace, max_workers`,
		`workers[2].host: unknown host "nowhere"; the run's hosts are both, box, local, none, typo: add it under hosts: or place the worker on one of them`,
	}, messages(ps))
	assert.Equal(t, 5, ps[0].Line)
	assert.Equal(t, 3, ps[0].Col)
}

func TestPartFileKeepsOnlyTheHostsWorkers(t *testing.T) {
	src := `version: 1
name: spread
x-common: &common { command: [bash, -c, "{prompt}"], timeout: 5m }
hosts:
  box: { ssh: me@box, workspace: /srv/proj }
defaults: { host: box, max_attempts: 2 }
workers:
  - { <<: *common, id: a, prompt: "one" }
  - { <<: *common, id: b, host: local }
  - { id: c, command: ["true"], host: box, isolation: worktree }
`
	dir := t.TempDir()
	tree, state := filepath.Join(dir, "tree"), filepath.Join(dir, "state")
	require.NoError(t, os.MkdirAll(filepath.Join(tree, ".git"), 0o755))
	part, err := PartFile([]byte(src), "box", tree, state)
	require.NoError(t, err)
	p, _ := loadOK(t, string(part))
	assert.Equal(t, "spread", p.Name)
	assert.Equal(t, tree, p.Workspace)
	assert.Equal(t, state, p.StateDir)
	require.Len(t, p.Workers, 2)
	assert.Equal(t, "a", p.Workers[0].ID)
	assert.Equal(t, []string{"bash", "-c", "{prompt}"}, p.Workers[0].Command, "the anchor is resolved")
	assert.Equal(t, 2, p.Workers[0].MaxAttempts)
	assert.Equal(t, "c", p.Workers[1].ID)
	assert.Equal(t, IsolationWorktree, p.Workers[1].Isolation)
	assert.Empty(t, p.Hosts)
	assert.Empty(t, p.Workers[0].Host)

	_, err = PartFile([]byte(src), "pod", "/w", "/s")
	assert.ErrorContains(t, err, "no worker of the run is placed on host pod")
}
