// sshui_test.go checks the two files the SSH server trusts, on real files:
// the authorized keys (read at each login; a line with options is not
// taken; a file others may write is refused) and the host key (made once,
// 0600, reused; one others may read is refused).
package sshui

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gossh "golang.org/x/crypto/ssh"
)

func newKey(t *testing.T) gossh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	k, err := gossh.NewPublicKey(pub)
	require.NoError(t, err)
	return k
}

func line(k gossh.PublicKey, prefix, comment string) string {
	s := string(gossh.MarshalAuthorizedKey(k))
	return prefix + s[:len(s)-1] + " " + comment + "\n"
}

func TestAuthorizedKeys(t *testing.T) {
	plain, withOptions, absent := newKey(t), newKey(t), newKey(t)
	path := filepath.Join(t.TempDir(), "authorized_keys")
	body := "# a comment\n\nnot a key at all\n" + line(plain, "", "me@laptop") + line(withOptions, `from="10.0.0.1",no-pty `, "me@phone")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	a := authorizedKeys{path: path}
	var warned []string
	warn := func(w string) { warned = append(warned, w) }

	comment, ok := a.find(plain, warn)
	assert.True(t, ok)
	assert.Equal(t, "me@laptop", comment)
	_, ok = a.find(absent, warn)
	assert.False(t, ok, "a key not listed")
	_, ok = a.find(withOptions, warn)
	assert.False(t, ok, "a key with options is not taken without them")
	assert.Contains(t, warned, path+`:5 has options (from="10.0.0.1"): rostra's SSH server takes no key with options; list the key again without them to let it in`)
	assert.Contains(t, warned[0], path+":3 does not parse")

	// Read again at each login: a key removed is refused from then on.
	require.NoError(t, os.WriteFile(path, []byte(line(absent, "", "other")), 0o600))
	_, ok = a.find(plain, warn)
	assert.False(t, ok, "the key was removed from the file")

	require.NoError(t, os.Chmod(path, 0o620))
	assert.ErrorContains(t, a.check(), "has mode 0620: others may write it, and so let themselves in; chmod go-w it")
	_, ok = a.find(absent, warn)
	assert.False(t, ok, "a file others may write lets no one in")
	assert.ErrorContains(t, authorizedKeys{path: filepath.Join(t.TempDir(), "none")}.check(), "the SSH server lets in only the keys listed there")
}

func TestHostKeyIsMadeOnceAndKeptPrivate(t *testing.T) {
	dir := t.TempDir()
	s1, err := LoadHostKey(dir)
	require.NoError(t, err)
	assert.Equal(t, gossh.KeyAlgoED25519, s1.PublicKey().Type())
	fi, err := os.Stat(filepath.Join(dir, HostKeyFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	s2, err := LoadHostKey(dir)
	require.NoError(t, err)
	assert.Equal(t, s1.PublicKey().Marshal(), s2.PublicKey().Marshal(), "the same key the next time")

	require.NoError(t, os.Chmod(filepath.Join(dir, HostKeyFile), 0o644))
	_, err = LoadHostKey(dir)
	assert.ErrorContains(t, err, "has mode 0644, not 0600: others could read it")

	require.NoError(t, os.Remove(filepath.Join(dir, HostKeyFile)))
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(dir, HostKeyFile)))
	_, err = LoadHostKey(dir)
	assert.Error(t, err, "a link in the state dir is not followed")
}
