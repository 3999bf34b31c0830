//go:build !linux

// statewatch_other.go: without inotify the disk writer looks whether the
// state dir is still there once a second (engine/recreate.go).
package statedir

import "errors"

type Watcher struct{}

func WatchDir(string, chan struct{}) (*Watcher, error) {
	return nil, errors.New("no inotify on this system")
}

func (w *Watcher) Rearm() error { return nil }
func (w *Watcher) Close()       {}
