// install.go is --install (docs/remote.md §Installing rostra there): this
// binary copied to ~/.cache/rostra/<version>/rostra on a machine of the
// same OS and architecture (`uname -sm` there), which FindRostra then
// prefers to the rostra on its PATH.
package transport

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
)

// unameNames is what `uname -sm` says on a machine this binary runs on.
func unameNames() (sys string, machines []string) {
	sys = map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD"}[runtime.GOOS]
	machines = map[string][]string{
		"amd64": {"x86_64", "amd64"}, "arm64": {"aarch64", "arm64"}, "386": {"i386", "i686"},
		"arm": {"armv6l", "armv7l"}, "riscv64": {"riscv64"}, "ppc64le": {"ppc64le"}, "s390x": {"s390x"},
	}[runtime.GOARCH]
	return sys, machines
}

// Install copies this binary to CachedRostra there when the machine's OS
// and architecture are this one's; an error says which they are.
func (c Command) Install() error {
	var out, said bytes.Buffer
	cmd := c.Cmd("uname -sm")
	cmd.Stdout, cmd.Stderr = &out, &said
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install rostra on %s: uname -sm there: %w", c.Name, c.Explain(err, said.String()))
	}
	f := strings.Fields(out.String())
	sys, machines := unameNames()
	if len(f) != 2 || f[0] != sys || !slices.Contains(machines, f[1]) {
		return fmt.Errorf("install rostra on %s: it is %q (uname -sm), this rostra is built for %s/%s: build rostra for that machine (GOOS, GOARCH) and put it on its PATH",
			c.Name, strings.TrimSpace(out.String()), runtime.GOOS, runtime.GOARCH)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("install rostra on %s: find this binary: %w", c.Name, err)
	}
	bin, err := os.Open(exe)
	if err != nil {
		return fmt.Errorf("install rostra on %s: %w", c.Name, err)
	}
	defer bin.Close()
	dir := "~/.cache/rostra/" + VersionDir()
	said.Reset()
	cmd = c.Cmd(fmt.Sprintf(`d=%s && mkdir -p "$d" && cat >"$d/rostra.part" && chmod 755 "$d/rostra.part" && mv -f "$d/rostra.part" "$d/rostra"`, dir))
	cmd.Stdin, cmd.Stderr = bin, &said
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install rostra on %s: copy it to %s/rostra: %w", c.Name, dir, c.Explain(err, said.String()))
	}
	return nil
}
