// typing_bench_test.go measures a typed key's own cost in the UI: the
// program's Filter sending it to a live pane's child (the path of a key's
// echo, before the child and the frame).
package tui

import "testing"

func BenchmarkFilterTypedKey(b *testing.B) {
	f := fakeRun(b, 4, 200, 50)
	m := newModel(b, f, 200, 50)
	press(m, "i")
	k := keyMsg("a")
	b.ReportAllocs()
	for b.Loop() {
		if m.Filter(m, k) != nil {
			b.Fatal("a typed key into a live pane went on to Update")
		}
	}
}
