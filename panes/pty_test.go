//go:build linux

// pty_test.go tests the pane surface on real ptys: unavailability reasons
// (an injected opener failure and real fd exhaustion), keys, resize, the
// emulator's replies, TERM, and prompt typing with and without bracketed
// paste.
package panes

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestPTYOpenerFailureIsTheReason(t *testing.T) {
	before := openFDs(t)
	failing := func(cols, rows int) (*os.File, *os.File, error) {
		return nil, nil, &os.PathError{Op: "open", Path: "/dev/ptmx", Err: syscall.EMFILE}
	}
	l := newLaunch(t, []string{"true"})
	_, err := StartPTY(l, PTYOptions{Open: failing})
	require.Error(t, err)
	assert.Equal(t, "open pty: open /dev/ptmx: too many open files", err.Error())
	assert.ErrorIs(t, err, syscall.EMFILE)
	assert.NoFileExists(t, l.OutputLog, "nothing is created for a surface that did not open")
	assert.Equal(t, before, openFDs(t))
}

// TestPTYRealFdExhaustion lowers RLIMIT_NOFILE for real and fills every fd
// below it, so the default opener meets the kernel's own EMFILE.
func TestPTYRealFdExhaustion(t *testing.T) {
	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old))
	limit := uint64(openFDs(t) + 32)
	require.Less(t, limit, old.Cur)
	l := newLaunch(t, []string{"true"}) // t.TempDir needs fds: make them first

	lowered := old
	lowered.Cur = limit
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered))
	var fillers []*os.File
	var err error
	func() {
		defer func() {
			for _, f := range fillers {
				_ = f.Close()
			}
			_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
		}()
		for {
			f, ferr := os.Open("/dev/null")
			if ferr != nil {
				require.ErrorIs(t, ferr, syscall.EMFILE)
				break
			}
			fillers = append(fillers, f)
		}
		_, err = StartPTY(l, PTYOptions{})
	}()
	require.Error(t, err)
	assert.Equal(t, "open pty: open /dev/ptmx: too many open files", err.Error())
}

func TestPTYWriteAndResizeReachTheChild(t *testing.T) {
	defer goleak.VerifyNone(t, ignoreSpawnLoop())
	scr, newScreen := newRecScreen()
	l := newLaunch(t, sh(`stty size; read x; echo "echo:$x"; stty size`))
	l.Cols, l.Rows = 90, 20
	p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, `20 90\r\n`, 5*time.Second)

	require.NoError(t, p.Resize(132, 43))
	_, err = p.Write([]byte("abc\r"))
	require.NoError(t, err)
	scr.waitFor(t, `echo:abc\r\n43 132\r\n`, 5*time.Second)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	assert.Equal(t, Exit{Code: 0}, p.Exit())
	scr.mu.Lock()
	assert.Equal(t, [][2]int{{90, 20}, {132, 43}}, scr.sizes, "screen made at the launch size, then resized")
	scr.mu.Unlock()
	assert.Same(t, scr, p.Screen().(*recScreen))

	_, err = p.Write([]byte("late"))
	assert.ErrorIs(t, err, os.ErrClosed, "keys after the end of the attempt")
	assert.Error(t, p.Resize(80, 24))
}

// TestPTYResizeSendsWINCH: a resize reaches the child as SIGWINCH, and the
// child reads the new size from its tty. The child waits in a foreground
// sleep, whose end runs the trap: bash 5.2's `read -t` drops a SIGWINCH
// trap now and then (13 of 100 tries at load 12), and a blocking read
// runs it only once a line comes: testdata/reliability/bash-read-traps.py.
func TestPTYResizeSendsWINCH(t *testing.T) {
	scr, newScreen := newRecScreen()
	p, err := StartPTY(newLaunch(t, []string{"bash", "-c", `trap 'echo "winch:$(stty size)"; exit 0' WINCH; echo ready; while :; do sleep 0.05; done`}), PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, `ready`, 5*time.Second)
	require.NoError(t, p.Resize(100, 30))
	scr.waitFor(t, `winch:30 100`, 5*time.Second)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
}

func TestPTYSetsTERMUnlessTheWorkerDoes(t *testing.T) {
	for _, tc := range []struct {
		env, set []string
		want     string
	}{
		{[]string{"PATH=/usr/bin:/bin"}, nil, "term=xterm-256color"},
		{[]string{"PATH=/usr/bin:/bin", "TERM=tmux-256color"}, nil, "term=xterm-256color"},
		{[]string{"PATH=/usr/bin:/bin", "TERM=vt100"}, []string{"TERM"}, "term=vt100"},
	} {
		l := newLaunch(t, sh(`echo "term=$TERM"; echo "tok=$`+AttemptTokenEnv+`"`))
		l.Env, l.EnvSet = tc.env, tc.set
		p, err := StartPTY(l, PTYOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		log := endedLog(t, p, l.OutputLog, 5*time.Second)
		assert.Contains(t, string(log), tc.want+"\r\n")
		assert.Regexp(t, `tok=[0-9a-f]{24}\r\n`, string(log))
	}
}

// TestPTYScreenRepliesReachTheChild: the emulator answers a cursor position
// query through reply, and the child reads the answer.
func TestPTYScreenRepliesReachTheChild(t *testing.T) {
	scr, newScreen := newRecScreen()
	scr.onWrite = func(s *recScreen, b []byte) {
		if strings.Contains(string(b), "\x1b[6n") {
			s.reply([]byte("\x1b[5;7R"))
		}
	}
	p, err := StartPTY(newLaunch(t, []string{"bash", "-c", `IFS= read -rs -d R -p $'\e[6n' pos; echo "pos:${pos#*[}"`}), PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, `pos:5;7\r\n`, 5*time.Second)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
}

// TestPTYRepliesNeverBlockTheReader: a child that asks thousands of queries
// and never reads the answers still has its output drained to the end.
func TestPTYRepliesNeverBlockTheReader(t *testing.T) {
	defer goleak.VerifyNone(t, ignoreSpawnLoop())
	scr, newScreen := newRecScreen()
	scr.onWrite = func(s *recScreen, b []byte) {
		for range strings.Count(string(b), "\x1b[6n") {
			s.reply([]byte(strings.Repeat("\x1b[5;7R", 20)))
		}
	}
	l := newLaunch(t, sh(`i=0; while [ $i -lt 3000 ]; do printf '\033[6n'; i=$((i+1)); done; echo finished`))
	p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	waitDone(t, p, 20*time.Second)
	require.NoError(t, p.Close())
	assert.Contains(t, scr.String(), "finished")
}

const readLoop = `while read l; do echo "got:$l"; done`

func TestPTYTypePromptAsKeysExactlyOnce(t *testing.T) {
	defer goleak.VerifyNone(t, ignoreSpawnLoop())
	scr, newScreen := newRecScreen()
	l := newLaunch(t, sh(readLoop))
	l.TypePrompt = []byte("fix the tests")
	l.TypeQuiet = 100 * time.Millisecond
	start := time.Now()
	p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, "keys", waitDelivered(t, p, 5*time.Second, "prompt never delivered"))
	assert.GreaterOrEqual(t, time.Since(start), l.TypeQuiet)
	_, open := <-p.PromptDelivered()
	assert.False(t, open, "delivered once, then closed")
	scr.waitFor(t, `got:fix the tests\r\n`, 5*time.Second)

	_, err = p.Write([]byte{4}) // ^D: EOF ends the loop
	require.NoError(t, err)
	log := endedLog(t, p, l.OutputLog, 5*time.Second)
	assert.Equal(t, 1, strings.Count(string(log), "got:"), "log: %q", log)
}

func TestPTYTypePromptWaitsForQuiet(t *testing.T) {
	scr, newScreen := newRecScreen()
	// Output for ~400ms (every 50ms), then a read loop.
	l := newLaunch(t, []string{"bash", "-c", `for i in 1 2 3 4 5 6 7 8; do echo "tick$i"; read -t 0.05 x; done; echo quiet; ` + readLoop})
	l.TypePrompt = []byte("hello")
	l.TypeQuiet = 150 * time.Millisecond
	p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, `got:hello\r\n`, 5*time.Second)
	out := scr.String()
	assert.Less(t, strings.Index(out, "quiet"), strings.Index(out, "hello"), "typed only after the output went quiet: %q", out)
	require.NoError(t, p.Close())
}

// TestPTYTypePromptWaitsForRawMode: a TUI (every agent CLI) starts in
// canonical mode, silent, and goes raw before it reads keys. The prompt is
// typed once it is raw: not echoed by the line discipline before, and its
// Enter arrives as CR, not as the newline canonical mode makes of it.
func TestPTYTypePromptWaitsForRawMode(t *testing.T) {
	l := newLaunch(t, sh(`sleep 1; stty raw -echo; printf 'ready\r\n'; head -c 7 | od -An -c; stty sane`))
	l.TypePrompt = []byte("say hi")
	l.TypeQuiet = 100 * time.Millisecond
	p, err := StartPTY(l, PTYOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, "keys", waitDelivered(t, p, 10*time.Second, "prompt never delivered"))
	log := endedLog(t, p, l.OutputLog, 10*time.Second)
	before, after, ok := strings.Cut(string(log), "ready")
	require.True(t, ok, "log: %q", log)
	assert.NotContains(t, before, "say hi", "typed before the child went raw: echoed by the line discipline")
	assert.Regexp(t, `s +a +y +h +i +\\r`, after, "the prompt, then Enter as CR")
}

// TestPTYTypePromptWaitsForAStartingTUI: a TUI that is busy starting
// (neither raw nor reading) for longer than its output is quiet gets the
// prompt only once it has gone raw and drawn.
func TestPTYTypePromptWaitsForAStartingTUI(t *testing.T) {
	// Busy for 1.5 s in canonical mode, as node is while a CLI loads.
	l := newLaunch(t, sh(`end=$((SECONDS+2)); while [ $SECONDS -lt $end ]; do :; done; stty raw -echo; printf 'drawn\r\n'; head -c 7 | od -An -c; stty sane`))
	l.TypePrompt = []byte("say hi")
	l.TypeQuiet = 100 * time.Millisecond
	p, err := StartPTY(l, PTYOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	log := endedLog(t, p, l.OutputLog, 20*time.Second)
	before, after, ok := strings.Cut(string(log), "drawn")
	require.True(t, ok, "log: %q", log)
	assert.NotContains(t, before, "say hi", "typed while the child was starting")
	assert.Regexp(t, `s +a +y +h +i +\\r`, after)
}

// TestPTYTypePromptWaitsForTheInputToBeSetUp: a TUI that draws, then sets
// its input up, dropping what was typed meanwhile (gemini), and turns
// bracketed paste on, gets the prompt after that.
func TestPTYTypePromptWaitsForTheInputToBeSetUp(t *testing.T) {
	l := newLaunch(t, []string{"bash", "-c", `stty raw -echo; printf 'drawn\r\n'; sleep 0.5; read -r -t 0.1 -n 100000 junk; printf 'dropped:%s\r\n' "$junk"; printf '\033[?2004h'; head -c 19 | od -An -c; stty sane`})
	l.TypePrompt = []byte("say hi")
	l.TypeQuiet = 200 * time.Millisecond
	p, err := StartPTY(l, PTYOptions{NewScreen: paneTerm})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	log := endedLog(t, p, l.OutputLog, 20*time.Second)
	assert.Contains(t, string(log), "dropped:\r\n", "nothing typed before the input was set up")
	assert.Regexp(t, `033\s+\[\s+2\s+0\s+0\s+~\s+s\s+a\s+y\s+h\s+i\s+033\s+\[\s+2\s+0\s+1\s+~\s+\\r`, string(log), "the prompt, pasted, then Enter")
}

// TestPTYTypePromptIntoALineReaderThatStaysSilent: a child that reads lines
// and writes nothing gets its prompt as soon as it blocks reading the tty.
func TestPTYTypePromptIntoALineReaderThatStaysSilent(t *testing.T) {
	l := newLaunch(t, sh(`IFS= read -r l; echo "got:$l"`))
	l.TypePrompt = []byte("hello")
	l.TypeQuiet = 50 * time.Millisecond
	p, err := StartPTY(l, PTYOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, "keys", waitDelivered(t, p, DefaultTypeReadyLimit/2, "the prompt waited for the limit: the read was not seen"))
	log := endedLog(t, p, l.OutputLog, 10*time.Second)
	assert.Contains(t, string(log), "got:hello")
}

func TestPTYTypePromptBracketedPaste(t *testing.T) {
	scr, newScreen := newRecScreen()
	l := newLaunch(t, sh(`printf '\033[?1;2004h'; `+readLoop))
	l.TypePrompt = []byte("two words")
	l.TypeQuiet = 100 * time.Millisecond
	p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, "paste", waitDelivered(t, p, 5*time.Second, "prompt never delivered"))
	scr.waitFor(t, "got:\x1b\\[200~two words\x1b\\[201~\r\n", 5*time.Second)
	_, err = p.Write([]byte{4})
	require.NoError(t, err)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	assert.Equal(t, 1, strings.Count(scr.String(), "got:"))
}

func TestPTYNoPromptClosesDelivered(t *testing.T) {
	p, err := StartPTY(newLaunch(t, []string{"true"}), PTYOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	_, open := <-p.PromptDelivered()
	assert.False(t, open)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "Close is idempotent")
}

// TestPTYTypeLongPrompts: a prompt longer than the 4095 bytes a line can
// hold reaches the child whole, however it reads: a canonical-mode child
// gets lines that fit as typed keys, and the prompt file's path when a line
// would be cut; a raw-mode child gets every byte as keys or as a paste.
func TestPTYTypeLongPrompts(t *testing.T) {
	long := strings.Repeat("x", 5000)
	lines := strings.Repeat("y", 3000) + "\n" + strings.Repeat("z", 3000) + "\n" + strings.Repeat("w", 3000)
	huge := strings.Repeat("0123456789", 10_000)
	for _, tc := range []struct {
		name, script, prompt, how string
		want                      func(promptFile string) string
		times                     int // how many times want appears
	}{
		{"canonical, one long line", `IFS= read -r l; printf 'len:%d got:%s\n' "${#l}" "$l"`, long, "file",
			func(f string) string { return fmt.Sprintf("len:%d got:%s\r\n", len(f), f) }, 1},
		{"canonical, lines that fit", `for i in 1 2 3; do IFS= read -r l; printf 'len:%d\n' "${#l}"; done`, lines, "keys",
			func(string) string { return "len:3000\r\n" }, 3},
		{"raw, keys", `stty raw -echo; head -c 100001 | wc -c`, huge, "keys",
			func(string) string { return "100001\n" }, 1},
		{"raw, bracketed paste", `printf '\033[?2004h'; stty raw -echo; head -c 100013 | wc -c`, huge, "paste",
			func(string) string { return "100013\n" }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, newScreen := newRecScreen()
			l := newLaunch(t, []string{"bash", "-c", tc.script})
			l.TypePrompt = []byte(tc.prompt)
			l.PromptFile = filepath.Join(t.TempDir(), "prompt.txt")
			l.TypeQuiet = 100 * time.Millisecond
			p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })
			assert.Equal(t, tc.how, waitDelivered(t, p, 20*time.Second, "prompt never delivered"))
			log := endedLog(t, p, l.OutputLog, 20*time.Second)
			assert.Equal(t, tc.times, strings.Count(string(log), tc.want(l.PromptFile)), "%q in the child's output (%d bytes)", tc.want(l.PromptFile), len(log))
		})
	}
}

// TestPTYResizeStorm: a thousand resizes while the child traps SIGWINCH and
// output flows: no deadlock, and the last size is the one both the Screen
// and the pty have.
func TestPTYResizeStorm(t *testing.T) {
	scr, newScreen := newRecScreen()
	l := newLaunch(t, []string{"bash", "-c", `n=0; trap 'n=$((n+1))' WINCH; echo ready; for i in $(seq 1 200); do echo "line $i"; done; read x; echo "size:$(stty size)"`})
	p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	scr.waitFor(t, `ready`, 5*time.Second)
	for i := range 1000 {
		require.NoError(t, p.Resize(40+i%100, 10+i%40))
	}
	require.NoError(t, p.Resize(123, 45))
	_, err = p.Write([]byte("\r"))
	require.NoError(t, err)
	scr.waitFor(t, `size:45 123`, 5*time.Second)
	waitDone(t, p, 5*time.Second)
	require.NoError(t, p.Close())
	scr.mu.Lock()
	assert.Equal(t, [2]int{123, 45}, scr.sizes[len(scr.sizes)-1])
	assert.Len(t, scr.sizes, 1002)
	scr.mu.Unlock()
}

// TestPTYChildLeadsASessionOnThePTY: the child is a session leader whose
// controlling terminal is the pty.
func TestPTYChildLeadsASessionOnThePTY(t *testing.T) {
	l := newLaunch(t, sh(`echo "tty:$(tty) sid:$(ps -o sid= -p $$ | tr -d ' ') pid:$$"; exec 3</dev/tty && echo "ctty:ok"`))
	p, err := StartPTY(l, PTYOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	waitDone(t, p, 5*time.Second)
	log, err := os.ReadFile(l.OutputLog)
	require.NoError(t, err)
	assert.Regexp(t, `tty:/dev/pts/\d+ sid:(\d+) pid:(\d+)`, string(log))
	assert.Contains(t, string(log), "sid:"+strconv.Itoa(p.Pid())+" pid:"+strconv.Itoa(p.Pid()))
	assert.Contains(t, string(log), "ctty:ok")
}

// TestPTYTypedEnterFollowsAQuickEcho: Enter is typed once the child has
// echoed the prompt and gone quiet. A child that echoes at once (a tty in
// cooked mode echoes as it takes the bytes) can have echoed before the
// output counter was read after the write; the wait must not then take
// that echo for missing and hold Enter back for ten quiet spells. Run a
// few times: the echo beats the read in about one start in six.
func TestPTYTypedEnterFollowsAQuickEcho(t *testing.T) {
	const quiet = 100 * time.Millisecond
	for i := range 12 {
		_, newScreen := newRecScreen()
		l := newLaunch(t, []string{"cat"})
		l.TypePrompt = []byte("hello")
		l.TypeQuiet = quiet
		start := time.Now()
		p, err := StartPTY(l, PTYOptions{NewScreen: newScreen})
		require.NoError(t, err)
		assert.Equal(t, "keys", waitDelivered(t, p, 10*time.Second, "prompt never delivered"))
		// Ready after one quiet spell, Enter after the echo and another:
		// a wait for an echo already counted lasts 10 quiet spells.
		assert.Less(t, time.Since(start), 10*quiet, "start %d: Enter held back after the echo", i)
		require.NoError(t, p.Close())
	}
}

// waitDelivered waits up to within for p's prompt to be delivered and
// returns how, failing the test with msg when it is not.
func waitDelivered(t *testing.T, p *PTYProcess, within time.Duration, msg string) string {
	t.Helper()
	select {
	case how := <-p.PromptDelivered():
		return how
	case <-time.After(within):
		t.Fatal(msg)
		return ""
	}
}
