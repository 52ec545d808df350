package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/blobs"
	"github.com/svcplatform/svc/docintel"
	"github.com/svcplatform/svc/workflows"
)

// registerDocuments registers the document workflows and their activities: everything on the
// documents queue except the text stage, which runs on its own queue where the worker takes
// about one activity per core (OCR is CPU-bound). The external programs are checked now: when
// one is missing the worker still starts (orchestration and webhooks do not need them), says
// so loudly, and documents fail in their text stage after its retries.
func registerDocuments(q map[string]sdkworker.Worker, d Deps, hooks *activities.Webhooks) error {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	bl, err := blobs.NewLocal(d.Config.BlobDir())
	if err != nil {
		return fmt.Errorf("config: documents.blob_dir: %w", err)
	}
	engine := docintel.NewEngine(docintel.Config{Logger: d.Logger.With("component", "docintel")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := engine.CheckTools(ctx); err != nil {
		d.Logger.Error("document tools are missing: documents will fail in their text stage (install docintel/APT_PACKAGES)", "error", err)
	}
	acts := &activities.Documents{Store: d.Store, Blobs: bl, Engine: engine, Box: hooks.Box, Publisher: hooks,
		Threshold: d.Config.Documents.Threshold, MaxFileBytes: d.Config.Documents.MaxUploadBytes, Logger: d.Logger}
	docs := q[workflows.QueueDocuments]
	docs.RegisterWorkflowWithOptions(workflows.DocumentPipeline, workflow.RegisterOptions{Name: workflows.DocumentPipelineName})
	docs.RegisterWorkflowWithOptions(workflows.DocumentCorrection, workflow.RegisterOptions{Name: workflows.DocumentCorrectionName})
	docs.RegisterActivity(acts)
	q[workflows.QueueDocumentsText].RegisterActivityWithOptions(acts.ReadDocumentText, activity.RegisterOptions{Name: workflows.ActivityReadDocumentText})
	return nil
}
