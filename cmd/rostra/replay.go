// replay.go wires `rostra replay [--size 120x40] [--ansi] [--scrollback] LOG`
// (docs/commands.md): it streams a raw byte log through the pane's terminal emulator
// (vt.Terminal) and prints the final screen, as plain text or with colours.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rostra-dev/rostra/panes/vt"
)

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rostra replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "120x40", "screen size as COLSxROWS")
	withANSI := fs.Bool("ansi", false, "keep colours and attributes")
	scrollback := fs.Bool("scrollback", false, "print the scrollback above the screen")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rostra replay [--size 120x40] [--ansi] [--scrollback] LOG")
		fs.PrintDefaults()
	}
	rest, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "rostra replay: want exactly one LOG file")
		fs.Usage()
		return 2
	}
	cols, rows, err := parseSize(*size)
	if err != nil {
		fmt.Fprintf(stderr, "rostra replay: %v\n", err)
		return 2
	}
	f, err := os.Open(rest[0])
	if err != nil {
		fmt.Fprintf(stderr, "rostra replay: %v\n", err)
		return 2
	}
	defer f.Close()
	term := vt.New(cols, rows, vt.Options{})
	// 64 KiB reads: large enough that the copy costs nothing next to the
	// parse, small enough to keep memory flat on any log size.
	if _, err := io.CopyBuffer(term, f, make([]byte, 64<<10)); err != nil {
		fmt.Fprintf(stderr, "rostra replay: read %s: %v\n", rest[0], err)
		return 1
	}
	out := term.Text(*scrollback)
	if *withANSI {
		out = term.ANSI(*scrollback)
	}
	if _, err := io.WriteString(stdout, out); err != nil {
		fmt.Fprintf(stderr, "rostra replay: write: %v\n", err)
		return 1
	}
	return 0
}

// parseSize reads "COLSxROWS" (replay's --size, and the server's, which
// the rostra that starts it passes); 0, 0 and why when it cannot.
func parseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		cols, err = strconv.Atoi(c)
		if err == nil {
			rows, err = strconv.Atoi(r)
		}
	}
	if !ok || err != nil || cols < 1 || rows < 1 || cols > 4096 || rows > 4096 {
		return 0, 0, fmt.Errorf("bad --size %q: want COLSxROWS, e.g. 120x40 (1 to 4096 each)", s)
	}
	return cols, rows, nil
}
