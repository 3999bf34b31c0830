//go:build linux

// process.go holds what the pane (pty) and wrapper (pipe) surfaces share:
// the attempt process, the drain of its output into output.log and its
// Screen (the attempt's own emulator, made here: newScreen; the UI only
// reads it), the wait that decides when the attempt is over, and stopping.
//
// Data model: one attempt is one leader process whose pid is also its process
// group id (and, on a pty, its session id), one output stream (the pty master
// or the read end of a pipe) drained by exactly one reader goroutine, and one
// waiter goroutine that reaps the leader with cmd.Wait and closes Done once
// the stream has ended too. Descendants are found by process group, by pty
// session, by an ROSTRA_ATTEMPT_TOKEN marker in their environment and by
// ancestry (see process_linux.go for how, and what that cannot catch).
package panes

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/rostra-dev/rostra/panes/vt"
)

// Launch is everything a surface needs to start one attempt. It mirrors
// engine.LaunchSpec field for field; cmd/rostra converts one into the other
// (panes does not import engine).
type Launch struct {
	Argv []string
	Dir  string   // working directory; "" = rostra's own
	Env  []string // the complete environment, KEY=value; nil = os.Environ()
	// EnvSet names the keys of Env the run file's worker env sets: the
	// pane's terminal identity (TERM and its kind) never overrides them.
	EnvSet    []string
	OutputLog string // created 0600 and appended with every byte read; "" = no log
	// Log, when set, is used instead of opening OutputLog: every byte read
	// is written to it and it is closed when the attempt is over. A start
	// that fails leaves it open: it stays the caller's.
	Log LogFile
	// Stdin, when not nil, is written to a wrapper child's stdin, which is
	// then closed; nil gives it /dev/null. A pty child's stdin is the pty.
	Stdin []byte
	// TypePrompt, when not nil, is typed into a pty once its output has been
	// quiet for TypeQuiet (0 = DefaultTypeQuiet) and the child is ready for
	// it, or after TypeReadyLimit (0 = DefaultTypeReadyLimit); see
	// PTYProcess.typePrompt. Wrappers ignore it.
	TypePrompt     []byte
	TypeQuiet      time.Duration
	TypeReadyLimit time.Duration
	// TypeAwaitAgent makes the typing wait also for the agent's own word
	// that it waits for input (PTYProcess.AgentReady), within
	// TypeReadyLimit: its CLI's input may go live after it looks ready
	// to the pty (docs/runfile.md §Prompt delivery).
	TypeAwaitAgent bool
	// PromptFile is the prompt's file, typed in its place when the child
	// reads in canonical mode and a line of TypePrompt is longer than the
	// kernel keeps (4095 bytes).
	PromptFile string
	// StopGrace bounds how long the surface waits, after the leader exited,
	// for descendants that still hold its output open before it kills them.
	// 0 = DefaultStopGrace.
	StopGrace  time.Duration
	Cols, Rows int // initial terminal (and Screen) size; 0 = 80x24
	// Sandbox, when not nil, is the write policy the kernel enforces on
	// every process of the attempt (sandbox_linux.go); the start fails
	// when it cannot be applied.
	Sandbox *Sandbox
	// OnNotify and OnAgentState, when set, hear the desktop notifications
	// (OSC 9, 777, 99) and the program status (OSC 7501) the child writes,
	// parsed by its screen (vt.Options); they must not block.
	OnNotify     func(vt.Notification)
	OnAgentState func(vt.AgentState)
	OnTitle      func(string) // each title the child sets (OSC 0/2)
}

// LogFile is where a surface writes an attempt's output and reads spilled
// output back from (feed.go): an *os.File, or a caller's file that behaves
// as one (the engine's output.log, which it opens itself).
type LogFile interface {
	io.WriteCloser
	io.ReaderAt
	Stat() (fs.FileInfo, error)
}

// Exit is how an attempt's leader process ended.
type Exit struct {
	Code   int    // exit code; -1 when killed by a signal
	Signal string // signal name when killed by one ("killed", "terminated")
}

// Screen is where a surface copies the child's output for display
// (vt.Screen): the attempt's own terminal emulator, which the UI reads, or
// a sink a test gives in its place.
type Screen = vt.Screen

// newScreen makes an attempt's Screen: its own emulator, of the run act
// (nil: none), answering the child through reply (nil: replies dropped)
// and telling l's OnNotify and OnAgentState what the child reports; or,
// when a test gives one, what custom makes.
func newScreen(l *Launch, cols, rows int, reply func([]byte), act *vt.Activity, custom func(cols, rows int, reply func([]byte)) Screen) Screen {
	if reply == nil {
		reply = func([]byte) {}
	}
	if custom != nil {
		return custom(cols, rows, reply)
	}
	return vt.New(cols, rows, vt.Options{OnReply: reply, Activity: act, OnNotify: l.OnNotify, OnAgentState: l.OnAgentState, OnTitle: l.OnTitle})
}

const (
	// DefaultStopGrace is used when Launch.StopGrace is zero; it is the
	// default of the run file's stop_grace.
	DefaultStopGrace = 5 * time.Second
	// AttemptTokenEnv marks every process of an attempt: the leader gets
	// ROSTRA_ATTEMPT_TOKEN=<random>, and descendants inherit it, so those
	// that leave the process group (setsid) can still be found in /proc.
	// Under a nested rostra the tokens accumulate, comma separated.
	AttemptTokenEnv = "ROSTRA_ATTEMPT_TOKEN"

	defaultCols, defaultRows = 80, 24
	// killedDrainLimit is how long the reader may still take, after the
	// leftovers holding the output were SIGKILLed, to read what the kernel
	// buffered and see the end of the stream before its fd is closed under
	// it (which only happens when a holder escaped every way we find them).
	killedDrainLimit = time.Second
	// goneLimit bounds how long Close waits for SIGKILLed processes to
	// disappear (and be reaped) before it reports them.
	goneLimit = 2 * time.Second
)

// process is the part of a started attempt both surfaces share.
type process struct {
	cmd     *exec.Cmd
	pid     int // leader pid == process group id (== session id on a pty)
	session bool
	token   string
	grace   time.Duration
	held    *held       // how its processes are contained (contain_linux.go)
	ref     *attemptRef // the attempt in the orphan registry (supervise_linux.go)
	// leaderGone is closed once the leader is reaped. In a PID namespace
	// the leader is the init, which may outlive the worker.
	leaderGone chan struct{}

	out *stream // pty master or pipe read end; the reader's stream (stream_linux.go)
	log LogFile

	// screenMu orders writes to the screen against resizes, so the emulator
	// is never resized in the middle of a chunk.
	screenMu sync.Mutex
	screen   Screen
	toScreen func(dst, b []byte) []byte // translation for the screen, appended to dst; nil = as read
	toBuf    []byte                     // the feeder's buffer for toScreen

	feed      *feedQueue
	screenFed chan struct{} // closed when the feeder has written every byte
	feedErr   error         // set by the feeder only: a spilled run it could not read back

	outputBytes atomic.Int64
	outputWake  atomic.Pointer[func()] // NotifyOutput's f, called once by the reader
	logErr      error                  // set by the reader only; read after readerDone

	readerDone chan struct{} // closed when the read loop has ended
	exited     chan struct{}
	done       chan struct{}
	quit       chan struct{} // closed when the attempt is over: helpers end
	closing    chan struct{} // closed by Close: skip the grace
	exit       Exit

	helpers  sync.WaitGroup // goroutines besides reader and waiter; end by Done
	doneMu   sync.Mutex
	onDone   []func() // OnDone's functions, called once done is closed
	doneSaid bool
	release  []func() // run once the attempt is over, before Done

	closingOnce sync.Once
	closeOnce   sync.Once
	closeErr    error

	// mu guards reaped and members. While reaped is false the leader is at
	// least a zombie, so its pid (the group and session id) cannot have been
	// reused, and kill(-pid) reaches this attempt and nothing else. Once it
	// is reaped, the pid may name another process (with pid_max at 32768,
	// soon), and the group is signalled member by member instead.
	mu      sync.Mutex
	reaped  bool
	members map[int]uint64 // attempt processes seen -> their start time (pid reuse guard)
	// leaderStart is the leader's start time: older processes are not
	// searched for the token.
	leaderStart uint64
	// groupGone is set with reaped for lingering.go: from then on the group
	// is not probed by its id, and linked() lists its members itself.
	groupGone bool

	startedAt time.Time    // monotonic base for lastOut
	lastOut   atomic.Int64 // nanoseconds after startedAt when the last chunk was read
}

// newAttemptToken returns the random value of ROSTRA_ATTEMPT_TOKEN.
func newAttemptToken() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("attempt token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// childEnv builds the child's environment: env (or rostra's own), with the
// attempt token appended to any token an enclosing rostra set.
func childEnv(env []string, token string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	prefix := AttemptTokenEnv + "="
	tokenSet := false
	for _, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			if kv != prefix {
				kv += ","
			}
			kv += token
			tokenSet = true
		}
		out = append(out, kv)
	}
	if !tokenSet {
		out = append(out, prefix+token)
	}
	return out
}

// envLookup returns the last value of key in env, as the C library would.
func envLookup(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// lookPath finds argv0 on the PATH the child will have (not rostra's), so a
// run file's env PATH decides which program runs.
func lookPath(argv0 string, env []string, dir string) (string, error) {
	if strings.Contains(argv0, "/") {
		return argv0, nil
	}
	path := envLookup(env, "PATH")
	if path == "" {
		path = os.Getenv("PATH")
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		cand := filepath.Join(d, argv0)
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return cand, nil
		}
	}
	return "", errors.New("executable file not found in $PATH")
}

// newCommand prepares the leader's exec.Cmd; the caller sets stdio and
// SysProcAttr. The error is the reason the command cannot start.
func newCommand(l Launch, env []string) (*exec.Cmd, error) {
	if len(l.Argv) == 0 || l.Argv[0] == "" {
		return nil, errors.New("start: empty command")
	}
	path, err := lookPath(l.Argv[0], env, l.Dir)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", l.Argv[0], err)
	}
	cmd := &exec.Cmd{Path: path, Args: l.Argv, Dir: l.Dir, Env: env}
	return cmd, nil
}

// openOutputLog gives the attempt's log: Launch.Log, or output.log opened
// for appending from Launch.OutputLog (owned: close it if the start fails);
// nil for none.
func openOutputLog(l Launch) (log LogFile, owned bool, err error) {
	if l.Log != nil {
		return l.Log, false, nil
	}
	if l.OutputLog == "" {
		return nil, false, nil
	}
	f, err := os.OpenFile(l.OutputLog, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600) // read back by the screen feeder (feed.go)
	if err != nil {
		return nil, false, fmt.Errorf("open output log: %w", err)
	}
	return f, true, nil
}

func graceOf(l Launch) time.Duration {
	if l.StopGrace > 0 {
		return l.StopGrace
	}
	return DefaultStopGrace
}

// newProcess wraps a started leader. The caller then calls run.
func newProcess(cmd *exec.Cmd, out *stream, log LogFile, token string, grace time.Duration, session bool, h *held, ref *attemptRef) *process {
	cmd.Env = nil // the child has it; a quiet pane need not (docs/performance.md §Memory of a quiet pane)
	return &process{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		session:    session,
		token:      token,
		grace:      grace,
		held:       h,
		ref:        ref,
		leaderGone: make(chan struct{}),
		out:        out,
		log:        log,
		readerDone: make(chan struct{}),
		screenFed:  make(chan struct{}),
		exited:     make(chan struct{}),
		done:       make(chan struct{}),
		quit:       make(chan struct{}),
		closing:    make(chan struct{}),
		members:    map[int]uint64{},
		// 0 if the leader already exited: then every process is searched.
		leaderStart: startTime(cmd.Process.Pid),
		startedAt:   time.Now(),
	}
}

// run starts the reader and the waiter.
func (p *process) run() {
	go p.drain()
	go p.wait()
}

// drain is the only reader of the output stream. Every chunk goes to the log
// first (a plain write(2), never buffered: what was read is on disk even if
// rostra dies next), then into the feed queue (feed.go), which the screen
// feeder consumes on its own goroutine: the reader never waits for the
// emulator while the log holds what it read.
func (p *process) drain() {
	defer close(p.readerDone)
	q := newFeedQueue(p.log, feedQueueBytes)
	p.feed = q
	go p.feedScreen(q)
	defer q.close()
	for {
		b, full, ok := p.readChunk(q.wake)
		if b != nil {
			logged := p.consume(b)
			q.push(b, logged, full)
			putChunk(b)
		}
		if !ok {
			return
		}
	}
}

// readRoom: a chunk takes another read while it has this much room, a
// pty's most.
const readRoom = 4 << 10

// readChunk waits for output and reads one chunk into a pooled buffer
// (nil when nothing was read): a reader waiting on a quiet child holds no
// buffer. It reports whether the stream goes on.
//
// A pty gives at most 4 KiB a read (the line discipline's buffer); in a
// flood the next 4 KiB is usually there already, so the chunk takes reads
// until the stream has nothing more right now or the buffer is nearly
// full: one log write, one queue push and one screen write per 32 KiB
// instead of per 4 KiB. Nothing waits for it (the first read that would
// block ends the chunk), so a key's echo goes on at once, and bytes held
// here for the microseconds of the next read are no less safe than in the
// kernel's buffer. full says the chunk ended for want of room, not of
// output (a flood: the reader reads on at once); idle is called before the
// reader waits for output.
func (p *process) readChunk(idle func()) (b []byte, full, ok bool) {
	var rerr error
	err := p.out.read(func(fd int) bool {
		b = getChunk()[:feedChunk]
		n := 0
		rerr, full = nil, false
		for {
			m, err := readNow(fd, b[n:])
			if err == syscall.EINTR {
				continue
			}
			if m > 0 {
				n += m
			}
			if n == 0 || err != nil || m <= 0 {
				// The stream's state after the last read: an error or
				// its end is told now when nothing was read, else on the
				// next call, which reads the same again.
				if n == 0 {
					rerr = err
				}
				break
			}
			if len(b)-n < readRoom {
				full = true
				break
			}
		}
		if n == 0 && rerr == syscall.EAGAIN {
			putChunk(b)
			b = nil
			return false // wait until readable
		}
		if n == 0 {
			putChunk(b)
			b = nil
		} else {
			b = b[:n]
		}
		return true
	}, idle)
	// An error, EOF on a pipe (0 bytes), EIO on a pty master once the last
	// holder of the slave closed it, or os.ErrClosed when the waiter cut
	// the stream off: each is the end of the output.
	return b, full, err == nil && rerr == nil && b != nil
}

// readNow is read(2) on the non-blocking stream, made without telling Go's
// scheduler: it returns at once (with data or EAGAIN), so the goroutine
// keeps its processor, where a read the scheduler knows of lets its
// monitor take the processor back from a read that waits a few
// microseconds for the pty's buffer and wake every 20 µs while it does:
// 15 % of rostra's CPU in a flood (docs/performance.md §A pane's output).
func readNow(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// consume logs and counts one chunk; it reports whether all of it is in
// the log.
func (p *process) consume(b []byte) bool {
	logged := false
	if p.log != nil && p.logErr == nil {
		if _, err := p.log.Write(b); err != nil {
			p.logErr = fmt.Errorf("write output log: %w", err)
		} else {
			logged = true
		}
	}
	p.outputBytes.Add(int64(len(b)))
	p.lastOut.Store(int64(time.Since(p.startedAt)))
	if p.outputWake.Load() != nil {
		if f := p.outputWake.Swap(nil); f != nil {
			(*f)()
		}
	}
	return logged
}

// feedScreen is the screen feeder: it writes the stream to the screen in
// order, queued chunks from memory and spilled runs read back from the log.
func (p *process) feedScreen(q *feedQueue) {
	defer close(p.screenFed)
	for {
		off, b, n, ok := q.next()
		if !ok {
			return
		}
		if b == nil {
			buf := getChunk()
			rb, err := q.readSpilled(off, n, buf)
			if err != nil && p.feedErr == nil {
				p.feedErr = err
			}
			p.feedTimed(q, rb)
			putChunk(buf)
			continue
		}
		p.feedTimed(q, b)
		putChunk(b)
	}
}

// feedTimed writes b to the screen and tells q how long it took.
func (p *process) feedTimed(q *feedQueue, b []byte) {
	if b == nil {
		return
	}
	start := time.Now()
	p.toScreenWrite(b)
	q.fedIn(len(b), time.Since(start))
}

// toScreenWrite writes a chunk to the screen, translated as the surface
// needs, never in the middle of a resize.
func (p *process) toScreenWrite(b []byte) {
	s := b
	if p.toScreen != nil {
		p.toBuf = p.toScreen(p.toBuf[:0], b)
		s = p.toBuf
	}
	p.screenMu.Lock()
	_, _ = p.screen.Write(s)
	p.screenMu.Unlock()
}

// wait waits for the worker's end: the leader's, reaped here (its status
// comes from cmd.Wait, never from a kill(pid, 0) probe, since a zombie
// looks alive), or, in a PID namespace, the worker's as its init reports it
// (the init is reaped when it ends, or by Close). Then it waits for the end
// of the output: up to the grace while descendants still hold it, then
// kills them, and as a last resort closes the stream under the reader.
func (p *process) wait() {
	if ns := p.nsInit(); ns != nil {
		go p.reapLeader()
		if e, ok := <-ns.exit; ok {
			p.exit = e
		} else {
			<-p.leaderGone // the init died before the worker's end was told
			p.exit = exitOf(p.cmd.ProcessState)
		}
	} else {
		p.reapLeader()
		p.exit = exitOf(p.cmd.ProcessState)
	}
	close(p.exited)

	if !p.waitReader(p.grace, true) {
		_ = p.Signal(syscall.SIGKILL)
		// Not cut short by Close: what the kernel still buffers is output.
		if !p.waitReader(killedDrainLimit, false) {
			_ = p.out.Close()
			<-p.readerDone
		}
	}
	close(p.quit)
	for _, f := range p.release {
		f()
	}
	_ = p.out.Close()
	<-p.screenFed // Done means the screen has seen every byte too
	if p.log != nil {
		_ = p.log.Close()
	}
	p.helpers.Wait()
	p.scan(true) // reap what died with it
	sup.settle(p.ref)
	close(p.done)
	p.sayDone()
}

// reapLeader reaps the leader once it exited.
func (p *process) reapLeader() {
	waitExitNoReap(p.pid)
	// The leader is a zombie now and its group id still ours: note who is
	// in the group before the id can be reused.
	p.scan(false)
	p.mu.Lock()
	_ = p.cmd.Wait() // the *ExitError carries nothing ProcessState lacks
	p.reaped, p.groupGone = true, true
	p.mu.Unlock()
	sup.reaped(p.cmd)
	close(p.leaderGone)
}

func (p *process) nsInit() *nsInit {
	if p.held == nil {
		return nil
	}
	return p.held.ns
}

func (p *process) cgroup() *attemptCgroup {
	if p.held == nil {
		return nil
	}
	return p.held.cg
}

// waitReader reports whether the reader ended within d; with closable,
// Close cuts the wait short.
func (p *process) waitReader(d time.Duration, closable bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	closing := p.closing
	if !closable {
		closing = nil
	}
	select {
	case <-p.readerDone:
		return true
	case <-closing:
		select {
		case <-p.readerDone:
			return true
		default:
			return false
		}
	case <-t.C:
		return false
	}
}

func exitOf(ps *os.ProcessState) Exit {
	if ps == nil {
		return Exit{Code: -1, Signal: "unknown"}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal().String()}
	}
	return Exit{Code: ps.ExitCode()}
}

// Containment is how the attempt's processes are held together: one of
// the Contain* kinds (contain_linux.go).
func (p *process) Containment() string {
	if p.held == nil {
		return ContainTracking
	}
	return p.held.kind
}

// Pid is the leader's pid, which is also its process group id.
func (p *process) Pid() int { return p.pid }

// Done is closed when the leader has exited and its output has been read to
// the end (or cut off after StopGrace because a descendant held it).
func (p *process) Done() <-chan struct{} { return p.done }

// Exited is closed as soon as the leader has been reaped, output or not.
func (p *process) Exited() <-chan struct{} { return p.exited }

// Exit is valid once Done (or Exited) is closed.
func (p *process) Exit() Exit {
	<-p.exited
	return p.exit
}

// OutputBytes counts the bytes read from the child so far.
func (p *process) OutputBytes() int64 { return p.outputBytes.Load() }

// NotifyOutput calls f once, from the reader, when output is read after
// the call; a later call replaces f. f must not block.
func (p *process) NotifyOutput(f func()) { p.outputWake.Store(&f) }

// OutputLogErr is the first error writing output.log, valid after Done. The
// drain goes on after one (the child must never block on rostra's disk).
func (p *process) OutputLogErr() error {
	<-p.done
	return p.logErr
}

// Signal sends sig to the leader's process group and to every other process
// of the attempt found in /proc (same pty session, or carrying the attempt
// token). Nothing left to signal is not an error.
func (p *process) Signal(sig syscall.Signal) error {
	var errs []error
	// Find the others first: once the group is killed, their parents die
	// and the family tree that leads to them is gone.
	others := p.linked()
	if cg := p.cgroup(); cg != nil {
		others = append(others, cg.procs()...)
	}
	if err := p.signalGroup(sig); err != nil {
		errs = append(errs, err)
	}
	for _, pid := range others {
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("signal %s to pid %d: %w", sig, pid, err))
		}
	}
	return errors.Join(errs...)
}

// signalGroup signals the leader's group while the leader is not reaped;
// after that, linked lists the group's members one by one.
func (p *process) signalGroup(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return nil
	}
	err := syscall.Kill(-p.pid, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s to process group %d: %w", sig, p.pid, err)
	}
	return nil
}

// Close kills whatever is left of the attempt (SIGKILL), waits for the end
// of the attempt, reaps what rostra can reap and releases the fds. It
// returns an error naming processes that are still there. Idempotent.
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		p.closingOnce.Do(func() { close(p.closing) })
		select {
		case <-p.done:
		default:
			_ = p.Signal(syscall.SIGKILL)
			<-p.done
		}
		// Leftovers that did not hold the output (daemons that closed it).
		_ = p.Signal(syscall.SIGKILL)
		var errs []error
		if cg := p.cgroup(); cg != nil {
			// Whatever moved out of reach of the group and the scan is
			// still in the cgroup.
			if err := cg.remove(goneLimit); err != nil {
				errs = append(errs, fmt.Errorf("remove the attempt's cgroup %s: %w", cg.dir, err))
			}
		}
		if p.nsInit() != nil {
			select { // SIGKILL to the init took its namespace with it
			case <-p.leaderGone:
			case <-time.After(goneLimit):
			}
		}
		if left := p.waitGone(goneLimit); len(left) > 0 {
			errs = append(errs, fmt.Errorf("processes of attempt (group %d) still present after SIGKILL: %v", p.pid, left))
		}
		p.closeErr = errors.Join(errs...)
	})
	return p.closeErr
}

// waitGone polls, for at most d, until no process of the attempt is left,
// reaping the ones that were reparented to rostra. It returns the pids left.
// (A bounded poll: the kernel offers no event for "a group became empty".)
func (p *process) waitGone(d time.Duration) []int {
	deadline := time.Now().Add(d)
	step := time.Millisecond
	for {
		f := p.scan(true)
		left := append(f.live, f.zombies...)
		if len(left) == 0 || !time.Now().Before(deadline) {
			return left
		}
		time.Sleep(step)
		if step < 20*time.Millisecond {
			step *= 2
		}
	}
}
