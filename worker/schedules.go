package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// schedule is one Temporal Schedule a worker keeps: its workflow runs on queue every every,
// with arg; unless says what does not happen when it cannot be kept.
type schedule struct {
	id, workflow, queue string
	every               time.Duration
	arg                 any
	unless              string
}

// ensureSchedules creates each Schedule, or, when a worker created it before, updates its
// interval and argument to this worker's configuration (a changed retention window applies
// at the next start). Workers started together write the same values. A failure is logged,
// not fatal: nothing else depends on a Schedule.
func ensureSchedules(c client.Client, log *slog.Logger, schedules ...schedule) {
	if c == nil {
		return
	}
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, s := range schedules {
		spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: s.every}}}
		action := &client.ScheduleWorkflowAction{ID: s.id, Workflow: s.workflow, TaskQueue: s.queue,
			Args: []any{s.arg}, StaticSummary: "svc schedule: " + s.workflow}
		_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
			ID: s.id, Spec: spec, Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP, Action: action,
		})
		if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
			err = c.ScheduleClient().GetHandle(ctx, s.id).Update(ctx, client.ScheduleUpdateOptions{
				DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
					sc := in.Description.Schedule
					sc.Spec, sc.Action = &spec, action
					return &client.ScheduleUpdate{Schedule: &sc}, nil
				},
			})
		}
		if err != nil {
			log.Error(s.id+" schedule not kept: "+s.unless, "error", err)
		}
	}
}
