// Package maintenance holds the platform's own housekeeping workflows, started by Temporal
// Schedules that the worker creates: retention (pruning what is kept only for a while).
package maintenance

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the workflow, its Schedule and its activities, as registered.
const (
	RetentionName       = "Retention"
	RetentionScheduleID = "svc-retention"

	ActivityPruneDeliveries        = "PruneDeliveries"
	ActivityPruneEvents            = "PruneEvents"
	ActivityPruneIdempotency       = "PruneIdempotency"
	ActivityPruneRateLimitCounters = "PruneRateLimitCounters"
	ActivityPruneDocumentFiles     = "PruneDocumentFiles"
	ActivityPruneFraudVelocity     = "PruneFraudVelocity"
)

// Prune is one kind of row to prune: the activity that prunes it and how long it is kept.
// A zero Window prunes what has expired by its own clock (idempotency records, counters).
type Prune struct {
	Activity string
	Window   time.Duration
}

// RetentionInput lists the prunes in the order they run (deliveries before the events they
// refer to), the batch size of one activity call, and a bound on batches per kind per run so
// that one run's history stays small: what is left waits for the next run.
type RetentionInput struct {
	Prunes     []Prune
	Batch      int
	MaxBatches int
}

// PruneInput asks an activity to delete at most Limit rows older than Before.
type PruneInput struct {
	Before time.Time
	Limit  int
}

// RetentionResult counts the rows deleted, by activity.
type RetentionResult struct {
	Deleted map[string]int64
}

// Retention runs each prune batch after batch until a batch is not full (nothing older is
// left) or MaxBatches is reached.
func Retention(ctx workflow.Context, in RetentionInput) (RetentionResult, error) {
	now := workflow.Now(ctx)
	out := RetentionResult{Deleted: map[string]int64{}}
	for _, p := range in.Prunes {
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 2 * time.Minute,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumInterval: time.Minute, MaximumAttempts: 5},
			Summary:             "retention: " + p.Activity,
		})
		for range max(in.MaxBatches, 1) {
			var n int64
			if err := workflow.ExecuteActivity(actx, p.Activity, PruneInput{Before: now.Add(-p.Window), Limit: in.Batch}).Get(actx, &n); err != nil {
				return out, err
			}
			out.Deleted[p.Activity] += n
			if n < int64(in.Batch) {
				break
			}
		}
	}
	return out, nil
}
