// notify.go is what a UI in this terminal needs to alert it that only
// this process can learn (docs/agents.md §Notifications): inside tmux,
// whether tmux lets a sequence through to the terminal behind it
// (allow-passthrough), asked of that tmux for this pane and handed to
// the UI as a variable, for the direct UI and for `rostra attach` alike
// (a server's UI cannot ask the client's tmux).
package main

import (
	"context"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rostra-dev/rostra/engine"
	"github.com/rostra-dev/rostra/tui"
)

// directAnnouncer hands a notification to the UI of this process.
func directAnnouncer(p *tea.Program) engine.Announcer {
	return func(n engine.Notification) engine.Delivery {
		return tui.Announce([]*tea.Program{p}, n, time.Second)
	}
}

// tmuxAskWait bounds the question to tmux.
const tmuxAskWait = 500 * time.Millisecond

// notifyEnviron is environ with the outer tmux's allow-passthrough
// (off, on, all) when it runs inside one that answers.
func notifyEnviron(environ []string) []string {
	inTmux := false
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "TMUX="); ok && v != "" {
			inTmux = true
		}
	}
	if !inTmux {
		return environ
	}
	ctx, cancel := context.WithTimeout(context.Background(), tmuxAskWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", "show-options", "-pvA", "allow-passthrough")
	cmd.Env = environ
	out, err := cmd.Output()
	if err != nil {
		return environ
	}
	switch v := strings.TrimSpace(string(out)); v {
	case "on", "off", "all":
		return append(environ, tui.TmuxPassthroughEnv+"="+v)
	}
	return environ
}
