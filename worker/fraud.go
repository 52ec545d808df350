package worker

import (
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	fraudacts "github.com/svcplatform/svc/activities/fraud"
	"github.com/svcplatform/svc/workflows"
	fraudwf "github.com/svcplatform/svc/workflows/fraud"
)

// registerFraud registers the fraud product's backtest workflow and its activities on the fraud
// queue. Decisions never run here: they are the API's fast path.
func registerFraud(q map[string]sdkworker.Worker, d Deps) {
	w := q[workflows.QueueFraud]
	w.RegisterWorkflowWithOptions(fraudwf.Backtest, workflow.RegisterOptions{Name: fraudwf.BacktestName})
	acts := &fraudacts.Activities{Store: d.Store}
	w.RegisterActivityWithOptions(acts.ReplayPage, activity.RegisterOptions{Name: fraudwf.ActivityReplayPage})
	w.RegisterActivityWithOptions(acts.Save, activity.RegisterOptions{Name: fraudwf.ActivitySaveBacktest})
}
