// authkeys.go decides who may log in: the public keys listed in an
// authorized_keys file (the user's ~/.ssh/authorized_keys by default), read
// again at each login as sshd reads it, so a key removed there is refused
// from the next login on (docs/remote.md §The SSH server). A line with
// options (from=, command=, restrict, cert-authority…) is not taken:
// rostra does not implement them, and taking the key without them would
// let it do more than the file says.
package sshui

import (
	"bufio"
	"bytes"
	"fmt"
	"os"

	gossh "golang.org/x/crypto/ssh"
)

// authorizedKeys is one authorized_keys file.
type authorizedKeys struct{ path string }

// check opens the file as a login will: it must exist and be writable by
// its owner only (sshd's StrictModes).
func (a authorizedKeys) check() error {
	fi, err := os.Stat(a.path)
	if err != nil {
		return fmt.Errorf("the authorized keys: %w (the SSH server lets in only the keys listed there: make it, or name another file)", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the authorized keys %s is not a regular file", a.path)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("the authorized keys %s has mode %04o: others may write it, and so let themselves in; chmod go-w it", a.path, fi.Mode().Perm())
	}
	return nil
}

// find returns the comment of key's line (found reports whether it is
// listed). A line that does not parse is skipped; warn hears of it.
func (a authorizedKeys) find(key gossh.PublicKey, warn func(string)) (comment string, found bool) {
	if err := a.check(); err != nil {
		warn(err.Error())
		return "", false
	}
	data, err := os.ReadFile(a.path)
	if err != nil {
		warn(fmt.Sprintf("read the authorized keys: %v", err))
		return "", false
	}
	want := key.Marshal()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		pk, comment, options, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			warn(fmt.Sprintf("%s:%d does not parse: %v (skipped)", a.path, n, err))
			continue
		}
		if !bytes.Equal(pk.Marshal(), want) {
			continue
		}
		if len(options) > 0 {
			warn(fmt.Sprintf("%s:%d has options (%s): rostra's SSH server takes no key with options; list the key again without them to let it in", a.path, n, options[0]))
			continue
		}
		return comment, true
	}
	return "", false
}

// CheckAuthorizedKeys says what is wrong with the file at path as an
// authorized keys file (missing, not a regular file, writable by others);
// nil when a server may use it.
func CheckAuthorizedKeys(path string) error { return authorizedKeys{path: path}.check() }
