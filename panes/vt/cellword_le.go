//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package vt

// On a little-endian machine the rune, the first field, is the low half.
const (
	cellRShift = 0
	cellSShift = 32
)
