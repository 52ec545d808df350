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
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/workflows"
	mntwf "github.com/svcplatform/svc/workflows/maintenance"
)

// registerMaintenance registers the platform's housekeeping on the maintenance queue and
// makes sure its Schedule exists.
func registerMaintenance(q map[string]sdkworker.Worker, c client.Client, d Deps, hooks *hookacts.Activities) {
	w := q[workflows.QueueMaintenance]
	w.RegisterWorkflowWithOptions(mntwf.Retention, workflow.RegisterOptions{Name: mntwf.RetentionName})
	acts := &mntacts.Activities{Store: d.Store}
	w.RegisterActivityWithOptions(acts.PruneDeliveries, activity.RegisterOptions{Name: mntwf.ActivityPruneDeliveries})
	w.RegisterActivityWithOptions(acts.PruneEvents, activity.RegisterOptions{Name: mntwf.ActivityPruneEvents})
	w.RegisterActivityWithOptions(acts.PruneIdempotency, activity.RegisterOptions{Name: mntwf.ActivityPruneIdempotency})
	w.RegisterActivityWithOptions(acts.PruneRateLimitCounters, activity.RegisterOptions{Name: mntwf.ActivityPruneRateLimitCounters})
	w.RegisterWorkflowWithOptions(mntwf.Reconcile, workflow.RegisterOptions{Name: mntwf.ReconcileName})
	rec := &mntacts.Reconciler{Store: d.Store, Temporal: c, Namespace: d.Config.Temporal.Namespace, Publisher: hooks}
	w.RegisterActivityWithOptions(rec.ReconcileEndedRuns, activity.RegisterOptions{Name: mntwf.ActivityReconcileEnded})
	ensureMaintenanceSchedules(c, d)
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

// ensureMaintenanceSchedules creates the retention and reconcile Schedules once per namespace
// (a second worker finds them there). A failure is logged, not fatal: nothing else depends on them.
func ensureMaintenanceSchedules(c client.Client, d Deps) {
	if c == nil {
		return
	}
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	schedules := []struct {
		id, workflow string
		every        time.Duration
		arg          any
		unless       string
	}{
		{mntwf.RetentionScheduleID, mntwf.RetentionName, d.Config.Retention.Every, RetentionInput(d),
			"events, deliveries and expired records are not pruned"},
		{mntwf.ReconcileScheduleID, mntwf.ReconcileName, d.Config.Reconcile.Every, mntwf.ReconcileInput{Lookback: d.Config.Reconcile.Lookback},
			"records of runs terminated in the Temporal UI stay running"},
	}
	for _, s := range schedules {
		_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
			ID:      s.id,
			Spec:    client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: s.every}}},
			Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
			Action: &client.ScheduleWorkflowAction{ID: s.id, Workflow: s.workflow, TaskQueue: workflows.QueueMaintenance,
				Args: []any{s.arg}, StaticSummary: "svc maintenance: " + s.workflow},
		})
		if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
			log.Error(s.id+" schedule not created: "+s.unless, "error", err)
		}
	}
}
