package worker

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"

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
// The screener is d.IdentityScreener, else the screening API at the configured URL with the
// organisation's service key (identityScreener); without one, policies that require screening
// go to review (screening_unavailable).
func registerIdentity(q map[string]sdkworker.Worker, c client.Client, d Deps) error {
	bl := d.Blobs
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	if d.IdentityScreener == nil {
		sc, err := identityScreener(d.Config, d.Store, log)
		if err != nil {
			return err
		}
		if sc != nil {
			d.IdentityScreener = sc
		}
	}
	reg := d.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	acts := &idvacts.Activities{Store: d.Store, Blobs: bl, Logger: log,
		Engine: docintel.NewEngine(docintel.Config{Logger: log.With("component", "identity")}),
		Checks: idv.DefaultChecks(nil), Screener: d.IdentityScreener,
		MaxFileBytes: d.Config.Documents.MaxUploadBytes, Metrics: idvacts.NewMetrics(reg)}
	w := q[workflows.QueueIdentity]
	w.RegisterWorkflowWithOptions(idvwf.Verification, workflow.RegisterOptions{Name: idvwf.VerificationName})
	w.RegisterWorkflowWithOptions(idvwf.Retention, workflow.RegisterOptions{Name: idvwf.RetentionName})
	w.RegisterActivity(acts)
	q[workflows.QueueDocumentsText].RegisterActivityWithOptions(acts.ReadIdentityDocument, activity.RegisterOptions{Name: idvwf.ActivityReadDocument})
	ensureSchedules(c, log, schedule{id: idvwf.RetentionScheduleID, workflow: idvwf.RetentionName, queue: workflows.QueueIdentity,
		every: d.Config.Identity.PurgeEvery, arg: idvwf.RetentionInput{Retention: d.Config.Identity.Retention},
		unless: "expired identity data is not deleted"})
	return nil
}
