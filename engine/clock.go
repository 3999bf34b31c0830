// clock.go is the engine's only source of time: timeouts, backoff, the
// stability window and stop grace all go through a Clock, so tests drive
// them with a fake clock (fakeclock_test.go) instead of sleeping.
package engine

import "time"

// Clock tells the time and schedules callbacks.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a scheduled callback.
type Timer interface {
	// Stop prevents the callback; it reports whether it did.
	Stop() bool
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
