package orchestration

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// PingInput is the input of the Ping workflow.
type PingInput struct {
	PingID  string
	OrgID   string
	Message string
}

// Ping is the trivial workflow that proves API → Temporal → worker → store end to end:
// one activity writes the echo back to the ping's record.
func Ping(ctx workflow.Context, in PingInput) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	var echo string
	if err := workflow.ExecuteActivity(ctx, ActivityCompletePing, in).Get(ctx, &echo); err != nil {
		return "", err
	}
	return echo, nil
}

// ActivityCompletePing is the registered name of the ping activity.
const ActivityCompletePing = "CompletePing"

// PingWorkflowName is the registered name of the Ping workflow.
const PingWorkflowName = "Ping"
