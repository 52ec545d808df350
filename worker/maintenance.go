package worker

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
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
	acts := &mntacts.Activities{Store: d.Store, Blobs: d.Blobs}
	w.RegisterActivityWithOptions(acts.PruneDeliveries, activity.RegisterOptions{Name: mntwf.ActivityPruneDeliveries})
	w.RegisterActivityWithOptions(acts.PruneEvents, activity.RegisterOptions{Name: mntwf.ActivityPruneEvents})
	w.RegisterActivityWithOptions(acts.PruneIdempotency, activity.RegisterOptions{Name: mntwf.ActivityPruneIdempotency})
	w.RegisterActivityWithOptions(acts.PruneRateLimitCounters, activity.RegisterOptions{Name: mntwf.ActivityPruneRateLimitCounters})
	w.RegisterActivityWithOptions(acts.PruneDocumentFiles, activity.RegisterOptions{Name: mntwf.ActivityPruneDocumentFiles})
	w.RegisterActivityWithOptions(acts.PruneFraudVelocity, activity.RegisterOptions{Name: mntwf.ActivityPruneFraudVelocity})
	w.RegisterWorkflowWithOptions(mntwf.Reconcile, workflow.RegisterOptions{Name: mntwf.ReconcileName})
	rec := &mntacts.Reconciler{Store: d.Store, Temporal: c, Namespace: d.Config.Temporal.Namespace, Publisher: hooks}
	w.RegisterActivityWithOptions(rec.ReconcileEndedRuns, activity.RegisterOptions{Name: mntwf.ActivityReconcileEnded})
	ensureSchedules(c, d.Logger,
		schedule{id: mntwf.RetentionScheduleID, workflow: mntwf.RetentionName, queue: workflows.QueueMaintenance,
			every: d.Config.Retention.Every, arg: RetentionInput(d), unless: "events, deliveries, expired records, old velocity rows and old files are not pruned"},
		schedule{id: mntwf.ReconcileScheduleID, workflow: mntwf.ReconcileName, queue: workflows.QueueMaintenance,
			every: d.Config.Reconcile.Every, arg: mntwf.ReconcileInput{Lookback: d.Config.Reconcile.Lookback},
			unless: "records of runs terminated in the Temporal UI stay running"})
}

// RetentionInput is what the retention Schedule runs with, from config retention.*.
func RetentionInput(d Deps) mntwf.RetentionInput {
	r := d.Config.Retention
	in := mntwf.RetentionInput{Batch: r.Batch, MaxBatches: 200, Prunes: []mntwf.Prune{
		{Activity: mntwf.ActivityPruneDeliveries, Window: r.Events},
		{Activity: mntwf.ActivityPruneEvents, Window: r.Events},
		{Activity: mntwf.ActivityPruneIdempotency},
		{Activity: mntwf.ActivityPruneRateLimitCounters},
		{Activity: mntwf.ActivityPruneFraudVelocity, Window: r.FraudVelocity},
	}}
	if r.Files > 0 {
		in.Prunes = append(in.Prunes, mntwf.Prune{Activity: mntwf.ActivityPruneDocumentFiles, Window: r.Files})
	}
	return in
}
