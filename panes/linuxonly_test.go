//go:build linux

// linuxonly_test.go keeps panes Linux-only as a whole: every file but
// unsupported.go says //go:build linux, so that on another system the
// compiler's one error is unsupported.go's, naming the reason, rather than
// dozens of undefined names from a file that forgot the constraint.
package panes

import (
	"go/build/constraint"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryFileIsLinuxOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if f == "unsupported.go" {
			continue
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		first, _, _ := strings.Cut(string(data), "\n")
		expr, err := constraint.Parse(first)
		if !assert.NoError(t, err, "%s: the first line is not a build constraint; start the file with //go:build linux", f) {
			continue
		}
		assert.True(t, expr.Eval(func(tag string) bool { return tag == "linux" }), "%s: not built on linux", f)
		assert.False(t, expr.Eval(func(tag string) bool { return tag == "darwin" }), "%s: built on darwin, where panes cannot be; start it with //go:build linux", f)
	}
}
