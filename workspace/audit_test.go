// audit_test.go checks the write-policy audit on real files: snapshots of a
// temp workspace before and after changes, the policy's globs and digest, and
// the exact reason a violation gives (docs/design.md §The write audit).
package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/runfile"
)

// auditBase is the mtime every fixture file starts with, so a change made in
// a test is visible whatever the file system's timestamp granularity.
var auditBase = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func auditWrite(t testing.TB, root, rel, content string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	require.NoError(t, os.Chtimes(p, mtime, mtime))
}

// auditWorkspace makes a workspace with sources, an out/ folder and a state
// dir inside it, as a run with the default state_dir has.
func auditWorkspace(t *testing.T) (ws, stateDir string) {
	ws = t.TempDir()
	for _, rel := range []string{"go.mod", "src/a.go", "src/b.go", "src/deep/c.go", "docs/readme.md", "out/keep.txt"} {
		auditWrite(t, ws, rel, "content of "+rel+"\n", auditBase)
	}
	stateDir = filepath.Join(ws, ".rostra", "demo")
	auditWrite(t, stateDir, "team-state.json", "{}", auditBase)
	return ws, stateDir
}

func auditSnapshot(t *testing.T, ws, stateDir string) *WorkspaceSnapshot {
	t.Helper()
	s, err := SnapshotWorkspace(ws, []string{stateDir})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func TestWritePolicyAllowedWritesPass(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	before := auditSnapshot(t, ws, stateDir)
	later := auditBase.Add(time.Minute)
	auditWrite(t, ws, "out/w1/result.json", `{"ok":true}`, later)
	auditWrite(t, ws, "out/keep.txt", "rewritten, longer than before\n", later)

	changed := before.Diff(auditSnapshot(t, ws, stateDir))
	assert.Equal(t, []string{"out/keep.txt", "out/w1/result.json"}, changed)
	policy := runfile.WritePolicy{Globs: []string{"out/**"}}
	assert.Empty(t, WritePolicyViolations(changed, policy))
	assert.Equal(t, "", WritePolicyReason(WritePolicyViolations(changed, policy), "boom"))
}

func TestWritePolicyWriteOutsideFailsWithExactReason(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	before := auditSnapshot(t, ws, stateDir)
	later := auditBase.Add(time.Minute)
	auditWrite(t, ws, "out/w1/result.json", "{}", later)
	auditWrite(t, ws, "src/a.go", "package a // edited\n", later)
	auditWrite(t, ws, "NOTES.md", "new\n", later)

	violations := WritePolicyViolations(before.Diff(auditSnapshot(t, ws, stateDir)), runfile.WritePolicy{Globs: []string{"out/**"}})
	assert.Equal(t, []string{"NOTES.md", "src/a.go"}, violations)
	assert.Equal(t, "readonly source changed: NOTES.md, src/a.go", WritePolicyReason(violations, ""))
}

func TestWritePolicyDeletionCounted(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	before := auditSnapshot(t, ws, stateDir)
	require.NoError(t, os.Remove(filepath.Join(ws, "src", "b.go")))
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "src", "deep")))

	changed := before.Diff(auditSnapshot(t, ws, stateDir))
	assert.Equal(t, []string{"src/b.go", "src/deep/c.go"}, changed)
	assert.Equal(t, "readonly source changed: src/b.go, src/deep/c.go",
		WritePolicyReason(WritePolicyViolations(changed, runfile.WritePolicy{Globs: []string{"out/**"}}), ""))
}

func TestWritePolicyReasonMoreThanFivePaths(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	before := auditSnapshot(t, ws, stateDir)
	for i := 8; i >= 1; i-- { // written out of order: the reason sorts
		auditWrite(t, ws, fmt.Sprintf("src/gen/f%d.go", i), "x", auditBase)
	}
	violations := WritePolicyViolations(before.Diff(auditSnapshot(t, ws, stateDir)), runfile.WritePolicy{Globs: []string{}})
	require.Len(t, violations, 8)
	assert.Equal(t,
		"readonly source changed: src/gen/f1.go, src/gen/f2.go, src/gen/f3.go, src/gen/f4.go, src/gen/f5.go (+3 more)",
		WritePolicyReason(violations, ""))
}

func TestWritePolicyReasonFormat(t *testing.T) {
	five := []string{"e", "d", "c", "b", "a"}
	long := strings.Repeat("é", 150) + strings.Repeat("x", 100) // 250 runes, 400 bytes
	tests := []struct {
		name       string
		violations []string
		failure    string
		want       string
	}{
		{"exactly five: no more-count", five, "", "readonly source changed: a, b, c, d, e"},
		{"six", append(five, "f"), "", "readonly source changed: a, b, c, d, e (+1 more)"},
		{"failure appended", []string{"src/a.go"}, "model not in catalog",
			"readonly source changed: src/a.go: model not in catalog"},
		{"failure trimmed", []string{"src/a.go"}, "  exit 3\n", "readonly source changed: src/a.go: exit 3"},
		{"blank failure is none", []string{"src/a.go"}, " \n", "readonly source changed: src/a.go"},
		{"failure cut at 200 runes", append(five, "f", "g"), long,
			"readonly source changed: a, b, c, d, e (+2 more): " + strings.Repeat("é", 150) + strings.Repeat("x", 50)},
		{"no violations, no reason", nil, "boom", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, WritePolicyReason(tt.violations, tt.failure))
		})
	}
	// The caller's slice is not reordered.
	assert.Equal(t, []string{"e", "d", "c", "b", "a"}, five)
}

func TestWritePolicyAllows(t *testing.T) {
	p := runfile.WritePolicy{Globs: []string{"out/**", "./notes/*.md", "**/*.log"}}
	for rel, want := range map[string]bool{
		"out":              true,
		"out/a":            true,
		"out/a/b/c.json":   true,
		"outside.txt":      false,
		"notes/x.md":       true,
		"notes/sub/x.md":   false,
		"src/deep/run.log": true,
		"src/a.go":         false,
		"./out/x":          true,
	} {
		assert.Equal(t, want, p.Allows(rel), rel)
	}
	assert.False(t, runfile.WritePolicy{Globs: []string{"out/[a"}}.Allows("out/[a"), "an invalid glob allows nothing")
	require.NoError(t, p.Validate())
	assert.EqualError(t, runfile.WritePolicy{Globs: []string{"ok/**", "out/[a"}}.Validate(), `invalid write glob(s): "out/[a"`)
}

func TestWritePolicyDigestPerAttempt(t *testing.T) {
	plan := &runfile.Plan{Name: "demo", Workspace: "/ws", StateDir: "/ws/.rostra/demo"}
	w := &runfile.WorkerSpec{ID: "impl", Role: "implementer", Writes: []string{"out/{worker}/{attempt}/**", "notes/{worker}.md"}}
	a1, err := plan.Expand(w, 1)
	require.NoError(t, err)
	a2, err := plan.Expand(w, 2)
	require.NoError(t, err)
	p1, p2 := runfile.WritePolicy{Globs: a1.Writes}, runfile.WritePolicy{Globs: a2.Writes}

	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, p1.Digest())
	assert.NotEqual(t, p1.Digest(), p2.Digest(), "each attempt has its own policy")
	assert.True(t, p2.Allows("out/impl/2/result.json"))
	assert.False(t, p1.Allows("out/impl/2/result.json"), "attempt 1's policy does not cover attempt 2's folder")

	// The digest is of what the policy allows, not of how the list was written.
	assert.Equal(t, p1.Digest(), runfile.WritePolicy{Globs: []string{"notes/impl.md", "./out/impl/1/**", "notes/impl.md"}}.Digest())
	assert.Equal(t, p1.Digest(), runfile.WritePolicy{Globs: slices.Clone(a1.Writes)}.Digest(), "stable across calls")
	// Allowing nothing is a policy too, and differs from allowing something.
	assert.NotEqual(t, runfile.WritePolicy{Globs: []string{}}.Digest(), p1.Digest())
}

func TestSnapshotExcludesStateDir(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	before := auditSnapshot(t, ws, stateDir)
	later := auditBase.Add(time.Minute)
	auditWrite(t, stateDir, "team-state.json", `{"version":1,"changed":true}`, later)
	auditWrite(t, stateDir, "attempts/w/1/output.log", "bytes", later)

	after := auditSnapshot(t, ws, stateDir)
	assert.Empty(t, before.Diff(after))
	for _, rel := range after.paths() {
		assert.False(t, strings.HasPrefix(rel, ".rostra/demo"), rel)
	}
	assert.Equal(t, 6, after.Len(), "the six workspace files, nothing of the state dir")

	// Named through a symlink, the state dir is still recognised.
	link := filepath.Join(t.TempDir(), "state-link")
	require.NoError(t, os.Symlink(stateDir, link))
	viaLink, err := SnapshotWorkspace(ws, []string{link})
	require.NoError(t, err)
	defer viaLink.Close()
	assert.Equal(t, 6, viaLink.Len())
}

func TestSnapshotRecordsSymlinksWithoutFollowing(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	outside := t.TempDir()
	auditWrite(t, outside, "secret/data.txt", "outside", auditBase)
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "escape")))
	require.NoError(t, os.Symlink("src/a.go", filepath.Join(ws, "alias.go")))

	before := auditSnapshot(t, ws, stateDir)
	assert.Contains(t, before.paths(), "escape")
	for _, rel := range before.paths() {
		assert.False(t, strings.HasPrefix(rel, "escape/"), "followed the link to %s", rel)
	}
	assert.Equal(t, outside, before.linkOf(before.lookup("escape")))

	// Changes behind the link are not the workspace's; re-pointing the link is.
	auditWrite(t, outside, "secret/data.txt", "changed outside, longer", auditBase.Add(time.Minute))
	auditWrite(t, outside, "secret/new.txt", "new", auditBase)
	require.NoError(t, os.Remove(filepath.Join(ws, "alias.go")))
	require.NoError(t, os.Symlink("src/b.go", filepath.Join(ws, "alias.go")))
	assert.Equal(t, []string{"alias.go"}, before.Diff(auditSnapshot(t, ws, stateDir)))
}

func TestSnapshotWorkspaceRootThroughSymlink(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	link := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(ws, link))
	s, err := SnapshotWorkspace(link, []string{stateDir})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 6, s.Len())
}

func TestDiffJudgesMtimeOnlyChangesByContent(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	before := auditSnapshot(t, ws, stateDir)
	before.WaitHashed()
	later := auditBase.Add(time.Minute)
	// Same bytes rewritten (a formatter with nothing to do, or `touch`): no change.
	auditWrite(t, ws, "src/a.go", "content of src/a.go\n", later)
	// Same size, other bytes: a change the size alone would miss.
	auditWrite(t, ws, "src/b.go", "CONTENT OF SRC/B.GO\n", later)
	// Same bytes, other permissions: a change.
	require.NoError(t, os.Chmod(filepath.Join(ws, "go.mod"), 0o600))

	assert.Equal(t, []string{"go.mod", "src/b.go"}, before.Diff(auditSnapshot(t, ws, stateDir)))
}

func TestDiffWithoutBeforeHashCountsMtimeChange(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	before := auditSnapshot(t, ws, stateDir)
	before.WaitHashed()
	before.lookup("src/a.go").hashed = false // as if the hasher never reached it
	auditWrite(t, ws, "src/a.go", "content of src/a.go\n", auditBase.Add(time.Minute))
	assert.Equal(t, []string{"src/a.go"}, before.Diff(auditSnapshot(t, ws, stateDir)),
		"an unverified mtime change is a change")
}

func TestSnapshotMissingWorkspace(t *testing.T) {
	_, err := SnapshotWorkspace(filepath.Join(t.TempDir(), "nope"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "snapshot workspace")
}

func TestSnapshotUnreadableFolderIsOpaque(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder; the unreadable case cannot be made")
	}
	ws, stateDir := auditWorkspace(t)
	locked := filepath.Join(ws, "locked")
	auditWrite(t, ws, "locked/inside.txt", "x", auditBase)
	require.NoError(t, os.Chmod(locked, 0o000))
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	s := auditSnapshot(t, ws, stateDir)
	assert.Contains(t, s.paths(), "locked")
	assert.Empty(t, s.Diff(auditSnapshot(t, ws, stateDir)))
}

// auditTree20k builds a 20,000-file workspace: 50 × 20 folders of 20 small
// files, about the size of a mid-sized monorepo checkout.
func auditTree20k(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	content := strings.Repeat("package x // line of source\n", 50)
	for i := range 20000 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("sub%02d", (i/50)%20))
		if i < 1000 {
			require.NoError(b, os.MkdirAll(dir, 0o755))
		}
		require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), []byte(content), 0o644))
	}
	return root
}

// BenchmarkSnapshotWorkspace20k is what the engine waits for before it
// starts an audited attempt: the stat walk (hashing goes on in the
// background, stopped here by Close).
func BenchmarkSnapshotWorkspace20k(b *testing.B) {
	root := auditTree20k(b)
	for b.Loop() {
		s, err := SnapshotWorkspace(root, nil)
		require.NoError(b, err)
		s.Close()
		require.Equal(b, 20000, s.Len())
	}
}

// BenchmarkSnapshotWorkspace20kHashed includes the background hash pass, the
// CPU an audited attempt costs in all.
func BenchmarkSnapshotWorkspace20kHashed(b *testing.B) {
	root := auditTree20k(b)
	for b.Loop() {
		s, err := SnapshotWorkspace(root, nil)
		require.NoError(b, err)
		s.WaitHashed()
		s.Close()
	}
}

// An attempt writes while the before-snapshot is still hashing: whatever the
// hasher reads mid-write must not vouch for the new bytes.
func TestDiffWhileHashingInBackground(t *testing.T) {
	ws, stateDir := auditWorkspace(t)
	var want []string
	for i := range 300 {
		rel := fmt.Sprintf("src/gen/f%03d.go", i)
		auditWrite(t, ws, rel, fmt.Sprintf("package gen // %03d\n", i), auditBase)
		if i%2 == 0 {
			want = append(want, rel)
		}
	}
	before := auditSnapshot(t, ws, stateDir) // the hasher starts now
	later := auditBase.Add(time.Minute)
	for _, rel := range want { // same size, other bytes, new mtime
		auditWrite(t, ws, rel, strings.ToUpper(fmt.Sprintf("package gen // %s\n", rel[len(rel)-6:len(rel)-3])), later)
	}
	for i := 1; i < 300; i += 2 { // same bytes, new mtime: not changes once verified
		rel := fmt.Sprintf("src/gen/f%03d.go", i)
		auditWrite(t, ws, rel, fmt.Sprintf("package gen // %03d\n", i), later)
	}
	changed := before.Diff(auditSnapshot(t, ws, stateDir))
	for _, rel := range want {
		assert.Contains(t, changed, rel)
	}
	for _, rel := range changed {
		assert.True(t, strings.HasPrefix(rel, "src/gen/f"), rel)
	}
}

// The walk visits a folder's files before a sibling whose name sorts
// between ("a/b" before "a.txt"); the records are merged in byte order, so
// names on either side of "/" still pair up.
func TestDiffPairsNamesAroundTheSlash(t *testing.T) {
	ws := t.TempDir()
	for _, rel := range []string{"a/b", "a.txt", "a-b/c", "a0", "a/b/../z"} {
		auditWrite(t, ws, filepath.Clean(rel), "x", auditBase)
	}
	before := auditSnapshot(t, ws, filepath.Join(ws, ".rostra"))
	auditWrite(t, ws, "a.txt", "longer", auditBase)
	auditWrite(t, ws, "a/c", "new", auditBase)
	require.NoError(t, os.Remove(filepath.Join(ws, "a-b", "c")))
	assert.Equal(t, []string{"a-b/c", "a.txt", "a/c"}, before.Diff(auditSnapshot(t, ws, filepath.Join(ws, ".rostra"))))
}

// A snapshot keeps one small record per file (docs/performance.md: 200,000 files once
// took 130 MB): its heap, measured after a GC with the snapshot live, stays
// under 150 bytes a file here (paths of 22 bytes; 78 measured, 195 before
// the records were packed).
func TestSnapshotKeepsSmallRecordsPerFile(t *testing.T) {
	const n = 3000
	ws := t.TempDir()
	for i := range n {
		dir := filepath.Join(ws, "src", fmt.Sprintf("pkg%03d", i/1000))
		if i%1000 == 0 {
			require.NoError(t, os.MkdirAll(dir, 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%04d.go", i%1000)), nil, 0o644))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := SnapshotWorkspace(ws, nil)
	require.NoError(t, err)
	s.Close() // the hashes live in the records; stopping the hasher early changes nothing kept
	runtime.GC()
	runtime.ReadMemStats(&after)
	require.Equal(t, n, s.Len())
	perFile := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
	assert.Less(t, perFile, 150.0, "bytes kept per file")
	t.Logf("%.0f bytes kept per file", perFile)
	runtime.KeepAlive(s)
}
