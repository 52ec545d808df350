package identity

import (
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows/workflowtest"
)

// TestVerificationReplay replays the recorded histories of identity verifications (verified at
// the first attempt, verified after a resubmission, rejected under age, approved by a
// reviewer, expired by its timer), so that a change that would break running verifications
// fails `make test`: add workflow.GetVersion to such a change rather than re-recording. The
// histories come from the real stack: SVC_RECORD_HISTORIES=1 go test ./e2e -run TestIdentityEndToEnd.
func TestVerificationReplay(t *testing.T) {
	workflowtest.ReplayHistories(t, "testdata", "verification_*.json", 5, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(Verification, workflow.RegisterOptions{Name: VerificationName})
	})
}
