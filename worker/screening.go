package worker

import (
	"fmt"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	scracts "github.com/svcplatform/svc/activities/screening"
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/internal/netguard"
	"github.com/svcplatform/svc/workflows"
	scrwf "github.com/svcplatform/svc/workflows/screening"
)

// registerScreening registers the screening product's list refresh and monitoring rescreens
// on the screening queue and keeps the refresh Schedule (when screening.sources names any).
func registerScreening(q map[string]sdkworker.Worker, c client.Client, d Deps, hooks *hookacts.Activities) error {
	w := q[workflows.QueueScreening]
	w.RegisterWorkflowWithOptions(scrwf.Refresh, workflow.RegisterOptions{Name: scrwf.RefreshName})
	w.RegisterWorkflowWithOptions(scrwf.Rescreen, workflow.RegisterOptions{Name: scrwf.RescreenName})
	w.RegisterWorkflowWithOptions(scrwf.CustomerRescreen, workflow.RegisterOptions{Name: scrwf.CustomerRescreenName})
	cfg := d.Config.Screening
	g, err := netguard.New(netguard.Config{AllowCIDRs: cfg.AllowCIDRs})
	if err != nil {
		return fmt.Errorf("config: screening.allow_cidrs: %w", err)
	}
	sc := scracts.NewScreener(d.Store, hooks, d.Logger)
	sc.Threshold = cfg.Threshold
	acts := &scracts.Activities{Screener: sc, HTTP: g.Client()}
	w.RegisterActivityWithOptions(acts.RefreshList, activity.RegisterOptions{Name: scrwf.ActivityRefreshList})
	w.RegisterActivityWithOptions(acts.RescreenBatch, activity.RegisterOptions{Name: scrwf.ActivityRescreenBatch})
	w.RegisterActivityWithOptions(acts.RescreenCustomer, activity.RegisterOptions{Name: scrwf.ActivityRescreenCustomer})
	if len(cfg.Sources) > 0 {
		ensureSchedules(c, d.Logger, schedule{id: scrwf.RefreshScheduleID, workflow: scrwf.RefreshName, queue: workflows.QueueScreening,
			every: cfg.RefreshEvery, arg: scrwf.RefreshInput{Sources: cfg.Sources, Batch: cfg.RescreenBatch},
			unless: "screening lists are not refreshed from screening.sources"})
	}
	return nil
}
