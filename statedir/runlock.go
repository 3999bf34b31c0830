// runlock.go holds the lock that says which rostra drives a run: an flock on
// the state dir's own descriptor, held for as long as that rostra lives (the
// kernel drops it however the holder dies), and run.lock, a note beside it
// naming the holder's pid for the message a second rostra prints.
//
// The lock is on the folder, not on run.lock: a worker that deletes or
// replaces run.lock (git clean, rm -rf of the wrong glob) cannot free the
// run for a second rostra, and a symlink planted at run.lock is replaced,
// never written through. The one way around it is to replace the folder
// itself; then the rostra that resumes checks that the run's recorded
// rostra (pid and start time, team-state.json) is dead before it stops
// anything (engine/rundir.go).
package statedir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockFile is the note naming the rostra that holds the run's lock.
const LockFile = "run.lock"

// RunLock is the flock on a state dir held while a rostra drives its run.
type RunLock struct {
	dir      *os.File
	stateDir string
}

// ErrLocked is returned by AcquireRunLock when another process holds the run.
type ErrLocked struct {
	Pid      int // from run.lock; 0 when the note is missing or unreadable
	StateDir string
}

func (e *ErrLocked) Error() string {
	if e.Pid == 0 {
		return fmt.Sprintf("run is already driven by another rostra (state dir %s; its %s is missing)", e.StateDir, LockFile)
	}
	return fmt.Sprintf("run is already driven by pid %d (state dir %s)", e.Pid, e.StateDir)
}

// AcquireRunLock takes the lock on stateDir without waiting and writes this
// process's pid into run.lock.
func AcquireRunLock(stateDir string) (*RunLock, error) {
	dir, err := LockDir(stateDir)
	if err != nil {
		return nil, err
	}
	l := &RunLock{dir: dir, stateDir: stateDir}
	if err := WriteLockNote(stateDir); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// LockDir opens stateDir and flocks the descriptor. The descriptor is
// close-on-exec, so no child of rostra holds the lock after rostra is gone.
func LockDir(stateDir string) (*os.File, error) {
	dir, err := os.OpenFile(stateDir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, fmt.Errorf("lock state dir: %w", err)
	}
	err = syscall.Flock(int(dir.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	// A holder killed a moment ago shows as a zombie while its other
	// threads still close its files, the lock's among them: it is waited
	// for, not taken for a live rostra.
	for deadline := time.Now().Add(zombieLockWait); errors.Is(err, syscall.EWOULDBLOCK) && time.Now().Before(deadline); {
		if _, state := ProcessStat(LockHolder(stateDir)); state != 'Z' {
			break
		}
		time.Sleep(10 * time.Millisecond)
		err = syscall.Flock(int(dir.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		dir.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &ErrLocked{Pid: LockHolder(stateDir), StateDir: stateDir}
		}
		return nil, fmt.Errorf("lock state dir %s: %w", stateDir, err)
	}
	return dir, nil
}

// zombieLockWait bounds how long LockDir waits for a dead holder's lock.
const zombieLockWait = 5 * time.Second

// WriteLockNote replaces run.lock with this process's pid. The new file is
// renamed over whatever is there, so a symlink at run.lock is replaced and
// its target never written.
func WriteLockNote(stateDir string) error {
	return WriteFileAtomic(filepath.Join(stateDir, LockFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
}

// LockHolder reads the pid in run.lock, not following a symlink; 0 if none.
func LockHolder(stateDir string) int {
	f, err := os.OpenFile(filepath.Join(stateDir, LockFile), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	var buf [32]byte
	n, _ := f.Read(buf[:])
	pid, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return pid
}

// Relock takes the lock again on the folder now at the state dir's path,
// after the one the lock was taken on was deleted or replaced (the engine
// makes the state dir again when a worker removes it). It fails with
// *ErrLocked when another rostra took the new folder first.
func (l *RunLock) Relock() error {
	dir, err := LockDir(l.stateDir)
	if err != nil {
		return err
	}
	l.dir.Close()
	l.dir = dir
	return WriteLockNote(l.stateDir)
}

// Release drops the lock. run.lock stays; only the flock counts.
func (l *RunLock) Release() error {
	return l.dir.Close()
}

// ProcessStart names a process across pid reuse and reboots: its start time
// in clock ticks after boot, "@", and the boot's id. "" when pid is gone.
func ProcessStart(pid int) string {
	start, _ := ProcessStat(pid)
	return start
}

// ProcessStat is ProcessStart's name of pid and its state letter (R, S,
// Z …); "" when pid is gone.
func ProcessStat(pid int) (start string, state byte) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0
	}
	// comm may hold spaces and parentheses: the fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return "", 0
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return f[19] + "@" + strings.TrimSpace(string(boot)), f[0][0]
}

// ProcessAlive tells whether the rostra recorded as pid (started at start,
// from ProcessStart) is still running. A zombie (state Z, or X while it is
// reaped) is dead: a SIGKILLed rostra whose parent has not reaped it yet
// drives nothing. Without a recorded start time (a state dir of an older
// rostra) a live pid counts only when its program is named rostra, the best
// a reused pid can be told apart by.
func ProcessAlive(pid int, start string) bool {
	if pid <= 0 {
		return false
	}
	now, state := ProcessStat(pid)
	if now == "" || state == 'Z' || state == 'X' {
		return false
	}
	if start != "" {
		return now == start
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return strings.HasPrefix(filepath.Base(string(argv0)), "rostra")
}
