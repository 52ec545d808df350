package automation

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

var runInput = RunInput{RunID: ids.New(ids.Automation), OrgID: ids.New(ids.Organization), Kind: automation.KindDocumentFields,
	SubjectID: ids.New(ids.Document), ExternalID: "ext-7"}

// newRun runs the AutomationRun workflow with run answering RunAutomation and returns what
// FinishAutomation received.
func newRun(t *testing.T, run func(attempt int) (RunOutcome, error)) (*FinishRunInput, int, error) {
	env := workflowtest.NewEnv()
	env.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: RunWorkflowName})
	calls := 0
	env.RegisterActivityWithOptions(func(ctx context.Context, in RunInput) (RunOutcome, error) {
		calls++
		return run(int(activity.GetInfo(ctx).Attempt))
	}, activity.RegisterOptions{Name: ActivityRunAutomation})
	var fin *FinishRunInput
	env.RegisterActivityWithOptions(func(_ context.Context, in FinishRunInput) error {
		workflowtest.CheckedEvent(t, nil, in.Event)
		fin = &in
		return nil
	}, activity.RegisterOptions{Name: ActivityFinishAutomation})
	env.ExecuteWorkflow(RunWorkflowName, runInput)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	return fin, calls, env.GetWorkflowError()
}

func TestRunCompleted(t *testing.T) {
	fin, calls, err := newRun(t, func(int) (RunOutcome, error) {
		return RunOutcome{ResultStatus: "requires_review", Model: "m", Usage: automation.Usage{TotalTokens: 42}}, nil
	})
	if err != nil || calls != 1 || fin == nil {
		t.Fatalf("err %v calls %d fin %v", err, calls, fin)
	}
	if fin.Status != StatusCompleted || fin.Event.Event != events.AutomationCompleted || fin.RunID != runInput.RunID {
		t.Fatalf("finish = %+v", fin)
	}
	workflowtest.SameJSON(t, "completed data", fin.Event.Data, map[string]any{"automationId": runInput.RunID, "kind": "document_fields",
		"subjectId": runInput.SubjectID, "resultStatus": "requires_review", "model": "m", "totalTokens": 42, "externalId": "ext-7"})
}

func TestRunRetriesTheProviderThenFails(t *testing.T) {
	fin, calls, err := newRun(t, func(a int) (RunOutcome, error) {
		if a == 1 {
			return RunOutcome{}, temporal.NewApplicationError("ai provider: status 503: busy", automation.ErrTypeProvider, automation.StepFailure{Attempt: a})
		}
		return RunOutcome{}, temporal.NewNonRetryableApplicationError("document doc_1 has no text yet", automation.ErrTypeFinal, nil, automation.StepFailure{Attempt: a})
	})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || !strings.Contains(ae.Message(), "has no text yet") || calls != 2 {
		t.Fatalf("err %v calls %d", err, calls)
	}
	if fin == nil || fin.Status != StatusFailed || fin.Event.Event != events.AutomationFailed || fin.Error != "document doc_1 has no text yet" {
		t.Fatalf("finish = %+v", fin)
	}
	if fin.Event.Data["errorMessage"] != fin.Error {
		t.Fatalf("failed data = %v", fin.Event.Data)
	}
}
