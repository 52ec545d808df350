// Package worker registers svc's workflows and activities on their task queues and runs them.
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/blobs"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
)

// Deps are what the workflows' activities need.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	Logger *slog.Logger
	// Registry receives the workers' own metrics (AI tokens and latency); nil keeps them private.
	Registry prometheus.Registerer
	// Blobs keeps uploads; nil opens the store that the configuration names (blobs.backend).
	Blobs blobs.Store
	// IdentityScreener screens people for the identity product; nil builds the screening API's
	// client with the organisations' service principal keys from config (worker/servicekeys.go).
	IdentityScreener idv.Screener
}

// Workers is one Temporal worker per task queue.
type Workers struct {
	workers []sdkworker.Worker
}

// New builds the workers and registers every workflow and activity on its queue.
func New(c client.Client, d Deps) (*Workers, error) {
	if d.Blobs == nil {
		bl, err := blobs.FromConfig(context.Background(), d.Config)
		if err != nil {
			return nil, fmt.Errorf("config: blobs: %w", err)
		}
		d.Blobs = bl
	}
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

// register is the one place that says which product's workflows and activities run on which
// queue: one line per product, each product's registration in worker/<product>.go. Webhooks
// come first: every product publishes its events through them.
func register(q map[string]sdkworker.Worker, c client.Client, d Deps) error {
	hooks, err := registerWebhooks(q, c, d)
	if err != nil {
		return err
	}
	ai, err := registerAutomation(q, d, hooks)
	if err != nil {
		return err
	}
	registerOrchestration(q, d, hooks, ai)
	if err := registerIdentity(q, c, d); err != nil {
		return err
	}
	registerFraud(q, d)
	if err := registerCases(q, c, d, hooks); err != nil {
		return err
	}
	if err := registerScreening(q, c, d, hooks); err != nil {
		return err
	}
	if err := registerStatements(q, d, hooks); err != nil {
		return err
	}
	registerMaintenance(q, c, d, hooks)
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
