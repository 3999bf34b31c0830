package runfile

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLoadUISSH(t *testing.T) {
	const head = "version: 1\nname: z\nworkers: [{id: a, command: [x]}]\n"
	p, _ := loadOK(t, head)
	assert.Nil(t, p.SSH, "no ui.ssh: no SSH server")

	p, dir := loadOK(t, head+"ui: {ssh: {listen: \"127.0.0.1:2222\", authorized_keys: keys/ak}}\n")
	if assert.NotNil(t, p.SSH) {
		assert.Equal(t, "127.0.0.1:2222", p.SSH.Listen)
		real, _ := filepath.EvalSymlinks(dir)
		assert.Contains(t, []string{filepath.Join(dir, "keys/ak"), filepath.Join(real, "keys/ak")}, p.SSH.AuthorizedKeys, "relative to the workspace")
	}
	p, _ = loadOK(t, head+"ui: {ssh: {listen: \":2222\", authorized_keys: ~/.ssh/rostra_keys}}\n")
	if assert.NotNil(t, p.SSH) {
		assert.Equal(t, ":2222", p.SSH.Listen)
		assert.Equal(t, "~/.ssh/rostra_keys", p.SSH.AuthorizedKeys, "the server's home, found when it starts")
	}
	p, _ = loadOK(t, head+"ui: {ssh: {listen: \"[::1]:2222\"}}\n")
	if assert.NotNil(t, p.SSH) {
		assert.Equal(t, "", p.SSH.AuthorizedKeys, "the user's ~/.ssh/authorized_keys")
	}

	for yaml, want := range map[string]string{
		"ui: {ssh: {}}\n":                                       "ui.ssh: needs listen: the address the SSH server listens on (127.0.0.1:2222)",
		"ui: {ssh: {listen: \"2222\"}}\n":                       "ui.ssh.listen: is not host:port (127.0.0.1:2222, or :2222 for every address): address 2222: missing port in address",
		"ui: {ssh: {listen: \"build-box:22\"}}\n":               `ui.ssh.listen: has host "build-box"; use an IP address of this machine, localhost, or none (:2222, every address)`,
		"ui: {ssh: {listen: \":99999\"}}\n":                     `ui.ssh.listen: has port "99999"; use a number from 1 to 65535 (0: a free one, named when it listens)`,
		"ui: {ssh: {listen: \":22\", authorized_keys: \"\"}}\n": "ui.ssh.authorized_keys: is empty; leave the key out for ~/.ssh/authorized_keys",
		"ui: {ssh: {listen: \":22\", password: x}}\n":           "ui.ssh: unknown key \"password\"; allowed keys: listen, authorized_keys",
	} {
		assert.Contains(t, messages(loadProblems(t, t.TempDir(), head+yaml)), want, yaml)
	}
}
