package maintenance

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the reconciler, its Schedule and its activity, as registered.
const (
	ReconcileName           = "Reconcile"
	ReconcileScheduleID     = "svc-reconcile"
	ActivityReconcileEnded  = "ReconcileEndedRuns"
	reconcileActivityBudget = 10 * time.Minute
)

// ReconcileInput configures a reconcile run: runs that closed within Lookback before the run's start are checked.
// Checking a run twice changes nothing (the records' writes are conditional and the events'
// ids derive from the run), so the lookback may overlap the previous run's.
type ReconcileInput struct {
	Lookback time.Duration
}

// ReconcileRunsInput is the activity's argument.
type ReconcileRunsInput struct {
	ClosedAfter time.Time
}

// ReconcileResult counts what one reconcile found and ended.
type ReconcileResult struct {
	Checked    int
	Executions int
	Documents  int
}

// Reconcile ends the records of executions and documents whose Temporal run an operator
// terminated (or that timed out) from outside their workflow, e.g. in the Temporal UI: their
// workflow never got to record its end, so their rows would stay running for ever.
func Reconcile(ctx workflow.Context, in ReconcileInput) (ReconcileResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: reconcileActivityBudget,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumInterval: time.Minute, MaximumAttempts: 5},
		Summary:             "end the records of runs ended outside their workflow",
	})
	var out ReconcileResult
	err := workflow.ExecuteActivity(ctx, ActivityReconcileEnded, ReconcileRunsInput{ClosedAfter: workflow.Now(ctx).Add(-in.Lookback)}).Get(ctx, &out)
	return out, err
}
