// Package automation holds the AI automation product's workflows: one run of a built-in
// automation (case summary, SAR draft, document fields), started by the API.
package automation

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/workflows"
)

// Names of the AutomationRun workflow and its activities (methods of
// activities/automation.Activities).
const (
	RunWorkflowName          = "AutomationRun"
	ActivityRunAutomation    = "RunAutomation"
	ActivityFinishAutomation = "FinishAutomation"
)

// Run statuses.
const (
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// RunInput starts one run: ids only; RunAutomation loads the material (inputs by reference,
// so neither the document text nor the case file enters the history).
type RunInput struct {
	RunID      string `json:"runId"`
	OrgID      string `json:"orgId"`
	Kind       string `json:"kind"`
	SubjectID  string `json:"subjectId"`
	ExternalID string `json:"externalId,omitempty"`
	// RequestedBy is the user who asked for the run (usr_; "" for a key bound to no user).
	// A SAR draft names them as its drafter, so that another person must submit it.
	RequestedBy string `json:"requestedBy,omitempty"`
}

// RunOutcome is what RunAutomation returns; the result itself is in the store.
type RunOutcome struct {
	// ResultStatus is the subject's state the result put it in (document fields:
	// requires_review), "" when the subject's state did not change.
	ResultStatus string
	Model        string
	Usage        automation.Usage
}

// FinishRunInput records a run's end and publishes automation.completed or automation.failed.
type FinishRunInput struct {
	RunID       string
	OrgID       string
	Status      string
	Error       string
	CompletedAt time.Time
	Event       workflows.PublishEventInput
}

// RunStartOptions are the start options of a run: workflow id = run id on the automation queue, found by OrgId and the
// automation kind (WorkflowSlug).
func RunStartOptions(in RunInput) client.StartWorkflowOptions {
	return workflows.ProductStart(in.RunID, workflows.QueueAutomation, in.Kind+" "+in.SubjectID, in.OrgID, in.Kind, in.ExternalID)
}

// Run runs one automation: RunAutomation (the model step, with the ai node's retry policy:
// a 429 waits the provider's Retry-After, final errors are not retried), then
// FinishAutomation with the event that tells the organisation.
func Run(ctx workflow.Context, in RunInput) (RunOutcome, error) {
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Asking the model: %s of %s", in.Kind, in.SubjectID))
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Duration(automation.MaxAnswerAttempts)*automation.DefaultTimeout + 30*time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: automation.MaxActivityAttempts, NonRetryableErrorTypes: []string{automation.ErrTypeFinal},
		},
		Summary: in.Kind + " " + in.SubjectID,
	})
	var out RunOutcome
	runErr := workflow.ExecuteActivity(actx, ActivityRunAutomation, in).Get(ctx, &out)
	fin := FinishRunInput{RunID: in.RunID, OrgID: in.OrgID, Status: StatusCompleted, CompletedAt: workflow.Now(ctx).UTC()}
	if runErr != nil {
		fin.Status, fin.Error = StatusFailed, cause(runErr)
		fin.Event = workflows.EventInput(ctx, in.OrgID, in.RunID, events.AutomationFailed, "failed", map[string]any{
			"automationId": in.RunID, "kind": in.Kind, "subjectId": in.SubjectID, "errorMessage": fin.Error,
			"externalId": workflows.OrNull(in.ExternalID),
		})
	} else {
		fin.Event = workflows.EventInput(ctx, in.OrgID, in.RunID, events.AutomationCompleted, "completed", map[string]any{
			"automationId": in.RunID, "kind": in.Kind, "subjectId": in.SubjectID, "resultStatus": workflows.OrNull(out.ResultStatus),
			"model": out.Model, "totalTokens": out.Usage.TotalTokens, "externalId": workflows.OrNull(in.ExternalID),
		})
	}
	sctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         workflows.BookkeepingRetry(workflows.ErrTypeInvalidEvent),
		Summary:             "finish: " + fin.Status,
	})
	if err := workflow.ExecuteActivity(sctx, ActivityFinishAutomation, fin).Get(ctx, nil); err != nil {
		return out, err
	}
	if runErr != nil {
		return out, temporal.NewNonRetryableApplicationError(fin.Error, "AutomationFailed", nil)
	}
	return out, nil
}

// cause is the message of the innermost application error, without the activity wrapping.
func cause(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Message()
	}
	return err.Error()
}
