// remote_e2e_test.go drives runs on test hosts (internal/testhost: a
// network namespace with its own sshd) by ssh:// address: the control
// commands through ssh and the bridge, logs through ssh, a protocol
// version mismatch, a host without rostra and --install.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/testhost"
	"github.com/rostra-dev/rostra/server"
)

// remoteRun is a run started on a test host with `rostra run --detach`
// over ssh, and the address and environment that reach it.
type remoteRun struct {
	host *testhost.Host
	ws   string   // the workspace there (a folder of the test's)
	addr string   // ssh://testhost/~/ws/rostra.yaml
	env  []string // ROSTRA_SSH: the host's ssh command
}

// newRemoteHost is a test host; with rostra, the test binary is on its
// PATH.
func newRemoteHost(t testing.TB, withRostra bool) *testhost.Host {
	h := testhost.New(t)
	if withRostra {
		bin, err := os.ReadFile(rostraBin)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(h.Home, "bin", "rostra"), bin, 0o755))
	}
	return h
}

// startRemoteRun writes runYAML to ~/ws on h and starts it there with
// `rostra run --detach` over ssh; the test's end stops it.
func startRemoteRun(t testing.TB, h *testhost.Host, runYAML string) remoteRun {
	ws := filepath.Join(h.Home, "ws")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(runYAML), 0o644))
	r := remoteRun{host: h, ws: ws, addr: "ssh://" + testhost.Alias + "/~/ws/rostra.yaml", env: []string{"ROSTRA_SSH=" + h.SSHCommand()}}
	out := h.Run(t, "cd ~/ws && rostra run --detach </dev/null")
	require.Contains(t, out, "server pid")
	t.Cleanup(func() {
		// rostra stop there; the host's removal kills what is left.
		_, _ = exec.Command("sh", "-c", strings.Join(append(strings.Fields(h.SSHCommand()), testhost.Alias, "'cd ~/ws && rostra stop'"), " ")).CombinedOutput()
	})
	return r
}

func TestRemoteControlBySSHAddress(t *testing.T) {
	h := newRemoteHost(t, true)
	r := startRemoteRun(t, h, serverRunFile)
	remoteState := filepath.Join(r.ws, ".rostra", "served")

	// status, live from the server there.
	var st result
	require.Eventually(t, func() bool {
		st = runBinEnv(t, t.TempDir(), r.env, "status", r.addr)
		return st.code == 0 && strings.Contains(st.stdout, "live from its server") &&
			regexp.MustCompile(`cat-echo\s+echo\s+shell\s+running`).MatchString(st.stdout)
	}, 20*time.Second, 50*time.Millisecond, "status over ssh: %s%s", st.stdout, st.stderr)

	// wait there returns with the run's code once it ends (at the stop
	// below; started here, seconds before it, so that it waits by then).
	wait := exec.Command(rostraBin, "wait", "--run", r.addr)
	wait.Env = append(os.Environ(), r.env...)
	waitOut := &syncBuffer{}
	wait.Stdout, wait.Stderr = waitOut, waitOut
	require.NoError(t, wait.Start())
	waitDone := make(chan error, 1)
	go func() { waitDone <- wait.Wait() }()

	// ls of the host lists the run there, not here.
	ls := runBinEnv(t, t.TempDir(), r.env, "ls", "ssh://"+testhost.Alias)
	require.Equal(t, 0, ls.code, ls.stderr)
	assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(remoteState)+`\s+served\s+running\s`, ls.stdout)

	// logs -f follows cat there; send types into it.
	follow := exec.Command(rostraBin, "logs", "-f", "--run", r.addr, "cat-echo")
	follow.Env = append(os.Environ(), r.env...)
	followed := &syncBuffer{}
	followErr := &syncBuffer{}
	follow.Stdout, follow.Stderr = followed, followErr
	require.NoError(t, follow.Start())
	followDone := make(chan error, 1)
	go func() { followDone <- follow.Wait() }()
	require.Eventually(t, func() bool { return strings.Contains(followed.String(), "cat is ready") }, 20*time.Second, 20*time.Millisecond,
		"logs -f over ssh: %q %s", followed.String(), followErr.String())
	s := runBinEnv(t, t.TempDir(), r.env, "send", "--enter", "--run", r.addr, "cat-echo", "sent", "over", "ssh")
	require.Equal(t, 0, s.code, s.stderr)
	require.Eventually(t, func() bool { return strings.Count(followed.String(), "sent over ssh") == 2 }, 20*time.Second, 20*time.Millisecond,
		"the line and cat's copy, followed: %q", followed.String())
	lg := runBinEnv(t, t.TempDir(), r.env, "logs", "--run", r.addr, "cat-echo")
	require.Equal(t, 0, lg.code, lg.stderr)
	assert.Equal(t, 2, strings.Count(lg.stdout, "sent over ssh"), "logs, run there, read cat's output.log: %q", lg.stdout)

	// retry there: a second attempt of the sleeper.
	rt := runBinEnv(t, t.TempDir(), r.env, "retry", "--run", r.addr, "sleeper")
	require.Equal(t, 0, rt.code, rt.stderr)
	require.Eventually(t, func() bool {
		st = runBinEnv(t, t.TempDir(), r.env, "status", r.addr)
		return st.code == 0 && regexp.MustCompile(`(?m)^\s*sleeper#2\s`).MatchString(st.stdout)
	}, 20*time.Second, 50*time.Millisecond, "a second attempt of the sleeper: %s%s", st.stdout, st.stderr)

	// cancel there.
	cn := runBinEnv(t, t.TempDir(), r.env, "cancel", "--run", r.addr, "sleeper")
	require.Equal(t, 0, cn.code, cn.stderr)
	assert.Equal(t, "sleeper: cancelled\n", cn.stdout)

	// report runs there: the report is written in the state dir there.
	rp := runBinEnv(t, t.TempDir(), r.env, "report", r.addr)
	require.Equal(t, 0, rp.code, rp.stderr)
	reports, _ := filepath.Glob(filepath.Join(remoteState, "reports", "report-*.md"))
	assert.Len(t, reports, 1, "report there: %s", rp.stdout)

	// stop there ends the run, and logs -f with it.
	sp := runBinEnv(t, t.TempDir(), r.env, "stop", "--run", r.addr)
	require.Equal(t, 130, sp.code, "workers were running: %s%s", sp.stdout, sp.stderr)
	assert.Contains(t, sp.stdout+sp.stderr, "the run stopped")
	select {
	case <-followDone:
	case <-time.After(20 * time.Second):
		t.Fatalf("logs -f did not end with the run: %q", followed.String())
	}
	select {
	case <-waitDone:
		assert.Equal(t, 130, wait.ProcessState.ExitCode(), "wait exits with the stopped run's code: %s", waitOut.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("wait did not end with the run: %s", waitOut.String())
	}
	st = runBinEnv(t, t.TempDir(), r.env, "status", r.addr)
	assert.Equal(t, 2, st.code, "no server: %s%s", st.stdout, st.stderr)
	assert.Contains(t, st.stderr, "on "+testhost.Alias+": rostra: no rostra server runs for "+remoteState)
	assert.Contains(t, st.stderr, "run served was stopped before it finished")
	ls = runBin(t, t.TempDir(), "ls")
	assert.NotContains(t, ls.stdout, remoteState, "the server there is gone")
}

// A client of another protocol version is refused by the bridge with
// both versions and what to do.
func TestRemoteBridgeRefusesAnotherProtocol(t *testing.T) {
	h := newRemoteHost(t, true)
	r := startRemoteRun(t, h, serverRunFile)
	a, err := parseSSHAddr(r.addr)
	require.NoError(t, err)
	t.Setenv("ROSTRA_SSH", h.SSHCommand())
	c, err := dialSSH(r.addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, server.WriteJSON(c, server.FrameHello, server.Hello{Rostra: server.ProtocolVersion + 1, Mode: server.ModeControl}))
	f, err := server.NewFrameReader(c).ReadFrame()
	require.NoError(t, err, "on %s", a.host)
	require.Equal(t, server.FrameBye, f.Type)
	var bye server.Bye
	require.NoError(t, server.DecodeJSON(f.Payload, &bye))
	assert.Equal(t, server.ByeRefused, bye.Reason)
	assert.Contains(t, bye.Message, fmt.Sprintf("speaks protocol %d, the client protocol %d: use the same rostra version on both machines", server.ProtocolVersion, server.ProtocolVersion+1))
	assert.Contains(t, bye.Message, "--install")
}

// A host without rostra: the error says so and how to install it;
// --install copies this binary there and uses it, for the bridge and for
// the commands that run there.
func TestRemoteHostWithoutRostraAndInstall(t *testing.T) {
	h := newRemoteHost(t, false)
	ws := filepath.Join(h.Home, "ws")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "rostra.yaml"), []byte(serverRunFile), 0o644))
	env := []string{"ROSTRA_SSH=" + h.SSHCommand()}
	addr := "ssh://" + testhost.Alias + "/~/ws"

	st := runBinEnv(t, t.TempDir(), env, "status", addr)
	assert.Equal(t, 2, st.code, st.stdout+st.stderr)
	assert.Contains(t, st.stderr, "rostra is not installed on "+testhost.Alias+" (no rostra on PATH")
	assert.Contains(t, st.stderr, "give --install to copy this binary to ~/.cache/rostra/")
	lg := runBinEnv(t, t.TempDir(), env, "logs", "--run", addr, "cat-echo")
	assert.Equal(t, 2, lg.code, lg.stdout+lg.stderr)
	assert.Contains(t, lg.stderr, "rostra is not installed on "+testhost.Alias)

	// --install, with no run there yet: the copy answers, from the run's files.
	st = runBinEnv(t, t.TempDir(), env, "status", "--install", addr)
	assert.Equal(t, 2, st.code, st.stdout+st.stderr)
	assert.Contains(t, st.stderr, "no rostra server runs for "+filepath.Join(ws, ".rostra", "served"))
	copies, err := filepath.Glob(filepath.Join(h.Home, ".cache", "rostra", "*", "rostra"))
	require.NoError(t, err)
	require.Len(t, copies, 1, "one copy, of this version")
	want, err := os.ReadFile(rostraBin)
	require.NoError(t, err)
	got, err := os.ReadFile(copies[0])
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "the copy is this binary")

	// The copy starts a run there and serves the commands after.
	installed := "~/" + copies[0][len(h.Home)+1:]
	out := h.Run(t, "cd ~/ws && "+installed+" run --detach </dev/null")
	require.Contains(t, out, "server pid")
	t.Cleanup(func() {
		_, _ = exec.Command("sh", "-c", h.SSHCommand()+" "+testhost.Alias+" 'cd ~/ws && "+installed+" stop'").CombinedOutput()
	})
	require.Eventually(t, func() bool {
		st = runBinEnv(t, t.TempDir(), env, "status", addr)
		return st.code == 0 && strings.Contains(st.stdout, "live from its server")
	}, 20*time.Second, 50*time.Millisecond, "status through the installed copy: %s%s", st.stdout, st.stderr)
	lg = runBinEnv(t, t.TempDir(), env, "logs", "--run", addr, "cat-echo")
	assert.Equal(t, 0, lg.code, lg.stderr)
	assert.Contains(t, lg.stdout, "cat is ready")
}

// The round trip of a control request through ssh and the bridge, against
// the same request on the run's socket there (median of 20 each).
func TestRemoteControlRoundTrip(t *testing.T) {
	h := newRemoteHost(t, true)
	r := startRemoteRun(t, h, serverRunFile)
	t.Setenv("ROSTRA_SSH", h.SSHCommand())
	median := func(dial func() (*server.Conn, error)) (connect, request time.Duration) {
		var cs, rs []time.Duration
		for range 20 {
			start := time.Now()
			cc, err := dial()
			require.NoError(t, err)
			_, err = cc.Do(server.Request{Op: server.OpInfo})
			require.NoError(t, err)
			cs = append(cs, time.Since(start))
			start = time.Now()
			_, err = cc.Do(server.Request{Op: server.OpInfo})
			require.NoError(t, err)
			rs = append(rs, time.Since(start))
			cc.Close()
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
		return cs[10], rs[10]
	}
	var c0, r0 time.Duration
	require.Eventually(t, func() bool {
		cc, err := server.Control(r.addr)
		if err == nil {
			cc.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond)
	c0, r0 = median(func() (*server.Conn, error) { return server.Control(r.addr) })
	c1, r1 := median(func() (*server.Conn, error) { return server.Control(filepath.Join(r.ws, ".rostra", "served")) })
	t.Logf("control over ssh + bridge: connect+first request %v, a request on the connection %v; on the socket: %v, %v (medians of 20)", c0, r0, c1, r1)
}

// attach by address draws the run's UI from the host in a terminal here;
// a key typed in a pane reaches its child there; d detaches and the run
// goes on.
func TestRemoteAttachBySSHAddress(t *testing.T) {
	h := newRemoteHost(t, true)
	r := startRemoteRun(t, h, serverRunFile)
	local := t.TempDir()
	term := newTmux(t, "remote")
	exit := filepath.Join(local, "exit-attach")
	term.run("new-session", "-d", "-s", "ui", "-x", "140", "-y", "40", "-c", local,
		"ROSTRA_SSH='"+h.SSHCommand()+"' "+rostraBin+" attach "+r.addr+" 2>"+filepath.Join(local, "attach.err")+"; echo $? > "+exit+"; sleep 60")
	term.waitScreen("attached over ssh", "cat is ready", "sleeping", "2 running", "d detach")
	term.keys("i")
	term.waitScreen("input mode", "INPUT → cat-echo")
	term.keys("-l", "typed over ssh")
	term.keys("Enter")
	require.Eventually(t, func() bool { return strings.Count(term.screen(), "typed over ssh") == 2 }, 20*time.Second, 20*time.Millisecond,
		"the line and cat's copy of it: %s", term.screen())
	lg := runBinEnv(t, local, r.env, "logs", "--run", r.addr, "cat-echo")
	require.Equal(t, 0, lg.code, lg.stderr)
	assert.Equal(t, 2, strings.Count(lg.stdout, "typed over ssh"), "cat there got it: %q", lg.stdout)
	term.keys("C-]")
	term.keys("d")
	assert.Equal(t, "0", exitCodeFile(t, term, exit), "a detach exits 0")
	errText, _ := os.ReadFile(filepath.Join(local, "attach.err"))
	assert.Contains(t, string(errText), "detached from run "+r.addr+"; it goes on. rostra attach '"+r.addr+"' comes back")
	st := runBinEnv(t, local, r.env, "status", r.addr)
	require.Equal(t, 0, st.code, st.stderr)
	assert.Regexp(t, `cat-echo\s+echo\s+shell\s+running`, st.stdout, "the run goes on")
}

// A host key ssh refuses (here: changed) is ssh's refusal, as it words
// it, and no prompt: the control commands run ssh in BatchMode.
func TestRemoteChangedHostKeyIsSSHsRefusal(t *testing.T) {
	h := newRemoteHost(t, true)
	other := filepath.Join(t.TempDir(), "other")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).CombinedOutput()
	require.NoError(t, err, "%s", out)
	pub, err := os.ReadFile(other + ".pub")
	require.NoError(t, err)
	f := strings.Fields(string(pub))
	require.NoError(t, os.WriteFile(filepath.Join(h.Dir, "known_hosts"), []byte(testhost.Alias+","+testhost.HostAddr+" "+f[0]+" "+f[1]+"\n"), 0o600))
	st := runBinEnv(t, t.TempDir(), []string{"ROSTRA_SSH=" + h.SSHCommand()}, "status", "ssh://"+testhost.Alias+"/~/ws")
	assert.Equal(t, 2, st.code, st.stdout+st.stderr)
	assert.Contains(t, st.stderr, "ssh to "+testhost.Alias+" failed: ")
	assert.Contains(t, st.stderr, "Host key verification failed.")
	assert.NotContains(t, st.stderr, `\r`, "ssh's lines, as lines")
}
