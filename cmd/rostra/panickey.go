//go:build rostra_testpanic

// panickey.go is built only with -tags rostra_testpanic, by the test that
// a panic in the UI restores the terminal, stops the workers and leaves
// complete state (ui_reliability_test.go): ROSTRA_TEST_PANIC_KEY names a
// key that makes Update panic, as a bug would. A released rostra has no
// such key (panickey_off.go).
package main

import (
	"os"

	tea "charm.land/bubbletea/v2"
)

const panicKeyEnv = "ROSTRA_TEST_PANIC_KEY"

func withTestPanicKey(m tea.Model) tea.Model {
	if key := os.Getenv(panicKeyEnv); key != "" {
		return panicOnKey{Model: m, key: key}
	}
	return m
}

type panicOnKey struct {
	tea.Model
	key string
}

func (p panicOnKey) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == p.key {
		panic("rostra test: " + panicKeyEnv + " " + p.key + " pressed")
	}
	m, cmd := p.Model.Update(msg)
	p.Model = m
	return p, cmd
}
