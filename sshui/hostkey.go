// hostkey.go keeps the SSH server's host key: an ed25519 key made once in
// the run's state dir (HostKeyFile, mode 0600) and read again by every
// later server of the run, so a client's known_hosts stays right across
// restarts (docs/remote.md §The SSH server). The file is an OpenSSH
// private key, as ssh-keygen writes one; it is written and read relative
// to the state dir's descriptor without following a link
// (docs/state.md §No links).
package sshui

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	gossh "golang.org/x/crypto/ssh"

	"github.com/rostra-dev/rostra/statedir"
)

// HostKeyFile is the host key's name in the state dir.
const HostKeyFile = statedir.SSHHostKeyFile

// LoadHostKey reads the state dir's host key, making it first when there
// is none. A key others may read (a mode other than 0600) is refused, as
// sshd refuses one.
func LoadHostKey(stateDir string) (gossh.Signer, error) {
	sfs, err := statedir.OpenFS(stateDir)
	if err != nil {
		return nil, fmt.Errorf("open the state dir for the SSH host key: %w", err)
	}
	defer sfs.Close()
	path := sfs.Abs(HostKeyFile)
	f, err := sfs.OpenFile(HostKeyFile, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if err := makeHostKey(sfs); err != nil {
			return nil, err
		}
		f, err = sfs.OpenFile(HostKeyFile, os.O_RDONLY, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("read the SSH host key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read the SSH host key: %w", err)
	}
	if fi.Mode().Perm() != 0o600 {
		return nil, fmt.Errorf("the SSH host key %s has mode %04o, not 0600: others could read it; chmod 600 it, or remove it to make a new one (clients then see a changed host key)", path, fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("read the SSH host key %s: %w", path, err)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("the SSH host key %s does not parse (%v): remove it to make a new one (clients then see a changed host key)", path, err)
	}
	return signer, nil
}

// makeHostKey writes a new ed25519 key, the file made with O_EXCL: of two
// servers starting at once one writes it and both read it.
func makeHostKey(sfs *statedir.FS) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("make the SSH host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "rostra host key")
	if err != nil {
		return fmt.Errorf("make the SSH host key: %w", err)
	}
	f, err := sfs.CreateFresh(HostKeyFile, os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write the SSH host key: %w", err)
	}
	_, err = f.Write(pem.EncodeToMemory(block))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the SSH host key %s: %w", sfs.Abs(HostKeyFile), err)
	}
	return nil
}
