// eventlog_e2e_test.go attaches to a run that has logged already and
// opens the event log (e): it shows the run's whole log, read back from
// events.jsonl, not only what happened since this client attached.
package main

import (
	"path/filepath"
	"testing"
)

func TestEventLogShowsTheWholeRunAfterAttach(t *testing.T) {
	ws := runWorkspace(t, copyRunFile)
	detachedRun(t, ws)
	s := newTmux(t, "evlog")
	s.run("new-session", "-d", "-s", "ui", "-x", "120", "-y", "30", "-c", ws,
		rostraBin+" attach 2>"+filepath.Join(ws, "stderr")+"; sleep 60")
	s.waitScreen("the panes open", "the error: ELIFECYCLE", "the other pane")
	s.keys("e")
	s.waitScreen("the log from before the attach", "event log", "run started", "talker#1 started on pane", "other#1 started on pane")
}
