// uissh.go reads `ui.ssh`: the SSH server that serves the run's UI to any
// SSH client (docs/runfile.md §ui, docs/remote.md §The SSH server). Only
// its form is checked here; the key files are read when the server starts.
package runfile

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
)

// UISSH is the run's SSH server for its UI.
type UISSH struct {
	Listen string // host:port, as net.Listen takes it (":2222": every address)
	// AuthorizedKeys is the file of the keys let in, absolute; "": the
	// user's ~/.ssh/authorized_keys.
	AuthorizedKeys string
}

var uiSSHKeys = []string{"listen", "authorized_keys"}

// CheckListen says what is wrong with a listen address; "" when nothing.
func CheckListen(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "is not host:port (127.0.0.1:2222, or :2222 for every address): " + err.Error()
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "has port " + strconv.Quote(port) + "; use a number from 1 to 65535 (0: a free one, named when it listens)"
	}
	if host != "" && host != "localhost" && net.ParseIP(host) == nil {
		return "has host " + strconv.Quote(host) + "; use an IP address of this machine, localhost, or none (:2222, every address)"
	}
	return ""
}

func (l *loader) uiSSH(p *Plan, ui map[string]val) {
	m := l.optFields(ui, "ssh", uiSSHKeys)
	if m == nil {
		return
	}
	s := &UISSH{}
	if addr, v, ok := l.optStr(m, "listen"); ok {
		if why := CheckListen(addr); why != "" {
			l.addAt(v, "%s", why)
		} else {
			s.Listen = addr
		}
	} else {
		l.addAt(ui["ssh"], "needs listen: the address the SSH server listens on (127.0.0.1:2222)")
	}
	if path, v, ok := l.optStr(m, "authorized_keys"); ok {
		switch {
		case path == "":
			l.addAt(v, "is empty; leave the key out for ~/.ssh/authorized_keys")
		case strings.HasPrefix(path, "~/"):
			s.AuthorizedKeys = path // the home is the server's, found when it starts
		case filepath.IsAbs(path):
			s.AuthorizedKeys = filepath.Clean(path)
		default:
			s.AuthorizedKeys = filepath.Join(p.Workspace, path)
		}
	}
	if s.Listen != "" {
		p.SSH = s
	}
}
