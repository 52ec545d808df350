package identity

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Retention deletes the images and extracted data of the attempts that completed more than
// in.Retention ago, in batches, until none is left. The retention Schedule starts it
// (RetentionScheduleID); the decisions, checks and reason codes stay.
func Retention(ctx workflow.Context, in RetentionInput) (PurgeResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumInterval: time.Minute, MaximumAttempts: 5},
		Summary:             "delete expired identity data",
	})
	before := workflow.Now(ctx).Add(-in.Retention)
	var total PurgeResult
	for {
		var r PurgeResult
		if err := workflow.ExecuteActivity(ctx, ActivityPurge, PurgeInput{Before: before, Limit: PurgeBatch}).Get(ctx, &r); err != nil {
			return total, err
		}
		total.Attempts += r.Attempts
		total.Images += r.Images
		if r.Attempts < PurgeBatch {
			return total, nil
		}
	}
}
