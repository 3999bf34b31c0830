// Package printable makes text from outside rostra safe to show on a
// terminal or in a file a terminal will show: a file name, a worker's exit
// reason, an agent's notification or a git message may hold escape
// sequences (a clipboard write, a hyperlink, a title) that must show as
// what they are, never act on the reader's terminal. See docs/design.md,
// "Nothing raw reaches a terminal".
package printable

import (
	"fmt"
	"strings"
)

// String is s with every control character written as an escape: ESC as
// \e, newline, tab and carriage return as \n, \t and \r, the others (C0,
// DEL, C1) as \xNN or \u00NN; and the bidirectional embedding, override
// and isolate characters (U+202A–U+202E, U+2066–U+2069) as \uNNNN, which
// would have the terminal show the text around them in another order (a
// file name that reads as another). The result is one line; a string with
// none of them is returned as it is.
func String(s string) string { return escape(s, false) }

// Lines is String but keeps newlines: for text shown as several lines
// (a report's paragraph, a dialog's message).
func Lines(s string) string { return escape(s, true) }

func escape(s string, keepNewlines bool) string {
	escaped := func(r rune) bool { return (IsControl(r) || IsBidiControl(r)) && !(keepNewlines && r == '\n') }
	if !strings.ContainsFunc(s, escaped) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case !escaped(r):
			b.WriteRune(r)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// IsControl reports whether r is a C0 or C1 control character or DEL:
// what a terminal acts on rather than shows.
func IsControl(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }

// IsBidiControl reports whether r is one of the explicit bidirectional
// formatting characters (embeddings, overrides, isolates and their ends):
// text that reorders what follows it on the screen. The marks (LRM, RLM)
// and right-to-left letters are not: they only show text as it is.
func IsBidiControl(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }
