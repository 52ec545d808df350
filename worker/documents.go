package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	docacts "github.com/svcplatform/svc/activities/documents"
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// registerDocuments registers the document workflows and their activities: everything on the
// documents queue except the text stage, which runs on its own queue where the worker takes
// about one activity per core (OCR is CPU-bound). The external programs are checked now: when
// one is missing the worker still starts (orchestration and webhooks do not need them), says
// so loudly (with the install command), and a document that needs a missing program fails at
// once, naming it.
func registerDocuments(q map[string]sdkworker.Worker, d Deps, hooks *hookacts.Activities) error {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	bl := d.Blobs
	engine := docintel.NewEngine(docintel.Config{Logger: d.Logger.With("component", "docintel")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := engine.CheckTools(ctx); err != nil {
		d.Logger.Error("documents are degraded: a document that needs a missing program fails at once with document.failed naming it", "error", err)
	}
	// Passwords are sealed with the platform's box (config secrets.key); without a key the
	// pipeline treats a stored password as absent.
	box, err := secrets.FromConfig(d.Config.Secrets.Key)
	if err != nil && !errors.Is(err, secrets.ErrNoKey) {
		return err
	}
	acts := &docacts.Activities{Store: d.Store, Blobs: bl, Engine: engine, Box: box, Publisher: hooks,
		Threshold: d.Config.Documents.Threshold, MaxFileBytes: d.Config.Documents.MaxUploadBytes, Logger: d.Logger}
	docs := q[workflows.QueueDocuments]
	docs.RegisterWorkflowWithOptions(docwf.DocumentPipeline, workflow.RegisterOptions{Name: docwf.DocumentPipelineName})
	docs.RegisterWorkflowWithOptions(docwf.DocumentCorrection, workflow.RegisterOptions{Name: docwf.DocumentCorrectionName})
	docs.RegisterActivity(acts)
	q[workflows.QueueDocumentsText].RegisterActivityWithOptions(acts.ReadDocumentText, activity.RegisterOptions{Name: docwf.ActivityReadDocumentText})
	return nil
}
