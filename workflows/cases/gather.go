package cases

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// Gather is the gathering Schedule's workflow: the alerts no case holds yet join their
// customer's open case or open one, and any case or SAR submission whose workflow did not
// start (its start failed after the store committed) is started. A raising product only
// writes its alert in its own transaction and never waits on a workflow; this is the one
// durable path from an alert to its case.
func Gather(ctx workflow.Context, in GatherInput) (GatherResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue: workflows.QueueCases, StartToCloseTimeout: 5 * time.Minute, RetryPolicy: workflows.BookkeepingRetry(),
	})
	var total GatherResult
	for page := 0; page < 20; page++ { // a backlog is taken in pages; the next run takes the rest
		var res GatherResult
		if err := workflow.ExecuteActivity(ctx, ActivityGather, in).Get(ctx, &res); err != nil {
			return total, err
		}
		total.Gathered += res.Gathered
		total.Opened += res.Opened
		total.Started += res.Started
		if res.Gathered < in.Limit {
			break
		}
	}
	return total, nil
}
