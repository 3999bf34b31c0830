// A test of claude's program status (OSC 7501) in a rostra pane's
// emulator: claude asks whether the terminal takes it ("7501;?"), panes/vt
// answers, and claude then writes its state as it works, asks permission
// and ends its turn. Run in a real pty with the emulator's replies written
// back, as a pane runs it.
package agenttest

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/fakemodel"
	"github.com/rostra-dev/rostra/internal/printable"
	"github.com/rostra-dev/rostra/panes/vt"
)

func TestClaudeProgramStatusInAPane(t *testing.T) {
	t.Parallel()
	srv := fakemodel.Start(t, toolScript())
	dir := t.TempDir()
	a := New(t, Claude, srv.URL(), dir)
	cmd := a.Command(t.Context(), "--permission-mode", "default")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 30})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		f.Close()
	})

	var mu sync.Mutex
	var states []vt.AgentState
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	term := vt.New(100, 30, vt.Options{
		OnReply:      func(b []byte) { _, _ = f.Write(b) },
		OnAgentState: func(s vt.AgentState) { mu.Lock(); states = append(states, s); mu.Unlock(); poke() },
	})
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				_, _ = term.Write(buf[:n])
				poke()
			}
			if err != nil {
				if err != io.EOF {
					poke()
				}
				return
			}
		}
	}()
	wait := func(what string, ok func(screen string, states []vt.AgentState) bool) {
		t.Helper()
		deadline := time.After(time.Minute)
		for {
			mu.Lock()
			got := append([]vt.AgentState(nil), states...)
			mu.Unlock()
			screen := term.Text(false)
			if ok(screen, got) {
				return
			}
			select {
			case <-changed:
			case <-deadline:
				var raws []string
				for _, s := range got {
					raws = append(raws, s.Raw)
				}
				t.Fatalf("%s: never; states %q, the screen:\n%s", what, raws, screen)
			}
		}
	}
	has := func(states []vt.AgentState, state, kind string) bool {
		for _, s := range states {
			if s.State == state && s.Kind == kind && s.App == "claude-code" {
				return true
			}
		}
		return false
	}
	wait("the idle prompt", func(s string, _ []vt.AgentState) bool { return strings.Contains(s, "? for shortcuts") })
	_, _ = f.Write([]byte("write the result file"))
	wait("the typed prompt", func(s string, _ []vt.AgentState) bool { return strings.Contains(s, "write the result file") })
	_, _ = f.Write([]byte("\r"))
	wait("blocked on a permission", func(s string, st []vt.AgentState) bool {
		return strings.Contains(s, "Do you want to proceed?") && has(st, "blocked", "permission")
	})
	for !fileExists(filepath.Join(dir, "result.txt")) {
		_, _ = f.Write([]byte("\r"))
		select {
		case <-changed:
		case <-time.After(time.Second):
		}
	}
	wait("the turn's end", func(s string, st []vt.AgentState) bool {
		return strings.Contains(s, "All done.") && len(st) > 0 && st[len(st)-1].State != "working"
	})
	mu.Lock()
	defer mu.Unlock()
	for _, s := range states {
		t.Logf("claude's status: %s (title %q msg %q)", printable.String(s.Raw), printable.String(s.Title), printable.String(s.Msg))
	}
	require.True(t, has(states, "working", ""), "claude reported no working state")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
