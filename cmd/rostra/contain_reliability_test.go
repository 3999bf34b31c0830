// contain_reliability_test.go is FAULTS.md 29 through the real binary:
// a worker leaves a process that left its group and session and cleared
// its environment (the `setsid` + `env -i` escapee that outlived even a
// clean quit). Whatever the containment, it does not outlive a run that
// ends; contained (cgroup or PID namespace) it does not outlive a
// SIGKILLed rostra either, while tracking alone cannot promise that. Each
// attempt's containment is on its dispatch row and in `rostra status`.
package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/statedir"
)

// processesNamed lists the processes whose argv[0] is name.
func processesNamed(name string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if argv0, _, _ := bytes.Cut(cmdline, []byte{0}); string(argv0) == name && !bytes.Contains(stat, []byte(") Z ")) {
			out = append(out, pid)
		}
	}
	return out
}

func TestReliabilityNothingOutlivesRostra(t *testing.T) {
	for _, kind := range []string{"cgroup", "pid-namespace", "tracking"} {
		for _, end := range []string{"the run ends", "rostra is SIGKILLed"} {
			t.Run(kind+"/"+end, func(t *testing.T) {
				t.Setenv(containmentEnv, kind)
				name := "rostra-test-escapee-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
				then := "exit 0"
				if end == "rostra is SIGKILLed" {
					then = "exec sleep 1000"
				}
				// The escapee says it is ready only once it left the session
				// and cleared its environment, and its parent (a subshell)
				// ends before the worker goes on.
				ws := runWorkspace(t, `version: 1
name: esc
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: leaver
    provider: sh
    surfaces: [wrapper]
    prompt: "(env -i /usr/bin/setsid /bin/bash -c 'echo x > ready; exec -a `+name+` sleep 1000' & while [ ! -s ready ]; do sleep 0.01; done); echo escaped; `+then+`"
`)
				t.Cleanup(func() {
					for _, pid := range processesNamed(name) {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				})
				stateDir := filepath.Join(ws, ".rostra", "esc")
				cmd, out := startBin(t, ws, "leaver#1 started on wrapper", "run", "--headless")
				require.Eventually(t, func() bool { return len(processesNamed(name)) == 1 }, 10*time.Second, 10*time.Millisecond,
					"the escapee never ran:\n%s", out.String())

				if end == "the run ends" {
					require.NoError(t, cmd.Wait(), out.String())
					assert.Empty(t, processesNamed(name), "the escapee outlived the run (%s)", kind)
				} else {
					// The started line is printed from the engine's event,
					// before the row that names the surface and containment
					// is saved: a SIGKILL must come after the save, or the
					// state tells nothing to check.
					require.Eventually(t, func() bool {
						st, err := statedir.ReadTeamState(stateDir)
						return err == nil && len(st.Dispatches) == 1 && st.Dispatches[0].Containment == kind
					}, 10*time.Second, 10*time.Millisecond, "the started attempt's row is never saved with its containment:\n%s", out.String())
					require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
					_ = cmd.Wait()
					if kind == "tracking" {
						time.Sleep(time.Second)
						assert.Len(t, processesNamed(name), 1, "tracking alone cannot stop it once rostra is SIGKILLed (docs/internals.md says so)")
					} else {
						require.Eventually(t, func() bool { return len(processesNamed(name)) == 0 }, 10*time.Second, 10*time.Millisecond,
							"the escapee outlived its SIGKILLed rostra (%s)", kind)
					}
				}
				st, err := statedir.ReadTeamState(stateDir)
				require.NoError(t, err)
				require.Len(t, st.Dispatches, 1)
				assert.Equal(t, kind, st.Dispatches[0].Containment)
				s := runBin(t, ws, "status", stateDir)
				require.Equal(t, 0, s.code, s.stderr)
				assert.Regexp(t, `leaver#1\s+wrapper\s+`+kind+`\s`, s.stdout)
			})
		}
	}
}

func TestUnknownContainmentIsRefused(t *testing.T) {
	ws := runWorkspace(t, "version: 1\nname: c\nworkers:\n  - { id: a, command: [\"true\"] }\n")
	t.Setenv(containmentEnv, "jail")
	r := runBin(t, ws, "run", "--headless")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `rostra: ROSTRA_CONTAINMENT: unknown containment "jail"; use auto, cgroup, pid-namespace or tracking`)
}
