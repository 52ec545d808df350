package statements

import (
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows/workflowtest"
)

// TestAnalysisReplay replays the recorded histories of the analysis workflows (two text
// PDFs completed, an encrypted PDF through a wrong and the right password, a PDF that is no
// statement failed in detect, a correction), so that a change that would break running
// analyses fails `make test`: add workflow.GetVersion to such a change rather than
// re-recording. The histories come from the real stack:
// SVC_RECORD_HISTORIES=1 go test ./e2e -run TestStatementsEndToEnd. The analysis_time_ids_ ones
// were recorded before workflows.VersionStableIDs and stay, so both versions keep replaying.
func TestAnalysisReplay(t *testing.T) {
	workflowtest.ReplayHistories(t, "testdata", "analysis_*.json", 8, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(AnalysisPipeline, workflow.RegisterOptions{Name: AnalysisPipelineName})
		r.RegisterWorkflowWithOptions(AnalysisCorrection, workflow.RegisterOptions{Name: AnalysisCorrectionName})
	})
}
