// Package worker registers svc's workflows and activities on their task queues and runs them.
package worker

import (
	"fmt"
	"log/slog"
	"runtime"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
)

// Deps are what the workflows' activities need.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	Logger *slog.Logger
}

// Workers is one Temporal worker per task queue.
type Workers struct {
	workers []sdkworker.Worker
}

// New builds the workers and registers every workflow and activity on its queue.
func New(c client.Client, d Deps) (*Workers, error) {
	byQueue := map[string]sdkworker.Worker{}
	for _, q := range workflows.Queues {
		opts := sdkworker.Options{}
		if q == workflows.QueueDocumentsText {
			// OCR is CPU-bound and single-threaded per document: about one at a time per core.
			opts.MaxConcurrentActivityExecutionSize = runtime.NumCPU()
		}
		byQueue[q] = sdkworker.New(c, q, opts)
	}
	if err := register(byQueue, c, d); err != nil {
		return nil, err
	}
	w := &Workers{}
	for _, q := range workflows.Queues {
		w.workers = append(w.workers, byQueue[q])
	}
	return w, nil
}

// register is the one place that says which workflow and activity runs on which queue.
func register(q map[string]sdkworker.Worker, c client.Client, d Deps) error {
	orch := q[workflows.QueueOrchestration]
	orch.RegisterWorkflowWithOptions(workflows.Ping, workflow.RegisterOptions{Name: "Ping"})
	ping := &activities.Ping{Store: d.Store}
	orch.RegisterActivityWithOptions(ping.CompletePing, activity.RegisterOptions{Name: workflows.ActivityCompletePing})

	// Webhooks: the delivery ladder and its attempts, and publishing (any workflow's PublishEvent runs here).
	hooks, err := activities.NewWebhooks(d.Config, d.Store, c, d.Logger)
	if err != nil {
		return err
	}
	wh := q[workflows.QueueWebhooks]
	wh.RegisterWorkflowWithOptions(workflows.WebhookDelivery, workflow.RegisterOptions{Name: workflows.WebhookDeliveryName})
	wh.RegisterActivityWithOptions(hooks.AttemptWebhookDelivery, activity.RegisterOptions{Name: workflows.ActivityAttemptWebhookDelivery})
	wh.RegisterActivityWithOptions(hooks.DropWebhookDelivery, activity.RegisterOptions{Name: workflows.ActivityDropWebhookDelivery})
	wh.RegisterActivityWithOptions(hooks.PublishEvent, activity.RegisterOptions{Name: workflows.ActivityPublishEvent})

	// Orchestration: the Execution workflow and its activities (registered under their method
	// names). http nodes go through the webhooks' SSRF guard, with no client-wide timeout: each
	// node applies its own (up to orchestration.MaxHTTPTimeout).
	orch.RegisterWorkflowWithOptions(workflows.Execution, workflow.RegisterOptions{Name: workflows.ExecutionWorkflowName})
	orch.RegisterActivity(&activities.Orchestration{Store: d.Store, Publisher: hooks, HTTP: hooks.Guard.Client()})

	// Documents: the pipeline, corrections and their activities (worker/documents.go).
	return registerDocuments(q, d, hooks)
}

// Start starts polling every queue.
func (w *Workers) Start() error {
	for i, wk := range w.workers {
		if err := wk.Start(); err != nil {
			for _, started := range w.workers[:i] {
				started.Stop()
			}
			return fmt.Errorf("worker: start: %w", err)
		}
	}
	return nil
}

// Stop stops polling and waits for running activities to finish.
func (w *Workers) Stop() {
	for _, wk := range w.workers {
		wk.Stop()
	}
}
