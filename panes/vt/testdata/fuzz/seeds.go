//go:build ignore

// seeds.go writes the hand-made part of FuzzTerm's seed corpus,
// testdata/fuzz/FuzzTerm/*, in Go's corpus file format: the hostile cases
// of the reliability table (testdata/reliability/FAULTS.md: a flood, a line
// without end, malformed sequences and bad UTF-8, unterminated strings) and
// the strings that once broke it (UTF-8 titles, whose 0x9C is no ST). The corpus
// streams of testdata/term are seeded by FuzzTerm itself.
//
//	go run panes/vt/testdata/fuzz/seeds.go
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "FuzzTerm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(16, 10))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	seeds := []struct {
		name       string
		data       string
		cols, rows byte
	}{
		{"flood-yes", strings.Repeat("y\n", 16384), 80, 24},
		{"line-without-end", strings.Repeat("x", 65536), 200, 60},
		{"random-bytes", string(random), 80, 24},
		{"bad-utf8", "\xff\xfe\x80\xbf\xc0\xaf\xe0\x80\xaf\xed\xa0\x80\xf4\x90\x80\x80\xc2\xe2\x82\xf0\x9f\x98" +
			strings.Repeat("\xe4\xb8", 100) + "ok", 40, 5},
		{"c1-bytes", "a\x84b\x85c\x88d\x8de\x90f\x9bg\x9ch\x9di\x9ej\x9fk", 40, 5},
		{"osc-unterminated", "\x1b]0;" + strings.Repeat("t", 65536), 80, 24},
		{"dcs-unterminated", "\x1bPq" + strings.Repeat("#0;2;0;0;0", 6000), 80, 24},
		{"apc-unterminated", "\x1b_G" + strings.Repeat("A", 65536), 80, 24},
		{"csi-many-params", "\x1b[" + strings.Repeat("1;", 2000) + "m", 80, 24},
		{"csi-huge-params", "\x1b[99999999999999999999;99999999999999999999H\x1b[65535b\x1b[65535S\x1b[65535L\x1b[65535@", 80, 24},
		{"escapes-nested", strings.Repeat("\x1b", 500) + strings.Repeat("\x1b[", 500) + strings.Repeat("\x1b[?", 500) + "h", 80, 24},
		{"title-utf8", "AB\x1b]0;\xe2\x9c\xb3 Claude Code\aCD\x1b]2;\xe2\x9c\xa6 Working\xe2\x80\xa6\x1b\\EF\x1b]2;\xe2\x80\x9cq\xe2\x80\x9d\aG", 40, 3},
		{"strings-with-0x9c", "\x1bPq\xe2\x9c\xb3\x1b\\\x1b_\x9c\x1b\\\x1b^\xc2\x9c\x1b\\\x1bX\x9c\x18x\x1b[1\xe2\x9c\xb3;31my", 40, 3},
		{"alt-screen-storm", strings.Repeat("\x1b[?1049h\x1b[2J\x1b[?1049l", 1000), 120, 40},
		{"region-storm", strings.Repeat("\x1b[5;20r\x1b[20H\n\x1b[r\x1b[10L\x1b[10M\x1bM", 1000), 80, 24},
		{"decaln-storm", strings.Repeat("\x1b#8", 2000), 200, 60},
		{"wide-storm", strings.Repeat("中\x1b[D\x1b[2@", 2000), 80, 24},
	}
	for _, s := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbyte(%q)\nbyte(%q)\n", s.data, s.cols, s.rows)
		if err := os.WriteFile(filepath.Join(dir, s.name), []byte(body), 0o644); err != nil {
			panic(err)
		}
	}
}
