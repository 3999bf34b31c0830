// report_escape_test.go checks that the report's Markdown shows outside
// text with its control characters escaped (docs/design.md, "Nothing raw
// reaches a terminal"): a reason naming a file a worker made, a branch,
// a state dir, a degradation's reason.
package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBuildReportEscapesControlCharacters(t *testing.T) {
	const osc52, shown = "\x1b]52;c;aGk=\x07", `\e]52;c;aGk=\x07`
	st, events := reportFixture()
	st.StateDir = "/ws" + osc52 + "/.rostra/demo"
	st.Workers[3].Reason = "readonly source changed: evil" + osc52 + ".txt"
	st.Workers[0].Branch = "rostra/demo/x" + osc52
	st.Dispatches[5].Reason = st.Workers[3].Reason + "\ttab\rreturn"
	st.Dispatches[0].DegradedReason = "open pty: " + osc52
	md, _ := BuildReport(st, events, reportT0.Add(time.Hour))
	assert.NotContains(t, md, "\x1b")
	assert.NotContains(t, md, "\x07")
	assert.NotContains(t, md, "\t")
	assert.Contains(t, md, "evil"+shown+".txt")
	assert.Contains(t, md, "/ws"+shown+"/.rostra/demo")
	assert.Contains(t, md, "rostra/demo/x"+shown)
	assert.Contains(t, md, "open pty: "+shown)
}
