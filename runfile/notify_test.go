// notify_test.go checks the notify section (docs/runfile.md §notify): its
// defaults, every key read, and each wrong value refused at its
// file:line:col with what to write instead.
package runfile

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNotifyDefaults(t *testing.T) {
	p, _ := loadOK(t, "version: 1\nname: z\nworkers: [{id: a, command: [x]}]\n")
	assert.Equal(t, map[string]bool{"permission": true, "input": true, "exited": false, "failed": true}, p.Notify.On)
	assert.Equal(t, "auto", p.Notify.Method)
	assert.Nil(t, p.Notify.Command)
	assert.Equal(t, 10*time.Second, p.Notify.Timeout)
}

func TestNotifyReadsEveryKey(t *testing.T) {
	p, _ := loadOK(t, `version: 1
name: z
notify:
  permission: false
  input: false
  exited: true
  method: osc777
  command: [ntfy, publish, "rostra-{run}", "{worker} {state}: {why} {{ok}}"]
  timeout: 3s
workers: [{id: a, command: [x]}]
`)
	assert.Equal(t, map[string]bool{"permission": false, "input": false, "exited": true, "failed": true}, p.Notify.On)
	assert.Equal(t, "osc777", p.Notify.Method)
	assert.Equal(t, 3*time.Second, p.Notify.Timeout)
	argv, err := p.Notify.ExpandCommand(map[string]string{"worker": "w", "state": "waiting-permission", "why": "Bash(rm -rf build)", "run": "z"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ntfy", "publish", "rostra-z", "w waiting-permission: Bash(rm -rf build) {ok}"}, argv)
	for _, m := range NotifyMethods {
		p, _ := loadOK(t, "version: 1\nname: z\nnotify: {method: "+m+"}\nworkers: [{id: a, command: [x]}]\n")
		assert.Equal(t, m, p.Notify.Method)
	}
}

func TestNotifyProblemsAtTheirPlace(t *testing.T) {
	dir := t.TempDir()
	ps := loadProblems(t, dir, `version: 1
name: z
notify:
  permission: yes please
  input: 1
  method: osc8
  command: [notify-send, "{worker}", "{prompt}", "{wrker}", "{run"]
  timeout: 0s
  loud: true
workers: [{id: a, command: [x]}]
`)
	var got []string
	for _, p := range ps {
		assert.Equal(t, filepath.Join(dir, "rostra.yaml"), p.File)
		got = append(got, p.String()[len(p.File):])
	}
	assert.Equal(t, []string{
		`:4:15: notify.permission: expected true or false, got the text "yes please"`,
		`:5:10: notify.input: expected true or false, got the number 1`,
		`:6:11: notify.method: unknown method "osc8"; use one of: auto, osc9, osc777, osc99, bell, none`,
		`:7:38: notify.command[2]: {prompt} cannot be used in notify.command; it knows {worker}, {state}, {why}, {run}`,
		`:7:50: notify.command[3]: {wrker} cannot be used in notify.command (did you mean {worker}?); it knows {worker}, {state}, {why}, {run}`,
		`:7:61: notify.command[4]: a placeholder is not closed in "{run"; close it with } or write {{ for a literal brace`,
		`:8:12: notify.timeout: must be more than 0 (the command is stopped once it has run this long), got 0s`,
		`:9:3: notify: unknown key "loud"; allowed keys: permission, input, exited, failed, method, command, timeout`,
	}, got)

	ps = loadProblems(t, dir, "version: 1\nname: z\nnotify: {command: []}\nworkers: [{id: a, command: [x]}]\n")
	assert.Equal(t, []string{`notify.command: the command is empty; give at least the program, like ["notify-send", "{worker}", "{why}"]`}, messages(ps))
	ps = loadProblems(t, dir, "version: 1\nname: z\nnotify: loud\nworkers: [{id: a, command: [x]}]\n")
	assert.Equal(t, 3, ps[0].Line)
	assert.Contains(t, ps[0].Message, "expected a mapping")
}
