//go:build race

// race_on_test.go: the race detector slows the emulator 5–20 times, so
// timing bounds meant for a normal build (FuzzTerm's) are not checked.
package vt

const raceEnabled = true
