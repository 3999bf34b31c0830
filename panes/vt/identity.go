// identity.go holds who the emulator says it is, to children and to the
// programs that ask: the terminal type it emulates (TERM), its name and
// version (XTVERSION, TERM_PROGRAM, TERM_PROGRAM_VERSION). One place, so
// the environment a pane child gets and the answers it reads agree.
package vt

import (
	"runtime/debug"
	"sync"
)

const (
	// Term is the terminfo entry whose sequences Terminal understands and
	// whose keys it sends: TERM for pane children.
	Term = "xterm-256color"
	// Program is the name a child sees in TERM_PROGRAM and XTVERSION.
	Program = "rostra"
)

// Version is rostra's version, read once from the binary's build info: the
// main module's version (a tag, or Go's VCS pseudo-version), else the VCS
// revision it was built from ("+dirty" when the tree had changes), else
// "devel" (go test, or a build without VCS stamping).
var Version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
})

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return rev[:min(len(rev), 12)] + dirty
}
