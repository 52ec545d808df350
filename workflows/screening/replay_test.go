package screening

import (
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows/workflowtest"
)

// TestScreeningReplay replays the histories e2e's TestScreeningEndToEnd recorded
// (SVC_RECORD_HISTORIES=1): a change to the refresh, rescreen or customer rescreen workflows that
// would break runs in flight fails here.
func TestScreeningReplay(t *testing.T) {
	workflowtest.ReplayHistories(t, "testdata", "*.json", 3, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(Refresh, workflow.RegisterOptions{Name: RefreshName})
		r.RegisterWorkflowWithOptions(Rescreen, workflow.RegisterOptions{Name: RescreenName})
		r.RegisterWorkflowWithOptions(CustomerRescreen, workflow.RegisterOptions{Name: CustomerRescreenName})
	})
}
