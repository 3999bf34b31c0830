// text.go holds the text measures every drawing in the UI shares: cutting
// and padding styled text to a width in cells, wrapping plain text, and
// the short elapsed-time form the titles show.
package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// fit cuts or pads s (which may hold ANSI) to exactly w cells.
func fit(s string, w int) string {
	sw := ansi.StringWidth(s)
	switch {
	case sw > w:
		return ansi.Truncate(s, w, "")
	case sw < w:
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// fitText cuts plain text to w cells with an ellipsis.
func fitText(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// elapsed formats a duration the way the title shows it: 42s, 3m05s, 1h02m.
func elapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Truncate(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// elapsedCoarse is elapsed to the minute, for a title that is redrawn
// once a minute (a pane out of focus or a UI nobody uses,
// docs/performance.md §A pane's output): <1m, 3m, 1h02m.
func elapsedCoarse(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	}
	return elapsed(d)
}

// elapsedShort is elapsed to the largest unit only, for a narrow title:
// 42s, 3m, 1h.
func elapsedShort(d time.Duration) string {
	switch {
	case d < time.Minute:
		return elapsed(d)
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	}
	return strconv.Itoa(int(d.Hours())) + "h"
}

// wrapText breaks plain text into lines of at most w cells.
func wrapText(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, " ;,"), "\n")
}
