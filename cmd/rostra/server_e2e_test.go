// server_e2e_test.go drives the run server through the real binary, as a
// person would: the run outlives the tmux session that started it, is
// attached again from another one, detached with d, and driven from the
// shell (cancel, send, logs, wait, stop) until nothing is left running and
// the state is complete; signals to an attached client detach it; a server
// SIGKILLed leaves a stale socket that --resume gets past; a state dir
// deeper than a socket path can be; another user is refused.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/server"
	"github.com/rostra-dev/rostra/statedir"
)

const serverRunFile = `version: 1
name: served
workspace: .
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s, attention_after: 1h }
workers:
  - id: cat-echo
    role: echo
    provider: shell
    prompt: "echo cat is ready; exec cat"
  - id: sleeper
    role: waiter
    provider: shell
    prompt: "echo sleeping; trap '' HUP; exec sleep 300"
`

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

var serverPidRx = regexp.MustCompile(`server pid (\d+)`)

// detachedRun starts `rostra run --detach` in ws and returns the server's
// pid; the test's end stops the server if it still runs, then makes sure
// it and every worker are gone.
func detachedRun(t *testing.T, ws string, args ...string) int {
	t.Helper()
	r := runBin(t, ws, append([]string{"run", "--detach"}, args...)...)
	require.Equal(t, 0, r.code, "run --detach: %s%s", r.stdout, r.stderr)
	m := serverPidRx.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, "no server pid in %q", r.stdout)
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { stopServer(t, ws, pid) })
	return pid
}

// stopServer ends what a test left: rostra stop, then SIGKILL. A server
// that outlives its stop is a bug: the test fails with what tells why
// (what stop said, and the server's goroutines, dumped by a SIGABRT into
// server.log).
func stopServer(t *testing.T, ws string, pid int) {
	var said string
	var stopped time.Time
	if alive(pid) {
		stop := exec.Command(rostraBin, "stop")
		stop.Dir = ws
		out, err := stop.CombinedOutput()
		stopped = time.Now()
		said = fmt.Sprintf("rostra stop (%v) said: %s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the server is not our child: no wait to block on
	}
	// Only a server of this test's workspace is killed.
	if cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); alive(pid) && strings.Contains(string(cmdline), ws) {
		stacks, _ := exec.Command("sh", "-c", "for f in /proc/"+strconv.Itoa(pid)+"/task/*/stack; do echo \"$f:\"; cat \"$f\"; done").CombinedOutput()
		_ = syscall.Kill(pid, syscall.SIGABRT)
		for end := time.Now().Add(5 * time.Second); alive(pid) && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var logs []string
		for _, f := range serverLogs(ws) {
			b, _ := os.ReadFile(f)
			logs = append(logs, f+":\n"+string(b))
		}
		t.Errorf("server pid %d still runs %v after rostra stop returned (load %s): killed it.\n%s\nkernel stacks:\n%s\n%s",
			pid, time.Since(stopped).Round(time.Millisecond), loadAverage(), said, stacks, strings.Join(logs, "\n"))
	}
}

// serverLogs are the server.log files of the runs in ws.
func serverLogs(ws string) []string {
	logs, _ := filepath.Glob(filepath.Join(ws, ".rostra", "*", serverLogFile))
	return logs
}

// loadAverage is /proc/loadavg's first three figures.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// lsServerPid is the pid rostra ls gives for the server of stateDir (and
// only that one: other runs, a benchmark's or another test's, may be
// listed too).
func lsServerPid(t *testing.T, ws, stateDir string) int {
	t.Helper()
	ls := runBin(t, ws, "ls")
	require.Equal(t, 0, ls.code, ls.stderr)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(stateDir) + `\s.*\s(\d+)\s+\S+$`).FindStringSubmatch(ls.stdout)
	require.NotNil(t, m, "rostra ls does not list %s:\n%s", stateDir, ls.stdout)
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// readState reads the run's team-state.json.
func readState(t *testing.T, stateDir string) *statedir.TeamState {
	t.Helper()
	st, err := statedir.ReadTeamState(stateDir)
	require.NoError(t, err)
	return st
}

// workerPid is the pid of the worker's latest attempt.
func workerPid(t *testing.T, stateDir, worker string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		st, err := statedir.ReadTeamState(stateDir)
		if err != nil {
			return false
		}
		for _, d := range st.Dispatches {
			if d.WorkerID == worker && d.Pid > 0 {
				pid = d.Pid
			}
		}
		return pid > 0
	}, 10*time.Second, 20*time.Millisecond)
	return pid
}

// exitCodeFile waits for the code a tmux pane's shell wrote after rostra.
func exitCodeFile(t *testing.T, s tmuxServer, path string) string {
	t.Helper()
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && len(b) > 0
	}, 30*time.Second, 20*time.Millisecond, "rostra did not exit; screen:\n%s", s.screen())
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

func TestServerEndToEndInTmux(t *testing.T) {
	ws := runWorkspace(t, serverRunFile)
	stateDir := filepath.Join(ws, ".rostra", "served")

	// rostra run in a terminal: the UI, served.
	first := newTmux(t, "first")
	first.run("new-session", "-d", "-s", "ui", "-x", "160", "-y", "45", "-c", ws, rostraBin+" run; sleep 60")
	first.waitScreen("the panes open", "cat is ready", "sleeping", "2 running", "d detach")
	first.keys("i")
	first.waitScreen("input mode", "INPUT → cat-echo")
	first.keys("-l", "typed before the terminal closed")
	first.keys("Enter")
	require.Eventually(t, func() bool { return strings.Count(first.screen(), "typed before the terminal closed") == 2 }, 10*time.Second, 20*time.Millisecond,
		"the line and cat's copy of it: %s", first.screen())

	// The terminal goes away; the workers do not.
	first.run("kill-server")
	catPid, sleeperPid := workerPid(t, stateDir, "cat-echo"), workerPid(t, stateDir, "sleeper")
	ls := runBin(t, ws, "ls")
	require.Equal(t, 0, ls.code, ls.stderr)
	require.Contains(t, ls.stdout, stateDir, "rostra ls lists the run")
	require.Contains(t, ls.stdout, "2/2 running")
	serverPid := lsServerPid(t, ws, stateDir)
	assert.Eventually(t, func() bool {
		ls = runBin(t, ws, "ls")
		return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(stateDir) + `\s+served\s+running\s+2/2 running\s+0\s`).MatchString(ls.stdout)
	}, 10*time.Second, 20*time.Millisecond, "the closed terminal's client is gone: %s", ls.stdout)
	t.Cleanup(func() { stopServer(t, ws, serverPid) })
	time.Sleep(300 * time.Millisecond) // a moment for anything the closed terminal would have stopped to stop
	assert.True(t, alive(catPid), "cat runs on without the terminal")
	assert.True(t, alive(sleeperPid), "the sleeper runs on without the terminal")
	assert.Equal(t, statedir.RunRunning, readState(t, stateDir).Status)

	// Attach from another terminal, of another size: the pane's text and
	// the typed line are there.
	second := newTmux(t, "second")
	exit2 := filepath.Join(ws, "exit-attach")
	second.run("new-session", "-d", "-s", "ui", "-x", "120", "-y", "35", "-c", ws,
		rostraBin+" attach 2>"+filepath.Join(ws, "attach.err")+"; echo $? > "+exit2+"; sleep 60")
	second.waitScreen("attached", "cat is ready", "typed before the terminal closed", "sleeping", "2 running")
	second.keys("d")
	assert.Equal(t, "0", exitCodeFile(t, second, exit2), "a detach exits 0")
	errText, _ := os.ReadFile(filepath.Join(ws, "attach.err"))
	assert.Contains(t, string(errText), "detached from run served; it goes on. rostra attach comes back")
	assert.True(t, alive(catPid))

	// Drive it from the shell.
	r := runBin(t, ws, "cancel", "sleeper")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "sleeper: cancelled\n", r.stdout)
	require.Eventually(t, func() bool { return !alive(sleeperPid) }, 10*time.Second, 20*time.Millisecond, "the sleeper is stopped")
	require.Eventually(t, func() bool {
		r = runBin(t, ws, "status")
		return r.code == 0 && regexp.MustCompile(`sleeper\s+waiter\s+shell\s+cancelled`).MatchString(r.stdout)
	}, 10*time.Second, 20*time.Millisecond, "status shows the sleeper cancelled: %s%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "live from its server")

	// logs -f follows cat's output until its attempt ends (at the stop).
	follow := exec.Command(rostraBin, "logs", "-f", "cat-echo")
	follow.Dir = ws
	followed := &syncBuffer{}
	follow.Stdout = followed
	require.NoError(t, follow.Start())
	r = runBin(t, ws, "send", "--enter", "cat-echo", "sent", "from", "a", "shell")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "cat-echo: 18 bytes typed\n", r.stdout, "cat never enabled bracketed paste: typed as is")
	require.Eventually(t, func() bool {
		logs := runBin(t, ws, "logs", "cat-echo")
		return logs.code == 0 && strings.Count(logs.stdout, "sent from a shell") == 2
	}, 10*time.Second, 20*time.Millisecond, "the sent line and cat's copy of it in the log")
	r = runBin(t, ws, "logs", "--screen", "cat-echo")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "typed before the terminal closed\n")
	assert.Contains(t, r.stdout, "sent from a shell\n")

	wait := exec.Command(rostraBin, "wait")
	wait.Dir = ws
	require.NoError(t, wait.Start())
	r = runBin(t, ws, "stop")
	assert.Equal(t, 130, r.code, "stopping while cat runs is an interruption: %s", r.stderr)
	err := wait.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 130, ee.ExitCode(), "rostra wait exits with the run's code")
	require.NoError(t, follow.Wait(), "logs -f ends with the attempt")
	assert.Equal(t, 2, strings.Count(followed.String(), "sent from a shell"), "logs -f saw the sent line as it came: %q", followed.String())
	assert.Contains(t, followed.String(), "cat is ready")

	// Nothing is left running, and the state is complete.
	require.Eventually(t, func() bool { return !alive(serverPid) }, 10*time.Second, 20*time.Millisecond, "the server ended")
	assert.False(t, alive(catPid))
	_, err = os.Stat(filepath.Join(stateDir, server.SocketName))
	assert.ErrorIs(t, err, os.ErrNotExist, "the socket is removed")
	st := readState(t, stateDir)
	assert.Equal(t, statedir.RunInterrupted, st.Status)
	require.Len(t, st.Dispatches, 2)
	for _, d := range st.Dispatches {
		assert.NotNil(t, d.EndedAt, "%s has ended", d.DispatchID)
		assert.False(t, alive(d.Pid), "%s (pid %d) is gone", d.DispatchID, d.Pid)
	}
	log, err := os.ReadFile(filepath.Join(stateDir, "server.log"))
	require.NoError(t, err)
	assert.Contains(t, string(log), "sleeper#1 cancelled: cancelled by a human")
	assert.Contains(t, string(log), "the run ended, exit code 130")
	r = runBin(t, ws, "attach")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "was stopped before it finished: rostra run --resume continues it")
}

func TestServedUIDetachesOnSignalsAndGivesTheTerminalBack(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code string
	}{{syscall.SIGHUP, "129"}, {syscall.SIGTERM, "130"}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			ws := runWorkspace(t, serverRunFile)
			stateDir := filepath.Join(ws, ".rostra", "served")
			s := newTmux(t, "sig")
			exitFile := filepath.Join(ws, "exit-code")
			s.run("new-session", "-d", "-s", "ui", "-x", "160", "-y", "45", "-c", ws,
				rostraBin+" run 2>"+filepath.Join(ws, "stderr")+"; echo $? > "+exitFile+"; exec sleep 60")
			s.waitScreen("the panes open", "cat is ready", "sleeping")
			catPid := workerPid(t, stateDir, "cat-echo")
			serverPid := lsServerPid(t, ws, stateDir)
			t.Cleanup(func() { stopServer(t, ws, serverPid) })

			require.Equal(t, "1", s.paneModes()["alternate_on"])
			shellPid, err := strconv.Atoi(strings.TrimSpace(s.run("display-message", "-p", "-t", "ui", "#{pane_pid}")))
			require.NoError(t, err)
			require.NoError(t, syscall.Kill(childOf(t, shellPid), tc.sig))
			assert.Equal(t, tc.code, exitCodeFile(t, s, exitFile))
			assert.Equal(t, map[string]string{
				"alternate_on": "0", "mouse_any_flag": "0", "mouse_sgr_flag": "0",
				"keypad_flag": "0", "keypad_cursor_flag": "0", "cursor_flag": "1",
			}, s.paneModes(), "the terminal is given back")
			stderr, _ := os.ReadFile(filepath.Join(ws, "stderr"))
			assert.Contains(t, string(stderr), "detached (rostra attach got "+server.SignalName(tc.sig)+") from run served; it goes on")
			assert.True(t, alive(catPid), "the run goes on")
			assert.Equal(t, statedir.RunRunning, readState(t, stateDir).Status)
		})
	}
}

func TestServerSIGKILLedLeavesWhatResumeHandles(t *testing.T) {
	// The killed server comes to this process and stays a zombie until the
	// test reaps it: dead, though /proc still shows it.
	require.NoError(t, unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
	ws := runWorkspace(t, serverRunFile)
	stateDir := filepath.Join(ws, ".rostra", "served")
	pid := detachedRun(t, ws)
	catPid := workerPid(t, stateDir, "cat-echo")
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	t.Cleanup(func() {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	})
	require.Eventually(t, func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err == nil && bytes.Contains(b, []byte(") Z "))
	}, 20*time.Second, 20*time.Millisecond, "the SIGKILLed server is a zombie of this test")

	// The socket is stale: clients say so.
	r := runBin(t, ws, "status")
	assert.Equal(t, 0, r.code, "status reads the files: %s", r.stderr)
	assert.Contains(t, r.stdout, "run served: running (driven by pid")
	for _, cmd := range [][]string{{"attach"}, {"stop"}, {"cancel", "cat-echo"}, {"wait"}} {
		r := runBin(t, ws, cmd...)
		assert.Equal(t, 2, r.code, "%v", cmd)
		assert.Contains(t, r.stderr, "is stale: its server died", "%v", cmd)
		assert.Contains(t, r.stderr, "rostra run --resume continues it", "%v", cmd)
	}

	// --resume starts a new server past the stale socket; what the dead one
	// left running is stopped first.
	pid2 := detachedRun(t, ws, "--resume")
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	assert.Contains(t, string(b), ") Z ", "the dead server was still a zombie when --resume took the run")
	require.Eventually(t, func() bool { return !alive(catPid) }, 10*time.Second, 20*time.Millisecond, "the dead server's cat is stopped")
	st := readState(t, stateDir)
	require.Len(t, st.Dispatches, 4)
	assert.Contains(t, st.Dispatches[0].Reason, "interrupted")
	r = runBin(t, ws, "status")
	assert.Contains(t, r.stdout, "live from its server, pid "+strconv.Itoa(pid2))
	r = runBin(t, ws, "stop")
	assert.Equal(t, 130, r.code, r.stderr)
}

func TestServerStateDirDeeperThanASocketPath(t *testing.T) {
	deep := strings.Repeat("d", 60) + "/" + strings.Repeat("e", 60) + "/" + strings.Repeat("f", 60)
	ws := runWorkspace(t, strings.Replace(serverRunFile, "workspace: .\n", "workspace: .\nstate_dir: "+deep+"\n", 1))
	stateDir := filepath.Join(ws, deep)
	require.Greater(t, len(filepath.Join(stateDir, server.SocketName)), 200)
	detachedRun(t, ws)
	r := runBin(t, ws, "status", "--run", stateDir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "live from its server")
	r = runBin(t, ws, "ls")
	assert.Contains(t, r.stdout, stateDir)
	r = runBin(t, ws, "stop")
	assert.Equal(t, 130, r.code, r.stderr)
}

func TestServerRefusesAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test runs a client as another uid with setpriv, which needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("this test needs setpriv (util-linux)")
	}
	// The binary, somewhere nobody can run it from.
	binDir, err := os.MkdirTemp("", "rostra-other-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(binDir) })
	require.NoError(t, os.Chmod(binDir, 0o755))
	bin := filepath.Join(binDir, "rostra")
	data, err := os.ReadFile(rostraBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))

	ws := runWorkspace(t, serverRunFile)
	stateDir := filepath.Join(ws, ".rostra", "served")
	detachedRun(t, ws)
	asNobody := func() result {
		cmd := exec.Command("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", bin, "stop", "--run", stateDir)
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err, "%s", out)
		}
		return result{code: code, stderr: string(out)}
	}

	// As the state dir is (0700, a 0600 socket), nobody cannot even reach it.
	for dir := stateDir; dir != "/"; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		if dir != stateDir && fi.Mode().Perm()&0o001 == 0 {
			require.NoError(t, os.Chmod(dir, fi.Mode().Perm()|0o001), "let others through %s", dir)
		}
	}
	r := asNobody()
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "permission denied (the run belongs to another user)")

	// With the permissions opened up, the server itself refuses the uid.
	require.NoError(t, os.Chmod(stateDir, 0o711))
	require.NoError(t, os.Chmod(filepath.Join(stateDir, server.SocketName), 0o666))
	r = asNobody()
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "this run belongs to uid 0; uid 65534 may not attach to it or control it")
	log, err := os.ReadFile(filepath.Join(stateDir, "server.log"))
	require.NoError(t, err)
	assert.Regexp(t, `refused pid \d+ of uid 65534`, string(log))
	assert.Equal(t, statedir.RunRunning, readState(t, stateDir).Status, "the run goes on")
}

func TestControlCommandsWithoutAServer(t *testing.T) {
	ws := runWorkspace(t, serverRunFile)
	for _, cmd := range [][]string{{"attach"}, {"stop"}, {"wait"}, {"retry", "cat-echo"}, {"cancel", "cat-echo"}, {"send", "cat-echo", "hi"}} {
		r := runBin(t, ws, cmd...)
		assert.Equal(t, 2, r.code, "%v: %s", cmd, r.stderr)
		assert.Contains(t, r.stderr, "no rostra server runs for "+filepath.Join(ws, ".rostra", "served"), "%v", cmd)
	}
	r := runBin(t, t.TempDir(), "stop")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no rostra.yaml here: name the run file or its state dir (--run PATH)")
	r = runBin(t, ws, "status", "nowhere.yaml")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "nowhere.yaml does not exist")
}

func TestServerAnswersJSONStatusAndUnknownWorkers(t *testing.T) {
	ws := runWorkspace(t, serverRunFile)
	detachedRun(t, ws)
	r := runBin(t, ws, "status", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var st statedir.TeamState
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	assert.Equal(t, "served", st.Run)
	r = runBin(t, ws, "retry", "nobody")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `run served has no worker "nobody" (workers: cat-echo, sleeper)`)
	r = runBin(t, ws, "send", "sleeper")
	assert.Equal(t, 2, r.code, "nothing to send")
	r = runBin(t, ws, "run", "--detach")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, fmt.Sprintf("a rostra server already runs served (state dir %s): rostra attach shows it", filepath.Join(ws, ".rostra", "served")))
}

func TestSendPastesWhenTheChildAskedForIt(t *testing.T) {
	ws := runWorkspace(t, `version: 1
name: paste
providers:
  shell: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - { id: pasty, provider: shell, prompt: "stty -echo; printf '\\033[?2004hready\\n'; exec cat -v" }
`)
	detachedRun(t, ws)
	require.Eventually(t, func() bool {
		r := runBin(t, ws, "logs", "pasty")
		return strings.Contains(r.stdout, "ready")
	}, 10*time.Second, 20*time.Millisecond)
	r := runBin(t, ws, "send", "--enter", "pasty", "two\nlines")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "pasty: 22 bytes pasted (bracketed)\n", r.stdout)
	require.Eventually(t, func() bool {
		r := runBin(t, ws, "logs", "pasty")
		return strings.Contains(r.stdout, "^[[200~two")
	}, 10*time.Second, 20*time.Millisecond, "cat -v shows the paste markers")
	r = runBin(t, ws, "logs", "pasty")
	assert.Contains(t, r.stdout, "^[[200~two\r\nlines^[[201~", "a paste, newline as CR, then Enter")
}
