// hook.go is the client side of an agent's hook call (`rostra hook`):
// PostHook hands one call to the run's server within a deadline, so an
// agent waiting on its hook is never held up by a server that is slow or
// gone (docs/agents.md).
package server

import (
	"bufio"
	"fmt"
	"time"
)

// PostHook sends h, a hook call for worker's attempt, to the server of
// the run in stateDir and waits for its answer until deadline.
func PostHook(stateDir, worker string, attempt int, h HookCall, deadline time.Time) error {
	c, err := Dial(stateDir)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetDeadline(deadline); err != nil {
		return err
	}
	fr := NewFrameReader(bufio.NewReader(c))
	bye, err := hello(c, fr, Hello{Rostra: ProtocolVersion, Mode: ModeControl})
	if err != nil {
		return err
	}
	if bye != nil {
		return fmt.Errorf("%w: %s", ErrRefused, bye.Message)
	}
	cc := &Conn{c: c, fr: fr}
	rep, err := cc.Do(Request{Op: OpHook, Worker: worker, Attempt: attempt, Hook: &h})
	if err != nil {
		return err
	}
	if rep.Error != "" {
		return fmt.Errorf("the server refused the hook: %s", rep.Error)
	}
	return nil
}
