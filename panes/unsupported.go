//go:build !linux

// unsupported.go stands for package panes where it cannot be built. A pane
// is a process rostra must be able to contain and reap to the last
// grandchild: that takes Linux (a child subreaper, Pdeathsig, process
// groups read from /proc). The engine, the emulator (panes/vt) and the UI
// build anywhere; rostra itself runs on Linux only. The name below is the
// compiler's message on other systems.
package panes

var _ = rostra_panes_need_linux_see_README_Requirements
