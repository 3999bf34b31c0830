// sshui_e2e_test.go drives the SSH server of a run's UI (docs/remote.md
// §The SSH server) through the real binary and the system's ssh client, as
// a person would: `rostra serve-ssh` for a live run on a loopback port,
// ssh -tt in tmux shows the UI, a key reaches the child, d ends the
// session and the run goes on; a wrong key, a password and a session
// without a terminal are refused; two sessions draw at their own sizes;
// the 9th session is told why and closed; the host key is 0600 and the
// same after a restart; `rostra run --ssh` and ui.ssh serve it too.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/sshui"
	"github.com/rostra-dev/rostra/statedir"
)

// sshKeys is a test's client keys: key is in authorized, wrong is not.
type sshKeys struct {
	dir, key, wrong, authorized, knownHosts string
	fingerprint                             string // key's SHA256:…
}

func newSSHKeys(t *testing.T) sshKeys {
	t.Helper()
	for _, bin := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("this test needs %s (apt-get install -y openssh-client); it never skips", bin)
		}
	}
	d := t.TempDir()
	k := sshKeys{dir: d, key: filepath.Join(d, "key"), wrong: filepath.Join(d, "wrong"),
		authorized: filepath.Join(d, "authorized_keys"), knownHosts: filepath.Join(d, "known_hosts")}
	for _, f := range []string{k.key, k.wrong} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tester@"+filepath.Base(f), "-f", f).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	pub, err := os.ReadFile(k.key + ".pub")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(k.authorized, pub, 0o600))
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", k.key+".pub").CombinedOutput()
	require.NoError(t, err, "%s", out)
	k.fingerprint = strings.Fields(string(out))[1]
	return k
}

// sshArgs is an ssh command line to port with key; extra goes before the
// destination.
func (k sshKeys) sshArgs(port, key string, extra ...string) []string {
	args := []string{"ssh", "-F", "/dev/null", "-p", port, "-i", key, "-o", "IdentitiesOnly=yes",
		"-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=" + k.knownHosts,
		"-o", "BatchMode=yes", "-o", "ConnectTimeout=10"}
	return append(append(args, extra...), "me@127.0.0.1")
}

var servesRx = regexp.MustCompile(`serves run \S+ on 127\.0\.0\.1:(\d+) \(host key (SHA256:\S+)\)`)

// serveSSH starts `rostra serve-ssh` for the run in ws on a free loopback
// port and returns the port, the host key's fingerprint and a stop.
func serveSSH(t *testing.T, ws string, k sshKeys, addr string) (port, hostKey string, stop func() string, exited <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(rostraBin, "serve-ssh", "--authorized-keys", k.authorized, addr)
	cmd.Dir = ws
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var mu sync.Mutex
	var said bytes.Buffer
	first := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			said.WriteString(sc.Text() + "\n")
			mu.Unlock()
			select {
			case first <- sc.Text():
			default:
			}
		}
		close(first)
	}()
	line := <-first
	m := servesRx.FindStringSubmatch(line)
	require.NotNil(t, m, "serve-ssh said %q", line)
	done := make(chan struct{})
	// Wait closes the pipe: only once every line of it was read, or the
	// last ones (why it stopped) could be lost.
	go func() { <-scanned; _ = cmd.Wait(); close(done) }()
	stop = func() string {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("serve-ssh did not end within 10 s of its SIGTERM")
			_ = cmd.Process.Kill()
			<-done
		}
		mu.Lock()
		defer mu.Unlock()
		return said.String()
	}
	t.Cleanup(func() { stop() })
	return m[1], m[2], stop, done
}

// sshSession is an ssh -tt client whose terminal is a pipe: what it draws
// is gathered, its stdin held open until closed.
type sshSession struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	mu  sync.Mutex
	out bytes.Buffer
}

func startSSHSession(t *testing.T, args []string) *sshSession {
	t.Helper()
	s := &sshSession{cmd: exec.Command(args[0], args[1:]...)}
	var err error
	s.in, err = s.cmd.StdinPipe()
	require.NoError(t, err)
	s.cmd.Stdout, s.cmd.Stderr = s, s
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() { s.close() })
	return s
}

func (s *sshSession) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

func (s *sshSession) said() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// close ends the client as a closed terminal does, and waits for it.
func (s *sshSession) close() {
	_ = s.in.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// sshEvents are the run's ssh-session events.
func sshEvents(t *testing.T, stateDir string) []statedir.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(stateDir, statedir.EventsFile))
	require.NoError(t, err)
	var evs []statedir.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev statedir.Event
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		if strings.HasPrefix(ev.Type, "ssh-session-") {
			evs = append(evs, ev)
		}
	}
	return evs
}

func TestSSHServeShowsTheUI(t *testing.T) {
	ws := runWorkspace(t, serverRunFile)
	stateDir := filepath.Join(ws, ".rostra", "served")
	detachedRun(t, ws)
	k := newSSHKeys(t)
	port, hostKey, stop, _ := serveSSH(t, ws, k, "127.0.0.1:0")

	// The host key: made once, 0600, an ed25519 key.
	keyFile := filepath.Join(stateDir, sshui.HostKeyFile)
	fi, err := os.Stat(keyFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	keyBytes, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", keyFile).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), hostKey, "the host key the server names is the file's")
	assert.Contains(t, string(out), "(ED25519)")
	assert.NoFileExists(t, filepath.Join(ws, "id_ed25519"), "no key is written outside the state dir")

	// The UI, in a real terminal (tmux) through a real ssh client.
	term := newTmux(t, "sshui")
	exit := filepath.Join(k.dir, "exit-ssh")
	term.run("new-session", "-d", "-s", "ui", "-x", "120", "-y", "35",
		strings.Join(k.sshArgs(port, k.key, "-tt"), " ")+" 2>"+filepath.Join(k.dir, "ssh.err")+"; echo $? > "+exit+"; sleep 60")
	screen := term.waitScreen("the UI over ssh", "cat-echo", "cat is ready", "sleeping", "2 running", "d detach")
	assert.Equal(t, 120, len([]rune(strings.Split(screen, "\n")[0])), "drawn at the session's width: %q", strings.Split(screen, "\n")[0])
	term.keys("i")
	term.waitScreen("input mode", "INPUT → cat-echo")
	term.keys("-l", "typed over wish")
	term.keys("Enter")
	require.Eventually(t, func() bool { return strings.Count(term.screen(), "typed over wish") == 2 }, 15*time.Second, 20*time.Millisecond,
		"the line and cat's copy of it: %s", term.screen())

	// Ctrl-Z cannot stop an SSH client: the UI gives the terminal back
	// and takes it again at once.
	term.keys("C-]")
	term.keys("C-z")
	term.waitScreen("back from a Ctrl-Z", "cat-echo", "typed over wish", "d detach")
	_, err = os.Stat(exit)
	assert.ErrorIs(t, err, os.ErrNotExist, "the ssh session goes on after a Ctrl-Z")
	term.keys("i")
	term.waitScreen("input mode again", "INPUT → cat-echo")

	// A second session at another size is drawn at its own; a window
	// change redraws the first at its new size.
	other := newTmux(t, "sshui2")
	other.run("new-session", "-d", "-s", "ui", "-x", "80", "-y", "24", strings.Join(k.sshArgs(port, k.key, "-tt"), " ")+"; sleep 60")
	screen2 := other.waitScreen("a second session", "cat-echo", "typed over wish")
	lines2 := strings.Split(strings.TrimRight(screen2, "\n"), "\n")
	assert.Equal(t, 80, len([]rune(lines2[0])), "the second session is 80 wide: %q", lines2[0])
	assert.Len(t, lines2, 24, "and 24 high")
	assert.Equal(t, 120, len([]rune(strings.Split(term.screen(), "\n")[0])), "the first keeps its width")
	term.run("resize-window", "-t", "ui", "-x", "100", "-y", "30")
	require.Eventually(t, func() bool {
		s := strings.Split(term.screen(), "\n")
		return len([]rune(strings.TrimRight(s[0], " "))) == 100
	}, 10*time.Second, 20*time.Millisecond, "the first session redrawn at 100 wide: %s", term.screen())
	assert.NotContains(t, other.screen(), "INPUT → cat-echo", "focus and modes are each session's own")

	// Up to 8 sessions: 6 more, then the 9th is told why and closed.
	var extra []*sshSession
	for range 6 {
		extra = append(extra, startSSHSession(t, k.sshArgs(port, k.key, "-tt")))
	}
	for i, s := range extra {
		require.Eventually(t, func() bool { return strings.Contains(s.said(), "cat-echo") }, 20*time.Second, 20*time.Millisecond,
			"session %d drew no UI: %q", i+3, s.said())
	}
	ninth := exec.Command(k.sshArgs(port, k.key, "-tt")[0], k.sshArgs(port, k.key, "-tt")[1:]...)
	ninth.Stdin = strings.NewReader("")
	said, err := ninth.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "the 9th session: %s", said)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Contains(t, string(said), "already serves 8 sessions, the most it serves: detach one (d) and try again")
	for _, s := range extra {
		s.close()
	}
	// A closed terminal ends its session; the run goes on.
	other.run("kill-session", "-t", "ui")

	// Refused: a key not in authorized_keys, a password (not offered),
	// a session without a terminal, a command.
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a wrong key", k.sshArgs(port, k.wrong, "-tt"), 255, "Permission denied (publickey)"},
		{"a password", k.sshArgs(port, k.wrong, "-o", "PreferredAuthentications=password,keyboard-interactive", "-o", "PubkeyAuthentication=no"), 255, "Permission denied (publickey)"},
		{"no terminal", k.sshArgs(port, k.key, "-T"), 1, "needs a terminal: ssh -t"},
		{"a command", append(k.sshArgs(port, k.key, "-tt"), "rostra", "status"), 1, "runs no command"},
	} {
		cmd := exec.Command(c.args[0], c.args[1:]...)
		cmd.Stdin = strings.NewReader("")
		said, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if assert.ErrorAs(t, err, &ee, "%s: %s", c.name, said) {
			assert.Equal(t, c.code, ee.ExitCode(), "%s: %s", c.name, said)
		}
		assert.Contains(t, string(said), c.want, c.name)
		assert.NotContains(t, string(said), "password:", c.name)
	}

	// d detaches the first session; the run goes on.
	term.keys("C-]")
	term.keys("d")
	assert.Equal(t, "0", exitCodeFile(t, term, exit), "a detach exits 0")
	st := runBin(t, ws, "status")
	require.Equal(t, 0, st.code, st.stderr)
	assert.Regexp(t, `cat-echo\s+echo\s+shell\s+running`, st.stdout, "the run goes on")

	// Each session's start and end is an event: who (the key), from where.
	require.Eventually(t, func() bool { return len(sshEvents(t, stateDir)) >= 2*8 }, 10*time.Second, 50*time.Millisecond)
	evs := sshEvents(t, stateDir)
	started := 0
	for _, ev := range evs {
		require.NotNil(t, ev.Client, "%+v", ev)
		assert.Equal(t, k.fingerprint, ev.Client.Key)
		assert.Equal(t, "tester@key", ev.Client.KeyName)
		assert.Equal(t, "me", ev.Client.User)
		assert.Regexp(t, `^127\.0\.0\.1:\d+$`, ev.Client.From)
		if ev.Type == statedir.EventSSHSessionStarted {
			started++
		}
	}
	assert.Equal(t, 8, started, "two in tmux, six more; the 9th and the refused ones never attached")
	assert.Equal(t, "detached", evs[len(evs)-1].Reason, "the last to end is the one d detached")
	log, err := os.ReadFile(filepath.Join(stateDir, serverLogFile))
	require.NoError(t, err)
	assert.Contains(t, string(log), "ssh session of tester@key ("+k.fingerprint+") from 127.0.0.1:")
	said2 := stop()
	assert.Contains(t, said2, "refused key", "serve-ssh logs the refused key")

	// The host key is the same after a restart: known_hosts still holds.
	port, hostKey2, stop, exited := serveSSH(t, ws, k, "127.0.0.1:0")
	assert.Equal(t, hostKey, hostKey2)
	again, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	assert.Equal(t, keyBytes, again, "the key file is not written again")
	args := k.sshArgs(port, k.key, "-tt", "-o", "StrictHostKeyChecking=yes", "-o", "HostKeyAlias=rostra-test")
	require.NoError(t, exec.Command("sh", "-c", "sed -i 's/^\\[127.0.0.1\\]:[0-9]*/rostra-test/' "+k.knownHosts).Run())
	s := startSSHSession(t, args)
	require.Eventually(t, func() bool { return strings.Contains(s.said(), "cat-echo") }, 20*time.Second, 20*time.Millisecond,
		"the known host key still holds after the restart: %q", s.said())

	// The run's end ends its sessions (told why) and serve-ssh.
	st = runBin(t, ws, "stop")
	require.Equal(t, 130, st.code, st.stderr)
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatal("serve-ssh still runs after the run ended")
	}
	assert.Contains(t, stop(), "the run's server has ended; the SSH server stops")
	s.close()
	assert.Contains(t, s.said(), "rostra: the run stopped")
}

var servedOverRx = regexp.MustCompile(`the UI is served over SSH on 127\.0\.0\.1:(\d+) \(host key SHA256:\S+\)`)

// rostra run --ssh and the run file's ui.ssh start the SSH server with the
// run's own server; it ends with the run.
func TestRunSSHServesTheUI(t *testing.T) {
	k := newSSHKeys(t)
	for _, c := range []struct {
		name, runFile string
		args, env     []string
	}{
		{"ui.ssh in the run file", strings.Replace(serverRunFile, "workspace: .\n",
			"workspace: .\nui: { ssh: { listen: \"127.0.0.1:0\", authorized_keys: "+k.authorized+" } }\n", 1), nil, nil},
		{"run --ssh, the keys of ~/.ssh/authorized_keys", serverRunFile, []string{"--ssh", "127.0.0.1:0"}, []string{"HOME=" + k.dir}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != nil {
				require.NoError(t, os.MkdirAll(filepath.Join(k.dir, ".ssh"), 0o700))
				pub, err := os.ReadFile(k.authorized)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(k.dir, ".ssh", "authorized_keys"), pub, 0o600))
			}
			ws := runWorkspace(t, c.runFile)
			r := runBinEnv(t, ws, c.env, append([]string{"run", "--detach"}, c.args...)...)
			require.Equal(t, 0, r.code, "run --detach: %s%s", r.stdout, r.stderr)
			m := serverPidRx.FindStringSubmatch(r.stdout)
			require.NotNil(t, m, r.stdout)
			pid := 0
			pid, _ = strconv.Atoi(m[1])
			t.Cleanup(func() { stopServer(t, ws, pid) })
			pm := servedOverRx.FindStringSubmatch(r.stderr)
			require.NotNil(t, pm, "run --detach says where the SSH server listens: %s", r.stderr)
			s := startSSHSession(t, k.sshArgs(pm[1], k.key, "-tt"))
			require.Eventually(t, func() bool { return strings.Contains(s.said(), "cat is ready") }, 20*time.Second, 20*time.Millisecond,
				"the UI over ssh: %q", s.said())
			s.close()
			assert.NoFileExists(t, filepath.Join(ws, "id_ed25519"), "no key is written outside the state dir")
			stop := runBin(t, ws, "stop")
			require.Equal(t, 130, stop.code, stop.stderr)
			cmd := exec.Command(k.sshArgs(pm[1], k.key, "-tt")[0], k.sshArgs(pm[1], k.key, "-tt")[1:]...)
			said, err := cmd.CombinedOutput()
			require.Error(t, err)
			assert.Contains(t, string(said), "Connection refused", "the SSH server ended with the run")
		})
	}
	ws := runWorkspace(t, serverRunFile)
	r := runBin(t, ws, "run", "--headless", "--ssh", "127.0.0.1:0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "serves the UI from the run's server: not with --headless")
	home := t.TempDir()
	r = runBinEnv(t, ws, []string{"HOME=" + home}, "run", "--detach", "--ssh", "127.0.0.1:0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "rostra run: the authorized keys: stat "+home+"/.ssh/authorized_keys: no such file or directory (the SSH server lets in only the keys listed there")
	assert.NoFileExists(t, filepath.Join(ws, ".rostra", "served", "team-state.json"), "refused before the run started")
	r = runBin(t, ws, "run", "--detach", "--ssh", "build-box:22")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `--ssh build-box:22 has host "build-box"; use an IP address of this machine`)
}
