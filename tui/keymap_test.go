// keymap_test.go checks the key map itself: no key is bound twice in one
// mode, every key of every mode is in the help, every key of the normal
// mode does what the help says on a real model (a table row per key), and
// docs/ui.md's keys table is the key map's (go test ./tui -update rewrites it).
package tui

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

func TestKeyMapBindsEachKeyOncePerMode(t *testing.T) {
	km := defaultKeyMap()
	for mode, acts := range map[string][]act{
		"normal": km.flat, "typing": km.typing, "search": km.search, "panel": km.panel, "confirm": km.confirm, "leave": km.leave,
	} {
		keys, names := map[string]string{}, map[string]bool{}
		for _, a := range acts {
			require.NotEmpty(t, a.Keys(), "%s: %q has no key", mode, a.name)
			require.NotNil(t, a.run, "%s: %q does nothing", mode, a.name)
			assert.False(t, names[a.name], "%s: two keys are named %q", mode, a.name)
			names[a.name] = true
			for _, k := range a.Keys() {
				assert.Empty(t, keys[k], "%s: %s is bound to %q and %q", mode, k, keys[k], a.name)
				keys[k] = a.name
			}
		}
	}
}

func TestHelpListsEveryKey(t *testing.T) {
	km := defaultKeyMap()
	for _, w := range []int{60, 116, 200} {
		text := ansi.Strip(helpText(km, newTheme(ThemeDark), w))
		for _, s := range km.sections() {
			assert.Contains(t, text, s.title)
			for _, a := range s.acts {
				assert.Contains(t, text, a.Help().Key+" ", "width %d: %q", w, a.name)
				assert.Contains(t, text, a.Help().Desc, "width %d", w)
			}
		}
		for _, l := range strings.Split(text, "\n") {
			assert.LessOrEqual(t, ansi.StringWidth(l), w, "help line wider than %d: %q", w, l)
		}
	}
}

func TestHelpScrollsToItsLastLine(t *testing.T) {
	f := fakeRun(t, 2, 100, 20)
	m := newModel(t, f, 100, 20)
	press(m, "?")
	screen := ansi.Strip(m.Render())
	assert.Contains(t, screen, "Tab ")
	assert.NotContains(t, screen, "the terminal's own selection", "the notes are below the fold at 100×20")
	assert.Contains(t, screen, "lines 1–")
	for range 200 {
		press(m, "down")
	}
	screen = ansi.Strip(m.Render())
	assert.Contains(t, screen, "the terminal's own selection")
	press(m, "?")
	assert.Equal(t, overlayNone, m.overlay)
}

// readmeKeys is docs/ui.md's keys table as the key map makes it.
func readmeKeys(km keyMap) string {
	var b strings.Builder
	b.WriteString("| key | what it does |\n|---|---|\n")
	for _, s := range km.sections() {
		b.WriteString("| **" + s.title + "** | |\n")
		for _, a := range s.acts {
			b.WriteString("| " + strings.ReplaceAll(a.Help().Key, "|", `\|`) + " | " + a.Help().Desc + " |\n")
		}
	}
	return b.String()
}

const (
	readmeKeysStart = "<!-- keys: made from tui/keymap.go; go test ./tui -update rewrites it -->\n"
	readmeKeysEnd   = "<!-- /keys -->"
)

func TestUIDocKeysTableIsTheKeyMap(t *testing.T) {
	const path = "../docs/ui.md"
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	readme := string(raw)
	start := strings.Index(readme, readmeKeysStart)
	end := strings.Index(readme, readmeKeysEnd)
	require.True(t, start >= 0 && end > start, "docs/ui.md has no %q … %q block", readmeKeysStart, readmeKeysEnd)
	start += len(readmeKeysStart)
	want := readmeKeys(defaultKeyMap())
	if u := flag.Lookup("update"); u != nil && u.Value.String() == "true" {
		readme = readme[:start] + want + readme[end:]
		require.NoError(t, os.WriteFile(path, []byte(readme), 0o644))
	}
	assert.Equal(t, want, readme[start:end], "docs/ui.md's keys table differs from the key map: go test ./tui -update rewrites it")
}

// keyState is what a key can change, to compare two keys of one act.
type keyState struct {
	focus, page, top, view int
	zoom                   bool
	mode                   inputMode
	overlay                overlayKind
	confirm, note          string
}

func stateOf(m *Model) keyState {
	p := m.focused()
	s := keyState{focus: m.focus, page: m.page, top: p.top, view: p.view, zoom: m.zoom, mode: m.mode, overlay: m.overlay, note: m.note}
	if m.confirm != nil {
		s.confirm = m.confirm.title
	}
	return s
}

// keysModel is 9 panes on 80×21 (three pages), the second focused, with 200
// lines of scrollback scrolled back 40 lines and an earlier attempt, so
// every normal key has something to do.
func keysModel(t *testing.T) *Model {
	f := fakeRun(t, 9, 80, 21)
	h := f.handles["codex-tester"]
	var b strings.Builder
	for i := range 200 {
		b.WriteString("output line " + strconv.Itoa(i) + "\r\n")
	}
	_, _ = h.term.Write([]byte(b.String()))
	f.mu.Lock()
	first := f.st.Dispatches[1]
	first.Status, first.EndedAt = statedir.StatusError, &testNow
	second := f.st.Dispatches[1]
	second.Attempt, second.DispatchID = 2, "codex-tester#2"
	f.st.Dispatches[1] = first
	f.st.Dispatches = append(f.st.Dispatches, second)
	f.st.Workers[1].Attempts = 2
	f.mu.Unlock()
	m := newModel(t, f, 80, 21)
	press(m, "tab")
	m.focused().scrollBy(-40, 0)
	return m
}

// Every key of an act does what its first key does: the keys the help used
// to leave out (", ." "j k" "Ctrl-B/F") are as real as the others.
func TestEveryKeyOfAnActDoesTheSame(t *testing.T) {
	before := stateOf(keysModel(t))
	for _, a := range keysModel(t).keys.flat {
		t.Run(a.name, func(t *testing.T) {
			m := keysModel(t)
			press(m, a.Keys()[0])
			want := stateOf(m)
			for _, k := range a.Keys()[1:] {
				m := keysModel(t)
				press(m, k)
				assert.Equal(t, want, stateOf(m), "%s does not do what %s does", k, a.Keys()[0])
			}
			// On the first page already; a suspend is a command
			// (TestCtrlZSuspendsOnlyOutsideTyping).
			if a.name != "previous page" && a.name != "suspend" {
				assert.NotEqual(t, before, want, "%s changed nothing", a.Keys()[0])
			}
		})
	}
}
