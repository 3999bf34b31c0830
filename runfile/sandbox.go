// sandbox.go holds the run file's sandbox keys (docs/runfile.md, docs/sandbox.md):
// `sandbox: none | writes` and `sandbox_writes:` and `sandbox_fallback:` in
// defaults and per worker, and a provider's `sandbox_required:`, which marks
// a CLI run with its permission prompts off (the `<cli>-yolo` providers
// rostra init writes) whose workers must be sandboxed.
//
// Whether the kernel can sandbox at all is not known here (runfile imports
// nothing of ours): CheckSandbox takes the probe from its caller and reports
// at the place each sandboxed worker asked for it.
package runfile

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// Sandbox modes of a worker.
const (
	SandboxNone   = "none"   // its processes write wherever the user may
	SandboxWrites = "writes" // the kernel refuses writes outside its folders
)

// SandboxFallbackNone is the sandbox_fallback that accepts running an
// attempt unsandboxed (a DEGRADED sandbox) when the kernel cannot sandbox it.
const SandboxFallbackNone = "none"

// sandboxKeys are the keys defaults and a worker may set.
var sandboxKeys = []string{"sandbox", "sandbox_writes", "sandbox_fallback"}

// sandboxSettings are the sandbox keys as defaults or a worker set them.
type sandboxSettings struct {
	Mode     string
	Writes   []string // absolute, ~/ expanded
	Fallback string
	at       val // where the mode was set; its n is nil when it was not
}

// sandbox applies the sandbox keys of m to d.
func (l *loader) sandbox(m map[string]val, d sandboxSettings) sandboxSettings {
	if s, v, ok := l.optStr(m, "sandbox"); ok {
		if s != SandboxNone && s != SandboxWrites {
			l.addAt(v, "unknown sandbox %q; use writes (the kernel refuses writes outside the worker's folders) or none", s)
		} else {
			d.Mode, d.at = s, v
		}
	}
	if v, ok := m["sandbox_writes"]; ok {
		if list, vals, ok := l.strList(v); ok {
			d.Writes = nil
			for i, s := range list {
				if p, ok := l.sandboxFolder(vals[i], s); ok {
					d.Writes = append(d.Writes, p)
				}
			}
		}
	}
	if s, v, ok := l.optStr(m, "sandbox_fallback"); ok {
		if s != SandboxFallbackNone {
			l.addAt(v, "unknown sandbox_fallback %q; use none (run without the sandbox, shown DEGRADED, when the kernel cannot sandbox) or leave the key out (such an attempt fails)", s)
		} else {
			d.Fallback = s
		}
	}
	return d
}

// sandboxFolder reads one sandbox_writes entry: an absolute path, or one
// under the home folder written ~/...
func (l *loader) sandboxFolder(v val, s string) (string, bool) {
	switch {
	case strings.ContainsRune(s, 0):
		l.addAt(v, "a path cannot hold a NUL byte (\\0); remove it")
		return "", false
	case s == "~" || strings.HasPrefix(s, "~/"):
		if l.home == "" {
			l.addAt(v, "%s names the home folder, and $HOME is not set; write an absolute path", s)
			return "", false
		}
		return filepath.Join(l.home, strings.TrimPrefix(s, "~")), true
	case !filepath.IsAbs(s):
		l.addAt(v, "%q is not an absolute path; write /path/to/folder or ~/folder", s)
		return "", false
	}
	return filepath.Clean(s), true
}

// sandboxRequired reads a provider's sandbox_required.
func (l *loader) sandboxRequired(m map[string]val) bool {
	v, ok := m["sandbox_required"]
	if !ok {
		return false
	}
	if b, ok := v.n.(*ast.BoolNode); ok {
		return b.Value
	}
	l.wrongType(v, "true or false")
	return false
}

// requireSandbox refuses a worker whose provider must be sandboxed and
// that is not.
func (l *loader) requireSandbox(w *WorkerSpec, pr Provider, s sandboxSettings, wn workerNodes) {
	if !pr.SandboxRequired || s.Mode == SandboxWrites {
		return
	}
	at := s.at
	if at.n == nil {
		at = wn.provider
	}
	l.addAt(at, "provider %s runs the agent with its permission prompts off (sandbox_required: true), so its workers need sandbox: writes; set sandbox: writes on the worker or in defaults, or use a provider that asks before it acts", w.Provider)
}

// CheckSandbox reports every worker with sandbox: writes and no
// sandbox_fallback when landlock (the kernel's probe) says why the kernel
// cannot sandbox, at the place the worker's sandbox was set; nil when
// every sandboxed worker can run.
func (p *Plan) CheckSandbox(landlock func() error) error {
	var probed bool
	var why error
	var problems []Problem
	for _, w := range p.Workers {
		if w.Sandbox != SandboxWrites || w.SandboxFallback == SandboxFallbackNone {
			continue
		}
		if !probed {
			why, probed = landlock(), true
		}
		if why == nil {
			return nil
		}
		pr := w.SandboxAt
		if n := len(problems); n > 0 && problems[n-1].Line == pr.Line && problems[n-1].Col == pr.Col {
			continue // set once in defaults for them all
		}
		pr.Message = fmt.Sprintf("sandbox: writes cannot run here: %v; run on a kernel with Landlock, set sandbox: none, or add sandbox_fallback: none to run without it (shown DEGRADED)", why)
		problems = append(problems, pr)
	}
	if len(problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: problems}
}
