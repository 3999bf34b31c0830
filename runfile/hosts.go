// hosts.go is the run file's hosts: key and each worker's host:
// (docs/runfile.md §hosts): the other machines a roster places workers
// on. A host is reached by ssh (a destination as ssh takes it) or by a
// transport command of the user's own (an argv that runs a command on
// the other side, such as kubectl exec -i POD --); its workspace is the
// project's git repository there.
//
// The loader checks names, references and limits here; whether a host
// can be reached and has rostra, git and the workspace is checked by
// `rostra validate --hosts` and at the run's start, never at load.
package runfile

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// LocalHost is the implicit host: this machine. A worker with no host:
// (or host: local) runs here.
const LocalHost = "local"

// HostSpec is one host of the run.
type HostSpec struct {
	Name string
	// SSH is ssh's destination ([user@]host, an alias of ~/.ssh/config);
	// Port its -p when given as host:port. Transport, when set instead,
	// is the argv that runs a command there: the command's words are
	// appended to it.
	SSH       string
	Port      string
	Transport []string
	// Workspace is the project's git repository on the host (absolute,
	// or ~/… in the home there).
	Workspace string
	// MaxWorkers caps the workers placed there; 0 is no cap.
	MaxWorkers int
	// At is where the host was declared, for problems found later (its
	// Message empty).
	At Problem
}

var hostKeys = []string{"ssh", "transport", "workspace", "max_workers"}

// hosts reads the top-level hosts: mapping.
func (l *loader) hosts(p *Plan, top map[string]val) map[string]val {
	at := map[string]val{}
	v, ok := top["hosts"]
	if !ok {
		return at
	}
	es, ok := l.entries(v)
	if !ok {
		return at
	}
	p.Hosts = map[string]HostSpec{}
	for _, e := range es {
		if e.key == "" {
			l.add(e.at, v.path, "a host needs a name")
			continue
		}
		ev := val{n: e.val.n, at: e.at, path: e.val.path}
		if e.key == LocalHost {
			l.addAt(ev, "local is this machine, always there: give the host another name")
			continue
		}
		if !validName(e.key) {
			l.addAt(ev, "%s", nameProblem("host name", e.key))
			continue
		}
		m, ok := l.fields(e.val, hostKeys)
		if !ok {
			continue
		}
		line, col := position(e.at)
		h := HostSpec{Name: e.key, At: Problem{File: l.file, Line: line, Col: col, Path: e.val.path}}
		ssh, sshAt, hasSSH := l.optStr(m, "ssh")
		if hasSSH {
			h.SSH, h.Port = splitPort(ssh)
			switch {
			case h.SSH == "":
				l.addAt(sshAt, "is empty; give ssh's destination, user@box or an alias of ~/.ssh/config")
			case strings.HasPrefix(h.SSH, "-") || strings.ContainsAny(h.SSH, " \t/"):
				l.addAt(sshAt, "%q is not an ssh destination; write [user@]host[:port]", ssh)
			}
		}
		if tv, ok := m["transport"]; ok {
			words, _, ok := l.strList(tv)
			switch {
			case !ok:
			case len(words) == 0:
				l.addAt(tv, "the transport is empty; give the argv that runs a command there, e.g. [kubectl, exec, -i, POD, --]")
			case hasSSH:
				l.addAt(tv, "a host is reached by ssh: or by transport:, not both; drop one")
			default:
				h.Transport = words
			}
		} else if !hasSSH {
			l.addAt(ev, "host %s says neither ssh: (user@box) nor transport: ([argv...]); add one", e.key)
		}
		if s, sv, ok := l.optStr(m, "workspace"); !ok {
			if _, given := m["workspace"]; !given {
				l.addAt(ev, "host %s has no workspace: name the project's git repository there, workspace: /srv/proj", e.key)
			}
		} else if !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~/") {
			l.addAt(sv, "%q is neither absolute nor in the home there (~/…): write the repository's path on %s", s, e.key)
		} else {
			h.Workspace = strings.TrimSuffix(s, "/")
		}
		if n, nv, ok := l.optInt(m, "max_workers"); ok {
			if n < 1 {
				l.addAt(nv, "must be 1 or more, got %d (leave it out for no cap)", n)
			} else {
				h.MaxWorkers = n
			}
		}
		p.Hosts[e.key] = h
		at[e.key] = ev
	}
	return at
}

// splitPort splits host:port (a port of digits only).
func splitPort(s string) (host, port string) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || i == len(s)-1 {
		return s, ""
	}
	for _, r := range s[i+1:] {
		if r < '0' || r > '9' {
			return s, ""
		}
	}
	return s[:i], s[i+1:]
}

// checkPlacement checks every worker's host against the run's hosts and
// their max_workers.
func (l *loader) checkPlacement(p *Plan, hostAt map[string]val, workerAt []val) {
	count := map[string]int{}
	for i, w := range p.Workers {
		if w.Host == "" {
			continue
		}
		if _, ok := p.Hosts[w.Host]; !ok {
			names := []string{LocalHost}
			for n := range p.Hosts {
				names = append(names, n)
			}
			sort.Strings(names)
			msg := fmt.Sprintf("unknown host %q", w.Host)
			if near := nearest(w.Host, names); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", near)
			}
			l.addAt(workerAt[i], "%s; the run's hosts are %s: add it under hosts: or place the worker on one of them", msg, strings.Join(names, ", "))
			continue
		}
		count[w.Host]++
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if h := p.Hosts[n]; h.MaxWorkers > 0 && count[n] > h.MaxWorkers {
			l.addAt(hostAt[n], "host %s takes at most %d worker(s) (max_workers) and the run places %d there: raise max_workers or place some elsewhere", n, h.MaxWorkers, count[n])
		}
	}
}

// HostNames are the hosts that have workers, sorted.
func (p *Plan) HostNames() []string {
	var out []string
	for _, w := range p.Workers {
		if w.Host != "" && !slices.Contains(out, w.Host) {
			out = append(out, w.Host)
		}
	}
	sort.Strings(out)
	return out
}

// Remote reports whether the worker runs on another host.
func (w *WorkerSpec) Remote() bool { return w.Host != "" }
