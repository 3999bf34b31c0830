package workspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEscapedDiffColoursOnlyWhatRostraKnows: the worker's escape
// sequences in a diff show as text; the only sequences left are the
// colours rostra adds.
func TestEscapedDiffColoursOnlyWhatRostraKnows(t *testing.T) {
	diff := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\x1b[2J\n+new\x1b]0;t\x07\n ctx\tz\n"
	got := string(escapedDiff([]byte(diff), true))
	assert.Equal(t, "\x1b[1mdiff --git a/x b/x\x1b[m\n\x1b[1m--- a/x\x1b[m\n\x1b[1m+++ b/x\x1b[m\n\x1b[36m@@ -1 +1 @@\x1b[m\n"+
		"\x1b[31m-old\\e[2J\x1b[m\n\x1b[32m+new\\e]0;t\\x07\x1b[m\n ctx\tz\n", got)
	assert.NotRegexp(t, `\x1b[^\[]|\x07`, got, "no escape but rostra's SGR")
	assert.Equal(t, "-a\\x00\n", string(escapedDiff([]byte("-a\x00\n"), false)))
}
