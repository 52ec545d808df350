package bench

import (
	"context"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// phases is where one run's time went, read from its history's event times (the server's
// clock, the same as the benchmark's: one process).
type phases struct {
	// api: from the start request to WorkflowExecutionStarted (HTTP, key, rate limit, execution
	// row, audit record, the start call).
	api time.Duration
	// taskQueue: workflow tasks waiting for the worker (scheduled → started), summed.
	taskQueue time.Duration
	// taskRun: workflow tasks running (started → completed): workflow code and, in runs of
	// local bookkeeping, the local activities run in them; summed.
	taskRun time.Duration
	// activityQueue and activityRun: regular activities waiting for a worker and running.
	activityQueue, activityRun time.Duration
	// tasks and activities count the workflow tasks and regular activities.
	tasks, activities int
}

// historyPhases reads the phases of workflow id's latest run; start is when it was requested.
func historyPhases(ctx context.Context, c client.Client, id string, start time.Time) (phases, error) {
	var p phases
	scheduled := map[int64]time.Time{}
	started := map[int64]time.Time{}
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return p, err
		}
		at := ev.GetEventTime().AsTime()
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			p.api = at.Sub(start)
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			scheduled[ev.GetEventId()] = at
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			a := ev.GetWorkflowTaskStartedEventAttributes()
			p.taskQueue += at.Sub(scheduled[a.GetScheduledEventId()])
			started[ev.GetEventId()] = at
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			a := ev.GetWorkflowTaskCompletedEventAttributes()
			p.taskRun += at.Sub(started[a.GetStartedEventId()])
			p.tasks++
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := ev.GetActivityTaskStartedEventAttributes()
			p.activityQueue += at.Sub(scheduled[a.GetScheduledEventId()])
			started[ev.GetEventId()] = at
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			a := ev.GetActivityTaskCompletedEventAttributes()
			p.activityRun += at.Sub(started[a.GetStartedEventId()])
			p.activities++
		}
	}
	return p, nil
}
