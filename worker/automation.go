package worker

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	autoacts "github.com/svcplatform/svc/activities/automation"
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/workflows"
	autowf "github.com/svcplatform/svc/workflows/automation"
)

// registerAutomation builds the AI automation product's activities from config ai.* (the
// provider behind the SSRF guard, the daily budget on the store's ledger, the audit policy,
// metrics on d.Registry) and registers the AutomationRun workflow and its activities on the
// automation queue. It returns the activities, whose model step the orchestration ai node uses.
func registerAutomation(q map[string]sdkworker.Worker, d Deps, hooks *hookacts.Activities) (*autoacts.Activities, error) {
	ai := d.Config.AI
	model, err := automation.NewModel(automation.ProviderConfig{BaseURL: ai.BaseURL, Model: ai.Model, APIKey: ai.APIKey, AllowCIDRs: ai.AllowCIDRs})
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	bl := d.Blobs
	box, err := secrets.FromConfig(d.Config.Secrets.Key)
	if err != nil && !errors.Is(err, secrets.ErrNoKey) {
		return nil, err
	}
	reg := d.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	acts := &autoacts.Activities{
		Runner: &automation.Runner{
			Model:   model,
			Budget:  automation.Budget{DailyTokens: ai.DailyTokens, Limits: d.Store.Automation, Ledger: d.Store.Automation},
			Observe: autoacts.NewMetrics(reg).Observe,
		},
		Store: d.Store, Publisher: hooks, Audit: automation.AuditPolicy(ai.Audit), Logger: d.Logger,
		RunDeps: autoacts.RunDeps{Blobs: bl, Box: box, Cases: d.Store.Cases},
	}
	w := q[workflows.QueueAutomation]
	w.RegisterWorkflowWithOptions(autowf.Run, workflow.RegisterOptions{Name: autowf.RunWorkflowName})
	w.RegisterActivityWithOptions(acts.RunAutomation, activity.RegisterOptions{Name: autowf.ActivityRunAutomation})
	w.RegisterActivityWithOptions(acts.FinishAutomation, activity.RegisterOptions{Name: autowf.ActivityFinishAutomation})
	return acts, nil
}
