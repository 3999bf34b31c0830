// notify.go reads the sequences a child writes to tell its terminal
// something about itself rather than to draw: desktop notifications (OSC 9
// as iTerm2 reads it, OSC 777 notify as urxvt and foot read it, OSC 99 as
// kitty defines it) and an agent's own state (codex's OSC 7501). Each
// becomes a plain value handed to a callback after Write releases the
// lock, as the bell and the title are; none of it reaches the outer
// terminal (docs/design.md, "Nothing raw reaches a terminal").
//
// Data model: a finished notification or state waits in pendingNotes or
// pendingStates until Write returns; kitty's chunked notifications are
// collected in kittyNotes, by identifier, until their last chunk (d=1).
package vt

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Notification kinds: which sequence a notification came in.
const (
	NotifyOSC9   = "osc9"   // OSC 9 ; body
	NotifyOSC777 = "osc777" // OSC 777 ; notify ; title ; body
	NotifyOSC99  = "osc99"  // OSC 99 ; metadata ; payload (kitty)
)

// Notification is a desktop notification a child asked its terminal to
// show. Title and Body are the child's text, valid UTF-8 but unescaped:
// print them through internal/printable.
type Notification struct {
	Kind  string // NotifyOSC9, NotifyOSC777 or NotifyOSC99
	Title string // empty for OSC 9, which has a body only
	Body  string
}

// AgentState is a state a child reported of itself in OSC 7501, the
// program status codex and claude write ("state=blocked:app=codex:kind=permission"):
// State is the state word ("working", "blocked", "idle", "done", "clear"),
// App, Kind and ID the fields of those names, Title and Msg claude's
// base64 fields decoded, Raw the whole parameter string after "7501;".
type AgentState struct {
	State, App, Kind, ID string
	Title, Msg           string
	Raw                  string
}

// maxPendingNotes bounds what waits for Write to hand it over, as the
// titles are bounded: a child that writes thousands in one chunk is heard
// for its last few.
const maxPendingNotes = 8

// maxKittyNotes bounds the chunked kitty notifications collected at once,
// and maxKittyText the text of one: a child that opens identifiers
// forever, or never sends the last chunk, holds a few KiB.
const (
	maxKittyNotes = 4
	maxKittyText  = 4096
)

// kittyNote is a kitty notification being collected.
type kittyNote struct {
	id          string
	title, body strings.Builder
}

func (t *Terminal) addNote(n Notification) {
	t.pendingNotes = append(t.pendingNotes, n)
	if len(t.pendingNotes) > maxPendingNotes {
		t.pendingNotes = t.pendingNotes[len(t.pendingNotes)-maxPendingNotes:]
	}
}

// handleOSC9 reads "9;body". ConEmu (and Windows Terminal, ghostty after
// it) uses "9;N;..." and "9;N" with N a small number for other things:
// 9;4 is a progress bar, 9;9 the working directory. Those are not
// notifications and are dropped.
func (t *Terminal) handleOSC9(data []byte) {
	body := data[2:] // after "9;"
	if conEmuCommand(body) || !utf8.Valid(body) || len(body) == 0 {
		return
	}
	t.addNote(Notification{Kind: NotifyOSC9, Body: string(body)})
}

// conEmuCommand reports whether an OSC 9 payload is one of ConEmu's
// commands 1 to 12: the number alone or followed by ";".
func conEmuCommand(p []byte) bool {
	i := 0
	for i < len(p) && i < 3 && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	if i == 0 || i < len(p) && p[i] != ';' {
		return false
	}
	n := 0
	for _, b := range p[:i] {
		n = n*10 + int(b-'0')
	}
	return n >= 1 && n <= 12
}

// handleOSC777 reads "777;notify;title;body" (the body may hold ';').
// Other urxvt extensions under 777 are dropped.
func (t *Terminal) handleOSC777(data []byte) {
	rest, ok := strings.CutPrefix(string(data), "777;notify;")
	if !ok || !utf8.ValidString(rest) {
		return
	}
	title, body, _ := strings.Cut(rest, ";")
	if title == "" && body == "" {
		return
	}
	t.addNote(Notification{Kind: NotifyOSC777, Title: title, Body: body})
}

// handleOSC99 reads kitty's "99;metadata;payload". The metadata is
// key=value pairs split by ':'; what matters for a text: i (identifier:
// chunks with the same one make one notification), d (0: more chunks
// follow; 1, the default: this is the last), p (title, the default, or
// body; the other payloads — icons, buttons, close, queries — are
// dropped), e (1: the payload is base64). A query (p=?) is not answered:
// a pane is no desktop.
func (t *Terminal) handleOSC99(data []byte) {
	rest := string(data[3:]) // after "99;"
	meta, payload, ok := strings.Cut(rest, ";")
	if !ok {
		return
	}
	id, done, part, b64 := "", true, "title", false
	for _, kv := range strings.Split(meta, ":") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "i":
			id = v
		case "d":
			done = v != "0"
		case "p":
			part = v
		case "e":
			b64 = v == "1"
		}
	}
	if b64 {
		dec, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			dec, err = base64.RawStdEncoding.DecodeString(payload)
		}
		if err != nil {
			return
		}
		payload = string(dec)
	}
	if !utf8.ValidString(payload) {
		return
	}
	n := t.kittyNote(id)
	switch part {
	case "title":
		if n.title.Len()+len(payload) <= maxKittyText {
			n.title.WriteString(payload)
		}
	case "body":
		if n.body.Len()+len(payload) <= maxKittyText {
			n.body.WriteString(payload)
		}
	case "close":
		t.dropKittyNote(id)
		return
	}
	if !done {
		return
	}
	t.dropKittyNote(id)
	if n.title.Len() == 0 && n.body.Len() == 0 {
		return
	}
	t.addNote(Notification{Kind: NotifyOSC99, Title: n.title.String(), Body: n.body.String()})
}

// kittyNote is the notification being collected under id, a new one when
// there is none (the oldest is dropped when too many are open).
func (t *Terminal) kittyNote(id string) *kittyNote {
	for _, n := range t.kittyNotes {
		if n.id == id {
			return n
		}
	}
	if len(t.kittyNotes) >= maxKittyNotes {
		t.kittyNotes = t.kittyNotes[1:]
	}
	n := &kittyNote{id: id}
	t.kittyNotes = append(t.kittyNotes, n)
	return n
}

func (t *Terminal) dropKittyNote(id string) {
	for i, n := range t.kittyNotes {
		if n.id == id {
			t.kittyNotes = append(t.kittyNotes[:i], t.kittyNotes[i+1:]...)
			return
		}
	}
}

// handleOSC7501 reads the program status "7501;state=working:app=codex",
// fields split by ':'. codex 0.171.0 writes state=idle, working, blocked
// with kind=permission, done, and clear as it exits, each but clear with
// app=codex. claude 2.1.332 asks first ("7501;?") and writes its status
// (app=claude-code, title= and msg= in base64) only to a terminal that
// answers: the answer is the query's own text, which is all claude reads
// of it.
func (t *Terminal) handleOSC7501(data []byte) {
	raw := string(data[5:]) // after "7501;"
	if strings.HasPrefix(raw, "?") {
		t.reply("\x1b]7501;?" + t.oscEnd())
		return
	}
	if !utf8.ValidString(raw) {
		return
	}
	s := AgentState{Raw: raw}
	for _, kv := range strings.Split(raw, ":") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "state":
			s.State = v
		case "app":
			s.App = v
		case "kind":
			s.Kind = v
		case "id":
			s.ID = v
		case "title":
			s.Title = decodeBase64Text(v)
		case "msg":
			s.Msg = decodeBase64Text(v)
		}
	}
	if s.State == "" {
		return
	}
	t.pendingStates = append(t.pendingStates, s)
	if len(t.pendingStates) > maxPendingNotes {
		t.pendingStates = t.pendingStates[len(t.pendingStates)-maxPendingNotes:]
	}
}

// decodeBase64Text is v decoded from base64 when that gives UTF-8 text,
// else empty.
func decodeBase64Text(v string) string {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(v)
	}
	if err != nil || !utf8.Valid(b) {
		return ""
	}
	return string(b)
}
