// audit.go holds the write-policy audit (docs/design.md §The write audit): a snapshot of the
// workspace taken before an attempt, the diff against a snapshot taken after
// it, and the policy that says which of the changed files the attempt was
// allowed to write.
//
// Data model: a WorkspaceSnapshot holds, sorted by path, one small record
// per workspace-relative, slash-separated path of a non-directory (regular
// file, symlink, other): its lstat facts (size, mtime, mode and, for a
// symlink, its target) and, once hashed, 128 bits of its SHA-256. Symlinks
// are recorded as links and never followed; the excluded dirs (the state dir)
// are not entered. Directories are not recorded: an empty folder is not a
// change, a removed folder shows as its files' deletions.
//
// Content hashes: the walk itself only stats, so the snapshot the engine
// waits for before starting an attempt stays cheap on a large tree. A file
// whose size differs is changed without reading it. A file whose size is the
// same but whose mtime moved can only be judged by its old content, which is
// gone by the time the attempt ends; so each snapshot hashes its regular
// files in a background goroutine, and keeps a hash only if the file's size,
// mtime and mode were the same before and after it was read (the attempt may
// already be writing). At Diff time a same-size, mtime-only change is NOT a
// change when the before-hash exists and equals the file's hash now (a
// `touch`, or a formatter rewriting identical bytes); without a before-hash
// (the hasher had not reached the file, or it is larger than hashLimit) it is
// a change, because an unverified edit must not pass an audit. Which of the
// two a touch in the attempt's first moments gets depends on the hasher's
// progress; WaitHashed before the start removes that race at the cost of the
// hash pass.
//
// The policy (runfile.WritePolicy, runfile/writepolicy.go) is the list of
// doublestar globs a worker's `writes:` expands to for one attempt; its Digest
// is stored on the dispatch row so that the policy checked at settlement is
// provably the one recorded at dispatch.
package workspace

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rostra-dev/rostra/runfile"
)

// hashLimit bounds the files the background hasher reads: a same-size edit
// of a bigger file is judged by its mtime alone, which costs a false
// positive at worst, never a missed change.
const hashLimit = 32 << 20

// auditHashSize is how much of a file's SHA-256 a snapshot keeps: 128 bits
// still make a second file with the same hash out of reach, at half the
// memory per file.
const auditHashSize = 16

// WorkspaceSnapshot is the state of a workspace's files at one moment.
//
// It costs O(files) memory of small records: every path (and symlink
// target) is stored once, back to back, in names, and each file is one
// fixed-size auditEntry pointing into it, in a slice sorted by path; no map,
// no pointer per file. A snapshot of 100,000 files keeps about 80 bytes per
// file beyond its paths' bytes (docs/performance.md).
type WorkspaceSnapshot struct {
	root    string // absolute, symlinks resolved
	names   []byte
	entries []auditEntry // sorted by path

	// The background hasher writes auditEntry.hash; stopHashing and waiting
	// on hashDone give the reader a happens-before edge.
	stop     chan struct{}
	stopOnce sync.Once
	hashDone chan struct{}
}

type auditEntry struct {
	name, nameLen uint32 // the path: names[name : name+nameLen]
	link, linkLen uint32 // a symlink's target, likewise
	size          int64
	mtime         int64 // Unix nanoseconds
	mode          fs.FileMode
	hashed        bool
	hash          [auditHashSize]byte
}

func (s *WorkspaceSnapshot) nameOf(e *auditEntry) string {
	return string(s.names[e.name : e.name+e.nameLen])
}

func (s *WorkspaceSnapshot) nameBytes(e *auditEntry) []byte {
	return s.names[e.name : e.name+e.nameLen]
}

func (s *WorkspaceSnapshot) linkOf(e *auditEntry) string {
	return string(s.names[e.link : e.link+e.linkLen])
}

// add records one file.
func (s *WorkspaceSnapshot) add(rel string, info fs.FileInfo, link string) error {
	if len(s.names)+len(rel)+len(link) > math.MaxUint32 {
		return errors.New("more than 4 GiB of path names")
	}
	e := auditEntry{name: uint32(len(s.names)), nameLen: uint32(len(rel)), mode: info.Mode(), mtime: info.ModTime().UnixNano()}
	s.names = append(s.names, rel...)
	if link != "" {
		e.link, e.linkLen = uint32(len(s.names)), uint32(len(link))
		s.names = append(s.names, link...)
	}
	if !info.IsDir() {
		e.size = info.Size()
	}
	s.entries = append(s.entries, e)
	return nil
}

// paths lists every recorded path, sorted.
func (s *WorkspaceSnapshot) paths() []string {
	out := make([]string, len(s.entries))
	for i := range s.entries {
		out[i] = s.nameOf(&s.entries[i])
	}
	return out
}

// lookup finds rel's record, or nil.
func (s *WorkspaceSnapshot) lookup(rel string) *auditEntry {
	// By index, reading only the name fields: the hasher may be writing
	// the hashes meanwhile.
	i := sort.Search(len(s.entries), func(i int) bool { return s.nameOf(&s.entries[i]) >= rel })
	if i == len(s.entries) || s.nameOf(&s.entries[i]) != rel {
		return nil
	}
	return &s.entries[i]
}

// SnapshotWorkspace records every file below root except those under the
// exclude dirs (absolute paths; the state dir). It returns once the tree is
// stat'ed; content hashing goes on in the background until Diff or Close.
// A folder that cannot be read is recorded as an opaque entry, not entered:
// the attempt cannot write there either, and one unreadable folder must not
// stop every audited attempt.
func SnapshotWorkspace(root string, exclude []string) (*WorkspaceSnapshot, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("snapshot workspace %s: %w", root, err)
	}
	// The workspace root may itself be a symlink; the walk must start at what
	// it names, and excluded dirs are compared in the same resolved form.
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("snapshot workspace %s: %w", root, err)
	}
	skip := make(map[string]bool, len(exclude))
	for _, dir := range exclude {
		skip[auditResolve(dir)] = true
	}
	s := &WorkspaceSnapshot{
		root:     abs,
		stop:     make(chan struct{}),
		hashDone: make(chan struct{}),
	}
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == abs {
				return err
			}
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked
			}
			if d != nil && d.IsDir() {
				if info, lerr := os.Lstat(p); lerr == nil {
					if err := s.add(auditRel(abs, p), info, ""); err != nil {
						return err
					}
				}
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if skip[p] {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info() // lstat: a symlink is described, not followed
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		yieldEvery(len(s.entries))
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		return s.add(auditRel(abs, p), info, link)
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot workspace %s: %w", abs, err)
	}
	// The walk goes folder by folder ("a/b" before "a.txt"); the records are
	// kept in plain byte order so two snapshots merge in one pass.
	slices.SortFunc(s.entries, func(x, y auditEntry) int {
		return bytes.Compare(s.nameBytes(&x), s.nameBytes(&y))
	})
	// Appending left up to a quarter of each slice unused; a snapshot lives
	// as long as its attempt, so give the slack back.
	s.entries = slices.Clone(s.entries)
	s.names = slices.Clone(s.names)
	go s.hashInBackground()
	return s, nil
}

// yieldEvery lets other goroutines run every 256 files: a walk of a big
// tree is CPU-bound for seconds, and with both Ps busy (the walk, its
// hasher) the UI's goroutine would otherwise wait for the scheduler's 10 ms
// preemption to draw a frame.
func yieldEvery(n int) {
	if n%256 == 0 {
		runtime.Gosched()
	}
}

// Len is the number of files recorded.
func (s *WorkspaceSnapshot) Len() int { return len(s.entries) }

// Close stops the background hasher and waits for it. Diff does this itself;
// Close is for a snapshot that will never be diffed (the attempt did not
// open). Calling it more than once is fine.
func (s *WorkspaceSnapshot) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.hashDone
}

// WaitHashed blocks until the background hasher has been through every
// file (or was stopped). An engine that wants the mtime-only rule to hold
// even for an attempt that rewrites files in its first milliseconds calls it
// before starting the attempt, paying the hash pass (about 4x the stat walk)
// up front; without it a file the attempt touches before the hasher reached
// it counts as changed.
func (s *WorkspaceSnapshot) WaitHashed() { <-s.hashDone }

func (s *WorkspaceSnapshot) hashInBackground() {
	defer close(s.hashDone)
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return // no hashes: mtime-only changes count as changes
	}
	defer root.Close()
	hr := newAuditHasher()
	for i := range s.entries {
		e := &s.entries[i]
		if !e.mode.IsRegular() || e.size > hashLimit {
			continue
		}
		yieldEvery(i)
		select {
		case <-s.stop:
			return
		default:
		}
		if sum, ok := hr.hashFile(root, s.nameOf(e), e); ok {
			e.hash, e.hashed = sum, true
		}
	}
}

// auditHasher hashes one file after another with one buffer and one SHA-256
// state, so a pass over 100,000 files does not allocate them 100,000 times.
type auditHasher struct {
	buf []byte
	h   hash.Hash
	sum []byte
}

func newAuditHasher() *auditHasher {
	return &auditHasher{buf: make([]byte, 64<<10), h: sha256.New(), sum: make([]byte, 0, sha256.Size)}
}

// hashFile hashes rel and reports ok only when the file still has the size,
// mtime and mode of e before and after the read, so the hash is of the
// content e describes. os.Root keeps the open inside the workspace even if a
// path component was swapped for a symlink.
func (hr *auditHasher) hashFile(root *os.Root, rel string, e *auditEntry) (sum [auditHashSize]byte, ok bool) {
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return sum, false
	}
	defer f.Close()
	// fstat into a stack value: a FileInfo per check would be two
	// allocations a file over a whole workspace.
	fd := int(f.Fd())
	same := func() bool {
		var st unix.Stat_t
		return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG &&
			st.Size == e.size && st.Mtim.Nano() == e.mtime && fs.FileMode(st.Mode&0o777) == e.mode.Perm()
	}
	if !same() {
		return sum, false
	}
	hr.h.Reset()
	if _, err := io.CopyBuffer(hr.h, io.LimitReader(f, hashLimit+1), hr.buf); err != nil {
		return sum, false
	}
	if !same() {
		return sum, false
	}
	copy(sum[:], hr.h.Sum(hr.sum[:0]))
	return sum, true
}

// Diff lists the files that differ between s (before) and after: added,
// modified and deleted, workspace-relative, slash-separated, sorted. It
// stops both snapshots' background hashers first.
func (s *WorkspaceSnapshot) Diff(after *WorkspaceSnapshot) (changed []string) {
	s.Close()
	after.Close()
	var root *os.Root // opened on the first file that needs an after-hash
	var hr *auditHasher
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	i, j := 0, 0
	for i < len(s.entries) || j < len(after.entries) {
		order := 0
		switch {
		case i == len(s.entries):
			order = 1
		case j == len(after.entries):
			order = -1
		default:
			order = bytes.Compare(s.nameBytes(&s.entries[i]), after.nameBytes(&after.entries[j]))
		}
		switch {
		case order < 0:
			changed = append(changed, s.nameOf(&s.entries[i])) // deleted
			i++
			continue
		case order > 0:
			changed = append(changed, after.nameOf(&after.entries[j])) // added
			j++
			continue
		}
		b, a := &s.entries[i], &after.entries[j]
		i++
		j++
		if s.same(b, after, a) {
			continue
		}
		// Same size, moved mtime: only the before-hash can clear it.
		sameContent := false
		if b.hashed && b.mode.IsRegular() && a.mode == b.mode && a.size == b.size {
			if !a.hashed && root == nil {
				root, _ = os.OpenRoot(after.root)
				hr = newAuditHasher()
			}
			if !a.hashed && root != nil {
				a.hash, a.hashed = hr.hashFile(root, after.nameOf(a), a)
			}
			sameContent = a.hashed && a.hash == b.hash
		}
		if !sameContent {
			changed = append(changed, s.nameOf(b))
		}
	}
	return changed
}

// same reports whether b (a record of s) and a (of after) show no change
// at all.
func (s *WorkspaceSnapshot) same(b *auditEntry, after *WorkspaceSnapshot, a *auditEntry) bool {
	if a.mode != b.mode {
		return false // type or permissions changed
	}
	if b.mode&fs.ModeSymlink != 0 {
		return s.linkOf(b) == after.linkOf(a) // a recreated link to the same target is the same link
	}
	return a.size == b.size && a.mtime == b.mtime
}

func auditRel(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// auditResolve gives an excluded dir the form the walk sees: absolute, with
// symlinks resolved where it exists.
func auditResolve(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// WritePolicyViolations returns the changed paths the policy does not allow,
// sorted.
func WritePolicyViolations(changed []string, p runfile.WritePolicy) []string {
	var out []string
	for _, rel := range changed {
		if !p.Allows(rel) {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Limits of a write-policy reason: it is one row of team-state.json, so the
// paths are cut to a few and the status sidecar's failure text to a line.
const (
	writePolicyReasonPaths   = 5
	writePolicyReasonFailure = 200
)

// WritePolicyReason is the dispatch reason for a violation:
// `readonly source changed: a, b, c, d, e (+N more)` — the first five paths
// in sorted order, "(+N more)" only past five — then, when the attempt's
// status sidecar carried a failure text, ": " and that text with surrounding
// white space trimmed, cut at 200 characters (runes). No violations, no
// reason: it returns "".
func WritePolicyReason(violations []string, failure string) string {
	if len(violations) == 0 {
		return ""
	}
	paths := slices.Clone(violations)
	slices.Sort(paths)
	var b bytes.Buffer
	b.WriteString("readonly source changed: ")
	b.WriteString(listPaths(paths, writePolicyReasonPaths))
	if failure = strings.TrimSpace(failure); failure != "" {
		if r := []rune(failure); len(r) > writePolicyReasonFailure {
			failure = string(r[:writePolicyReasonFailure])
		}
		b.WriteString(": ")
		b.WriteString(failure)
	}
	return b.String()
}
