// version.go wires `rostra version` (and `rostra --version`): rostra's
// version as its panes tell it to their children (vt.Version, from the
// binary's build info), then what it was built from and with.
package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/rostra-dev/rostra/panes/vt"
)

const versionUsage = `usage: rostra version

Prints rostra's version: the module's version or the commit it was built
from, and the Go that built it (also: rostra --version).
`

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, versionUsage)
		return 0
	}
	if len(args) > 0 {
		fmt.Fprint(stderr, versionUsage)
		return 2
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(vt.Version(), bi))
	return 0
}

// versionLine is "rostra <version> (<module>, <vcs>, <go>, <os/arch>)",
// saying what is known: a build without VCS stamping has no revision.
func versionLine(version string, bi *debug.BuildInfo) string {
	var parts []string
	goVersion := runtime.Version()
	if bi != nil {
		parts = append(parts, bi.Main.Path)
		var rev, when, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
		if rev != "" {
			vcs := "commit " + rev
			if when != "" {
				vcs += " of " + when
			}
			parts = append(parts, vcs+dirty)
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
	}
	parts = append(parts, goVersion, runtime.GOOS+"/"+runtime.GOARCH)
	return "rostra " + version + " (" + strings.Join(parts, ", ") + ")"
}
