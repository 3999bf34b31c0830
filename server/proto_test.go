// proto_test.go checks the frame codec: frames round-trip, and every
// malformed stream (short, oversized, unknown type, bad payload) is an
// error, never a panic or a huge allocation. FuzzDecode feeds it anything.
package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFramesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, FrameHello, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: []string{"TERM=xterm-256color"}, Cols: 120, Rows: 40}))
	require.NoError(t, WriteFrame(&buf, FrameInput, []byte("i\x1b[A")))
	require.NoError(t, WriteFrame(&buf, FrameResize, AppendResize(nil, 200, 50)))
	require.NoError(t, WriteFrame(&buf, FrameDetach, nil))

	fr := NewFrameReader(&buf)
	f, err := fr.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, FrameHello, f.Type)
	var h Hello
	require.NoError(t, DecodeJSON(f.Payload, &h))
	assert.Equal(t, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: []string{"TERM=xterm-256color"}, Cols: 120, Rows: 40}, h)

	f, err = fr.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, Frame{Type: FrameInput, Payload: []byte("i\x1b[A")}, f)

	f, err = fr.ReadFrame()
	require.NoError(t, err)
	cols, rows, err := DecodeResize(f.Payload)
	require.NoError(t, err)
	assert.Equal(t, [2]int{200, 50}, [2]int{cols, rows})

	f, err = fr.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, FrameDetach, f.Type)
	assert.Empty(t, f.Payload)

	_, err = fr.ReadFrame()
	assert.ErrorIs(t, err, io.EOF, "the stream ended between frames")
}

func frameBytes(n uint32, rest ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, n), rest...)
}

func TestMalformedFrames(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want error
		msg  string
	}{
		{"length zero", frameBytes(0), ErrFrame, "no type"},
		{"over the limit", frameBytes(MaxFrame + 1), ErrFrame, "over the limit"},
		{"huge", frameBytes(0xffffffff), ErrFrame, "over the limit"},
		{"unknown type", frameBytes(1, 0), ErrFrame, "unknown"},
		{"type past the last", frameBytes(1, 200), ErrFrame, "unknown"},
		{"cut in the header", []byte{0, 0}, io.ErrUnexpectedEOF, ""},
		{"cut in the payload", frameBytes(10, byte(FrameInput), 'a'), io.ErrUnexpectedEOF, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFrameReader(bytes.NewReader(tc.in)).ReadFrame()
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "got %v", err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestMalformedPayloads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload []byte
		msg     string
	}{
		{"short", []byte{0, 80}, "4 bytes"},
		{"zero columns", AppendResize(nil, 0, 24)[:2:2], "4 bytes"},
		{"zero rows", []byte{0, 80, 0, 0}, "outside"},
		{"too wide", []byte{0xff, 0xff, 0, 24}, "outside"},
	} {
		t.Run("resize "+tc.name, func(t *testing.T) {
			_, _, err := DecodeResize(tc.payload)
			require.ErrorIs(t, err, ErrFrame)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	var h Hello
	assert.ErrorIs(t, DecodeJSON([]byte(`{"rostra":1`), &h), ErrFrame, "truncated JSON")
	assert.ErrorIs(t, DecodeJSON([]byte(`{"rostra":1} {}`), &h), ErrFrame, "two values")
	assert.ErrorIs(t, DecodeJSON([]byte(`{"rostra":"one"}`), &h), ErrFrame, "wrong type")
	assert.NoError(t, DecodeJSON([]byte(`{"rostra":1,"mode":"attach","later":true}`), &h), "a newer client's extra field is ignored")
}

func TestWriteFrameRefusesOversized(t *testing.T) {
	err := WriteFrame(io.Discard, FrameOutput, make([]byte, MaxFrame))
	require.ErrorIs(t, err, ErrFrame)
}

// FuzzDecode reads any byte stream as frames and decodes each payload as
// its type says. It must never panic nor accept a frame over MaxFrame, and
// what it accepts must encode back to the same bytes.
func FuzzDecode(f *testing.F) {
	var seed bytes.Buffer
	_ = WriteJSON(&seed, FrameHello, Hello{Rostra: ProtocolVersion, Mode: ModeAttach, Env: []string{"TERM=xterm"}, Cols: 80, Rows: 24})
	_ = WriteFrame(&seed, FrameInput, []byte("iabc\r\x1b[A\x03"))
	_ = WriteFrame(&seed, FrameResize, AppendResize(nil, 120, 40))
	_ = WriteJSON(&seed, FrameRequest, Request{Op: OpSend, Worker: "w", Text: "hi", Enter: true})
	_ = WriteJSON(&seed, FrameReply, Reply{Code: 1, Error: "no"})
	_ = WriteJSON(&seed, FrameBye, Bye{Reason: ByeStopped, Code: 130})
	_ = WriteFrame(&seed, FrameDetach, nil)
	f.Add(seed.Bytes())
	f.Add(frameBytes(0))
	f.Add(frameBytes(MaxFrame + 1))
	f.Add(frameBytes(5, byte(FrameResize), 0, 0, 0, 0))
	f.Add(frameBytes(3, byte(FrameRequest), '{', '}'))
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := NewFrameReader(bytes.NewReader(data))
		var again bytes.Buffer
		read := 0
		for {
			fm, err := fr.ReadFrame()
			if err != nil {
				if errors.Is(err, io.EOF) {
					require.Equal(t, len(data), read, "EOF only at a frame boundary")
				}
				break
			}
			require.LessOrEqual(t, len(fm.Payload)+1, MaxFrame)
			read += 5 + len(fm.Payload)
			require.NoError(t, WriteFrame(&again, fm.Type, fm.Payload))
			switch fm.Type {
			case FrameResize:
				if c, r, err := DecodeResize(fm.Payload); err == nil {
					require.Equal(t, fm.Payload, AppendResize(nil, c, r))
				}
			case FrameHello:
				var h Hello
				_ = DecodeJSON(fm.Payload, &h)
			case FrameRequest:
				var r Request
				_ = DecodeJSON(fm.Payload, &r)
			case FrameReply:
				var r Reply
				_ = DecodeJSON(fm.Payload, &r)
			case FrameBye:
				var b Bye
				_ = DecodeJSON(fm.Payload, &b)
			case FrameWelcome:
				var w Welcome
				_ = DecodeJSON(fm.Payload, &w)
			}
		}
		require.True(t, bytes.Equal(data[:read], again.Bytes()), "accepted frames encode back to the same bytes")
	})
}
