// probe.go asks a host what rostra needs of it: rostra (its version),
// git, and the workspace as a git repository. One script, one connection;
// `rostra validate --hosts` lists what it finds wrong, and a run's start
// uses its answers (the workspace's absolute path). With --install, a
// host without this version's rostra is given a copy of this binary
// first (docs/remote.md §Installing rostra there).
package hosts

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/transport"
)

// Facts is what a host said.
type Facts struct {
	Rostra string // `rostra version` there; "" when none
	Git    string // `git --version` there; "" when none
	// Workspace is the host's workspace, absolute, and Top the top of its
	// git work tree; "" when it is not one.
	Workspace, Top string
	// Said is why the workspace is not usable, as the host said it.
	Said string
}

// Probe connects to the host and asks. An error is the transport's (the
// host cannot be reached); what the host lacks is in Problems.
func Probe(t Transport) (Facts, error) {
	ws := transport.Word(t.Host.Workspace)
	script := strings.Join([]string{
		transport.FindRostraQuiet(),
		`if [ -n "$R" ]; then echo "rostra=$("$R" version 2>&1 | head -n 1)"; else echo "rostra="; fi`,
		`echo "git=$(git --version 2>/dev/null)"`,
		`if cd ` + ws + ` 2>/dev/null; then echo "ws=$(pwd -P)"; echo "top=$(git rev-parse --show-toplevel 2>&1 | head -n 1)"; else echo "ws="; fi`,
	}, "\n")
	out, err := t.Run(script, nil)
	if err != nil {
		return Facts{}, err
	}
	var f Facts
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "rostra":
			f.Rostra = v
		case "git":
			f.Git = v
		case "ws":
			f.Workspace = v
		case "top":
			if strings.HasPrefix(v, "/") {
				f.Top = v
			} else {
				f.Said = v
			}
		}
	}
	return f, nil
}

// Problems lists what keeps a run from using the host, each with what to
// do.
func (f Facts) Problems(t Transport) []string {
	var out []string
	name := t.Host.Name
	switch want := "rostra " + vt.Version(); {
	case f.Rostra == "":
		out = append(out, fmt.Sprintf("host %s: no rostra there, on PATH nor in %s: install rostra %s there, or give --install to copy this binary there", name, transport.CachedRostra(), vt.Version()))
	case !sameVersion(f):
		out = append(out, fmt.Sprintf("host %s: it runs %s, this is %s: use the same version on both machines, or give --install to copy this binary there", name, f.Rostra, want))
	}
	if f.Git == "" {
		out = append(out, fmt.Sprintf("host %s: no git on PATH there: install git", name))
	}
	switch {
	case f.Workspace == "":
		out = append(out, fmt.Sprintf("host %s: the workspace %s is not a folder there: clone the project there, or fix hosts.%s.workspace", name, t.Host.Workspace, name))
	case f.Top == "" && f.Git != "":
		said := f.Said
		if said == "" {
			said = "git finds no repository"
		}
		out = append(out, fmt.Sprintf("host %s: the workspace %s is not in a git repository (%s): clone the project there", name, f.Workspace, said))
	}
	return out
}

// sameVersion reports whether the host's rostra is this version.
func sameVersion(f Facts) bool { return strings.Contains(f.Rostra, vt.Version()) }

// ensure probes the host and, when install is set and the host has no
// rostra or another version, copies this binary there (transport's
// Install: the same OS and architecture) and probes again; installed
// says it did. An error is the transport's or the install's.
func ensure(t Transport, install bool) (f Facts, installed bool, err error) {
	f, err = Probe(t)
	if err != nil || !install || (f.Rostra != "" && sameVersion(f)) {
		return f, false, err
	}
	if err := t.Install(); err != nil {
		return f, false, err
	}
	f, err = Probe(t)
	return f, err == nil, err
}

// Install copies this binary to each host of plan with workers that has
// no rostra or another version, at once (rostra run --install), and
// returns a line for each host it copied to or could not; a host it
// could not is left to its part's start, which fails its workers saying
// why.
func Install(plan *runfile.Plan) []string {
	names := plan.HostNames()
	lines := make([]string, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch _, installed, err := ensure(NewTransport(plan.Hosts[n]), true); {
			case err != nil:
				lines[i] = fmt.Sprintf("rostra: host %s: --install: %v", n, err)
			case installed:
				lines[i] = fmt.Sprintf("rostra: host %s: rostra %s copied to %s there", n, vt.Version(), transport.CachedRostra())
			}
		}()
	}
	wg.Wait()
	return slices.DeleteFunc(lines, func(l string) bool { return l == "" })
}

// Check probes every host of plan at once and lists every problem found,
// each at the host's place in the run file, in the hosts' name order;
// install: a host without this rostra gets a copy first (Install).
func Check(plan *runfile.Plan, install bool) []string {
	names := make([]string, 0, len(plan.Hosts))
	for n := range plan.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	found := make([][]string, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := plan.Hosts[n]
			t := NewTransport(h)
			at := fmt.Sprintf("%s:%d:%d: %s: ", h.At.File, h.At.Line, h.At.Col, h.At.Path)
			f, _, err := ensure(t, install)
			if err != nil {
				found[i] = []string{at + err.Error()}
				return
			}
			for _, p := range f.Problems(t) {
				found[i] = append(found[i], at+p)
			}
		}()
	}
	wg.Wait()
	var out []string
	for _, f := range found {
		out = append(out, f...)
	}
	return out
}
