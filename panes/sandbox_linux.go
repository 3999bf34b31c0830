//go:build linux

// sandbox_linux.go holds the write policy the kernel enforces on every
// process of an attempt: a Landlock ruleset (docs/sandbox.md) applied in the
// child before the worker is exec'd, inherited by everything it starts
// (setsid and double forks included: a Landlock domain is part of a
// process's credentials and cannot be left).
//
// Data model: a Sandbox is plain data (folders and files that may be
// written); prepareSandbox checks it in rostra, makes the attempt's private
// TMPDIR and turns it into a sandboxSpec, which travels to the child as
// JSON on its command line. The child that applies it is the init of the
// PID namespace (attemptinit_linux.go, after it mounted its /proc, which a
// sandboxed process may no longer do), or, for the other containment kinds,
// this binary again as "rostra-sandbox" (reexec_linux.go), which restricts
// itself and execs the worker in the same process, so a cgroup or a process
// group set up at the fork holds the worker as it held the helper. Either
// tells rostra on a pipe that the ruleset could not be made, and the start
// fails with that reason: never does a sandboxed attempt run without it.
//
// Landlock restricts one thread (and what it forks and execs): the helper
// restricts the locked thread that then calls execve, the init the locked
// thread that forks the worker. That is why this file makes the three
// system calls itself rather than through go-landlock, whose restriction of
// every thread of a Go process needs libcap's psx (C code linked into
// rostra when cgo is on) and which a process about to exec does not need.
package panes

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Sandbox is what an attempt's processes may write; everything else on the
// filesystem they may read and execute as before, and writing to it fails
// with EACCES (or EXDEV for a rename out of an allowed folder on a kernel
// older than Landlock ABI 2). nil in Launch is no sandbox.
type Sandbox struct {
	// Writable folders: each with everything beneath it (the worktree, the
	// attempt's own folder, the agent's state folders...). Absolute paths
	// that exist.
	Writable []string
	// WritableFiles are single files that may be written, not the folder
	// around them (a result alias that exists, a device). Absolute paths
	// that exist. /dev/null, /dev/tty and the pane's pty are always there.
	WritableFiles []string
	// TempDir is the attempt's private temporary folder, made 0700 if
	// missing, writable, and the child's TMPDIR. "" = a folder made under
	// rostra's temporary folder for this attempt and removed once it is over.
	TempDir string
}

// sandboxArg0 is the name under which this binary restricts itself and execs
// the worker (reexec_linux.go).
const sandboxArg0 = "rostra-sandbox"

// alwaysWritableFiles may be written by every sandboxed attempt (with ioctl:
// stty and the like on /dev/tty).
var alwaysWritableFiles = []string{"/dev/null", "/dev/tty"}

// Landlock access rights by the ABI that brought them (the kernel's
// include/uapi/linux/landlock.h).
const (
	llReadExec = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llWriteV1  = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	// llFileRights are the rights a rule on a file (not a folder) may hold.
	llFileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// landlockRights is what the ruleset handles (denies unless a rule allows
// it) on a kernel of the given Landlock ABI, and how it is restricted.
type landlockRights struct {
	fs     uint64 // handled filesystem rights
	scoped uint64 // IPC scopes (ABI 6)
	flags  uint32 // landlock_restrict_self flags (ABI 7: audit after exec)
}

func rightsFor(abi int) landlockRights {
	r := landlockRights{fs: llReadExec | llWriteV1}
	if abi >= 2 {
		r.fs |= unix.LANDLOCK_ACCESS_FS_REFER // renames and links across folders
	}
	if abi >= 3 {
		r.fs |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	// ABI 4 brought TCP bind and connect: not handled, the network is not
	// this sandbox's (docs/sandbox.md).
	if abi >= 5 {
		r.fs |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 6 {
		r.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	if abi >= 7 {
		// Denials of the exec'd worker reach the audit log (where audit is
		// on): without it only the process that made the domain is logged.
		r.flags = unix.LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
	}
	return r
}

// LandlockABI is the kernel's Landlock ABI version, or why there is none.
func LandlockABI() (int, error) { return kernelLandlockABI() }

// SandboxError is a start that failed because the sandbox could not be made
// or applied (not because the worker could not be exec'd): the engine may
// then run the attempt without it, when the run file accepts that.
type SandboxError struct{ Err error }

func (e *SandboxError) Error() string { return e.Err.Error() }
func (e *SandboxError) Unwrap() error { return e.Err }

// sandboxFaultEnv is a test hook for the tests that run rostra's binary
// (docs/sandbox.md): "ruleset" makes every child's ruleset fail in the
// kernel, as sandboxFault does; "no-landlock" stands for a kernel without
// Landlock.
const sandboxFaultEnv = "ROSTRA_TEST_SANDBOX_FAULT"

// kernelLandlockABI is landlockABI, or the test hook's kernel without it.
func kernelLandlockABI() (int, error) {
	if os.Getenv(sandboxFaultEnv) == "no-landlock" {
		return 0, errors.New("the kernel has no Landlock (" + sandboxFaultEnv + "=no-landlock)")
	}
	return landlockABI()
}

// landlockABI is the probe; tests replace it to stand for a kernel without
// Landlock.
var landlockABI = sync.OnceValues(probeLandlockABI)

func probeLandlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		switch errno {
		case unix.ENOSYS:
			return 0, errors.New("the kernel has no Landlock (it came with Linux 5.13; landlock_create_ruleset: ENOSYS)")
		case unix.EOPNOTSUPP:
			return 0, errors.New("Landlock is not enabled at boot (add landlock to the kernel's lsm= list; landlock_create_ruleset: EOPNOTSUPP)")
		}
		return 0, fmt.Errorf("probe Landlock: landlock_create_ruleset: %w", errno)
	}
	return int(v), nil
}

// sandboxFault, set by tests only, makes the child's ruleset fail in the
// kernel: the handled rights then hold a bit no kernel knows (EINVAL).
var sandboxFault bool

// sandboxSpec is a Sandbox as the child applies it.
type sandboxSpec struct {
	Dirs  []string `json:"dirs"`
	Files []string `json:"files"`
	Fault bool     `json:"fault,omitempty"`
}

// preparedSandbox is a sandbox ready for one start.
type preparedSandbox struct {
	spec    sandboxSpec
	arg     string // spec as JSON
	release func() // removes the temp folder rostra made; never nil
}

// prepareSandbox checks sb, makes its temp folder and returns the child's
// environment with TMPDIR set to it. ttyName is the pane's pty slave ("" for
// a wrapper). nil sb is nil, env unchanged.
func prepareSandbox(sb *Sandbox, env []string, ttyName string) (*preparedSandbox, []string, error) {
	if sb == nil {
		return nil, env, nil
	}
	if _, err := kernelLandlockABI(); err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	var spec sandboxSpec
	for _, d := range sb.Writable {
		if err := checkSandboxPath("writable folder", d, true); err != nil {
			return nil, nil, err
		}
		spec.Dirs = append(spec.Dirs, d)
	}
	files := append(append([]string{}, alwaysWritableFiles...), sb.WritableFiles...)
	if ttyName != "" {
		files = append(files, ttyName)
	}
	for _, f := range files {
		if err := checkSandboxPath("writable file", f, false); err != nil {
			return nil, nil, err
		}
		spec.Files = append(spec.Files, f)
	}
	release := func() {}
	tmp := sb.TempDir
	if tmp == "" {
		d, err := os.MkdirTemp("", "rostra-tmp-")
		if err != nil {
			return nil, nil, fmt.Errorf("sandbox: make the attempt's temp folder: %w", err)
		}
		tmp = d
		release = func() { _ = os.RemoveAll(d) }
	} else {
		if !filepath.IsAbs(tmp) {
			return nil, nil, fmt.Errorf("sandbox: temp folder %q is not an absolute path", tmp)
		}
		if err := os.MkdirAll(tmp, 0o700); err != nil {
			return nil, nil, fmt.Errorf("sandbox: make the attempt's temp folder: %w", err)
		}
	}
	spec.Dirs = append(spec.Dirs, tmp)
	spec.Fault = sandboxFault || os.Getenv(sandboxFaultEnv) == "ruleset"
	arg, err := json.Marshal(spec)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	out = append(out, "TMPDIR="+tmp)
	return &preparedSandbox{spec: spec, arg: string(arg), release: release}, out, nil
}

func checkSandboxPath(what, p string, dir bool) error {
	if !filepath.IsAbs(p) {
		return fmt.Errorf("sandbox: %s %q is not an absolute path", what, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("sandbox: %s: %w", what, err)
	}
	if dir && !fi.IsDir() {
		return fmt.Errorf("sandbox: writable folder %s is not a folder (list it in WritableFiles)", p)
	}
	return nil
}

// restrictThread applies spec to the calling thread (locked by the caller)
// and whatever it forks or execs from now on.
func restrictThread(spec sandboxSpec) error {
	abi, err := probeLandlockABI()
	if err != nil {
		return err
	}
	r := rightsFor(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: r.fs, Scoped: r.scoped}
	if spec.Fault {
		attr.Access_fs |= 1 << 62
	}
	size := unsafe.Sizeof(attr)
	if abi < 6 {
		size = unsafe.Offsetof(attr.Scoped) // kernels before ABI 6 know no scopes
	}
	if abi < 4 {
		size = unsafe.Offsetof(attr.Access_net)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("create the Landlock ruleset (ABI %d): %w", abi, errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)
	if err := addRule(ruleset, "/", llReadExec); err != nil {
		return err
	}
	for _, d := range spec.Dirs {
		if err := addRule(ruleset, d, r.fs); err != nil {
			return err
		}
	}
	for _, f := range spec.Files {
		if err := addRule(ruleset, f, r.fs&llFileRights); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), uintptr(r.flags), 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// addRule allows access beneath path (only the file rights for a file).
func addRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox rule for %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox rule for %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileRights
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("sandbox rule for %s: landlock_add_rule: %w", path, errno)
	}
	return nil
}

// decodeSandboxSpec reads the JSON a child was given.
func decodeSandboxSpec(arg string) (sandboxSpec, error) {
	var spec sandboxSpec
	if err := json.Unmarshal([]byte(arg), &spec); err != nil {
		return spec, fmt.Errorf("sandbox: bad description: %w", err)
	}
	return spec, nil
}

// sandboxExec is the rostra-sandbox role: args are SPEC -- PATH ARGV...; fd
// 3 is the status pipe, which it writes "error <why>" to, or which closes
// with the exec.
func sandboxExec(args []string) int {
	runtime.LockOSThread() // the thread restricted is the one that execs
	status := os.NewFile(3, "status")
	syscall.CloseOnExec(3)
	fail := func(code int, err error) int {
		_, _ = io.WriteString(status, "error "+strings.ReplaceAll(err.Error(), "\n", " ")+"\n")
		return code
	}
	if len(args) < 4 || args[1] != "--" {
		return fail(2, errors.New("rostra-sandbox: want SPEC -- PATH ARGV..."))
	}
	spec, err := decodeSandboxSpec(args[0])
	if err != nil {
		return fail(2, err)
	}
	if err := restrictThread(spec); err != nil {
		return fail(126, fmt.Errorf("sandbox: %w", err))
	}
	err = syscall.Exec(args[2], args[3:], os.Environ())
	return fail(127, err) // exec.Cmd's own words for a failed exec
}

// sandboxHelper is rostra's side of a rostra-sandbox start.
type sandboxHelper struct {
	status  *os.File // read end
	statusW *os.File // write end, until the helper has it
}

// throughSandbox rewrites cmd to start as rostra-sandbox, which applies sb
// and execs cmd as it was. (Leaders pass no ExtraFiles of their own: fd 3
// is the status pipe.)
func (h *held) throughSandbox(cmd *exec.Cmd, sb *preparedSandbox) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox status pipe: %w", err)
	}
	h.sb = &sandboxHelper{status: r, statusW: w}
	cmd.Args = append([]string{sandboxArg0, sb.arg, "--", cmd.Path}, cmd.Args...)
	cmd.Path = selfExe
	cmd.ExtraFiles = append([]*os.File{w}, cmd.ExtraFiles...)
	return nil
}

// sandboxStarted waits for the helper's exec (EOF) or its error; on an error
// the helper has exited and is reaped here.
func (h *held) sandboxStarted(cmd *exec.Cmd) error {
	s := h.sb
	_ = s.statusW.Close()
	s.statusW = nil
	defer s.status.Close()
	line := firstStatusLine(bufio.NewReader(s.status), "the sandbox helper did not exec the worker")
	if line == "" {
		return nil // exec'd: the pipe closed with it
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	sup.reaped(cmd)
	msg, _ := strings.CutPrefix(line, "error ")
	return childStartError(msg)
}

// childStartError is the error a sandboxing child reported: a
// *SandboxError when it is the sandbox's ("sandbox: ..."), else the exec's.
func childStartError(msg string) error {
	if strings.HasPrefix(msg, "sandbox: ") {
		return &SandboxError{errors.New(msg)}
	}
	return errors.New(msg)
}
