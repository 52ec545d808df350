package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	idvacts "github.com/svcplatform/svc/activities/identity"
	docintel "github.com/svcplatform/svc/internal/documents"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/workflows"
	idvwf "github.com/svcplatform/svc/workflows/identity"
)

// registerIdentity registers the identity verification workflow and its activities on the
// identity queue, and the document reading on the OCR queue beside the documents' text stage.
// No screening product is connected yet: policies that require screening go to review.
func registerIdentity(q map[string]sdkworker.Worker, c client.Client, d Deps) error {
	bl := d.Blobs
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	acts := &idvacts.Activities{Store: d.Store, Blobs: bl, Logger: log,
		Engine:       docintel.NewEngine(docintel.Config{Logger: log.With("component", "identity")}),
		Checks:       idv.DefaultChecks(nil),
		MaxFileBytes: d.Config.Documents.MaxUploadBytes}
	w := q[workflows.QueueIdentity]
	w.RegisterWorkflowWithOptions(idvwf.Verification, workflow.RegisterOptions{Name: idvwf.VerificationName})
	w.RegisterWorkflowWithOptions(idvwf.Retention, workflow.RegisterOptions{Name: idvwf.RetentionName})
	w.RegisterActivity(acts)
	q[workflows.QueueDocumentsText].RegisterActivityWithOptions(acts.ReadIdentityDocument, activity.RegisterOptions{Name: idvwf.ActivityReadDocument})
	ensureRetentionSchedule(c, d, log)
	return nil
}

// ensureRetentionSchedule creates the Temporal Schedule that deletes expired identity data
// (config identity.retention, every identity.purge_every), once per namespace: a second
// worker finds it there. A failure is logged, not fatal: verifications still run.
func ensureRetentionSchedule(c client.Client, d Deps, log *slog.Logger) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:      idvwf.RetentionScheduleID,
		Spec:    client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: d.Config.Identity.PurgeEvery}}},
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Action: &client.ScheduleWorkflowAction{ID: idvwf.RetentionScheduleID, Workflow: idvwf.RetentionName, TaskQueue: workflows.QueueIdentity,
			Args: []any{idvwf.RetentionInput{Retention: d.Config.Identity.Retention}}},
	})
	if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		log.Error("identity retention schedule not created: expired identity data is not deleted", "error", err)
	}
}
