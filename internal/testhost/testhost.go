// Package testhost makes test hosts: a machine reached over SSH, made of
// two network namespaces the test owns (the client's and the host's), a
// veth pair between them with addresses that exist only there, and an
// sshd of the test's own (Debian's openssh-server) listening on the host's
// address with its own host key, config and an authorized key the test
// generated. Commands reach the host through SSHCommand, an ssh that runs
// in the client's namespace with the test's config (-F), known_hosts and
// key: nothing of the machine's own ssh setup is read or written.
//
// The session user is root (tests run as root, here and in CI) with a
// HOME and a PATH of the test's own, set by the sshd config, so nothing is
// added to /etc/passwd nor to root's home. Everything is removed in the
// test's cleanup, and a watcher process removes it too when the test
// process dies without cleaning up (a timeout, a SIGKILL).
//
// Setting up fails the test, never skips it: a machine without ip, sshd
// or root cannot run the tests that need a host.
package testhost

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The addresses of the veth pair: they exist only inside the two
// namespaces of one host, so every host uses the same ones.
const (
	ClientAddr = "10.250.0.1"
	HostAddr   = "10.250.0.2"
	// Alias is the host's name in the client config.
	Alias = "testhost"
)

// Host is one test host.
type Host struct {
	// Dir holds the host's keys, configs and Home.
	Dir string
	// Home is the session's HOME on the host; Home/bin is first on its PATH.
	Home string
	// ClientNS and HostNS are the namespaces' names (ip netns).
	ClientNS, HostNS string
	// Config is the client's ssh config file (ssh -F).
	Config string
	sshd   *exec.Cmd
}

var seq atomic.Int32

// New makes a host for t, removed in t's cleanup.
func New(t testing.TB) *Host {
	t.Helper()
	for _, bin := range []string{"ip", "/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		_, err := exec.LookPath(bin)
		require.NoError(t, err, "a test host needs %s (apt-get install -y iproute2 openssh-server openssh-client; .ci/run installs them)", bin)
	}
	require.Equal(t, 0, os.Geteuid(), "a test host needs root (ip netns add); tests run as root here and in CI")
	removeOrphans()

	dir := t.TempDir()
	n := seq.Add(1)
	h := &Host{
		Dir:      dir,
		Home:     filepath.Join(dir, "home"),
		ClientNS: fmt.Sprintf("rostra-test-%d-%dc", os.Getpid(), n),
		HostNS:   fmt.Sprintf("rostra-test-%d-%dh", os.Getpid(), n),
		Config:   filepath.Join(dir, "ssh_config"),
	}
	require.NoError(t, os.MkdirAll(filepath.Join(h.Home, "bin"), 0o755))
	stopGuard := guard(t, h)
	t.Cleanup(func() {
		h.remove()
		stopGuard()
	})

	run(t, "ip", "netns", "add", h.ClientNS)
	run(t, "ip", "netns", "add", h.HostNS)
	run(t, "ip", "link", "add", "vc", "netns", h.ClientNS, "type", "veth", "peer", "name", "vh", "netns", h.HostNS)
	run(t, "ip", "-n", h.ClientNS, "addr", "add", ClientAddr+"/30", "dev", "vc")
	run(t, "ip", "-n", h.HostNS, "addr", "add", HostAddr+"/30", "dev", "vh")
	for _, ns := range []string{h.ClientNS, h.HostNS} {
		dev := map[bool]string{true: "vc", false: "vh"}[ns == h.ClientNS]
		run(t, "ip", "-n", ns, "link", "set", "lo", "up")
		run(t, "ip", "-n", ns, "link", "set", dev, "up")
	}

	key := filepath.Join(dir, "id_ed25519")
	hostKey := filepath.Join(dir, "host_ed25519")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rostra-test-client", "-f", key)
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rostra-test-host", "-f", hostKey)
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600))
	hostPub, err := os.ReadFile(hostKey + ".pub")
	require.NoError(t, err)
	fields := strings.Fields(string(hostPub))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "known_hosts"),
		[]byte(Alias+","+HostAddr+" "+fields[0]+" "+fields[1]+"\n"), 0o600))

	sshdConfig := filepath.Join(dir, "sshd_config")
	require.NoError(t, os.WriteFile(sshdConfig, []byte(strings.Join([]string{
		"ListenAddress " + HostAddr,
		"Port 22",
		"HostKey " + hostKey,
		"PidFile none",
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"StrictModes no", // the test's temp dir is not root's home
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"AllowUsers root",
		"UsePAM no",
		"SetEnv HOME=" + h.Home + " PATH=" + filepath.Join(h.Home, "bin") + ":/usr/bin:/bin",
		"",
	}, "\n")), 0o600))
	require.NoError(t, os.WriteFile(h.Config, []byte(strings.Join([]string{
		"Host " + Alias,
		"  HostName " + HostAddr,
		"  Port 22",
		"  User root",
		"  IdentityFile " + key,
		"  IdentitiesOnly yes",
		"  UserKnownHostsFile " + filepath.Join(dir, "known_hosts"),
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  ConnectTimeout 10",
		"",
	}, "\n")), 0o600))

	// sshd refuses to start without its privilege separation dir, which
	// Debian's service would make at boot.
	require.NoError(t, os.MkdirAll("/run/sshd", 0o755))
	h.sshd = exec.Command("ip", "netns", "exec", h.HostNS, "/usr/sbin/sshd", "-D", "-e", "-f", sshdConfig)
	stderr, err := h.sshd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, h.sshd.Start(), "start sshd in %s", h.HostNS)
	listening := make(chan error, 1)
	go func() {
		var log strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Server listening on "+HostAddr) {
				listening <- nil
				for sc.Scan() { // keep reading: sshd must not block on its log
				}
				return
			}
		}
		listening <- fmt.Errorf("sshd in %s ended before it listened:\n%s", h.HostNS, log.String())
	}()
	select {
	case err := <-listening:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		require.FailNow(t, "sshd did not listen within 20 s", "in %s", h.HostNS)
	}
	return h
}

// SSHCommand is the ssh command that reaches the host from the client's
// namespace, as ROSTRA_SSH names it: words split at spaces.
func (h *Host) SSHCommand() string {
	return "ip netns exec " + h.ClientNS + " ssh -F " + h.Config
}

// Run runs a shell command on the host over ssh and returns its output
// (stdout and stderr), failing t when it fails.
func (h *Host) Run(t testing.TB, script string) string {
	t.Helper()
	args := append(strings.Fields(h.SSHCommand()), "-o", "BatchMode=yes", Alias, script)
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "on the test host: %s\n%s", script, out)
	return string(out)
}

// SetLink brings the veth pair up or down: the link cut, as a network
// that drops, the namespaces and their processes left as they are.
func (h *Host) SetLink(t testing.TB, up bool) {
	t.Helper()
	state := map[bool]string{true: "up", false: "down"}[up]
	run(t, "ip", "-n", h.ClientNS, "link", "set", "vc", state)
	run(t, "ip", "-n", h.HostNS, "link", "set", "vh", state)
}

// remove kills every process in the host's namespaces (sshd, its
// sessions, what they started) and deletes the namespaces.
func (h *Host) remove() {
	if h.sshd != nil && h.sshd.Process != nil {
		_ = h.sshd.Process.Kill()
		_ = h.sshd.Wait()
	}
	for _, ns := range []string{h.HostNS, h.ClientNS} {
		removeNS(ns)
	}
}

// removeNS kills what runs in ns, by pid, and deletes it.
func removeNS(ns string) {
	out, _ := exec.Command("ip", "netns", "pids", ns).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	_ = exec.Command("ip", "netns", "del", ns).Run()
}

// removeOrphans removes the namespaces of test processes that died
// before their cleanup and their watcher could run (a watcher killed too).
func removeOrphans() {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "rostra-test-") {
			continue
		}
		parts := strings.Split(f[0], "-")
		pid, err := strconv.Atoi(parts[2])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			removeNS(f[0])
		}
	}
}

// guard starts a watcher that removes h when this process ends without
// its cleanup having run; stop ends the watcher.
func guard(t testing.TB, h *Host) (stop func()) {
	t.Helper()
	script := fmt.Sprintf(`while s=$(cat /proc/%d/stat 2>/dev/null); do case ${s##*) } in Z*) break ;; esac; sleep 1; done
for ns in "$1" "$2"; do kill -9 $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null; ip netns del "$ns" 2>/dev/null; done`, os.Getpid())
	w := exec.Command("sh", "-c", script, "rostra-testhost-guard", h.HostNS, h.ClientNS)
	w.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, w.Start(), "start the watcher of the test host")
	return func() {
		_ = syscall.Kill(-w.Process.Pid, syscall.SIGKILL)
		_ = w.Wait()
	}
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
}
