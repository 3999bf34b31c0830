//go:build !race

// race_off_test.go: see race_on_test.go.
package vt

const raceEnabled = false
