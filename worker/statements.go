package worker

import (
	"errors"
	"log/slog"

	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	stmtacts "github.com/svcplatform/svc/activities/statements"
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/secrets"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/workflows"
	stmtwf "github.com/svcplatform/svc/workflows/statements"
)

// registerStatements registers the bank statement analysis workflows and their activities
// on the statements queue, and the PDFs' text stage on the documents' text queue (OCR is
// CPU-bound: one queue paces it for every product). The documents engine's programs are
// checked by registerDocuments; an analysis that needs a missing one fails naming it.
func registerStatements(q map[string]sdkworker.Worker, d Deps, hooks *hookacts.Activities) error {
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	box, err := secrets.FromConfig(d.Config.Secrets.Key)
	if err != nil && !errors.Is(err, secrets.ErrNoKey) {
		return err
	}
	acts := &stmtacts.Activities{Store: d.Store, Blobs: d.Blobs, Box: box, Publisher: hooks, Logger: log,
		Reader:       stmt.NewReader(docintel.Config{Logger: log.With("component", "statements")}),
		MaxFileBytes: d.Config.Documents.MaxUploadBytes}
	w := q[workflows.QueueStatements]
	w.RegisterWorkflowWithOptions(stmtwf.AnalysisPipeline, workflow.RegisterOptions{Name: stmtwf.AnalysisPipelineName})
	w.RegisterWorkflowWithOptions(stmtwf.AnalysisCorrection, workflow.RegisterOptions{Name: stmtwf.AnalysisCorrectionName})
	w.RegisterActivity(acts)
	q[workflows.QueueDocumentsText].RegisterActivityWithOptions(acts.ReadAnalysisText, activity.RegisterOptions{Name: stmtwf.ActivityReadAnalysisText})
	return nil
}
