package maintenance

import (
	"context"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/svcplatform/svc/activities"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/events"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
	mntwf "github.com/svcplatform/svc/workflows/maintenance"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// Reconciler ends the records of runs that were ended outside their workflow.
type Reconciler struct {
	Store     *store.Store
	Temporal  client.Client
	Namespace string
	Publisher activities.Publisher
}

// endedQuery finds, through Temporal's visibility, the runs of executions and documents that
// closed without their workflow's code: terminated (the Temporal UI, tctl, a reset) or timed out.
func endedQuery(after time.Time) string {
	return fmt.Sprintf("WorkflowType IN ('%s', '%s') AND ExecutionStatus IN ('Terminated', 'TimedOut') AND CloseTime > '%s'",
		orchwf.ExecutionWorkflowName, docwf.DocumentPipelineName, after.UTC().Format(time.RFC3339Nano))
}

// ReconcileEndedRuns checks every run the query finds. A workflow whose latest run is still
// running (a reset started a new one) is left to that run. The event is published before the
// record is ended: a retry after a crash between the two publishes the same event id again,
// which publishing ignores, and then ends the record.
func (r *Reconciler) ReconcileEndedRuns(ctx context.Context, in mntwf.ReconcileRunsInput) (mntwf.ReconcileResult, error) {
	var out mntwf.ReconcileResult
	var token []byte
	for {
		page, err := r.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: r.Namespace, Query: endedQuery(in.ClosedAfter), PageSize: 100, NextPageToken: token,
		})
		if err != nil {
			return out, fmt.Errorf("list ended runs: %w", err)
		}
		for _, info := range page.GetExecutions() {
			out.Checked++
			activity.RecordHeartbeat(ctx, out.Checked)
			ended, err := r.reconcile(ctx, info.GetType().GetName(), info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId(),
				orgOf(info.GetSearchAttributes().GetIndexedFields()), info.GetStatus(), info.GetCloseTime().AsTime())
			if err != nil {
				return out, err
			}
			switch {
			case ended && info.GetType().GetName() == orchwf.ExecutionWorkflowName:
				out.Executions++
			case ended:
				out.Documents++
			}
		}
		if token = page.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

// reconcile ends one record when it is still open and its workflow has no running run.
func (r *Reconciler) reconcile(ctx context.Context, wfType, id, runID, orgID string, status enumspb.WorkflowExecutionStatus, closed time.Time) (bool, error) {
	if orgID == "" {
		return false, nil
	}
	latest, err := r.Temporal.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return false, fmt.Errorf("describe %s: %w", id, err)
	}
	if latest.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return false, nil
	}
	msg := r.reason(ctx, id, runID, status)
	closed = closed.UTC()
	switch wfType {
	case orchwf.ExecutionWorkflowName:
		return r.endExecution(ctx, orgID, id, msg, closed)
	case docwf.DocumentPipelineName:
		return r.endDocument(ctx, orgID, id, msg, closed)
	}
	return false, nil
}

func (r *Reconciler) endExecution(ctx context.Context, orgID, id, msg string, closed time.Time) (bool, error) {
	e, err := r.Store.Orchestration.GetExecution(ctx, orgID, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && orch.Executions.Terminal(e.Status) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ev := reconciledEvent(orgID, id, events.WorkflowExecutionFailed, closed, map[string]any{
		"executionId": id, "workflowSlug": e.WorkflowSlug, "failedStepId": nil, "errorMessage": msg,
	})
	if err := activities.Publish(ctx, r.Publisher, "maintenance", ev); err != nil {
		return false, err
	}
	end := store.ExecutionEnd{Status: orch.ExecutionFailed, ErrorMessage: msg, CompletedAt: closed}
	return true, r.Store.Orchestration.FinishExecution(ctx, orgID, id, end)
}

func (r *Reconciler) endDocument(ctx context.Context, orgID, id, msg string, closed time.Time) (bool, error) {
	d, err := r.Store.Documents.Get(ctx, orgID, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && !openDocument(docintel.Status(d.Status)) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	stage := stageOf(d)
	ev := reconciledEvent(orgID, id, events.DocumentFailed, closed, map[string]any{
		"documentId": id, "errorMessage": msg, "stage": string(stage),
	})
	if err := activities.Publish(ctx, r.Publisher, "maintenance", ev); err != nil {
		return false, err
	}
	u := store.DocumentUpdate{Status: docintel.StatusFailed, FailedStage: string(stage), ErrorMessage: msg, ForgetPassword: true, CompletedAt: &closed}
	return true, r.Store.Documents.Update(ctx, orgID, id, u)
}

// openDocument: the pipeline had not ended the document.
func openDocument(s docintel.Status) bool {
	return s == docintel.StatusUploaded || s == docintel.StatusProcessing || s == docintel.StatusPasswordRequired
}

// stageOf is the stage the pipeline had reached, from what it had recorded: no text yet means
// it was reading the file (or waiting for its password), no type yet means classifying.
func stageOf(d *store.Document) docintel.Stage {
	switch {
	case docintel.Status(d.Status) != docintel.StatusProcessing:
		return docintel.StageInspect
	case d.TextKey == "":
		return docintel.StageText
	case d.Type == "":
		return docintel.StageClassify
	}
	return docintel.StageExtract
}

// reason says how the run ended, with the operator's reason for a termination.
func (r *Reconciler) reason(ctx context.Context, id, runID string, status enumspb.WorkflowExecutionStatus) string {
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT {
		return "the Temporal run timed out"
	}
	msg := "the Temporal run was terminated"
	it := r.Temporal.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			break // the history is gone (retention): the status says enough
		}
		if t := ev.GetWorkflowExecutionTerminatedEventAttributes(); t != nil && t.GetReason() != "" {
			msg += ": " + t.GetReason()
		}
	}
	return msg
}

// reconciledEvent is the event of an end found by the reconciler; its id derives from the
// record and the run's close time, so checking the run again publishes the same event.
func reconciledEvent(orgID, id, name string, closed time.Time, data map[string]any) workflows.PublishEventInput {
	return workflows.PublishEventInput{EventID: events.DeriveID(closed, id, "reconciled", name), Event: name, OrgID: orgID, OccurredAt: closed, Data: data}
}

// orgOf reads the OrgId search attribute every product run carries.
func orgOf(fields map[string]*commonpb.Payload) string {
	p, ok := fields["OrgId"]
	if !ok {
		return ""
	}
	var org string
	if err := converter.GetDefaultDataConverter().FromPayload(p, &org); err != nil {
		return ""
	}
	return org
}
