// uiclient.go holds the events.jsonl record of a UI client that came from
// outside this machine's own users' terminals: an SSH session of rostra's
// SSH server (docs/remote.md §The SSH server). A client on the run's
// Unix socket is its own user and is not recorded.
package statedir

// The events of an SSH session of the UI.
const (
	EventSSHSessionStarted = "ssh-session-started" // Client: who, from where
	EventSSHSessionEnded   = "ssh-session-ended"   // Client; Reason: how it ended
)

// UIClient says who a UI session is: the SSH user name it gave, the key
// it logged in with (its SHA256 fingerprint and the comment of its line in
// authorized_keys) and the address it came from.
type UIClient struct {
	Via     string `json:"via"`               // "ssh"
	User    string `json:"user,omitempty"`    // the user name the client gave
	Key     string `json:"key,omitempty"`     // SHA256:… of the public key
	KeyName string `json:"keyName,omitempty"` // the key's comment in authorized_keys
	From    string `json:"from,omitempty"`    // host:port of the client
}

// Describe is c as a log line names it: "me@laptop (SHA256:…) from 10.0.0.2:50122".
func (c *UIClient) Describe() string {
	if c == nil {
		return ""
	}
	who := c.KeyName
	if who == "" {
		who = c.User
	}
	s := who
	if c.Key != "" {
		if s != "" {
			s += " "
		}
		s += "(" + c.Key + ")"
	}
	if c.From != "" {
		s += " from " + c.From
	}
	return s
}

// SSHHostKeyFile is the host key of the run's SSH server (package sshui):
// made once, kept when the run is archived, so clients' known_hosts stay
// right.
const SSHHostKeyFile = "ssh_host_ed25519_key"
