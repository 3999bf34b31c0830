// pane.go shows a remote worker's pane here: its running attempt's
// output, followed on the host with `rostra logs -f --raw` through the
// transport, written into a terminal of this process that the local grid
// draws as any pane (it is the attempt's engine.Handle, its Screen the
// terminal). Keys are not sent to it from here: `rostra send` reaches the
// part's server for that.
package hosts

import (
	"errors"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/panes/vt"
	"github.com/rostra-dev/rostra/runfile"
	"github.com/rostra-dev/rostra/statedir"
)

// Remote panes are drawn at the size a detached part gives its panes
// when no terminal says otherwise.
const paneCols, paneRows = 120, 40

// remotePane is a remote attempt's pane.
type remotePane struct {
	term   *vt.Terminal
	cmd    *exec.Cmd
	done   chan struct{}
	pid    int
	bytes  atomic.Int64
	mu     sync.Mutex
	notify func()
}

// followPane follows the latest attempt of a worker while it runs, once
// per attempt (a wrapper's output is shown in its pane too).
func (p *part) followPane(spec *runfile.WorkerSpec, disp []statedir.DispatchRow) {
	if len(disp) == 0 {
		return
	}
	last := disp[len(disp)-1]
	if last.EndedAt != nil || last.Surface == "" || p.stopping() {
		return
	}
	p.mu.Lock()
	if p.followed[spec.ID] == last.Attempt {
		p.mu.Unlock()
		return
	}
	p.followed[spec.ID] = last.Attempt
	p.mu.Unlock()
	rp := &remotePane{
		term: vt.New(paneCols, paneRows, vt.Options{Activity: p.ps.opts.Activity}),
		done: make(chan struct{}),
		pid:  last.Pid,
	}
	rp.cmd = p.t.Command(rostraScript("logs", "-f", "--raw", "--run", Quote(p.state), Quote(spec.ID)))
	out, err := rp.cmd.StdoutPipe()
	if err == nil {
		err = rp.cmd.Start()
	}
	if err != nil {
		p.logf("follow %s's pane: %v", spec.ID, err)
		return
	}
	p.mu.Lock()
	p.panes = append(p.panes, rp)
	p.mu.Unlock()
	go rp.feed(out)
	p.m.MirrorHandle(spec.ID, rp, last.Attempt)
}

func (rp *remotePane) feed(out io.Reader) {
	defer close(rp.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			_, _ = rp.term.Write(buf[:n])
			rp.bytes.Add(int64(n))
			rp.mu.Lock()
			f := rp.notify
			rp.notify = nil
			rp.mu.Unlock()
			if f != nil {
				f()
			}
		}
		if err != nil {
			_ = rp.cmd.Wait()
			return
		}
	}
}

// closePanes ends the followers of a part that stopped.
func (p *part) closePanes() {
	p.mu.Lock()
	panes := p.panes
	p.panes = nil
	p.mu.Unlock()
	for _, rp := range panes {
		_ = rp.Close()
	}
}

var errRemote = errors.New("the attempt runs on another host: rostra cancel or rostra stop reach it there")

func (rp *remotePane) Screen() vt.Screen           { return rp.term }
func (rp *remotePane) Pid() int                    { return rp.pid }
func (rp *remotePane) Done() <-chan struct{}       { return rp.done }
func (rp *remotePane) Exit() engine.ExitStatus     { return engine.ExitStatus{} }
func (rp *remotePane) Signal(syscall.Signal) error { return errRemote }
func (rp *remotePane) OutputBytes() int64          { return rp.bytes.Load() }
func (rp *remotePane) Lingering() bool             { return false }
func (rp *remotePane) Containment() string         { return "" }
func (rp *remotePane) NotifyOutput(f func())       { rp.mu.Lock(); rp.notify = f; rp.mu.Unlock() }

// Close ends the follower (the attempt there goes on).
func (rp *remotePane) Close() error {
	if rp.cmd.Process != nil {
		_ = rp.cmd.Process.Kill()
	}
	<-rp.done
	return nil
}
