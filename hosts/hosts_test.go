// hosts_test.go checks what the hosts package decides without a host:
// the commands a transport runs, git's way there, the problems a probe's
// answers make, and which of a part's rows are mirrored when. The real
// hosts are in cmd/rostra/hosts_e2e_test.go.
package hosts

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
	"github.com/rostra-dev/rostra/transport"
)

func TestTransportCommands(t *testing.T) {
	t.Setenv("ROSTRA_SSH", "ip netns exec ns1 ssh -F /cfg")
	ssh := NewTransport(runfile.HostSpec{Name: "box", SSH: "me@box", Port: "2222"})
	assert.Equal(t, []string{"ip", "netns", "exec", "ns1", "ssh", "-F", "/cfg", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-p", "2222", "--", "me@box", "echo hi"}, ssh.Cmd("echo hi").Args)
	cmd, variant, url := ssh.GitSSH("/srv/proj")
	assert.Equal(t, "ip netns exec ns1 ssh -F /cfg -o BatchMode=yes -o ServerAliveInterval=5 -o ServerAliveCountMax=3 -p 2222", cmd)
	assert.Equal(t, "ssh", variant)
	assert.Equal(t, "ssh://me@box/srv/proj", url)

	pod := NewTransport(runfile.HostSpec{Name: "pod", Transport: []string{"kubectl", "exec", "-i", "p 1", "--", "sh", "-c"}})
	assert.Equal(t, []string{"kubectl", "exec", "-i", "p 1", "--", "sh", "-c", "echo hi"}, pod.Cmd("echo hi").Args)
	cmd, variant, url = pod.GitSSH("/work/api")
	assert.Equal(t, `rostra_git() { shift; exec kubectl exec -i 'p 1' -- sh -c "$1"; }; rostra_git`, cmd)
	assert.Equal(t, "simple", variant)
	assert.Equal(t, "ssh://rostra-host/work/api", url)
}

func TestProbeProblems(t *testing.T) {
	tr := NewTransport(runfile.HostSpec{Name: "box", SSH: "box", Workspace: "~/proj"})
	assert.Empty(t, Facts{Rostra: "rostra " + vt.Version(), Git: "git version 2.39", Workspace: "/home/me/proj", Top: "/home/me/proj"}.Problems(tr))
	assert.Equal(t, []string{
		"host box: no rostra there, on PATH nor in ~/.cache/rostra/" + transport.VersionDir() + "/rostra: install rostra " + vt.Version() + " there, or give --install to copy this binary there",
		"host box: no git on PATH there: install git",
		"host box: the workspace ~/proj is not a folder there: clone the project there, or fix hosts.box.workspace",
	}, Facts{}.Problems(tr))
	assert.Equal(t, []string{
		"host box: it runs rostra 0.0.1, this is rostra " + vt.Version() + ": use the same version on both machines, or give --install to copy this binary there",
		"host box: the workspace /home/me/proj is not in a git repository (fatal: not a git repository): clone the project there",
	}, Facts{Rostra: "rostra 0.0.1", Git: "git version 2.39", Workspace: "/home/me/proj", Said: "fatal: not a git repository"}.Problems(tr))
}

type fakeMirror struct {
	mu   sync.Mutex
	rows []statedir.WorkerRow
}

func (m *fakeMirror) MirrorRow(row statedir.WorkerRow, _ []statedir.DispatchRow) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows = append(m.rows, row)
}
func (m *fakeMirror) MirrorHandle(string, engine.Handle, int) {}

func TestMirrorCopiesChangesAndHoldsASettledRowForItsCommit(t *testing.T) {
	plan := &runfile.Plan{Name: "r", Hosts: map[string]runfile.HostSpec{"box": {Name: "box", SSH: "box"}}, Workers: []runfile.WorkerSpec{
		{ID: "iso", Host: "box", Isolation: runfile.IsolationWorktree, Branch: "rostra/r/iso"},
		{ID: "plain", Host: "box"},
	}}
	ps := New(plan, Options{})
	require.NotNil(t, ps)
	p := ps.parts[0]
	m := &fakeMirror{}
	p.m = m
	now := time.Now()
	st := &statedir.TeamState{Status: statedir.RunRunning,
		Workers: []statedir.WorkerRow{
			{WorkerID: "iso", Status: statedir.StatusCompleted, Attempts: 1, Worktree: "/there/wt/iso"},
			{WorkerID: "plain", Status: statedir.StatusRunning, Attempts: 1},
			{WorkerID: "stranger", Status: statedir.StatusRunning},
		},
		Dispatches: []statedir.DispatchRow{
			{WorkerID: "iso", Attempt: 1, Status: statedir.StatusCompleted, EndedAt: &now, Isolation: runfile.IsolationWorktree, Worktree: "/there/wt/iso"},
			{WorkerID: "plain", Attempt: 1, Status: statedir.StatusRunning},
		}}
	assert.False(t, p.mirror(st))
	require.Len(t, m.rows, 1, "the settled isolated row waits for its commit; a row of no worker here is not copied")
	assert.Equal(t, "plain", m.rows[0].WorkerID)
	assert.False(t, p.mirror(st))
	assert.Len(t, m.rows, 1, "an unchanged row is not copied again")

	st.Status = statedir.RunFinished
	st.Workers[1].Status = statedir.StatusCompleted
	assert.True(t, p.mirror(st), "the part's end: no commit will come")
	require.Len(t, m.rows, 3)
	assert.Equal(t, "iso", m.rows[1].WorkerID)
	assert.Empty(t, m.rows[1].Worktree, "a path on the host is not a worktree here")
	assert.Equal(t, statedir.StatusCompleted, m.rows[2].Status)
}

func TestNewHasNoPartsWithoutRemoteWorkers(t *testing.T) {
	assert.Nil(t, New(&runfile.Plan{Workers: []runfile.WorkerSpec{{ID: "a"}}}, Options{}))
}

func TestPartCommandRunsThereOnThePartsState(t *testing.T) {
	cmd := PartCommand(runfile.HostSpec{Name: "pod", Transport: []string{"docker", "exec", "-i", "c", "sh", "-c"}, Workspace: "~/my proj"}, "spread", "logs", "-f", "--", "on-b")
	require.Len(t, cmd.Args, 7)
	assert.Equal(t, []string{"docker", "exec", "-i", "c", "sh", "-c"}, cmd.Args[:6])
	script := cmd.Args[6]
	assert.Contains(t, script, `cd ~/'my proj' && top=$(git rev-parse --show-toplevel) && `)
	assert.Contains(t, script, `exec "$R" logs --run "$top"/.rostra/parts/spread/state -f -- on-b`)
}
