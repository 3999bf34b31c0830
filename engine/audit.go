// audit.go holds the write-policy audit (SPEC §4.5): a snapshot of the
// workspace taken before an attempt, the diff against a snapshot taken after
// it, and the policy that says which of the changed files the attempt was
// allowed to write.
//
// Data model: a WorkspaceSnapshot maps each workspace-relative,
// slash-separated path of a non-directory (regular file, symlink, other) to
// its lstat facts: size, mtime, mode and, for a symlink, its target. Symlinks
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
// A WritePolicy is the list of doublestar globs a worker's `writes:` expands
// to for one attempt; its Digest is stored on the dispatch row so that the
// policy checked at settlement is provably the one recorded at dispatch.
package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// hashLimit bounds the files the background hasher reads: a same-size edit
// of a bigger file is judged by its mtime alone, which costs a false
// positive at worst, never a missed change.
const hashLimit = 32 << 20

// WorkspaceSnapshot is the state of a workspace's files at one moment.
type WorkspaceSnapshot struct {
	root    string // absolute, symlinks resolved
	entries map[string]*auditEntry

	// The background hasher writes auditEntry.hash; stopHashing and waiting
	// on hashDone give the reader a happens-before edge.
	stop     chan struct{}
	stopOnce sync.Once
	hashDone chan struct{}
}

type auditEntry struct {
	size   int64
	mtime  time.Time
	mode   fs.FileMode
	link   string // symlink target
	hash   [sha256.Size]byte
	hashed bool
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
		entries:  make(map[string]*auditEntry),
		stop:     make(chan struct{}),
		hashDone: make(chan struct{}),
	}
	var regular []string
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
					s.entries[auditRel(abs, p)] = &auditEntry{mode: info.Mode(), mtime: info.ModTime()}
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
		e := &auditEntry{size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
		rel := auditRel(abs, p)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			if e.link, err = os.Readlink(p); err != nil {
				return err
			}
		case info.Mode().IsRegular() && info.Size() <= hashLimit:
			regular = append(regular, rel)
		}
		s.entries[rel] = e
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot workspace %s: %w", abs, err)
	}
	go s.hashInBackground(regular)
	return s, nil
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

func (s *WorkspaceSnapshot) hashInBackground(paths []string) {
	defer close(s.hashDone)
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return // no hashes: mtime-only changes count as changes
	}
	defer root.Close()
	buf := make([]byte, 64<<10)
	for _, rel := range paths {
		select {
		case <-s.stop:
			return
		default:
		}
		e := s.entries[rel]
		if sum, ok := auditHashFile(root, rel, e, buf); ok {
			e.hash, e.hashed = sum, true
		}
	}
}

// auditHashFile hashes rel and reports ok only when the file still has the
// size, mtime and mode of e before and after the read, so the hash is of the
// content e describes. os.Root keeps the open inside the workspace even if a
// path component was swapped for a symlink.
func auditHashFile(root *os.Root, rel string, e *auditEntry, buf []byte) (sum [sha256.Size]byte, ok bool) {
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return sum, false
	}
	defer f.Close()
	same := func() bool {
		info, err := f.Stat()
		return err == nil && info.Size() == e.size && info.ModTime().Equal(e.mtime) && info.Mode() == e.mode
	}
	if !same() {
		return sum, false
	}
	h := sha256.New()
	if _, err := io.CopyBuffer(h, io.LimitReader(f, hashLimit+1), buf); err != nil {
		return sum, false
	}
	if !same() {
		return sum, false
	}
	copy(sum[:], h.Sum(nil))
	return sum, true
}

// Diff lists the files that differ between s (before) and after: added,
// modified and deleted, workspace-relative, slash-separated, sorted. It
// stops both snapshots' background hashers first.
func (s *WorkspaceSnapshot) Diff(after *WorkspaceSnapshot) (changed []string) {
	s.Close()
	after.Close()
	var root *os.Root // opened on the first file that needs an after-hash
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	for rel, b := range s.entries {
		a, ok := after.entries[rel]
		if !ok {
			changed = append(changed, rel) // deleted
			continue
		}
		if !auditSame(b, a) {
			// Same size, moved mtime: only the before-hash can clear it.
			sameContent := false
			if b.hashed && b.mode.IsRegular() && a.mode == b.mode && a.size == b.size && a.link == b.link {
				if !a.hashed && root == nil {
					root, _ = os.OpenRoot(after.root)
				}
				if !a.hashed && root != nil {
					a.hash, a.hashed = auditHashFile(root, rel, a, make([]byte, 64<<10))
				}
				sameContent = a.hashed && a.hash == b.hash
			}
			if !sameContent {
				changed = append(changed, rel)
			}
		}
	}
	for rel := range after.entries {
		if _, ok := s.entries[rel]; !ok {
			changed = append(changed, rel) // added
		}
	}
	slices.Sort(changed)
	return changed
}

// auditSame reports whether two records of one path show no change at all.
func auditSame(b, a *auditEntry) bool {
	if a.mode != b.mode {
		return false // type or permissions changed
	}
	if b.mode&fs.ModeSymlink != 0 {
		return a.link == b.link // a recreated link to the same target is the same link
	}
	return a.size == b.size && a.mtime.Equal(b.mtime)
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

// WritePolicy is an attempt's write policy: doublestar globs, relative to
// the workspace, slash-separated (`out/**` matches out/ and everything below
// it). Globs are matched as written; nil Globs means "not audited" to the
// engine, while an empty list allows no write at all.
type WritePolicy struct {
	Globs []string
}

// writePolicyEncoding is the canonical form the digest is taken of. The
// version lets a later encoding change without colliding with stored digests.
type writePolicyEncoding struct {
	Version int      `json:"version"`
	Writes  []string `json:"writes"`
}

// Digest is "sha256:<hex>" of the policy's canonical encoding: the globs
// with a leading "./" removed, sorted and deduplicated (order and repeats do
// not change what a policy allows), as JSON.
func (p WritePolicy) Digest() string {
	globs := make([]string, 0, len(p.Globs))
	for _, g := range p.Globs {
		globs = append(globs, auditNormalizeGlob(g))
	}
	slices.Sort(globs)
	globs = slices.Compact(globs)
	data, err := json.Marshal(writePolicyEncoding{Version: 1, Writes: globs})
	if err != nil {
		panic(err) // a struct of strings always marshals
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Validate reports the globs that are not valid doublestar patterns, so a
// run file can be refused before anything starts.
func (p WritePolicy) Validate() error {
	var bad []string
	for _, g := range p.Globs {
		if !doublestar.ValidatePattern(auditNormalizeGlob(g)) {
			bad = append(bad, strconv.Quote(g))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("invalid write glob(s): %s", strings.Join(bad, ", "))
	}
	return nil
}

// Allows reports whether the policy lets an attempt write rel (workspace-
// relative, slash-separated). An invalid glob allows nothing.
func (p WritePolicy) Allows(rel string) bool {
	rel = strings.TrimPrefix(path.Clean(rel), "./")
	for _, g := range p.Globs {
		if ok, err := doublestar.Match(auditNormalizeGlob(g), rel); err == nil && ok {
			return true
		}
	}
	return false
}

func auditNormalizeGlob(g string) string {
	for strings.HasPrefix(g, "./") {
		g = g[2:]
	}
	return g
}

// WritePolicyViolations returns the changed paths the policy does not allow,
// sorted.
func WritePolicyViolations(changed []string, p WritePolicy) []string {
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
	shown := paths[:min(len(paths), writePolicyReasonPaths)]
	b.WriteString(strings.Join(shown, ", "))
	if more := len(paths) - len(shown); more > 0 {
		fmt.Fprintf(&b, " (+%d more)", more)
	}
	if failure = strings.TrimSpace(failure); failure != "" {
		if r := []rune(failure); len(r) > writePolicyReasonFailure {
			failure = string(r[:writePolicyReasonFailure])
		}
		b.WriteString(": ")
		b.WriteString(failure)
	}
	return b.String()
}
