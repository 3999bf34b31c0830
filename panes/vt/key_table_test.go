// key_table_test.go is the key-encoding table: for each key rostra forwards
// and each combination of the child's modes (legacy, application cursor,
// modifyOtherKeys 1 and 2, kitty flags 1, 3 and 7), the bytes the child
// gets. The expectations follow xterm's ctlseqs and input.c (modifyOtherKeys
// with metaSendsEscape) and the kitty keyboard protocol's specification;
// TestKeyTableAgainstTmux then plays the same keys through tmux 3.3a into a
// pane that set the same mode and checks that tmux sends the same bytes,
// except in the cells listed in tmuxDiffers, each with the reason.
package vt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyModes are the columns of the table, in order.
var keyModes = []struct {
	name  string
	modes Modes
	set   string // what a child writes to set the mode
}{
	{"legacy", Modes{}, ""},
	{"appcursor", Modes{AppCursor: true}, "\x1b[?1h"},
	{"mok1", Modes{ModifyOtherKeys: 1}, "\x1b[>4;1m"},
	{"mok2", Modes{ModifyOtherKeys: 2}, "\x1b[>4;2m"},
	{"kitty1", Modes{KittyKeyboard: 1}, "\x1b[>1u"},
	{"kitty3", Modes{KittyKeyboard: 3}, "\x1b[>3u"},
	{"kitty7", Modes{KittyKeyboard: 7}, "\x1b[>7u"},
}

const (
	shift = uv.ModShift
	alt   = uv.ModAlt
	ctrl  = uv.ModCtrl
)

// keyTable: name, the key as ultraviolet reports it, the tmux key name that
// sends it (empty: not played through tmux), and the bytes per mode.
var keyTable = []struct {
	name string
	key  uv.Key
	tmux string
	want [7]string // legacy, appcursor, mok1, mok2, kitty1, kitty3, kitty7
}{
	{"a", uv.Key{Code: 'a', Text: "a"}, "a",
		[7]string{"a", "a", "a", "a", "a", "a", "a"}},
	{"shift+a", uv.Key{Code: 'a', ShiftedCode: 'A', Mod: shift, Text: "A"}, "A",
		[7]string{"A", "A", "A", "\x1b[27;2;65~", "A", "A", "A"}},
	{"ctrl+a", uv.Key{Code: 'a', Mod: ctrl}, "C-a",
		[7]string{"\x01", "\x01", "\x01", "\x1b[27;5;97~", "\x1b[97;5u", "\x1b[97;5u", "\x1b[97;5u"}},
	{"ctrl+shift+a", uv.Key{Code: 'a', ShiftedCode: 'A', Mod: ctrl | shift}, "C-S-a",
		[7]string{"\x01", "\x01", "\x1b[27;6;65~", "\x1b[27;6;65~", "\x1b[97;6u", "\x1b[97;6u", "\x1b[97:65;6u"}},
	{"alt+a", uv.Key{Code: 'a', Mod: alt}, "M-a",
		[7]string{"\x1ba", "\x1ba", "\x1ba", "\x1b[27;3;97~", "\x1b[97;3u", "\x1b[97;3u", "\x1b[97;3u"}},
	{"ctrl+alt+a", uv.Key{Code: 'a', Mod: ctrl | alt}, "C-M-a",
		[7]string{"\x1b\x01", "\x1b\x01", "\x1b\x01", "\x1b[27;7;97~", "\x1b[97;7u", "\x1b[97;7u", "\x1b[97;7u"}},
	{"ctrl+a on AZERTY's q key", uv.Key{Code: 'a', BaseCode: 'q', Mod: ctrl}, "",
		[7]string{"\x01", "\x01", "\x01", "\x1b[27;5;97~", "\x1b[97;5u", "\x1b[97;5u", "\x1b[97::113;5u"}},
	{"ctrl+a held (repeat)", uv.Key{Code: 'a', Mod: ctrl, IsRepeat: true}, "",
		[7]string{"\x01", "\x01", "\x01", "\x1b[27;5;97~", "\x1b[97;5u", "\x1b[97;5:2u", "\x1b[97;5:2u"}},
	{"1", uv.Key{Code: '1', Text: "1"}, "1",
		[7]string{"1", "1", "1", "1", "1", "1", "1"}},
	{"shift+1", uv.Key{Code: '1', ShiftedCode: '!', Mod: shift, Text: "!"}, "!",
		[7]string{"!", "!", "!", "!", "!", "!", "!"}},
	{"ctrl+1", uv.Key{Code: '1', Mod: ctrl}, "C-1",
		[7]string{"1", "1", "\x1b[27;5;49~", "\x1b[27;5;49~", "\x1b[49;5u", "\x1b[49;5u", "\x1b[49;5u"}},
	{"ctrl+/", uv.Key{Code: '/', Mod: ctrl}, "C-/",
		[7]string{"\x1f", "\x1f", "\x1f", "\x1b[27;5;47~", "\x1b[47;5u", "\x1b[47;5u", "\x1b[47;5u"}},
	{"space", uv.Key{Code: uv.KeySpace, Text: " "}, "Space",
		[7]string{" ", " ", " ", " ", " ", " ", " "}},
	{"shift+space", uv.Key{Code: uv.KeySpace, Mod: shift, Text: " "}, "S-Space",
		[7]string{" ", " ", " ", "\x1b[27;2;32~", " ", " ", " "}},
	{"ctrl+space", uv.Key{Code: uv.KeySpace, Mod: ctrl}, "C-Space",
		[7]string{"\x00", "\x00", "\x00", "\x1b[27;5;32~", "\x1b[32;5u", "\x1b[32;5u", "\x1b[32;5u"}},
	{"é", uv.Key{Code: 'é', Text: "é"}, "é",
		[7]string{"é", "é", "é", "é", "é", "é", "é"}},
	{"ctrl+é", uv.Key{Code: 'é', Mod: ctrl}, "C-é",
		[7]string{"é", "é", "\x1b[27;5;233~", "\x1b[27;5;233~", "\x1b[233;5u", "\x1b[233;5u", "\x1b[233;5u"}},
	{"enter", uv.Key{Code: uv.KeyEnter}, "Enter",
		[7]string{"\r", "\r", "\r", "\r", "\r", "\r", "\r"}},
	{"shift+enter", uv.Key{Code: uv.KeyEnter, Mod: shift}, "S-Enter",
		[7]string{"\x1b\r", "\x1b\r", "\x1b[27;2;13~", "\x1b[27;2;13~", "\x1b[13;2u", "\x1b[13;2u", "\x1b[13;2u"}},
	{"shift+enter held (repeat)", uv.Key{Code: uv.KeyEnter, Mod: shift, IsRepeat: true}, "",
		[7]string{"\x1b\r", "\x1b\r", "\x1b[27;2;13~", "\x1b[27;2;13~", "\x1b[13;2u", "\x1b[13;2:2u", "\x1b[13;2:2u"}},
	{"ctrl+enter", uv.Key{Code: uv.KeyEnter, Mod: ctrl}, "C-Enter",
		[7]string{"\r", "\r", "\x1b[27;5;13~", "\x1b[27;5;13~", "\x1b[13;5u", "\x1b[13;5u", "\x1b[13;5u"}},
	{"alt+enter", uv.Key{Code: uv.KeyEnter, Mod: alt}, "M-Enter",
		[7]string{"\x1b\r", "\x1b\r", "\x1b\r", "\x1b[27;3;13~", "\x1b[13;3u", "\x1b[13;3u", "\x1b[13;3u"}},
	{"ctrl+shift+enter", uv.Key{Code: uv.KeyEnter, Mod: ctrl | shift}, "C-S-Enter",
		[7]string{"\x1b\r", "\x1b\r", "\x1b[27;6;13~", "\x1b[27;6;13~", "\x1b[13;6u", "\x1b[13;6u", "\x1b[13;6u"}},
	{"tab", uv.Key{Code: uv.KeyTab}, "Tab",
		[7]string{"\t", "\t", "\t", "\t", "\t", "\t", "\t"}},
	{"shift+tab", uv.Key{Code: uv.KeyTab, Mod: shift}, "BTab",
		[7]string{"\x1b[Z", "\x1b[Z", "\x1b[Z", "\x1b[Z", "\x1b[9;2u", "\x1b[9;2u", "\x1b[9;2u"}},
	{"ctrl+tab", uv.Key{Code: uv.KeyTab, Mod: ctrl}, "C-Tab",
		[7]string{"\t", "\t", "\x1b[27;5;9~", "\x1b[27;5;9~", "\x1b[9;5u", "\x1b[9;5u", "\x1b[9;5u"}},
	{"backspace", uv.Key{Code: uv.KeyBackspace}, "BSpace",
		[7]string{"\x7f", "\x7f", "\x7f", "\x7f", "\x7f", "\x7f", "\x7f"}},
	{"shift+backspace", uv.Key{Code: uv.KeyBackspace, Mod: shift}, "S-BSpace",
		[7]string{"\x7f", "\x7f", "\x7f", "\x1b[27;2;127~", "\x1b[127;2u", "\x1b[127;2u", "\x1b[127;2u"}},
	{"ctrl+backspace", uv.Key{Code: uv.KeyBackspace, Mod: ctrl}, "C-BSpace",
		[7]string{"\x08", "\x08", "\x08", "\x08", "\x1b[127;5u", "\x1b[127;5u", "\x1b[127;5u"}},
	{"alt+backspace", uv.Key{Code: uv.KeyBackspace, Mod: alt}, "M-BSpace",
		[7]string{"\x1b\x7f", "\x1b\x7f", "\x1b\x7f", "\x1b[27;3;127~", "\x1b[127;3u", "\x1b[127;3u", "\x1b[127;3u"}},
	{"esc", uv.Key{Code: uv.KeyEscape}, "Escape",
		[7]string{"\x1b", "\x1b", "\x1b", "\x1b", "\x1b[27u", "\x1b[27u", "\x1b[27u"}},
	{"esc held (repeat)", uv.Key{Code: uv.KeyEscape, IsRepeat: true}, "",
		[7]string{"\x1b", "\x1b", "\x1b", "\x1b", "\x1b[27u", "\x1b[27;1:2u", "\x1b[27;1:2u"}},
	{"shift+esc", uv.Key{Code: uv.KeyEscape, Mod: shift}, "S-Escape",
		[7]string{"\x1b", "\x1b", "\x1b", "\x1b[27;2;27~", "\x1b[27;2u", "\x1b[27;2u", "\x1b[27;2u"}},
	{"alt+esc", uv.Key{Code: uv.KeyEscape, Mod: alt}, "M-Escape",
		[7]string{"\x1b\x1b", "\x1b\x1b", "\x1b\x1b", "\x1b[27;3;27~", "\x1b[27;3u", "\x1b[27;3u", "\x1b[27;3u"}},
	{"up", uv.Key{Code: uv.KeyUp}, "Up",
		[7]string{"\x1b[A", "\x1bOA", "\x1b[A", "\x1b[A", "\x1b[A", "\x1b[A", "\x1b[A"}},
	{"shift+up", uv.Key{Code: uv.KeyUp, Mod: shift}, "S-Up",
		[7]string{"\x1b[1;2A", "\x1b[1;2A", "\x1b[1;2A", "\x1b[1;2A", "\x1b[1;2A", "\x1b[1;2A", "\x1b[1;2A"}},
	{"ctrl+left", uv.Key{Code: uv.KeyLeft, Mod: ctrl}, "C-Left",
		[7]string{"\x1b[1;5D", "\x1b[1;5D", "\x1b[1;5D", "\x1b[1;5D", "\x1b[1;5D", "\x1b[1;5D", "\x1b[1;5D"}},
	{"home", uv.Key{Code: uv.KeyHome}, "Home",
		[7]string{"\x1b[H", "\x1bOH", "\x1b[H", "\x1b[H", "\x1b[H", "\x1b[H", "\x1b[H"}},
	{"end", uv.Key{Code: uv.KeyEnd}, "End",
		[7]string{"\x1b[F", "\x1bOF", "\x1b[F", "\x1b[F", "\x1b[F", "\x1b[F", "\x1b[F"}},
	{"pgup", uv.Key{Code: uv.KeyPgUp}, "PPage",
		[7]string{"\x1b[5~", "\x1b[5~", "\x1b[5~", "\x1b[5~", "\x1b[5~", "\x1b[5~", "\x1b[5~"}},
	{"shift+delete", uv.Key{Code: uv.KeyDelete, Mod: shift}, "S-DC",
		[7]string{"\x1b[3;2~", "\x1b[3;2~", "\x1b[3;2~", "\x1b[3;2~", "\x1b[3;2~", "\x1b[3;2~", "\x1b[3;2~"}},
	{"f1", uv.Key{Code: uv.KeyF1}, "F1",
		[7]string{"\x1bOP", "\x1bOP", "\x1bOP", "\x1bOP", "\x1bOP", "\x1bOP", "\x1bOP"}},
	{"ctrl+f1", uv.Key{Code: uv.KeyF1, Mod: ctrl}, "C-F1",
		[7]string{"\x1b[1;5P", "\x1b[1;5P", "\x1b[1;5P", "\x1b[1;5P", "\x1b[1;5P", "\x1b[1;5P", "\x1b[1;5P"}},
	{"f5", uv.Key{Code: uv.KeyF5}, "F5",
		[7]string{"\x1b[15~", "\x1b[15~", "\x1b[15~", "\x1b[15~", "\x1b[15~", "\x1b[15~", "\x1b[15~"}},
}

func TestKeyTable(t *testing.T) {
	for _, row := range keyTable {
		for i, mode := range keyModes {
			t.Run(row.name+"/"+mode.name, func(t *testing.T) {
				assert.Equal(t, row.want[i], string(EncodeKey(row.key, mode.modes)))
			})
		}
	}
}

// The modes in the table are the ones the child sets with these sequences.
func TestKeyModesFromTheChild(t *testing.T) {
	for _, mode := range keyModes {
		tm := New(20, 3, Options{})
		feedString(t, tm, mode.set)
		got := tm.Modes()
		got.AutoWrap = false
		assert.Equal(t, mode.modes, got, mode.name)
	}
	tm := New(20, 3, Options{})
	feedString(t, tm, "\x1b[>4;2m\x1b[>4m")
	assert.Zero(t, tm.Modes().ModifyOtherKeys, "CSI > 4 m resets")
	feedString(t, tm, "\x1b[>4;1m\x1b[>4n")
	assert.Zero(t, tm.Modes().ModifyOtherKeys, "CSI > 4 n disables")
	feedString(t, tm, "\x1b[>4;2m\x1bc")
	assert.Zero(t, tm.Modes().ModifyOtherKeys, "RIS resets")
}

// tmuxDiffers lists the cells where tmux 3.3a (with extended-keys on, which
// it needs to send modifyOtherKeys forms at all) sends other bytes than
// xterm, and why; the test checks that they do differ, so the list stays
// true. tmux's extended form CSI code ; mod u is first rewritten to xterm's
// CSI 27 ; mod ; code ~ (a difference of format only).
var tmuxDiffers = map[string]string{
	"shift+a/mok2":               "tmux sends the letter A as a key of its own, without Shift",
	"ctrl+a/mok2":                "tmux sends C0 controls for Ctrl+letter in either level",
	"ctrl+shift+a/legacy":        "tmux has no legacy form for Ctrl+Shift+a and sends its name",
	"ctrl+shift+a/appcursor":     "tmux has no legacy form for Ctrl+Shift+a and sends its name",
	"alt+a/mok2":                 "tmux keeps Alt an ESC prefix in either level",
	"ctrl+alt+a/mok2":            "tmux keeps Alt an ESC prefix in either level",
	"ctrl+1/legacy":              "tmux sends nothing for Ctrl+1 without extended keys",
	"ctrl+1/appcursor":           "tmux sends nothing for Ctrl+1 without extended keys",
	"ctrl+//mok1":                "tmux does not tell level 1 from 2",
	"shift+space/legacy":         "tmux has no legacy form for Shift+Space and sends its name",
	"shift+space/appcursor":      "tmux has no legacy form for Shift+Space and sends its name",
	"shift+space/mok1":           "tmux does not tell level 1 from 2",
	"ctrl+space/mok2":            "tmux sends the C0 control NUL in either level",
	"ctrl+é/mok1":                "tmux drops Ctrl from a non-ASCII key",
	"ctrl+é/mok2":                "tmux drops Ctrl from a non-ASCII key",
	"shift+enter/legacy":         "tmux has no legacy form for Shift+Enter and sends its name; rostra sends the agent CLIs' newline, ESC CR",
	"shift+enter/appcursor":      "tmux has no legacy form for Shift+Enter and sends its name; rostra sends the agent CLIs' newline, ESC CR",
	"ctrl+enter/legacy":          "tmux sends nothing for Ctrl+Enter without extended keys",
	"ctrl+enter/appcursor":       "tmux sends nothing for Ctrl+Enter without extended keys",
	"alt+enter/mok2":             "tmux keeps Alt an ESC prefix in either level",
	"ctrl+shift+enter/legacy":    "tmux has no legacy form for Ctrl+Shift+Enter and sends its name; rostra sends ESC CR",
	"ctrl+shift+enter/appcursor": "tmux has no legacy form for Ctrl+Shift+Enter and sends its name; rostra sends ESC CR",
	"ctrl+tab/legacy":            "tmux sends nothing for Ctrl+Tab without extended keys",
	"ctrl+tab/appcursor":         "tmux sends nothing for Ctrl+Tab without extended keys",
	"shift+backspace/legacy":     "tmux has no legacy form for Shift+Backspace and sends its name",
	"shift+backspace/appcursor":  "tmux has no legacy form for Shift+Backspace and sends its name",
	"shift+backspace/mok1":       "tmux does not tell level 1 from 2",
	"ctrl+backspace/legacy":      "tmux sends nothing for Ctrl+Backspace without extended keys",
	"ctrl+backspace/appcursor":   "tmux sends nothing for Ctrl+Backspace without extended keys",
	"ctrl+backspace/mok1":        "xterm keeps Ctrl+Backspace a BS; tmux sends an extended key",
	"ctrl+backspace/mok2":        "xterm keeps Ctrl+Backspace a BS; tmux sends an extended key",
	"alt+backspace/mok2":         "tmux keeps Alt an ESC prefix in either level",
	"shift+esc/legacy":           "tmux has no legacy form for Shift+Esc and sends its name",
	"shift+esc/appcursor":        "tmux has no legacy form for Shift+Esc and sends its name",
	"shift+esc/mok1":             "tmux does not tell level 1 from 2",
	"alt+esc/mok2":               "tmux keeps Alt an ESC prefix in either level",
	"home/legacy":                "tmux sends Home as CSI 1 ~ (its own terminal's khome); xterm sends CSI H",
	"home/mok1":                  "tmux sends Home as CSI 1 ~ (its own terminal's khome); xterm sends CSI H",
	"home/mok2":                  "tmux sends Home as CSI 1 ~ (its own terminal's khome); xterm sends CSI H",
	"home/appcursor":             "tmux sends Home as CSI 1 ~ in either cursor mode; xterm sends SS3 H in application mode",
	"end/appcursor":              "tmux sends End as CSI 4 ~ in either cursor mode; xterm sends SS3 F in application mode",
	"end/legacy":                 "tmux sends End as CSI 4 ~ (its own terminal's kend); xterm sends CSI F",
	"end/mok1":                   "tmux sends End as CSI 4 ~ (its own terminal's kend); xterm sends CSI F",
	"end/mok2":                   "tmux sends End as CSI 4 ~ (its own terminal's kend); xterm sends CSI F",
}

// keyDumpEnv makes the test binary a byte dumper in a tmux pane: it sets the
// mode, shows it has by a title, records what it reads until it has seen
// every marker, and tells the test through tmux wait-for.
const keyDumpEnv = "ROSTRA_TEST_KEYDUMP"

// keyMarker follows every key the test sends: no key sends it.
const keyMarker = "\x1b[9999~"

func TestMain(m *testing.M) {
	if spec := os.Getenv(keyDumpEnv); spec != "" {
		keyDump(spec)
		return
	}
	code := m.Run()
	if msg := blankRowDirty(); msg != "" && code == 0 {
		fmt.Fprintln(os.Stderr, msg)
		code = 1
	}
	os.Exit(code)
}

// keyDump: spec is "SOCKET|MODE-HEX|COUNT|OUT".
func keyDump(spec string) {
	parts := strings.SplitN(spec, "|", 4)
	mode := []byte{}
	_, _ = fmt.Sscanf(parts[1], "%x", &mode)
	count, _ := strconv.Atoi(parts[2])
	_, _ = os.Stdout.Write(mode)
	_, _ = os.Stdout.WriteString("\x1b]2;keydump-ready\x1b\\")
	var got []byte
	buf := make([]byte, 4096)
	for bytes.Count(got, []byte(keyMarker)) < count {
		n, err := os.Stdin.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	_ = os.WriteFile(parts[3], got, 0o600)
	_ = exec.Command("tmux", "-L", parts[0], "wait-for", "-S", "keydump-done").Run()
	select {} // the pane is killed with the server
}

var tmuxExtendedKey = regexp.MustCompile(`\x1b\[(\d+);(\d+)u`)

func TestKeyTableAgainstTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is required for the key table in CI")
		}
		t.Skip("tmux not installed")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	var played []int
	for i, row := range keyTable {
		if row.tmux != "" {
			played = append(played, i)
		}
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	for mi, mode := range keyModes[:4] { // tmux 3.3a has no kitty protocol
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			sock := fmt.Sprintf("rostra-keys-%d-%d", os.Getpid(), mi)
			tmux := func(args ...string) {
				out, err := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
				require.NoError(t, err, "tmux %s: %s", strings.Join(args, " "), out)
			}
			out := filepath.Join(t.TempDir(), "keys.bin")
			spec := fmt.Sprintf("%s|%x|%d|%s", sock, mode.set, len(played), out)
			guardTmux(t, sock)
			tmux("start-server", ";", "set", "-s", "extended-keys", "on", ";", "set", "-g", "exit-empty", "off")
			tmux("new-session", "-d", "-s", "k", "-x", "80", "-y", "10", "-e", keyDumpEnv+"="+spec,
				fmt.Sprintf("stty raw -echo; exec '%s' -test.run='^$'", self))
			require.Eventually(t, func() bool {
				out, err := exec.Command("tmux", "-L", sock, "display", "-p", "-t", "k", "#{pane_title}").Output()
				return err == nil && strings.TrimSpace(string(out)) == "keydump-ready"
			}, 20*time.Second, 10*time.Millisecond, "the key dumper never set its mode")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			done := exec.CommandContext(ctx, "tmux", "-L", sock, "wait-for", "keydump-done")
			require.NoError(t, done.Start())
			for _, i := range played {
				tmux("send-keys", "-t", "k", keyTable[i].tmux)
				tmux("send-keys", "-t", "k", "-H", "1b", "5b", "39", "39", "39", "39", "7e")
			}
			require.NoError(t, done.Wait(), "the key dumper did not see every key")
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			got := strings.Split(string(data), keyMarker)
			require.Len(t, got, len(played)+1)
			for j, i := range played {
				row := keyTable[i]
				cell := row.name + "/" + mode.name
				fromTmux := tmuxExtendedKey.ReplaceAllString(got[j], "\x1b[27;$2;$1~")
				ours := string(EncodeKey(row.key, mode.modes))
				if reason, ok := tmuxDiffers[cell]; ok {
					assert.NotEqual(t, fromTmux, ours, "%s is listed as differing from tmux (%s) but does not", cell, reason)
					mu.Lock()
					seen[cell] = true
					mu.Unlock()
					continue
				}
				assert.Equal(t, fromTmux, ours, "%s: tmux 3.3a sent %q", cell, got[j])
			}
		})
	}
	t.Cleanup(func() {
		for cell := range tmuxDiffers {
			assert.True(t, seen[cell], "tmuxDiffers lists %s, which the test does not play", cell)
		}
	})
}
