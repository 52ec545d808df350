package worker

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	caseacts "github.com/svcplatform/svc/activities/cases"
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/workflows"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// registerCases registers the cases product on the cases queue (the Case workflow of each
// case, the gathering, the SAR submissions) and keeps the gathering Schedule.
func registerCases(q map[string]sdkworker.Worker, c client.Client, d Deps, hooks *hookacts.Activities) error {
	acts, err := caseacts.New(d.Config, d.Store, c, hooks, d.Logger)
	if err != nil {
		return err
	}
	w := q[workflows.QueueCases]
	w.RegisterWorkflowWithOptions(casewf.Case, workflow.RegisterOptions{Name: casewf.CaseName})
	w.RegisterWorkflowWithOptions(casewf.Gather, workflow.RegisterOptions{Name: casewf.GatherName})
	w.RegisterWorkflowWithOptions(casewf.SARSubmission, workflow.RegisterOptions{Name: casewf.SARSubmissionName})
	for name, fn := range map[string]any{
		casewf.ActivityCaseStarted: acts.CaseStarted, casewf.ActivityApplyChange: acts.ApplyChange,
		casewf.ActivityRecordOverdue: acts.RecordOverdue, casewf.ActivityGather: acts.Gather,
		casewf.ActivityRenderSAR: acts.RenderSAR, casewf.ActivityDeliverSAR: acts.DeliverSAR, casewf.ActivityRecordAnswer: acts.RecordAnswer,
	} {
		w.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	cfg := d.Config.Cases
	ensureSchedules(c, d.Logger, schedule{id: casewf.GatherScheduleID, workflow: casewf.GatherName, queue: workflows.QueueCases,
		every: cfg.GatherEvery, arg: casewf.GatherInput{Window: cfg.GatherWindow, DueIn: cfg.DueIn, Limit: 200},
		unless: "alerts are not gathered into cases"})
	return nil
}
