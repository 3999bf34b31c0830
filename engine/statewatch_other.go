//go:build !linux

// statewatch_other.go: without inotify the disk writer looks whether the
// state dir is still there once a second (recreate.go).
package engine

import "errors"

type stateWatch struct{}

func watchStateDir(string, chan struct{}) (*stateWatch, error) {
	return nil, errors.New("no inotify on this system")
}

func (w *stateWatch) rearm() error { return nil }
func (w *stateWatch) close()       {}
