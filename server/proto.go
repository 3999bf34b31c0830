// proto.go is the wire protocol between a rostra server and its clients
// (`rostra attach` and the control commands) over the run's Unix socket.
//
// Data model: a connection is a stream of frames, each a 4-byte big-endian
// length N, then N bytes: one type byte and N-1 bytes of payload. The first
// frame from the client is a Hello naming the protocol version and what it
// wants (attach, or control requests); the server answers Welcome or Bye.
// Terminal traffic is raw bytes (Input, Output) and a binary Resize; the
// rest is JSON. A frame longer than MaxFrame, of an unknown type, or whose
// payload does not decode is an error that ends that connection only.
package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/rostra-dev/rostra/statedir"
)

// ProtocolVersion is the version a client and a server must share. A
// client of another version is refused with a Bye that names both.
const ProtocolVersion = 2

// MaxFrame bounds a frame's length (type byte included): a peer cannot make
// the other side allocate more than this for one frame.
const MaxFrame = 1 << 20

// FrameType is the first byte of a frame.
type FrameType byte

// The frame types. Hello, Input, Resize, Request, Detach and Resume go
// from client to server; Welcome, Output, Reply and Bye from server to
// client; Suspend both ways (version 2).
const (
	FrameHello   FrameType = 1 // JSON Hello
	FrameWelcome FrameType = 2 // JSON Welcome
	FrameInput   FrameType = 3 // bytes typed in the client's terminal
	FrameResize  FrameType = 4 // 4 bytes: columns, rows (uint16 each)
	FrameOutput  FrameType = 5 // bytes for the client's terminal
	FrameRequest FrameType = 6 // JSON Request
	FrameReply   FrameType = 7 // JSON Reply
	FrameDetach  FrameType = 8 // empty: the client leaves, the run goes on
	FrameBye     FrameType = 9 // JSON Bye: the last frame the server sends
	// FrameSuspend, from the server: the terminal is given back (the
	// output before it restored it), stop yourself (Ctrl-Z in the UI).
	// From the client: please suspend me (it got SIGTSTP).
	FrameSuspend FrameType = 10
	// FrameResume, from the client: back in the foreground; 4 bytes,
	// columns and rows, as Resize. The server draws everything again.
	FrameResume FrameType = 11
	// FrameView, from the server to a client in ModeView: JSON View, what
	// changed in the run since the last one (view.go).
	FrameView FrameType = 12
)

func (t FrameType) String() string {
	switch t {
	case FrameHello:
		return "hello"
	case FrameWelcome:
		return "welcome"
	case FrameInput:
		return "input"
	case FrameResize:
		return "resize"
	case FrameOutput:
		return "output"
	case FrameRequest:
		return "request"
	case FrameReply:
		return "reply"
	case FrameDetach:
		return "detach"
	case FrameBye:
		return "bye"
	case FrameSuspend:
		return "suspend"
	case FrameResume:
		return "resume"
	case FrameView:
		return "view"
	}
	return fmt.Sprintf("frame type %d", byte(t))
}

// Frame is one decoded frame. Payload aliases the reader's buffer: it is
// valid until the next call to ReadFrame.
type Frame struct {
	Type    FrameType
	Payload []byte
}

// Modes of a Hello.
const (
	ModeAttach  = "attach"  // draw the UI on the client's terminal
	ModeControl = "control" // requests and replies only
	// ModeView: the run's plan, state, events and screens as data, for a
	// client that draws them itself among other runs' (view.go).
	ModeView = "view"
)

// Hello is the client's first frame.
type Hello struct {
	Rostra int      `json:"rostra"` // ProtocolVersion
	Mode   string   `json:"mode"`
	Env    []string `json:"env,omitempty"` // TERM, COLORTERM, NO_COLOR, LANG…: the client's terminal
	Cols   int      `json:"cols,omitempty"`
	Rows   int      `json:"rows,omitempty"`
	// Profile is the colour profile the client detected on its terminal
	// (as the direct UI does, terminfo included); nil: from Env.
	Profile *colorprofile.Profile `json:"profile,omitempty"`
	// Client is who a client relaying another machine's terminal serves
	// (an SSH session, docs/remote.md §The SSH server): the server records
	// the session's start and end in events.jsonl. nil: this user's own
	// terminal.
	Client *statedir.UIClient `json:"client,omitempty"`
}

// Welcome is the server's answer to an accepted Hello.
type Welcome struct {
	Rostra   int       `json:"rostra"`
	Run      string    `json:"run"`
	StateDir string    `json:"state_dir"`
	Pid      int       `json:"pid"`
	Started  time.Time `json:"started"`
}

// Bye is the server's last frame on a connection: why it ends, and for an
// attached client the code its rostra exits with.
type Bye struct {
	Reason  string `json:"reason"` // one of the Bye reasons below
	Code    int    `json:"code"`
	Message string `json:"message,omitempty"`
	// Signal is the signal that made an attached client leave (set by
	// Attach, not sent).
	Signal syscall.Signal `json:"-"`
}

// Bye reasons.
const (
	ByeDetached = "detached" // the human detached: the run goes on
	ByeStopped  = "stopped"  // the run was stopped (q, rostra stop, a signal)
	ByeLeft     = "left"     // the human left a finished run
	ByeRefused  = "refused"  // the server will not serve this client
	ByeDropped  = "dropped"  // the client sent what could not be read
	ByeFailed   = "failed"   // the client's UI failed; the run goes on
)

// Request is a control command.
type Request struct {
	Op      string `json:"op"` // one of the Op constants
	Worker  string `json:"worker,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Text    string `json:"text,omitempty"`
	Enter   bool   `json:"enter,omitempty"`
	// Fresh, with OpStatus: measure first what is only measured when
	// something asks (the diff-stats of running isolated workers).
	Fresh bool `json:"fresh,omitempty"`
	// Hook, with OpHook, is one call of an agent's hook for the worker's
	// attempt Attempt (`rostra hook`).
	Hook *HookCall `json:"hook,omitempty"`
	// Until, with OpWait: "needs-you" waits until one of Workers (every
	// worker when none is named) waits for the human, not for the run's end.
	Until   string   `json:"until,omitempty"`
	Workers []string `json:"workers,omitempty"`
	// Data, with OpInput, is the bytes for the worker's pty, as typed.
	Data []byte `json:"data,omitempty"`
	// Cols and Rows, with OpResize, are the worker's pane size.
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
	// Queue, with OpSend: queue Text for the worker's agent, typed when it
	// next waits for input (docs/agents.md §A queue of prompts), rather
	// than type it now. Prompt, with OpQueueRemove: the prompt's number.
	Queue  bool `json:"queue,omitempty"`
	Prompt int  `json:"prompt,omitempty"`
	// Notice, with OpNotified, is the number of the Notice answered;
	// Quiet: no sequence was written, the human types into that pane.
	Notice uint64 `json:"notice,omitempty"`
	Quiet  bool   `json:"quiet,omitempty"`
}

// UntilNeedsYou is the Until of a wait that returns once an agent waits
// for the human.
const UntilNeedsYou = "needs-you"

// HookCall is one call of an agent's hook: its event name and the parts
// of its JSON payload that say what the agent is doing (docs/agents.md).
type HookCall struct {
	Event   string         `json:"event"`
	Payload map[string]any `json:"payload,omitempty"`
}

// Request ops.
const (
	OpInfo   = "info"   // Reply.Info
	OpStatus = "status" // Reply.State
	OpRetry  = "retry"
	OpCancel = "cancel"
	OpSend   = "send"   // type Text (and Enter) into the worker's pane
	OpScreen = "screen" // Reply.Screen: the worker's current screen as text
	OpStop   = "stop"   // answered once every worker has stopped, with Code; then held open until the server exits
	OpWait   = "wait"   // answered when the run has finished or stopped, with Code
	OpFollow = "follow" // answered when the worker's attempt Attempt has ended
	OpHook   = "hook"   // Hook: an agent's hook call for Worker's attempt Attempt; answered at once
	// OpInput and OpResize come from a client in ModeView and get no
	// reply: Data typed into Worker's pty; its pty made Cols×Rows.
	OpInput  = "input"
	OpResize = "resize"
	// OpQueue lists the queued prompts of Worker (every worker's when
	// none is named) in Reply.Queues; OpQueueRemove takes Worker's prompt
	// Prompt off its queue, OpQueueClear every one.
	OpQueue       = "queue"
	OpQueueRemove = "queue-rm"
	OpQueueClear  = "queue-clear"
)

// Reply answers one Request. Code is what the command exits with.
type Reply struct {
	Code   int                 `json:"code"`
	Error  string              `json:"error,omitempty"`
	Note   string              `json:"note,omitempty"`
	State  *statedir.TeamState `json:"state,omitempty"`
	Screen string              `json:"screen,omitempty"`
	Info   *Info               `json:"info,omitempty"`
	// Queues answers OpQueue: the queued prompts by worker, the next first.
	Queues map[string][]statedir.QueuedPrompt `json:"queues,omitempty"`
}

// Info describes a live server, for `rostra ls`.
type Info struct {
	Run      string    `json:"run"`
	RunFile  string    `json:"run_file"`
	StateDir string    `json:"state_dir"`
	Pid      int       `json:"pid"`
	Started  time.Time `json:"started"`
	Status   string    `json:"status"`
	Workers  int       `json:"workers"`
	Running  int       `json:"running"`
	Clients  int       `json:"clients"`
}

// ErrFrame is wrapped by every error about a frame's form.
var ErrFrame = errors.New("bad frame")

// AppendFrame appends the encoding of one frame to dst.
func AppendFrame(dst []byte, t FrameType, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)+1))
	dst = append(dst, byte(t))
	return append(dst, payload...)
}

// WriteFrame writes one frame in a single Write, so that frames from
// writers that share a lock never interleave.
func WriteFrame(w io.Writer, t FrameType, payload []byte) error {
	if len(payload)+1 > MaxFrame {
		return fmt.Errorf("%w: %s frame of %d bytes is over the limit of %d", ErrFrame, t, len(payload)+1, MaxFrame)
	}
	_, err := w.Write(AppendFrame(make([]byte, 0, 5+len(payload)), t, payload))
	return err
}

// WriteJSON writes a frame whose payload is v as JSON.
func WriteJSON(w io.Writer, t FrameType, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode a %s frame: %w", t, err)
	}
	return WriteFrame(w, t, data)
}

// FrameReader decodes frames from a stream.
type FrameReader struct {
	r   io.Reader
	hdr [4]byte
	buf []byte
}

// NewFrameReader reads frames from r (buffer it when it is a raw socket
// and frames are small).
func NewFrameReader(r io.Reader) *FrameReader { return &FrameReader{r: r} }

// ReadFrame reads the next frame. io.EOF means the stream ended between
// frames; a stream cut inside a frame is io.ErrUnexpectedEOF.
func (fr *FrameReader) ReadFrame() (Frame, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		return Frame{}, err
	}
	n := binary.BigEndian.Uint32(fr.hdr[:])
	if n == 0 {
		return Frame{}, fmt.Errorf("%w: a frame of length 0 has no type", ErrFrame)
	}
	if n > MaxFrame {
		return Frame{}, fmt.Errorf("%w: a frame of %d bytes is over the limit of %d", ErrFrame, n, MaxFrame)
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	b := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	t := FrameType(b[0])
	if t < FrameHello || t > FrameView {
		return Frame{}, fmt.Errorf("%w: unknown %s", ErrFrame, t)
	}
	return Frame{Type: t, Payload: b[1:]}, nil
}

// AppendResize is the payload of a Resize frame.
func AppendResize(dst []byte, cols, rows int) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(clampSize(cols)))
	return binary.BigEndian.AppendUint16(dst, uint16(clampSize(rows)))
}

// MaxSize bounds a terminal's columns and rows as a client reports them.
const MaxSize = 4096

func clampSize(n int) int { return max(1, min(n, MaxSize)) }

// DecodeResize reads a Resize frame's payload.
func DecodeResize(p []byte) (cols, rows int, err error) {
	if len(p) != 4 {
		return 0, 0, fmt.Errorf("%w: a resize frame holds 4 bytes, not %d", ErrFrame, len(p))
	}
	cols, rows = int(binary.BigEndian.Uint16(p)), int(binary.BigEndian.Uint16(p[2:]))
	if cols < 1 || rows < 1 || cols > MaxSize || rows > MaxSize {
		return 0, 0, fmt.Errorf("%w: a terminal of %d×%d is outside 1×1 … %d×%d", ErrFrame, cols, rows, MaxSize, MaxSize)
	}
	return cols, rows, nil
}

// DecodeJSON decodes a JSON frame's payload: one value, nothing after it.
// Unknown fields are ignored (the Hello's version decides compatibility).
func DecodeJSON(p []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(p))
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrFrame, err)
	}
	if d.More() {
		return fmt.Errorf("%w: data after the JSON value", ErrFrame)
	}
	return nil
}
