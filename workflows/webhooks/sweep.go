package webhooks

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the stranded-delivery sweep, its Schedule and its activity, as registered.
const (
	SweepName             = "WebhookSweep"
	SweepScheduleID       = "svc-webhook-sweep"
	ActivitySweepStranded = "SweepStrandedDeliveries"
	// SweepEvery is how often the sweep runs; SweepGrace is how old a never-attempted delivery
	// must be: longer than any inline first attempt (its wait plus a receiver's timeout).
	SweepEvery = time.Minute
	SweepGrace = 3 * time.Minute
	SweepBatch = 500
)

// SweepInput configures one sweep: deliveries never attempted, written over Grace ago, Batch at most.
type SweepInput struct {
	Grace time.Duration
	Batch int
}

// SweepResult counts the ladders a sweep started.
type SweepResult struct {
	Started int
}

// WebhookSweep starts the ladders of deliveries that were written and never attempted: an API
// process that decides on the fast path writes its events with its decision and attempts them
// after its commit, and may die in between. Run by a Schedule; nothing is sent twice (each
// delivery has one ladder workflow id).
func WebhookSweep(ctx workflow.Context, in SweepInput) (SweepResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumInterval: time.Minute, MaximumAttempts: 5},
		Summary:             "start the ladders of deliveries never attempted",
	})
	var out SweepResult
	err := workflow.ExecuteActivity(ctx, ActivitySweepStranded, in).Get(ctx, &out)
	return out, err
}
