// width.go holds character widths: wcwidth(3) as x/ansi's WcWidth
// method computes it (marks and format characters zero, East Asian wide and
// emoji two, via go-runewidth, x/ansi's own dependency), cached for the BMP
// in a table shared by every Terminal.
package vt

import (
	"slices"
	"sync"
	"unicode"
)

var (
	widthOnce sync.Once
	widthBMP  *[0x10000]uint8
	zeroHigh  []rune
)

var zeroWidthTables = []*unicode.RangeTable{unicode.Mn, unicode.Me, unicode.Cf}

func buildWidthTable() {
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
		case unicode.In(r, zeroWidthTables...):
			tab[r] = 0
		case r >= 0xd800 && r < 0xe000:
			tab[r] = 1
		default:
			tab[r] = uint8(widthCond.RuneWidth(r))
		}
	}
	for _, t := range zeroWidthTables {
		for _, rg := range t.R32 {
			for c := rune(rg.Lo); c <= rune(rg.Hi); c += rune(rg.Stride) {
				zeroHigh = append(zeroHigh, c)
			}
		}
	}
	slices.Sort(zeroHigh)
	widthBMP = tab
}

func isZeroWidthHigh(r rune) bool {
	widthOnce.Do(buildWidthTable)
	_, ok := slices.BinarySearch(zeroHigh, r)
	return ok
}
