// notify.go reads the run file's notify section (docs/runfile.md §notify):
// which changes of a worker tell the human (an agent asking permission,
// an agent idle at its prompt, an attempt that ended, one that failed),
// how the attached terminals are told, and a command of the user's run
// for each. The result is plain data on the Plan; the engine decides when
// one is due and the UIs write it (docs/agents.md §Notifications).
package runfile

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// The kinds of notification, the notify section's switches.
const (
	NotifyPermission = "permission" // an agent asks to approve an action
	NotifyInput      = "input"      // an agent's turn ended: it waits at its prompt
	NotifyExited     = "exited"     // an attempt ended without failing
	NotifyFailed     = "failed"     // an attempt failed or timed out
)

// NotifyKinds are the kinds, in the order the docs list them.
var NotifyKinds = []string{NotifyPermission, NotifyInput, NotifyExited, NotifyFailed}

// NotifyMethods are the values of notify.method, the default first: auto
// picks by what each attached terminal is (docs/agents.md §Notifications).
var NotifyMethods = []string{"auto", "osc9", "osc777", "osc99", "bell", "none"}

// NotifyPlaceholders are the names notify.command may use.
var NotifyPlaceholders = []string{"worker", "state", "why", "run"}

// DefaultNotifyTimeout bounds one run of notify.command.
const DefaultNotifyTimeout = 10 * time.Second

// Notify is the notify section with its defaults applied.
type Notify struct {
	// On says, per kind (NotifyKinds), whether it is sent: permission,
	// input and failed are on by default, exited off.
	On      map[string]bool
	Method  string        // one of NotifyMethods
	Command []string      // an argv template of NotifyPlaceholders; nil: none
	Timeout time.Duration // for one run of Command
}

// DefaultNotify is what a run file without a notify section gets.
func DefaultNotify() Notify {
	return Notify{
		On:      map[string]bool{NotifyPermission: true, NotifyInput: true, NotifyExited: false, NotifyFailed: true},
		Method:  NotifyMethods[0],
		Timeout: DefaultNotifyTimeout,
	}
}

// Enabled reports whether kind is sent.
func (n Notify) Enabled(kind string) bool { return n.On[kind] }

// ExpandCommand is Command for one notification, each placeholder filled
// with its value (one argument each, never split).
func (n Notify) ExpandCommand(vars map[string]string) ([]string, error) {
	out := make([]string, len(n.Command))
	for i, a := range n.Command {
		s, err := ExpandTemplate(a, vars)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

var notifyKeys = append(slices.Clone(NotifyKinds), "method", "command", "timeout")

// notify reads the top level's notify key into p.Notify.
func (l *loader) notify(p *Plan, top map[string]val) {
	p.Notify = DefaultNotify()
	m := l.optFields(top, "notify", notifyKeys)
	if m == nil {
		return
	}
	for _, kind := range NotifyKinds {
		v, ok := m[kind]
		if !ok {
			continue
		}
		if b, ok := v.n.(*ast.BoolNode); ok {
			p.Notify.On[kind] = b.Value
		} else {
			l.wrongType(v, "true or false")
		}
	}
	if s, v, ok := l.optStr(m, "method"); ok {
		if !slices.Contains(NotifyMethods, s) {
			l.addAt(v, "unknown method %q; use one of: %s", s, strings.Join(NotifyMethods, ", "))
		} else {
			p.Notify.Method = s
		}
	}
	if d, v, ok := l.optDuration(m, "timeout"); ok {
		if d <= 0 {
			l.addAt(v, "must be more than 0 (the command is stopped once it has run this long), got %s", d)
		} else {
			p.Notify.Timeout = d
		}
	}
	if v, ok := m["command"]; ok {
		p.Notify.Command = l.notifyCommand(v)
	}
}

// notifyCommand reads notify.command: an argv whose placeholders are
// NotifyPlaceholders.
func (l *loader) notifyCommand(v val) []string {
	argv, vals, ok := l.strList(v)
	if !ok {
		return nil
	}
	if len(argv) == 0 {
		l.addAt(v, "the command is empty; give at least the program, like [\"notify-send\", \"{worker}\", \"{why}\"]")
		return nil
	}
	good := true
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			l.addAt(vals[i], "an argument cannot hold a NUL byte (\\0); remove it")
			good = false
			continue
		}
		names, err := TemplateNames(a)
		if err != nil {
			l.addAt(vals[i], "a placeholder is not closed in %q; close it with } or write {{ for a literal brace", a)
			good = false
			continue
		}
		for _, name := range names {
			if slices.Contains(NotifyPlaceholders, name) {
				continue
			}
			msg := fmt.Sprintf("{%s} cannot be used in notify.command", name)
			if near := nearest(name, NotifyPlaceholders); near != "" {
				msg += fmt.Sprintf(" (did you mean {%s}?)", near)
			}
			l.addAt(vals[i], "%s; it knows {%s}", msg, strings.Join(NotifyPlaceholders, "}, {"))
			good = false
		}
	}
	if argv[0] == "" {
		l.addAt(vals[0], "the program name is empty")
		good = false
	}
	if !good {
		return nil
	}
	return argv
}
