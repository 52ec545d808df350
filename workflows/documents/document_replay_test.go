package documents

import (
	"testing"

	"github.com/svcplatform/svc/workflows/workflowtest"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestDocumentReplay replays the recorded histories of the document workflows (a text PDF
// extracted, one sent to review, one failed in inspect, an encrypted PDF through a wrong and
// the right password, a correction), so that a change that would break running documents fails
// `make test`: add workflow.GetVersion to such a change rather than re-recording. The
// histories come from the real stack: SVC_RECORD_HISTORIES=1 go test ./e2e -run TestDocumentsEndToEnd.
// The document_time_ids_ ones were recorded before workflows.VersionStableIDs and stay, so both
// versions keep replaying.
func TestDocumentReplay(t *testing.T) {
	workflowtest.ReplayHistories(t, "testdata", "document_*.json", 10, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(DocumentPipeline, workflow.RegisterOptions{Name: DocumentPipelineName})
		r.RegisterWorkflowWithOptions(DocumentCorrection, workflow.RegisterOptions{Name: DocumentCorrectionName})
	})
}
