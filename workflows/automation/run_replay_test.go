package automation

import (
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows/workflowtest"
)

// TestRunReplay replays the recorded history of an AutomationRun (a document_fields run that
// completed on the real stack), so that a change that would break running automations fails
// `make test`: add workflow.GetVersion to such a change rather than re-recording. The history
// comes from SVC_RECORD_HISTORIES=1 go test ./e2e -run TestAINodeEndToEnd.
func TestRunReplay(t *testing.T) {
	workflowtest.ReplayHistories(t, "testdata", "run_*.json", 1, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: RunWorkflowName})
	})
}
