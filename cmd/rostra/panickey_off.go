//go:build !rostra_testpanic

// panickey_off.go: a released rostra's UI model is the model itself; the
// test-only panic key lives in panickey.go, behind a build tag.
package main

import tea "charm.land/bubbletea/v2"

func withTestPanicKey(m tea.Model) tea.Model { return m }
