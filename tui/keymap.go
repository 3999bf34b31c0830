// keymap.go is the UI's one key map (docs/ui.md §Keys): every key rostra
// takes, mode by mode, as a bubbles key.Binding with the line the help
// shows, the word the status bar hints with, and the method it runs.
// input.go dispatches keys through these tables, view.go draws the status
// bar's hints from them, dialog.go draws the ? help from them, and a test
// keeps docs/ui.md's keys table equal to them, so the three cannot drift.
//
// Adding a key is one line in its table (and the method it runs). A key's
// label is made from its keys ("pgup" shows as PgUp), never typed twice.
package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// act is one key of a mode: what it is bound to and what it does.
type act struct {
	key.Binding        // the keys, and the label and line the help shows
	name        string // a word for what it does: the status bar's hint, and how prose names the key
	rank        int    // 1..n: hinted in the status bar, 1 kept longest when room is short; 0: never
	run         func(*Model) tea.Cmd
}

// do makes an act. The first key is the one the status bar shows.
func do(name string, rank int, help string, run func(*Model) tea.Cmd, keys ...string) act {
	labels := make([]string, len(keys))
	for i, k := range keys {
		labels[i] = keyLabel(k)
	}
	return act{
		Binding: key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(labels, " "), help)),
		name:    name,
		rank:    rank,
		run:     run,
	}
}

// keySection is a titled group of keys in the help.
type keySection struct {
	title string
	acts  []act
}

// keyMap is every key, mode by mode. In typing mode every key but those in
// typing goes to the child.
type keyMap struct {
	normal  []keySection
	flat    []act // normal, sections flattened
	typing  []act // the only keys rostra keeps while keys go to a pane
	search  []act // end the search prompt; the bubbles textinput edits it
	copy    []act // copy mode: every other key is ignored
	find    []act // the list of matches in every pane, before any other key
	panel   []act // scroll the open panel (help or event log) before any other key
	confirm []act // answer a confirmation dialog; every other key is ignored
	queue   []act // the Q dialog's keys; every other key edits the prompt (queue.go)
	leave   []act // answer q while workers run in an attached UI (attach.go)
}

// defaultKeyMap is rostra's key map, as an attached client has it (what
// `rostra run` and `rostra attach` show). (A function, not a variable: the
// methods it names read the map back, which a package variable could not.)
func defaultKeyMap() keyMap { return keyMapFor(true) }

// keyMapFor is the key map of an attached UI, or of one that runs the run
// itself (attached=false: no d, and q asks only whether to stop).
func keyMapFor(attached bool) keyMap {
	panels := []act{
		do("events", 9, "the event log (again: close it)", (*Model).toggleEvents, "e"),
		do("help", 1, "this help (again: close it)", (*Model).toggleHelp, "?"),
		do("quit", 2, "quit (asks while workers run)", (*Model).askQuit, "q", "ctrl+c"),
		do("suspend", 0, "suspend rostra to the shell (fg resumes)", (*Model).suspend, "ctrl+z"),
	}
	var leave []act
	if attached {
		panels[2] = do("quit", 2, "quit (asks: stop the run or detach)", (*Model).askQuit, "q", "ctrl+c")
		panels = append(panels, do("detach", 3, "detach (the run goes on)", (*Model).detachKey, "d"))
		leave = []act{
			do("detach", 1, "detach: the workers go on", (*Model).detachKey, "d"),
			do("stop the run", 2, "stop every worker, end the run", (*Model).leaveStop, "s"),
			do("stay", 3, "close the dialog", (*Model).confirmNo, "esc", "n", "q", "ctrl+c"),
		}
	}
	km := keyMap{
		normal: []keySection{
			{"Panes", []act{
				do("focus", 4, "focus the next pane (or click it)", (*Model).focusNext, "tab"),
				do("focus back", 0, "focus the previous pane", (*Model).focusPrev, "shift+tab"),
				do("right", 0, "focus the pane to the right", (*Model).focusRight, "right", "l"),
				do("left", 0, "focus the pane to the left", (*Model).focusLeft, "left", "h"),
				do("zoom", 6, "zoom the focused pane (again: back)", (*Model).toggleZoom, "z"),
				do("next page", 0, "the next page of panes", (*Model).nextPage, "]"),
				do("previous page", 0, "the previous page of panes", (*Model).prevPage, "["),
				do("attention", 0, "the next pane that needs you (⏸ ✓ ⚑)", (*Model).nextAttention, "a"),
			}},
			{"Workers", []act{
				do("type", 5, "type into the focused PTY pane", (*Model).startTyping, "i", "enter"),
				do("retry", 7, "retry the worker (asks if it runs)", (*Model).retryFocused, "r"),
				do("cancel", 8, "cancel the worker (asks if it runs)", (*Model).cancelFocused, "x"),
				do("earlier", 0, "its earlier attempt (from its log)", (*Model).earlierAttempt, "<", ","),
				do("later", 0, "its later attempt", (*Model).laterAttempt, ">", "."),
				do("diff", 0, "its worktree's diff (again: back)", (*Model).toggleDiff, "D"),
				do("merge", 0, "merge its branch (asks first)", (*Model).askMerge, "M"),
				do("queue", 0, "queue a prompt for its agent's next turn", (*Model).openQueue, "Q"),
			}},
			{"Scroll and search", []act{
				do("up", 0, "scroll back a line (or the wheel)", (*Model).lineUp, "up", "k"),
				do("down", 0, "scroll forward a line", (*Model).lineDown, "down", "j"),
				do("page up", 0, "scroll back a page", (*Model).pageUp, "pgup", "shift+up", "ctrl+b"),
				do("page down", 0, "scroll forward a page", (*Model).pageDown, "pgdown", "shift+down", "ctrl+f"),
				do("oldest", 0, "the oldest line", (*Model).oldest, "g", "home"),
				do("live", 0, "back to the live screen", (*Model).backToLive, "G", "end", "esc"),
				do("copy", 11, "copy mode on the focused pane", (*Model).startCopy, "c"),
				do("search", 10, "search the pane (in copy mode)", (*Model).startSearch, "/"),
				do("older", 0, "the next older match", (*Model).olderMatch, "n"),
				do("newer", 0, "the next newer match", (*Model).newerMatch, "N"),
				do("find", 12, "search every pane (a list)", (*Model).startFindAll, "f"),
			}},
			{"Panels", panels},
		},
		typing: []act{
			do("leaves", 1, "give the keys back to rostra", (*Model).stopTyping, "ctrl+]"),
		},
		search: []act{
			do("search", 1, "search for what was typed", (*Model).runSearch, "enter"),
			do("cancel", 2, "close the prompt", (*Model).cancelSearch, "esc"),
			do("regex", 3, "regular expression on/off", (*Model).toggleRegex, "ctrl+r"),
		},
		copy: []act{
			do("left", 0, "move left", (*Model).copyLeft, "left", "h"),
			do("down", 0, "move down", (*Model).copyDown, "down", "j"),
			do("up", 0, "move up", (*Model).copyUp, "up", "k"),
			do("right", 0, "move right", (*Model).copyRight, "right", "l"),
			do("word", 0, "the next word", (*Model).copyWord, "w"),
			do("word end", 0, "the end of the word", (*Model).copyWordEnd, "e"),
			do("word back", 0, "the previous word", (*Model).copyWordBack, "b"),
			do("line start", 0, "the start of the line", (*Model).copyLineStart, "0", "home"),
			do("first character", 0, "the line's first character", (*Model).copyFirstNonBlank, "^"),
			do("line end", 0, "the end of the line", (*Model).copyLineEnd, "$", "end"),
			do("oldest", 0, "the oldest line", (*Model).copyTop, "g"),
			do("newest", 0, "the newest line", (*Model).copyBottom, "G"),
			do("pane top", 0, "the pane's top row", (*Model).copyViewTop, "H"),
			do("pane middle", 0, "the pane's middle row", (*Model).copyViewMiddle, "M"),
			do("pane bottom", 0, "the pane's bottom row", (*Model).copyViewBottom, "L"),
			do("half up", 0, "half a page up", (*Model).copyHalfUp, "ctrl+u"),
			do("half down", 0, "half a page down", (*Model).copyHalfDown, "ctrl+d"),
			do("page up", 0, "a page up", (*Model).copyPageUp, "pgup", "ctrl+b"),
			do("page down", 0, "a page down", (*Model).copyPageDown, "pgdown", "ctrl+f"),
			do("select", 1, "select characters (again: stop)", (*Model).selectChars, "v", "space"),
			do("lines", 4, "select whole lines", (*Model).selectLines, "V"),
			do("block", 5, "select a block", (*Model).selectBlock, "ctrl+v"),
			do("other end", 0, "to the other end of the selection", (*Model).swapEnds, "o"),
			do("copy", 2, "copy (OSC 52) and leave", (*Model).copySelection, "y", "enter"),
			do("search", 6, "search the pane", (*Model).startSearch, "/"),
			do("older", 7, "the next older match", (*Model).olderMatch, "n"),
			do("newer", 0, "the next newer match", (*Model).newerMatch, "N"),
			do("leave", 3, "leave copy mode", (*Model).cancelCopy, "esc", "q"),
		},
		find: []act{
			do("up", 0, "the match above", (*Model).findUp, "up", "k"),
			do("next", 2, "the match below", (*Model).findDown, "down", "j"),
			do("page up", 0, "a page up", (*Model).findPageUp, "pgup"),
			do("page down", 0, "a page down", (*Model).findPageDown, "pgdown"),
			do("first", 0, "the first match", (*Model).findFirst, "g", "home"),
			do("last", 0, "the last match", (*Model).findLast, "G", "end"),
			do("go", 1, "its pane, in copy mode on the match", (*Model).jumpToFind, "enter"),
			do("closes", 3, "close the list", (*Model).closeFind, "esc", "q"),
		},
		panel: []act{
			do("scroll", 1, "scroll the panel up", (*Model).panelUp, "up", "k"),
			do("down", 0, "scroll the panel down", (*Model).panelDown, "down", "j"),
			do("page up", 0, "scroll the panel a page up", (*Model).panelPageUp, "pgup"),
			do("page down", 0, "scroll the panel a page down", (*Model).panelPageDown, "pgdown"),
			do("closes", 2, "close the panel", (*Model).closePanel, "esc"),
		},
		confirm: []act{
			do("yes", 1, "do it", (*Model).confirmYes, "y", "Y", "enter"),
			do("no", 2, "do not", (*Model).confirmNo, "n", "N", "esc", "q", "ctrl+c"),
		},
		queue: []act{
			do("queue", 1, "queue the prompt", (*Model).queueSubmit, "enter", "ctrl+s"),
			do("new line", 2, "a new line in the prompt", (*Model).queueNewline, "alt+enter", "ctrl+j"),
			do("cancel", 3, "close without queueing", (*Model).queueCancel, "esc"),
		},
		leave: leave,
	}
	for _, s := range km.normal {
		km.flat = append(km.flat, s.acts...)
	}
	return km
}

// sections is every table as the help shows it.
func (km keyMap) sections() []keySection {
	s := append(append([]keySection(nil), km.normal...),
		keySection{"While typing into a pane", km.typing},
		keySection{"Search prompt", km.search},
		keySection{"Copy mode", km.copy},
		keySection{"Matches in every pane", km.find},
		keySection{"Help and event log", km.panel},
		keySection{"Dialogs", km.confirm},
		keySection{"Queue a prompt (Q)", km.queue},
	)
	if km.leave != nil {
		s = append(s, keySection{"Quitting while workers run", km.leave})
	}
	return s
}

// paneHints are the key hints a pane's bottom border shows.
type paneHints struct {
	diff    string // while a worktree's diff is shown
	history string // while an earlier attempt is shown
	live    string // while scrolled back
	typing  string // while keys go to the pane
}

func (km keyMap) paneHints() paneHints {
	return paneHints{
		diff:    keyOf(km.flat, "diff") + " back · " + keyOf(km.flat, "search") + " search",
		history: keyOf(km.flat, "earlier") + " " + keyOf(km.flat, "later") + " step · " + keyHints(km.flat, "live"),
		live:    keyHints(km.flat, "live"),
		typing:  hintLine(km.typing),
	}
}

// dispatch runs the act k is bound to in acts; ok is false when none is.
func (m *Model) dispatch(acts []act, k tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	for _, a := range acts {
		if key.Matches(k, a.Binding) {
			return a.run(m), true
		}
	}
	return nil, false
}

// keyOf is the label of the first key of the act named name, for prose
// that tells the human which key to press ("n older · N newer").
func keyOf(acts []act, name string) string {
	for _, a := range acts {
		if a.name == name {
			return keyLabel(a.Keys()[0])
		}
	}
	panic("tui: no key is named " + name) // a typo in this package, caught by its tests
}

// keyNames are the labels of keys whose bubbletea name is not what a
// person reads on the keyboard.
var keyNames = map[string]string{
	"tab": "Tab", "shift+tab": "Shift-Tab", "enter": "Enter", "esc": "Esc",
	"up": "↑", "down": "↓", "left": "←", "right": "→",
	"shift+up": "Shift-↑", "shift+down": "Shift-↓",
	"pgup": "PgUp", "pgdown": "PgDn", "home": "Home", "end": "End", "space": "Space",
	"alt+enter": "Alt-Enter",
}

// keyLabel is how the help and the status bar write a key.
func keyLabel(k string) string {
	if n, ok := keyNames[k]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(k, "ctrl+"); ok {
		return "Ctrl-" + strings.ToUpper(rest)
	}
	return k
}

// keyHints is "key name · key name" for the named acts, for prose that
// tells the human what to press next.
func keyHints(acts []act, names ...string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = keyOf(acts, n) + " " + n
	}
	return strings.Join(parts, " · ")
}

// hintLine is "key word · key word" for the hinted acts of a mode, in rank order.
func hintLine(acts []act) string {
	var parts []string
	for r := 1; ; r++ {
		found := false
		for _, a := range acts {
			if a.rank == r {
				parts = append(parts, keyLabel(a.Keys()[0])+" "+a.name)
				found = true
			}
		}
		if !found {
			return strings.Join(parts, " · ")
		}
	}
}
