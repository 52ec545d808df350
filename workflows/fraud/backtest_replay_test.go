package fraud

import (
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows/workflowtest"
)

// TestBacktestReplay replays the recorded history of a backtest that completed on the real
// stack, so that a change that would break running backtests fails `make test`: add
// workflow.GetVersion to such a change rather than re-recording. The history comes from
// SVC_RECORD_HISTORIES=1 go test ./e2e -run TestFraudEndToEnd.
func TestBacktestReplay(t *testing.T) {
	workflowtest.ReplayHistories(t, "testdata", "backtest_*.json", 1, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(Backtest, workflow.RegisterOptions{Name: BacktestName})
	})
}
