// hosts_e2e_test.go runs one roster over this machine and two test hosts
// (internal/testhost), as docs/remote.md §One roster over many hosts says:
// host a reached by ssh:, host b by a transport: that enters its client's
// network namespace and runs an ssh of its own. Each host's workers run in
// a part of the run there and write their results there; the rows, the
// wait, the status, the diff and the merge are here; the stop leaves
// nothing running on either host.
package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/testhost"
	"github.com/rostra-dev/rostra/statedir"
)

// hostsRunFile places five workers: one here, an isolated one and a
// retried one on a (ssh), an isolated worker and a wrapper worker on b
// (a transport: its own ssh, entered from its client namespace). HOSTA,
// HOSTB, NSB and CFGB are filled in.
const hostsRunFile = `version: 1
name: spread
hosts:
  a: { ssh: testhost, workspace: HOSTA/proj }
  b: { transport: [ip, netns, exec, NSB, ssh, -F, CFGB, -o, BatchMode=yes, testhost], workspace: HOSTB/proj }
providers:
  shell: { command: [bash, -c, "{prompt}"] }
defaults: { retry_backoff: 200ms, max_attempts: 2, stop_grace: 1s }
workers:
  - id: here
    provider: shell
    prompt: "mkdir -p out && echo here > out/here.txt"
    completion: { paths: [out/here.txt] }
  - id: on-a
    provider: shell
    host: a
    isolation: worktree
    prompt: "echo from-a > a.txt; echo on host a; sleep 1; echo done > {result}"
    completion: { result: "{worker}.result" }
  - id: retried
    provider: shell
    host: a
    prompt: "mkdir -p out; if [ {attempt} = 1 ]; then echo first fails; exit 1; fi; echo ok > {result}"
    completion: { result: "out/{worker}.result" }
  - id: on-b
    provider: shell
    host: b
    isolation: worktree
    prompt: "mkdir -p out; echo from-b > b.txt; echo on host b; sleep 1; echo done > {result}"
    completion: { result: "out/{worker}.result" }
  - id: wrapped
    provider: shell
    host: b
    surfaces: [wrapper]
    prompt: "mkdir -p out; echo wrapped > {result}"
    completion: { result: "out/{worker}.result" }
`

// hostsSetup makes the local repository and two hosts, each with a clone
// of it as its workspace and rostra on its PATH.
func hostsSetup(t *testing.T, runYAML string) (ws, runFile string, a, b *testhost.Host, env []string) {
	a, b = newRemoteHost(t, true), newRemoteHost(t, true)
	ws = t.TempDir()
	gitRepo(t, ws)
	for _, h := range []*testhost.Host{a, b} {
		out, err := exec.Command("git", "clone", "-q", ws, filepath.Join(h.Home, "proj")).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	y := strings.NewReplacer("HOSTA", a.Home, "HOSTB", b.Home, "NSB", b.ClientNS, "CFGB", b.Config).Replace(runYAML)
	runFile = filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(y), 0o644))
	env = []string{"ROSTRA_SSH=" + a.SSHCommand()}
	return ws, runFile, a, b, env
}

// partsLeft are the processes left in a host's namespace but its sshd.
func partsLeft(t *testing.T, h *testhost.Host) []string {
	out, err := exec.Command("ip", "netns", "pids", h.HostNS).Output()
	require.NoError(t, err)
	var left []string
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && processGone(pid) {
			continue // ended (a zombie of this test, when it is a subreaper)
		}
		cmdline, _ := os.ReadFile("/proc/" + f + "/cmdline")
		c := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if strings.Contains(c, "sshd -D") {
			continue
		}
		left = append(left, f+": "+c)
	}
	return left
}

func readSpread(t *testing.T, ws string) statedir.TeamState {
	var st statedir.TeamState
	data, err := os.ReadFile(filepath.Join(ws, ".rostra", "spread", statedir.TeamStateFile))
	if err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st
}

func TestHostsOneRosterOverTwoHosts(t *testing.T) {
	ws, runFile, a, b, env := hostsSetup(t, hostsRunFile)

	v := runBinEnv(t, ws, env, "validate", "--hosts", runFile)
	require.Equal(t, 0, v.code, "validate --hosts: %s%s", v.stdout, v.stderr)
	assert.Contains(t, v.stdout, "2 host(s) reached")

	start := time.Now()
	r := runBinEnv(t, ws, env, "run", "--detach", runFile)
	require.Equal(t, 0, r.code, "run --detach: %s%s", r.stdout, r.stderr)
	t.Cleanup(func() { runBinEnv(t, ws, env, "stop", "--run", runFile) })

	// Every remote worker's attempt shows up here with its host.
	var st statedir.TeamState
	require.Eventually(t, func() bool {
		st = readSpread(t, ws)
		started := 0
		for _, wr := range st.Workers {
			if wr.Host != "" && wr.Attempts >= 1 {
				started++
			}
		}
		return started == 4
	}, 60*time.Second, 20*time.Millisecond, "the remote workers' rows: %+v", st.Workers)
	t.Logf("measured: start to every remote worker's first attempt mirrored here: %s", time.Since(start).Round(time.Millisecond))

	w := runBinEnv(t, ws, env, "wait", "--run", runFile)
	if w.code != 0 {
		s := runBinEnv(t, ws, env, "status", "--run", runFile)
		log, _ := os.ReadFile(filepath.Join(ws, ".rostra", "spread", "server.log"))
		logA, _ := os.ReadFile(filepath.Join(a.Home, "proj", ".rostra", "parts", "spread", "state", "server.log"))
		logB, _ := os.ReadFile(filepath.Join(b.Home, "proj", ".rostra", "parts", "spread", "state", "server.log"))
		require.Equal(t, 0, w.code, "wait: %s%s\nstatus:\n%s\nserver.log:\n%s\non a:\n%s\non b:\n%s", w.stdout, w.stderr, s.stdout, log, logA, logB)
	}

	s := runBinEnv(t, ws, env, "status", "--json", "--run", runFile)
	require.Equal(t, 0, s.code, s.stderr)
	require.NoError(t, json.Unmarshal([]byte(s.stdout), &st))
	hostOf := map[string]string{}
	for _, wr := range st.Workers {
		hostOf[wr.WorkerID] = wr.Host
		assert.Equal(t, statedir.StatusCompleted, wr.Status, "%s: %s", wr.WorkerID, wr.Reason)
	}
	assert.Equal(t, map[string]string{"here": "", "on-a": "a", "retried": "a", "on-b": "b", "wrapped": "b"}, hostOf)
	for _, wr := range st.Workers {
		if wr.WorkerID == "retried" {
			assert.Equal(t, 2, wr.Attempts, "its first attempt failed there")
		}
	}
	human := runBinEnv(t, ws, env, "status", "--run", runFile)
	assert.Regexp(t, `(?m)^here\s+local\s+here\s+shell\s+completed`, human.stdout)
	assert.Regexp(t, `(?m)^on-b\s+b\s+on-b\s+shell\s+completed`, human.stdout)
	rep := runBinEnv(t, ws, env, "report", "--run", runFile)
	require.Equal(t, 0, rep.code, rep.stderr)
	reports, _ := filepath.Glob(filepath.Join(ws, ".rostra", "spread", "reports", "report-*.md"))
	require.Len(t, reports, 1)
	md, _ := os.ReadFile(reports[0])
	assert.Contains(t, string(md), "| retried | a | retried | shell | completed | 2 |", "the report names each worker's host")

	events, err := os.ReadFile(filepath.Join(ws, ".rostra", "spread", statedir.EventsFile))
	require.NoError(t, err)
	assert.Regexp(t, `"type":"worker-completed","workerId":"on-b","attempt":1`, string(events), "a remote attempt's end is an event here")
	assert.Regexp(t, `"type":"worker-failed","workerId":"retried","attempt":1`, string(events))

	// logs of a remote worker are read there.
	lg := runBinEnv(t, ws, env, "logs", "--run", runFile, "on-b")
	require.Equal(t, 0, lg.code, "logs: %s", lg.stderr)
	assert.Contains(t, lg.stdout, "on host b")

	// Each host's workers wrote their results there, not here.
	part := func(h *testhost.Host, rel string) string {
		return filepath.Join(h.Home, "proj", ".rostra", "parts", "spread", rel)
	}
	assert.FileExists(t, part(b, "state/worktrees/on-b/out/on-b.result"))
	assert.FileExists(t, part(b, "tree/out/wrapped.result"))
	assert.FileExists(t, part(a, "tree/out/retried.result"))
	assert.NoFileExists(t, filepath.Join(ws, "out", "on-b.result"))
	assert.FileExists(t, filepath.Join(ws, "out", "here.txt"))

	// The isolated worker's work came home: diff and merge it here.
	d := runBinEnv(t, ws, env, "diff", "--color", "never", "--run", runFile, "on-a")
	require.Equal(t, 0, d.code, "diff: %s%s", d.stdout, d.stderr)
	assert.Contains(t, d.stdout, "+from-a")
	m := runBinEnv(t, ws, env, "merge", "--run", runFile, "on-a")
	require.Equal(t, 0, m.code, "merge: %s%s", m.stdout, m.stderr)
	got, err := os.ReadFile(filepath.Join(ws, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "from-a\n", string(got))
	// b's came home through its transport.
	d = runBinEnv(t, ws, env, "diff", "--color", "never", "--run", runFile, "on-b")
	require.Equal(t, 0, d.code, "diff: %s%s", d.stdout, d.stderr)
	assert.Contains(t, d.stdout, "+from-b")

	stop := runBinEnv(t, ws, env, "stop", "--run", runFile)
	t.Logf("stop: %d %s%s", stop.code, stop.stdout, stop.stderr)
	for _, h := range []*testhost.Host{a, b} {
		require.Eventually(t, func() bool { return len(partsLeft(t, h)) == 0 }, 20*time.Second, 50*time.Millisecond,
			"left running on host %s: %v", h.HostNS, partsLeft(t, h))
	}
}

// hostsFaultsRunFile has a host that cannot be reached (its name resolves
// nowhere: ssh says so at once) and a host whose worker runs until it is
// stopped, or for SLEEP seconds.
const hostsFaultsRunFile = `version: 1
name: spread
hosts:
  a: { ssh: testhost, workspace: HOSTA/proj }
  gone: { ssh: nohost.invalid, workspace: /srv/proj }
providers:
  shell: { command: [bash, -c, "{prompt}"] }
defaults: { retry_backoff: 200ms, max_attempts: 2, stop_grace: 1s }
workers:
  - id: here
    provider: shell
    prompt: "sleep 60"
  - id: on-a
    provider: shell
    host: a
    prompt: "echo on host a; sleep SLEEP; echo done > {result}"
    completion: { result: "out/{worker}.result" }
  - id: lost
    provider: shell
    host: gone
    prompt: "true"
`

// processGone reports whether pid has ended: gone, or a zombie (reaped
// here when the test is the subreaper it was handed to).
func processGone(pid int) bool {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	return strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}

func rowOf(st statedir.TeamState, id string) statedir.WorkerRow {
	for _, wr := range st.Workers {
		if wr.WorkerID == id {
			return wr
		}
	}
	return statedir.WorkerRow{}
}

// partPid is the pid of the server of host h's part, from its state.
func partPid(t *testing.T, h *testhost.Host) int {
	data, err := os.ReadFile(filepath.Join(h.Home, "proj", ".rostra", "parts", "spread", "state", statedir.TeamStateFile))
	require.NoError(t, err)
	var st statedir.TeamState
	require.NoError(t, json.Unmarshal(data, &st))
	return st.Pid
}

func TestHostsDownAtStartKilledResumedAndStopped(t *testing.T) {
	a := newRemoteHost(t, true)
	ws := t.TempDir()
	gitRepo(t, ws)
	out, err := exec.Command("git", "clone", "-q", ws, filepath.Join(a.Home, "proj")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	runFile := filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(strings.NewReplacer("HOSTA", a.Home, "SLEEP", "60").Replace(hostsFaultsRunFile)), 0o644))
	env := []string{"ROSTRA_SSH=" + a.SSHCommand()}

	v := runBinEnv(t, ws, env, "validate", "--hosts", runFile)
	assert.Equal(t, 2, v.code)
	assert.Regexp(t, `rostra.yaml:5:3: hosts.gone: ssh to nohost.invalid failed: ssh: Could not resolve hostname nohost.invalid`, v.stderr)

	r := runBinEnv(t, ws, env, "run", "--detach", runFile)
	require.Equal(t, 0, r.code, "run --detach: %s%s", r.stdout, r.stderr)
	t.Cleanup(func() { runBinEnv(t, ws, env, "stop", "--run", runFile) })

	// The host that cannot be reached fails its worker notStarted with
	// ssh's words, once per attempt its max_attempts allow.
	var st statedir.TeamState
	require.Eventually(t, func() bool {
		st = readSpread(t, ws)
		return rowOf(st, "lost").Status == statedir.StatusError && rowOf(st, "on-a").Status == statedir.StatusRunning
	}, 60*time.Second, 20*time.Millisecond, "rows: %+v", st.Workers)
	lost := rowOf(st, "lost")
	assert.Equal(t, 2, lost.Attempts)
	assert.Contains(t, lost.Reason, "not started on host gone: ssh to nohost.invalid failed: ssh: Could not resolve hostname nohost.invalid")
	var classes []string
	for _, d := range st.Dispatches {
		if d.WorkerID == "lost" {
			classes = append(classes, d.FailureClass)
		}
	}
	assert.Equal(t, []string{statedir.FailureNotStarted, statedir.FailureNotStarted}, classes)

	// The local rostra SIGKILLed: the part goes on there; --resume
	// reattaches to it (the same server, the same attempt).
	remote := partPid(t, a)
	require.NoError(t, syscall.Kill(st.Pid, syscall.SIGKILL))
	require.Eventually(t, func() bool { return processGone(st.Pid) }, 10*time.Second, 10*time.Millisecond)
	assert.NoError(t, syscall.Kill(remote, 0), "the part there outlives the local rostra")
	resumeAt := time.Now()
	// Its threads may still be ending (its socket and lock with them) as
	// its leader shows it a zombie: resume until the run is free.
	require.Eventually(t, func() bool {
		r = runBinEnv(t, ws, env, "run", "--detach", "--resume", runFile)
		return r.code == 0 || !strings.Contains(r.stderr, "already runs")
	}, 10*time.Second, 50*time.Millisecond)
	t.Logf("resume took %s", time.Since(resumeAt).Round(time.Millisecond))
	require.Equal(t, 0, r.code, "run --detach --resume: %s%s", r.stdout, r.stderr)
	require.Eventually(t, func() bool {
		st = readSpread(t, ws)
		return st.Pid != 0 && syscall.Kill(st.Pid, 0) == nil && rowOf(st, "on-a").Status == statedir.StatusRunning
	}, 30*time.Second, 20*time.Millisecond, "rows: %+v", st.Workers)
	assert.Equal(t, remote, partPid(t, a), "the part was reattached, not started again")
	assert.Equal(t, 1, rowOf(st, "on-a").Attempts)
	log, _ := os.ReadFile(filepath.Join(ws, ".rostra", "spread", "server.log"))
	assert.Contains(t, string(log), "rostra: host a: its part runs already: attached")

	// The part's server killed there: the local run resumes it there,
	// and its worker goes on with a new attempt.
	require.NoError(t, syscall.Kill(remote, syscall.SIGKILL))
	require.Eventually(t, func() bool {
		st = readSpread(t, ws)
		pid := partPid(t, a)
		return pid != remote && syscall.Kill(pid, 0) == nil && rowOf(st, "on-a").Attempts == 2 && rowOf(st, "on-a").Status == statedir.StatusRunning
	}, 30*time.Second, 20*time.Millisecond, "rows: %+v", st.Workers)
	log, _ = os.ReadFile(filepath.Join(ws, ".rostra", "spread", "server.log"))
	assert.Contains(t, string(log), "rostra: host a: its part's server was gone: resumed it there")

	// rostra stop stops the part too, and nothing is left there.
	stopAt := time.Now()
	stop := runBinEnv(t, ws, env, "stop", "--run", runFile)
	t.Logf("stop took %s", time.Since(stopAt).Round(time.Millisecond))
	assert.Equal(t, 130, stop.code, "stop: %s%s", stop.stdout, stop.stderr)
	st = readSpread(t, ws)
	assert.Equal(t, statedir.StatusCancelled, rowOf(st, "on-a").Status, "the part's row, mirrored as it stopped: %+v", rowOf(st, "on-a"))
	require.Eventually(t, func() bool { return len(partsLeft(t, a)) == 0 }, 20*time.Second, 50*time.Millisecond,
		"left running on host a: %v", partsLeft(t, a))
}

// hostsGridRunFile is hostsRunFile's roster with workers that print a
// mark and stay until they are stopped.
const hostsGridRunFile = `version: 1
name: spread
hosts:
  a: { ssh: testhost, workspace: HOSTA/proj }
  b: { transport: [ip, netns, exec, NSB, ssh, -F, CFGB, -o, BatchMode=yes, testhost], workspace: HOSTB/proj }
providers:
  shell: { command: [bash, -c, "{prompt}"] }
defaults: { stop_grace: 1s }
workers:
  - { id: here, provider: shell, prompt: "echo mark-here; sleep 120" }
  - { id: on-a, provider: shell, host: a, isolation: worktree, prompt: "echo mark-on-a; sleep 120" }
  - { id: also-a, provider: shell, host: a, prompt: "echo mark-also-a; sleep 120" }
  - { id: on-b, provider: shell, host: b, prompt: "echo mark-on-b; exec cat" }
  - { id: wrapped, provider: shell, host: b, surfaces: [wrapper], prompt: "echo mark-wrapped; sleep 120" }
`

func TestHostsGridInTmuxShowsEveryPane(t *testing.T) {
	ws, runFile, a, b, env := hostsSetup(t, hostsGridRunFile)
	s := newTmux(t, "hosts")
	shell := "env " + shellQuote(env[0]) + " " + rostraBin + " run " + runFile + " 2>" + filepath.Join(ws, "stderr") + "; echo $? > " + filepath.Join(ws, "exit-code") + "; sleep 60"
	marks := []string{"mark-here", "mark-on-a", "mark-also-a", "mark-on-b", "mark-wrapped"}
	start := time.Now()
	s.run("new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "-c", ws, shell)
	// A failure before the quit below would leave the run's server going
	// once tmux is gone (it outlives its terminal by design).
	t.Cleanup(func() { runBinEnv(t, ws, env, "stop", "--run", runFile) })
	var screen string
	require.Eventually(t, func() bool {
		screen = s.screen()
		for _, m := range marks {
			if !strings.Contains(screen, m) {
				return false
			}
		}
		return true
	}, 60*time.Second, 10*time.Millisecond, "every pane, live: %s\n%s", screen, func() string { b, _ := os.ReadFile(filepath.Join(ws, "stderr")); return string(b) }())
	t.Logf("measured: rostra run to all five panes live (two hosts): %s", time.Since(start).Round(time.Millisecond))
	for _, title := range []string{"here · shell", "on-a@a · ", "also-a@a · shell", "on-b@b · shell", "wrapped@b · shell"} {
		assert.Contains(t, screen, title, "each pane's title names its host")
	}

	// What is typed into a remote pane here reaches its pty there (cat
	// echoes it), and the pane here shows it.
	send := runBinEnv(t, ws, env, "send", "--enter", "--run", runFile, "on-b", "typed-from-here")
	require.Equal(t, 0, send.code, "send: %s%s", send.stdout, send.stderr)
	require.Eventually(t, func() bool { return strings.Count(s.screen(), "typed-from-here") == 2 }, 20*time.Second, 20*time.Millisecond,
		"the line and cat's copy in the pane here: %s", s.screen())
	s.keys("Tab", "Tab", "Tab", "i")
	s.keys("-l", "keys-from-here")
	s.keys("Enter", "C-]")
	require.Eventually(t, func() bool { return strings.Count(s.screen(), "keys-from-here") == 2 }, 20*time.Second, 20*time.Millisecond,
		"keys typed into the focused remote pane: %s", s.screen())

	// Quitting the UI and stopping the run stops the parts with it.
	s.keys("q")
	s.waitScreen("the quit asks", "Leave rostra?")
	s.keys("s")
	require.Eventually(t, func() bool { _, err := os.Stat(filepath.Join(ws, "exit-code")); return err == nil }, 60*time.Second, 50*time.Millisecond,
		"rostra ends after q: %s", s.screen())
	st := readSpread(t, ws)
	for _, wr := range st.Workers {
		assert.Equal(t, statedir.StatusCancelled, wr.Status, "%s: %s", wr.WorkerID, wr.Reason)
	}
	for _, h := range []*testhost.Host{a, b} {
		require.Eventually(t, func() bool { return len(partsLeft(t, h)) == 0 }, 20*time.Second, 50*time.Millisecond,
			"left running on host %s: %v", h.HostNS, partsLeft(t, h))
	}
}

// hostsLinkRunFile has a host whose worker writes its result while the
// link to it is cut, and a quick one whose result's time is measured
// against its row's here.
const hostsLinkRunFile = `version: 1
name: spread
hosts:
  a: { ssh: testhost, workspace: HOSTA/proj }
providers:
  shell: { command: [bash, -c, "{prompt}"] }
defaults: { stop_grace: 1s }
workers:
  - id: quick
    provider: shell
    host: a
    prompt: "mkdir -p out; sleep 1; echo done > {result}; sleep 60"
    completion: { result: "out/{worker}.result", settle: on-files, stable: 50ms }
  - id: cut
    provider: shell
    host: a
    prompt: "mkdir -p out; sleep 3; echo done > {result}"
    completion: { result: "out/{worker}.result" }
`

func TestHostsLinkCutMidRunCatchesUp(t *testing.T) {
	a := newRemoteHost(t, true)
	ws := t.TempDir()
	gitRepo(t, ws)
	out, err := exec.Command("git", "clone", "-q", ws, filepath.Join(a.Home, "proj")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	runFile := filepath.Join(ws, "rostra.yaml")
	require.NoError(t, os.WriteFile(runFile, []byte(strings.NewReplacer("HOSTA", a.Home).Replace(hostsLinkRunFile)), 0o644))
	env := []string{"ROSTRA_SSH=" + a.SSHCommand()}
	r := runBinEnv(t, ws, env, "run", "--detach", runFile)
	require.Equal(t, 0, r.code, "run --detach: %s%s", r.stdout, r.stderr)
	t.Cleanup(func() { runBinEnv(t, ws, env, "stop", "--run", runFile) })
	tree := filepath.Join(a.Home, "proj", ".rostra", "parts", "spread", "tree")

	// The quick worker's result there, to its row settled here.
	var st statedir.TeamState
	require.Eventually(t, func() bool {
		st = readSpread(t, ws)
		return rowOf(st, "quick").Status == statedir.StatusCompleted
	}, 60*time.Second, 2*time.Millisecond, "rows: %+v", st.Workers)
	settled := time.Now()
	fi, err := os.Stat(filepath.Join(tree, "out", "quick.result"))
	require.NoError(t, err)
	t.Logf("measured: a remote result to its row settled here: %s (the part's own settle, stable: 50ms, included)", settled.Sub(fi.ModTime()).Round(time.Millisecond))

	// The link cut for 10 s while cut runs: its part goes on there and
	// settles; the row here catches up once the link is back.
	require.Equal(t, statedir.StatusRunning, rowOf(st, "cut").Status)
	a.SetLink(t, false)
	cutAt := time.Now()
	partState := func() statedir.TeamState {
		var ps statedir.TeamState
		data, _ := os.ReadFile(filepath.Join(a.Home, "proj", ".rostra", "parts", "spread", "state", statedir.TeamStateFile))
		_ = json.Unmarshal(data, &ps)
		return ps
	}
	require.Eventually(t, func() bool { return rowOf(partState(), "cut").Status == statedir.StatusCompleted }, 9*time.Second, 20*time.Millisecond,
		"the part settles its worker while the link is down")
	assert.Equal(t, statedir.StatusRunning, rowOf(readSpread(t, ws), "cut").Status, "here, the row waits for the link")
	time.Sleep(time.Until(cutAt.Add(10 * time.Second)))
	a.SetLink(t, true)
	back := time.Now()
	require.Eventually(t, func() bool {
		st = readSpread(t, ws)
		return rowOf(st, "cut").Status == statedir.StatusCompleted
	}, 60*time.Second, 20*time.Millisecond, "rows: %+v", st.Workers)
	t.Logf("measured: the link back to the row caught up: %s", time.Since(back).Round(time.Millisecond))
	log, _ := os.ReadFile(filepath.Join(ws, ".rostra", "spread", "server.log"))
	t.Logf("server.log:\n%s", log)
}
