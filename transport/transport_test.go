// transport_test.go runs the scripts transport makes on this machine,
// through `sh -c` as a transport: argv would: the rostra found there (and
// the words when there is none), the bridge's no-server answer, and a
// stream's bytes both ways. The real hosts are cmd/rostra's e2e tests.
package transport

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/server"
)

func TestSSHCommandWords(t *testing.T) {
	t.Setenv("ROSTRA_SSH", "ssh -F /cfg")
	c := SSH("box", "me@box", "2222", true, "-o", "ServerAliveInterval=5")
	assert.Equal(t, []string{"ssh", "-F", "/cfg", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-p", "2222", "--", "me@box", "echo hi"}, c.Cmd("echo hi").Args)
	t.Setenv("ROSTRA_SSH", "")
	assert.Equal(t, []string{"ssh", "--", "box", "true"}, SSH("box", "box", "", false).Cmd("true").Args)
}

func TestQuoteAndWord(t *testing.T) {
	assert.Equal(t, "a/b-c.d", Quote("a/b-c.d"))
	assert.Equal(t, `'it'\''s here'`, Quote("it's here"))
	assert.Equal(t, "''", Quote(""))
	assert.Equal(t, "~/'my proj'", Word("~/my proj"))
	assert.Equal(t, "'~x'", Word("~x"))
}

// here is a transport to this machine with a home and a PATH of its own.
func here(t *testing.T) (Command, string) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	return Argv("here", []string{"env", "-i", "HOME=" + home, "PATH=" + bin + ":/usr/bin:/bin", "sh", "-c"}), home
}

func TestRostraFoundThereOrSaidMissing(t *testing.T) {
	c, home := here(t)
	_, err := c.Run(Rostra("version"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rostra is not installed on here (no rostra on PATH (")
	assert.Contains(t, err.Error(), "give --install to copy this binary to ~/.cache/rostra/"+VersionDir()+"/rostra there")

	// The cached copy of this version is preferred to the one on PATH.
	onPath := filepath.Join(home, "bin", "rostra")
	require.NoError(t, os.WriteFile(onPath, []byte("#!/bin/sh\necho path \"$@\"\n"), 0o755))
	out, err := c.Run(Rostra("status", Quote("a b")), nil)
	require.NoError(t, err)
	assert.Equal(t, "path status a b\n", out)
	cached := filepath.Join(home, ".cache", "rostra", VersionDir(), "rostra")
	require.NoError(t, os.MkdirAll(filepath.Dir(cached), 0o755))
	require.NoError(t, os.WriteFile(cached, []byte("#!/bin/sh\necho cached \"$@\"\n"), 0o755))
	out, err = c.Run(Rostra("status"), nil)
	require.NoError(t, err)
	assert.Equal(t, "cached status\n", out)
}

func TestInstallCopiesThisBinaryThere(t *testing.T) {
	c, home := here(t)
	require.NoError(t, c.Install())
	exe, err := os.Executable()
	require.NoError(t, err)
	want, err := os.ReadFile(exe)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(home, ".cache", "rostra", VersionDir(), "rostra"))
	require.NoError(t, err)
	assert.Equal(t, len(want), len(got))
	assert.True(t, string(want) == string(got), "the copy is this binary")
}

func TestExplainNoServerIsServerErrNoServer(t *testing.T) {
	c, _ := here(t)
	_, err := c.Run("echo 'no rostra server runs for /x' >&2; exit 3", nil)
	require.Error(t, err)
	assert.True(t, errors.Is(err, server.ErrNoServer))
	assert.Equal(t, "on here: no rostra server runs for /x", err.Error())
	_, err = c.Run("echo broke >&2; exit 4", nil)
	assert.EqualError(t, err, "on here: broke (exit code 4)")
	_, err = SSH("gone", "gone.invalid", "", true).Run("true", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ssh to gone.invalid failed: ssh: Could not resolve hostname gone.invalid")
}

func TestStreamBothWaysAndWhyItEnded(t *testing.T) {
	c, _ := here(t)
	s, err := c.Stream("cat")
	require.NoError(t, err)
	_, err = s.Write([]byte("hello\n"))
	require.NoError(t, err)
	buf := make([]byte, 6)
	_, err = io.ReadFull(s, buf)
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(buf))
	require.NoError(t, s.Close())

	s, err = c.Stream("echo 'no rostra server runs for /y' >&2; exit 3")
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Read(buf)
	assert.True(t, errors.Is(err, server.ErrNoServer), "a read after the bridge's no-server exit: %v", err)
}
