// notify_test.go checks the notifications (OSC 9, 777, 99) and agent states
// (OSC 7501) a Terminal reads from its child: each reaches its callback
// once, after the lock is released, whole even when the sequence is split
// across writes, and nothing else does.
package vt

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heard is what a Terminal's callbacks were given.
type heard struct {
	notes  []Notification
	states []AgentState
}

func newHeard(tm **Terminal) (*heard, Options) {
	h := &heard{}
	return h, Options{
		OnNotify: func(n Notification) {
			// The lock is released: reading the terminal must not deadlock.
			_ = (*tm).Text(false)
			h.notes = append(h.notes, n)
		},
		OnAgentState: func(s AgentState) {
			_ = (*tm).Text(false)
			h.states = append(h.states, s)
		},
	}
}

func TestNotifications(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Notification
	}{
		{"OSC 9, BEL", "\x1b]9;Build finished\x07", []Notification{{Kind: NotifyOSC9, Body: "Build finished"}}},
		{"OSC 9, ST", "\x1b]9;Codex wants to run rm\x1b\\", []Notification{{Kind: NotifyOSC9, Body: "Codex wants to run rm"}}},
		{"OSC 9 with a ';' and UTF-8", "\x1b]9;done; 3 files ✓\x07", []Notification{{Kind: NotifyOSC9, Body: "done; 3 files ✓"}}},
		{"OSC 9 beginning with a number is text", "\x1b]9;42 tests passed\x07", []Notification{{Kind: NotifyOSC9, Body: "42 tests passed"}}},
		{"OSC 9;4 is ConEmu's progress", "\x1b]9;4;1;50\x07", nil},
		{"OSC 9;4 progress cleared", "\x1b]9;4;0\x07", nil},
		{"OSC 9;9 is ConEmu's directory", "\x1b]9;9;/tmp\x07", nil},
		{"OSC 9;12 is ConEmu's prompt mark", "\x1b]9;12\x07", nil},
		{"OSC 9 empty", "\x1b]9;\x07", nil},
		{"OSC 9 not UTF-8", "\x1b]9;\xff\xfe\x07", nil},
		{"OSC 777 notify", "\x1b]777;notify;Claude Code;Claude needs your permission\x07",
			[]Notification{{Kind: NotifyOSC777, Title: "Claude Code", Body: "Claude needs your permission"}}},
		{"OSC 777 body with ';'", "\x1b]777;notify;t;a;b\x1b\\", []Notification{{Kind: NotifyOSC777, Title: "t", Body: "a;b"}}},
		{"OSC 777 title only", "\x1b]777;notify;only\x07", []Notification{{Kind: NotifyOSC777, Title: "only"}}},
		{"OSC 777 other extension", "\x1b]777;preexec\x07", nil},
		{"OSC 99 simple", "\x1b]99;;Hello world\x1b\\", []Notification{{Kind: NotifyOSC99, Title: "Hello world"}}},
		{"OSC 99 title then body", "\x1b]99;i=1:d=0;Hello world\x1b\\\x1b]99;i=1:d=1:p=body;This is cool\x1b\\",
			[]Notification{{Kind: NotifyOSC99, Title: "Hello world", Body: "This is cool"}}},
		{"OSC 99 chunks of one title", "\x1b]99;i=a:d=0;Hel\x1b\\\x1b]99;i=a:d=0;lo\x1b\\\x1b]99;i=a;!\x1b\\",
			[]Notification{{Kind: NotifyOSC99, Title: "Hello!"}}},
		{"OSC 99 base64", "\x1b]99;e=1:p=body;aGkg4pyT\x1b\\", []Notification{{Kind: NotifyOSC99, Body: "hi ✓"}}},
		{"OSC 99 two identifiers interleaved", "\x1b]99;i=x:d=0;X\x1b\\\x1b]99;i=y:d=0;Y\x1b\\\x1b]99;i=y:p=body;y\x1b\\\x1b]99;i=x:p=body;x\x1b\\",
			[]Notification{{Kind: NotifyOSC99, Title: "Y", Body: "y"}, {Kind: NotifyOSC99, Title: "X", Body: "x"}}},
		{"OSC 99 unfinished", "\x1b]99;i=1:d=0;never done\x1b\\", nil},
		{"OSC 99 closed before done", "\x1b]99;i=1:d=0;t\x1b\\\x1b]99;i=1:p=close;\x1b\\", nil},
		{"OSC 99 query is not answered", "\x1b]99;i=q:p=?;\x1b\\", nil},
		{"OSC 99 icon only", "\x1b]99;i=1:p=icon;aGk=\x1b\\", nil},
		{"OSC 99 bad base64", "\x1b]99;e=1;!!!\x1b\\", nil},
		{"OSC 99 without a payload field", "\x1b]99;nothing\x1b\\", nil},
		{"OSC 9 without ';' is nothing", "\x1b]9\x07", nil},
		{"OSC 90 is not OSC 9", "\x1b]90;x\x07", nil},
		{"OSC 7777 is not OSC 777", "\x1b]7777;notify;t;b\x07", nil},
		{"a title is no notification", "\x1b]2;title\x07", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tm *Terminal
			h, opts := newHeard(&tm)
			var replies [][]byte
			opts.OnReply = func(b []byte) { replies = append(replies, b) }
			tm = New(40, 4, opts)
			feedString(t, tm, "a"+tc.in+"b")
			assert.Equal(t, tc.want, h.notes)
			assert.Empty(t, h.states)
			assert.Equal(t, "ab", screenRows(tm)[0], "the sequence shows nothing on the screen")
			assert.Empty(t, replies)
		})
	}
}

func TestAgentStates(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []AgentState
	}{
		{"codex working", "\x1b]7501;state=working:app=codex\x07",
			[]AgentState{{State: "working", App: "codex", Raw: "state=working:app=codex"}}},
		{"codex blocked on a permission", "\x1b]7501;state=blocked:app=codex:kind=permission\x1b\\",
			[]AgentState{{State: "blocked", App: "codex", Kind: "permission", Raw: "state=blocked:app=codex:kind=permission"}}},
		{"codex turn done, then cleared", "\x1b]7501;state=done:app=codex\x07\x1b]7501;state=clear\x1b\\",
			[]AgentState{{State: "done", App: "codex", Raw: "state=done:app=codex"}, {State: "clear", Raw: "state=clear"}}},
		{"unknown fields kept in Raw", "\x1b]7501;app=x:state=idle:extra=1\x07",
			[]AgentState{{State: "idle", App: "x", Raw: "app=x:state=idle:extra=1"}}},
		{"claude's status, base64 fields decoded", "\x1b]7501;state=blocked:app=claude-code:id=s1:kind=permission:title=QmFzaA==:msg=cm0gLXJmIGJ1aWxk\x1b\\",
			[]AgentState{{State: "blocked", App: "claude-code", Kind: "permission", ID: "s1", Title: "Bash", Msg: "rm -rf build",
				Raw: "state=blocked:app=claude-code:id=s1:kind=permission:title=QmFzaA==:msg=cm0gLXJmIGJ1aWxk"}}},
		{"a title that is not base64 is dropped", "\x1b]7501;state=working:title=%%%\x07",
			[]AgentState{{State: "working", Raw: "state=working:title=%%%"}}},
		{"no state", "\x1b]7501;app=codex\x07", nil},
		{"no parameters", "\x1b]7501\x07", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tm *Terminal
			h, opts := newHeard(&tm)
			tm = New(40, 4, opts)
			feedString(t, tm, "a"+tc.in+"b")
			assert.Equal(t, tc.want, h.states)
			assert.Empty(t, h.notes)
			assert.Equal(t, "ab", screenRows(tm)[0])
		})
	}
}

// TestAgentStateQueryIsAnswered: claude asks "7501;?" and writes its
// status only when the terminal answers with the query's text; the
// answer ends as the query did.
func TestAgentStateQueryIsAnswered(t *testing.T) {
	for _, end := range []string{"\x07", "\x1b\\"} {
		var tm *Terminal
		h, opts := newHeard(&tm)
		replies := make(chan string, 4)
		opts.OnReply = func(b []byte) { replies <- string(b) }
		tm = New(40, 4, opts)
		feedString(t, tm, "\x1b]7501;?"+end)
		select {
		case r := <-replies:
			assert.Equal(t, "\x1b]7501;?"+end, r)
		case <-time.After(5 * time.Second):
			t.Fatal("no answer to OSC 7501 ; ?")
		}
		assert.Empty(t, h.states, "a query is no state")
	}
}

// TestNotificationsSplitAcrossWrites feeds each stream one byte a Write,
// and in two halves at every cut: the same values arrive, once each.
func TestNotificationsSplitAcrossWrites(t *testing.T) {
	stream := "x\x1b]9;one\x07y\x1b]777;notify;T;two\x1b\\" +
		"\x1b]99;i=1:d=0;Three\x1b\\z\x1b]99;i=1:p=body;3\x1b\\" +
		"\x1b]7501;state=blocked:app=codex:kind=permission\x07" +
		"\x1b]9;4;3;0\x07\x1b]7501;state=working:app=codex\x1b\\end"
	wantNotes := []Notification{
		{Kind: NotifyOSC9, Body: "one"},
		{Kind: NotifyOSC777, Title: "T", Body: "two"},
		{Kind: NotifyOSC99, Title: "Three", Body: "3"},
	}
	wantStates := []AgentState{
		{State: "blocked", App: "codex", Kind: "permission", Raw: "state=blocked:app=codex:kind=permission"},
		{State: "working", App: "codex", Raw: "state=working:app=codex"},
	}
	check := func(t *testing.T, writes []string) {
		t.Helper()
		var tm *Terminal
		h, opts := newHeard(&tm)
		tm = New(40, 4, opts)
		for _, w := range writes {
			feedString(t, tm, w)
		}
		require.Equal(t, wantNotes, h.notes, "writes %q", writes)
		require.Equal(t, wantStates, h.states, "writes %q", writes)
		require.Equal(t, "xyzend", screenRows(tm)[0])
	}
	var bytes []string
	for i := range len(stream) {
		bytes = append(bytes, stream[i:i+1])
	}
	check(t, bytes)
	for cut := 1; cut < len(stream); cut++ {
		check(t, []string{stream[:cut], stream[cut:]})
	}
}

// TestResetForgetsUnfinishedNotifications: after RIS, the rest of a
// kitty notification begun before it is a notification of its own.
func TestResetForgetsUnfinishedNotifications(t *testing.T) {
	var tm *Terminal
	h, opts := newHeard(&tm)
	tm = New(40, 4, opts)
	feedString(t, tm, "\x1b]99;i=1:d=0;before\x1b\\\x1bc\x1b]99;i=1:p=body;after\x1b\\")
	assert.Equal(t, []Notification{{Kind: NotifyOSC99, Body: "after"}}, h.notes)
}

// TestNotificationsAreBounded: a child that writes a flood in one Write is
// heard for its last few, and an unfinished kitty notification holds a
// bounded text.
func TestNotificationsAreBounded(t *testing.T) {
	var tm *Terminal
	h, opts := newHeard(&tm)
	tm = New(40, 4, opts)
	var flood []byte
	for range 1000 {
		flood = append(flood, "\x1b]9;n\x07\x1b]7501;state=working\x07"...)
	}
	for i := range 100 {
		flood = append(flood, "\x1b]99;i="...)
		flood = append(flood, byte('a'+i%26))
		flood = append(flood, ":d=0;0123456789012345678901234567890123456789\x1b\\"...)
	}
	feedString(t, tm, string(flood))
	assert.Len(t, h.notes, maxPendingNotes)
	assert.Len(t, h.states, maxPendingNotes)
	assert.LessOrEqual(t, len(tm.kittyNotes), maxKittyNotes)
}
