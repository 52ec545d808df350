package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	mntacts "github.com/svcplatform/svc/activities/maintenance"
	"github.com/svcplatform/svc/workflows"
	mntwf "github.com/svcplatform/svc/workflows/maintenance"
)

// registerMaintenance registers the platform's housekeeping on the maintenance queue and
// makes sure its Schedule exists.
func registerMaintenance(q map[string]sdkworker.Worker, c client.Client, d Deps) {
	w := q[workflows.QueueMaintenance]
	w.RegisterWorkflowWithOptions(mntwf.Retention, workflow.RegisterOptions{Name: mntwf.RetentionName})
	acts := &mntacts.Activities{Store: d.Store}
	w.RegisterActivityWithOptions(acts.PruneDeliveries, activity.RegisterOptions{Name: mntwf.ActivityPruneDeliveries})
	w.RegisterActivityWithOptions(acts.PruneEvents, activity.RegisterOptions{Name: mntwf.ActivityPruneEvents})
	w.RegisterActivityWithOptions(acts.PruneIdempotency, activity.RegisterOptions{Name: mntwf.ActivityPruneIdempotency})
	w.RegisterActivityWithOptions(acts.PruneRateLimitCounters, activity.RegisterOptions{Name: mntwf.ActivityPruneRateLimitCounters})
	ensureMaintenanceSchedule(c, d)
}

// RetentionInput is what the retention Schedule runs with, from config retention.*.
func RetentionInput(d Deps) mntwf.RetentionInput {
	r := d.Config.Retention
	return mntwf.RetentionInput{Batch: r.Batch, MaxBatches: 200, Prunes: []mntwf.Prune{
		{Activity: mntwf.ActivityPruneDeliveries, Window: r.Events},
		{Activity: mntwf.ActivityPruneEvents, Window: r.Events},
		{Activity: mntwf.ActivityPruneIdempotency},
		{Activity: mntwf.ActivityPruneRateLimitCounters},
	}}
}

// ensureMaintenanceSchedule creates the retention Schedule once per namespace (a second
// worker finds it there). A failure is logged, not fatal: nothing else depends on it.
func ensureMaintenanceSchedule(c client.Client, d Deps) {
	if c == nil {
		return
	}
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:      mntwf.RetentionScheduleID,
		Spec:    client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: d.Config.Retention.Every}}},
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Action: &client.ScheduleWorkflowAction{ID: mntwf.RetentionScheduleID, Workflow: mntwf.RetentionName,
			TaskQueue: workflows.QueueMaintenance, Args: []any{RetentionInput(d)}},
	})
	if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		log.Error("retention schedule not created: events, deliveries and expired records are not pruned", "error", err)
	}
}
