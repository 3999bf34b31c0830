package agenttest

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rostra-dev/rostra/internal/fakemodel"
)

// codex makes its own session id; rostra finds it in the rollout file
// codex writes (docs/agents.md §Sessions): under $CODEX_HOME/sessions, in a
// folder of the local date, named after the id, its first line the
// session's meta with its id, its folder and its start.
func TestCodexRecordsItsSessionWhereRostraLooks(t *testing.T) {
	t.Parallel()
	srv := fakemodel.Start(t, toolScript())
	a := New(t, Codex, srv.URL(), t.TempDir())
	before := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := a.Command(ctx, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "write the result file").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`session id: ([0-9a-f-]{36})`).FindSubmatch(out)
	require.NotNil(t, m, "codex exec printed no session id:\n%s", out)
	id := string(m[1])

	home := filepath.Join(a.Home, ".codex")
	files, _ := filepath.Glob(filepath.Join(home, "sessions", before.Format("2006"), before.Format("01"), before.Format("02"), "rollout-*-"+id+".jsonl"))
	require.Len(t, files, 1, "the rollout file of session %s under %s", id, home)
	f, err := os.Open(files[0])
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	require.True(t, sc.Scan())
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			ID        string    `json:"id"`
			Cwd       string    `json:"cwd"`
			Timestamp time.Time `json:"timestamp"`
		} `json:"payload"`
	}
	require.NoError(t, json.Unmarshal(sc.Bytes(), &meta), "%s", sc.Bytes())
	assert.Equal(t, "session_meta", meta.Type)
	assert.Equal(t, id, meta.Payload.ID)
	assert.Equal(t, a.Dir, meta.Payload.Cwd)
	assert.WithinDuration(t, before, meta.Payload.Timestamp, time.Minute)
	assert.False(t, meta.Payload.Timestamp.Before(before.Add(-2*time.Second)), "its start is the run's")
}
