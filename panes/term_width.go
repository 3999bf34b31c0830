// term_width.go holds character widths: wcwidth(3) as x/ansi's WcWidth
// method computes it (marks and format characters zero, East Asian wide and
// emoji two, via go-runewidth, x/ansi's own dependency), cached for the BMP
// in a table shared by every Term.
package panes

import (
	"slices"
	"sync"
	"unicode"
)

var (
	termWidthOnce sync.Once
	termWidthBMP  *[0x10000]uint8
	termZeroHigh  []rune
)

var termZeroWidthTables = []*unicode.RangeTable{unicode.Mn, unicode.Me, unicode.Cf}

func termBuildWidthTable() {
	tab := new([0x10000]uint8)
	for r := rune(0); r < 0x10000; r++ {
		switch {
		case r < 0x20, r >= 0x7f && r < 0xa0:
			tab[r] = 0
		case r < 0x7f:
			tab[r] = 1
		case r == 0xad:
			// SOFT HYPHEN is a format character but takes a column in
			// glibc's wcwidth, which tmux uses.
			tab[r] = 1
		case unicode.In(r, termZeroWidthTables...):
			tab[r] = 0
		case r >= 0xd800 && r < 0xe000:
			tab[r] = 1
		default:
			tab[r] = uint8(termWidthCond.RuneWidth(r))
		}
	}
	for _, t := range termZeroWidthTables {
		for _, rg := range t.R32 {
			for c := rune(rg.Lo); c <= rune(rg.Hi); c += rune(rg.Stride) {
				termZeroHigh = append(termZeroHigh, c)
			}
		}
	}
	slices.Sort(termZeroHigh)
	termWidthBMP = tab
}

func termIsZeroWidthHigh(r rune) bool {
	termWidthOnce.Do(termBuildWidthTable)
	_, ok := slices.BinarySearch(termZeroHigh, r)
	return ok
}
