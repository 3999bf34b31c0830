// mouse.go turns mouse events (as ultraviolet, and so bubbletea, reports
// them) into the reports an xterm sends a child that asked for them: the
// tracking mode (1000 clicks, 1002 drags, 1003 all motion) decides which
// events are sent, SGR 1006 or the X10 byte form how.
package vt

import (
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// MouseKind is what happened to the mouse, for EncodeMouse.
type MouseKind int

// The kinds of mouse events.
const (
	MousePress MouseKind = iota
	MouseRelease
	MouseMotion
	MouseWheel
)

// EncodeMouse reports a mouse event at cell (x, y) of the pane (0-based) the
// way the child asked (SGR 1006 or the X10 byte form), or nil when its mode
// does not want this kind of event.
func EncodeMouse(kind MouseKind, ev uv.Mouse, x, y int, m Modes) []byte {
	if m.Mouse == 0 {
		return nil
	}
	motion := kind == MouseMotion
	if motion && (m.Mouse == 1000 || (m.Mouse == 1002 && ev.Button == uv.MouseNone)) {
		return nil
	}
	shift, alt, ctrl := ev.Mod&uv.ModShift != 0, ev.Mod&uv.ModAlt != 0, ev.Mod&uv.ModCtrl != 0
	b := ansi.EncodeMouseButton(ev.Button, motion, shift, alt, ctrl)
	if b == 0xff {
		return nil // a button xterm has no code for
	}
	if m.MouseSGR {
		return []byte(ansi.MouseSgr(b, x, y, kind == MouseRelease))
	}
	if kind == MouseRelease {
		// X10 cannot say which button was released.
		b = ansi.EncodeMouseButton(uv.MouseNone, false, shift, alt, ctrl)
	}
	if x > 222 || y > 222 {
		return nil // X10 cannot say it
	}
	// Not ansi.MouseX10: it converts each byte with string(), which writes
	// the values from 0x80 on (columns past 94) as two UTF-8 bytes.
	return []byte{0x1b, '[', 'M', 32 + b, byte(33 + x), byte(33 + y)}
}
