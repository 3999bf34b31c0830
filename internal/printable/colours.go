// colours.go holds ColoursOnly, the filter `rostra logs` writes a worker's
// output.log through on a terminal: the text and its colours (SGR) pass,
// every other escape sequence is dropped, so a log cannot write the
// reader's clipboard (OSC 52), plant a hyperlink (OSC 8), reach the
// terminal behind tmux (DCS passthrough), draw images (kitty's APC,
// iTerm2's OSC 1337), ask the terminal questions whose answers arrive as
// typed input (DECRQSS, CSI 21t) or move the cursor over what was shown.
// See docs/design.md, "Nothing raw reaches a terminal".
//
// Data model: one ECMA-48 parser (charmbracelet/x/ansi) kept across
// writes, so a sequence split between two reads of the log is still
// recognised; each Write sends on what the bytes it was given completed.
package printable

import (
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// ColoursOnly returns a writer that passes to w the text it is given,
// newlines, carriage returns, tabs and backspaces, and SGR sequences
// (colours and styles, written again as ESC [ … m); every other control
// character and escape sequence is dropped, an unterminated one at the
// end included, and so are C1 controls in either form. Bytes that do not
// make UTF-8 are dropped or written as U+FFFD.
func ColoursOnly(w io.Writer) io.Writer {
	f := &colourFilter{w: w, p: ansi.NewParser()}
	// The strings (OSC, DCS, APC, PM, SOS) are dropped unread: a one-byte
	// buffer keeps a megabyte of image data from growing memory.
	f.p.SetDataSize(1)
	f.p.SetHandler(ansi.Handler{
		Print: func(r rune) {
			// A C1 control written as UTF-8 is a control all the same.
			if !IsControl(r) {
				f.out = utf8.AppendRune(f.out, r)
			}
		},
		Execute: func(b byte) {
			switch b {
			case '\n', '\r', '\t', '\b':
				f.out = append(f.out, b)
			}
		},
		HandleCsi: func(cmd ansi.Cmd, params ansi.Params) {
			// CSI > … m (xterm's key modifiers) and the like are not SGR.
			if cmd.Final() == 'm' && cmd.Prefix() == 0 && cmd.Intermediate() == 0 {
				f.out = appendSGR(f.out, params)
			}
		},
	})
	return f
}

type colourFilter struct {
	w   io.Writer
	p   *ansi.Parser
	out []byte // what the current Write lets through
}

func (f *colourFilter) Write(b []byte) (int, error) {
	f.out = f.out[:0]
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && f.p.State() == parser.GroundState {
			f.out = append(f.out, c) // text, most of a log: as the parser would print it
			continue
		}
		if f.inString() && c != 0x1b && c != 0x18 && c != 0x1a && (c != 0x07 || f.p.State() != parser.OscStringState) {
			// The string's data, dropped unread. Only ESC (of ST), CAN,
			// SUB and an OSC's BEL end it: the parser alone would end it
			// at a 0x9C, which is also a byte of UTF-8 text (the "✳" of
			// an agent's title), and print the rest of the string.
			continue
		}
		f.p.Advance(c)
	}
	if len(f.out) > 0 {
		if _, err := f.w.Write(f.out); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

func (f *colourFilter) inString() bool {
	switch f.p.State() {
	case parser.OscStringState, parser.DcsStringState, parser.ApcStringState, parser.PmStringState, parser.SosStringState:
		return true
	}
	return false
}

// appendSGR writes an SGR sequence from its parsed parameters, ':' kept
// between sub-parameters (38:2::255:0:0) and empty ones left empty.
func appendSGR(out []byte, params ansi.Params) []byte {
	out = append(out, "\x1b["...)
	for i, p := range params {
		if v := p.Param(-1); v >= 0 {
			out = strconv.AppendInt(out, int64(v), 10)
		}
		if i < len(params)-1 {
			if p.HasMore() {
				out = append(out, ':')
			} else {
				out = append(out, ';')
			}
		}
	}
	return append(out, 'm')
}
