// cellword.go reads and writes a cell's 8 bytes as one machine word, so the
// hot loops (printing a run, trimming and encoding a row as it scrolls
// into the scrollback) test a cell's rune and style in one compare and
// store a cell in one move: docs/performance.md §The emulator's hot path.
package vt

import "unsafe"

// A gridCell is a rune and a style index, 4 bytes each with no padding:
// the word holds the rune at bit cellRShift, the style at cellSShift
// (cellword_le.go, cellword_be.go: the byte order decides which half is
// which).
var _ [8]struct{} = [unsafe.Sizeof(gridCell{})]struct{}{}

// cellWords is cells seen as words, sharing their memory.
func cellWords(cells []gridCell) []uint64 {
	if len(cells) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(cells))), len(cells))
}

// cellWord is the word of the cell {r, s}.
func cellWord(r rune, s uint32) uint64 {
	return uint64(uint32(r))<<cellRShift | uint64(s)<<cellSShift
}

// Masks over a cell word.
const (
	// wordSpace is the rune ' ' alone: a cell whose word is 0 or
	// wordSpace is a blank in the default style.
	wordSpace = uint64(' ') << cellRShift
	// wordASCII is the rune's low seven bits: a cell whose word differs
	// from style s's only there holds ASCII (or nothing) in style s.
	wordASCII = uint64(0x7f) << cellRShift
)
