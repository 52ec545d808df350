// Package screening holds the screening product's workflows: the list refresh a Temporal
// Schedule runs, and the monitoring rescreens of customers after a list or a customer changed.
package screening

import (
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// Registered names (running executions depend on them: never rename).
const (
	RefreshName          = "ScreeningListRefresh"
	RescreenName         = "ScreeningRescreen"
	CustomerRescreenName = "ScreeningCustomerRescreen"
	// RefreshScheduleID is the Schedule, visible in the Temporal UI, that runs RefreshName.
	RefreshScheduleID = "svc-screening-refresh"

	ActivityRefreshList      = "ScreeningRefreshList"
	ActivityRescreenBatch    = "ScreeningRescreenBatch"
	ActivityRescreenCustomer = "ScreeningRescreenCustomer"
)

// ErrTypeMalformedList marks a source whose file does not parse (or is empty, or truncated):
// retrying reads the same bytes, so the refresh fails at once and the version in service stays.
const ErrTypeMalformedList = "ScreeningListMalformed"

// RefreshInput is what the Schedule runs with: the configured sources (screening.sources).
type RefreshInput struct {
	Sources []string
	// Batch is how many customers one rescreen activity screens.
	Batch int
}

// RefreshListInput refreshes one source.
type RefreshListInput struct {
	Source string
	At     time.Time
}

// RefreshListResult says what a refresh stored.
type RefreshListResult struct {
	ListID, OrgID, Name string
	Version             int
	Changed             bool
	Entities            int
	Added, Updated      int
	Removed             int
}

// Refresh reads every configured source and stores a new list version where the content
// changed; each changed list starts its monitoring rescreen (a workflow of its own that
// outlives this run). A source that fails leaves its version in service; the run then fails
// naming every failed source, after the others were refreshed.
func Refresh(ctx workflow.Context, in RefreshInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3, NonRetryableErrorTypes: []string{ErrTypeMalformedList}},
	})
	var failed, changed []string
	for _, src := range in.Sources {
		var res RefreshListResult
		err := workflow.ExecuteActivity(ctx, ActivityRefreshList, RefreshListInput{Source: src, At: workflow.Now(ctx)}).Get(ctx, &res)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", SourceName(src), err))
			continue
		}
		if !res.Changed {
			continue
		}
		changed = append(changed, fmt.Sprintf("%s v%d (+%d ~%d -%d)", res.Name, res.Version, res.Added, res.Updated, res.Removed))
		if err := startRescreen(ctx, RescreenInput{ListID: res.ListID, ListOrgID: res.OrgID, Version: res.Version, Batch: in.Batch}); err != nil {
			failed = append(failed, fmt.Sprintf("%s: rescreen not started: %v", res.Name, err))
		}
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("%d sources; changed: %s; failed: %d", len(in.Sources), strings.Join(changed, ", "), len(failed)))
	if len(failed) > 0 {
		return temporal.NewNonRetryableApplicationError("list refresh failed: "+strings.Join(failed, "; "), ErrTypeMalformedList, nil)
	}
	return nil
}

// startRescreen starts a list version's rescreen as an abandoned child: it runs on after the
// refresh ends, and its id (list and version) makes a second start of it a no-op.
func startRescreen(ctx workflow.Context, in RescreenInput) error {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            RescreenID(in.ListID, in.Version),
		TaskQueue:             workflows.QueueScreening,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		StaticSummary:         fmt.Sprintf("screening rescreen after %s v%d", in.ListID, in.Version),
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrOrgID.ValueSet(orgAttr(in.ListOrgID)),
			workflows.AttrWorkflowSlug.ValueSet("screening-rescreen")),
	})
	err := workflow.ExecuteChildWorkflow(cctx, RescreenName, in).GetChildWorkflowExecution().Get(ctx, nil)
	if err != nil && temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return nil
	}
	return err
}

// SourceName is the name part of a source (name|format|location…).
func SourceName(src string) string {
	name, _, _ := strings.Cut(src, "|")
	return name
}

// orgAttr is the OrgId search attribute of a run: "platform" for the platform's lists.
func orgAttr(orgID string) string {
	if orgID == "" {
		return "platform"
	}
	return orgID
}
