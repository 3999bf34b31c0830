// escaped.go holds the writer rostra's messages go through: stderr, for
// every command, and a server's server.log. A message may carry outside
// text (an OS error naming a file a worker made, a client's TERM, a stop
// reason, what a dead server left in team-state.json), so each write is
// shown with its control characters escaped, newlines and tabs kept
// (docs/design.md, "Nothing raw reaches a terminal").
package main

import (
	"io"
	"strings"

	"github.com/rostra-dev/rostra/internal/printable"
)

// escapedWriter escapes each write on its own: fmt writes a message in
// one call, so a write is whole lines, or whole text, never half a rune.
type escapedWriter struct{ w io.Writer }

func escaped(w io.Writer) io.Writer {
	if _, ok := w.(escapedWriter); ok {
		return w
	}
	return escapedWriter{w}
}

func (e escapedWriter) Write(p []byte) (int, error) {
	s := string(p)
	if strings.ContainsFunc(s, func(r rune) bool { return printable.IsControl(r) && r != '\n' && r != '\t' }) {
		// A tab lines up a usage's flags and a panic's stack: kept.
		parts := strings.Split(s, "\t")
		for i, part := range parts {
			parts[i] = printable.Lines(part)
		}
		s = strings.Join(parts, "\t")
	}
	if _, err := io.WriteString(e.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
