// completion.go decides whether an attempt's expected files are there
// (docs/design.md §Settlement) and, for `settle: on-files`, watches for them with fsnotify.
// Every path is opened through an os.Root on the workspace, so a symlink
// that points outside it is never followed: such a path counts as missing,
// with the reason.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsnotify/fsnotify"

	"github.com/rostra-dev/rostra/internal/regular"
	"github.com/rostra-dev/rostra/runfile"
)

// CompletionCheck is the outcome of looking for an attempt's files.
type CompletionCheck struct {
	Satisfied bool
	Missing   []string // workspace-relative, each with its reason when not simply absent
	// Signature is the size and mtime of every file found, for the
	// stability window of `settle: on-files`.
	Signature string
}

// MissingReason is the settlement reason for files that are not there.
func (c CompletionCheck) MissingReason() string {
	return "missing completion paths: " + strings.Join(c.Missing, ", ")
}

// CheckCompletion looks for ap's result (or an alias) and paths inside its
// workspace (an isolated worker's place in its worktree).
func CheckCompletion(ap *runfile.AttemptPlan) CompletionCheck {
	root, err := os.OpenRoot(ap.Workspace)
	if err != nil {
		return CompletionCheck{Missing: []string{fmt.Sprintf("%s (%v)", ap.Workspace, err)}}
	}
	defer root.Close()
	var check CompletionCheck
	var sig strings.Builder
	look := func(rel string) (bool, string) {
		info, err := root.Stat(rel)
		switch {
		case err == nil && info.Mode().IsRegular():
			fmt.Fprintf(&sig, "%s:%d:%d;", rel, info.Size(), info.ModTime().UnixNano())
			return true, ""
		case err == nil:
			return false, rel + " (not a regular file)"
		case errors.Is(err, fs.ErrNotExist):
			return false, rel
		case regular.IsEscape(err):
			return false, rel + " (resolves outside the workspace)"
		default:
			return false, fmt.Sprintf("%s (%v)", rel, unwrapPathError(err))
		}
	}
	if ap.Result != "" {
		found, why := look(ap.Result)
		for _, alias := range ap.Aliases {
			if found {
				break
			}
			found, _ = look(alias)
		}
		if !found {
			check.Missing = append(check.Missing, why)
		}
	}
	for _, p := range ap.Paths {
		if ok, why := look(p); !ok {
			check.Missing = append(check.Missing, why)
		}
	}
	check.Satisfied = len(check.Missing) == 0
	check.Signature = sig.String()
	return check
}

// ResultPresent is the roster's own check (docs/design.md §Settlement): the result file or one
// of its aliases is a regular file inside ap's workspace. It returns why not.
func ResultPresent(ap *runfile.AttemptPlan) error {
	if ap.Result == "" {
		return nil
	}
	root, err := os.OpenRoot(ap.Workspace)
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	defer root.Close()
	for _, rel := range append([]string{ap.Result}, ap.Aliases...) {
		if info, err := root.Stat(rel); err == nil && info.Mode().IsRegular() {
			return nil
		}
	}
	return fmt.Errorf("result file %s is missing (nor any alias)", ap.Result)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileWatch tells the engine loop when anything changes near an attempt's
// completion files. fsnotify watches folders, not recursively, so it
// watches the deepest existing folder on the way to each file and moves
// deeper as folders appear.
type fileWatch struct {
	w       *fsnotify.Watcher
	root    string
	targets []string // workspace-relative files
	watched map[string]bool
}

// watchCompletion starts watching; notify is called (from the watcher's
// goroutine) after each batch of changes.
func watchCompletion(workspace string, targets []string, notify func()) (*fileWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch completion files: %w", err)
	}
	fw := &fileWatch{w: w, root: workspace, targets: targets, watched: map[string]bool{}}
	fw.refresh()
	go func() {
		for {
			select {
			case _, ok := <-w.Events:
				if !ok {
					return
				}
				notify()
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				notify()
			}
		}
	}()
	return fw, nil
}

// refresh adds watches for folders that now exist on the way to a target.
// It is called from the engine loop after each change. A folder made
// inside one before its watch was added (mkdir -p out/a, whose out/a came
// between the event for out and the watch on it) sends no event of its
// own, so after each new watch the way is walked again until no folder is
// added.
func (fw *fileWatch) refresh() {
	for added := true; added; {
		added = false
		for _, t := range fw.targets {
			dir := filepath.Dir(filepath.Join(fw.root, t))
			for {
				if fw.watched[dir] {
					break
				}
				if info, err := os.Stat(dir); err == nil && info.IsDir() {
					if addWatch(fw.w, dir) == nil {
						fw.watched[dir] = true
						added = true
					}
					break
				}
				parent := filepath.Dir(dir)
				if parent == dir || !strings.HasPrefix(parent, fw.root) {
					break
				}
				dir = parent
			}
		}
	}
}

// addWatch is fsnotify's Add; a test replaces it to make a folder between
// the look and the watch.
var addWatch = func(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }

func (fw *fileWatch) close() {
	fw.w.Close()
}

func completionTargets(ap *runfile.AttemptPlan) []string {
	var t []string
	if ap.Result != "" {
		t = append(t, ap.Result)
	}
	t = append(t, ap.Aliases...)
	t = append(t, ap.Paths...)
	return slices.Compact(t)
}
