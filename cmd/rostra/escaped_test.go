// escaped_test.go checks the writer stderr and server.log go through:
// control characters escaped, newlines and tabs kept, each write whole.
package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscapedWriterKeepsNewlinesAndTabsOnly(t *testing.T) {
	var b bytes.Buffer
	w := escaped(&b)
	assert.Equal(t, w, escaped(w), "wrapping twice is wrapping once")
	for _, tc := range []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"usage:\n  -f\tfollow\n", "usage:\n  -f\tfollow\n"},
		{"rostra cancel: no worker w\x1b]52;c;aGk=\x07\n", "rostra cancel: no worker w\\e]52;c;aGk=\\x07\n"},
		{"a\tb\x1b[2Jc\rd\n", "a\tb\\e[2Jc\\rd\n"},
		{"c1 \u009b2J\n", "c1 \\u009b2J\n"},
	} {
		b.Reset()
		n, err := fmt.Fprint(w, tc.in)
		require.NoError(t, err)
		assert.Equal(t, len(tc.in), n)
		assert.Equal(t, tc.want, b.String(), "%q", tc.in)
	}
}
