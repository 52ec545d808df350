package screening

import (
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// batchesPerRun is how many batches one run screens before it continues as new, so that a
// rescreen of any size keeps a short history.
const batchesPerRun = 50

// RescreenInput rescreens the monitored customers against one list version's delta; State
// carries the progress across continue-as-new.
type RescreenInput struct {
	ListID    string
	ListOrgID string // "" for a platform list: every organisation's customers
	Version   int
	Batch     int
	State     *RescreenState
}

// RescreenState is a rescreen's progress.
type RescreenState struct {
	// After is the last customer id screened; customers are walked in id order.
	After   string
	Done    int64
	Alerts  int64
	Total   int64
	Batches int
}

// RescreenBatchInput screens the next batch of monitored customers.
type RescreenBatchInput struct {
	ListID, ListOrgID string
	Version           int
	After             string
	Limit             int
}

// RescreenBatchResult is what a batch did; Last is its last customer id ("" when empty).
type RescreenBatchResult struct {
	Count   int
	Last    string
	Matched int
	Alerts  int
	Total   int64
}

// Progress is a rescreen's progress as its memo shows it in the Temporal UI.
type Progress struct {
	ListID  string `json:"listId"`
	Version int    `json:"version"`
	Done    int64  `json:"done"`
	Total   int64  `json:"total"`
	Alerts  int64  `json:"alerts"`
}

// Rescreen screens every monitored customer (of the list's organisation, or of every
// organisation for a platform list) against the entities the list version added or
// changed, a batch per activity, showing its progress in the Temporal UI (current details
// and the memo "progress") and continuing as new every batchesPerRun batches.
func Rescreen(ctx workflow.Context, in RescreenInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 10},
	})
	st := RescreenState{}
	if in.State != nil {
		st = *in.State
	}
	limit := in.Batch
	if limit <= 0 {
		limit = 500
	}
	for run := 0; ; run++ {
		var res RescreenBatchResult
		err := workflow.ExecuteActivity(ctx, ActivityRescreenBatch, RescreenBatchInput{ListID: in.ListID, ListOrgID: in.ListOrgID,
			Version: in.Version, After: st.After, Limit: limit}).Get(ctx, &res)
		if err != nil {
			return err
		}
		st.Done += int64(res.Count)
		st.Alerts += int64(res.Alerts)
		st.Total = max(res.Total, st.Done)
		st.Batches++
		if res.Last != "" {
			st.After = res.Last
		}
		if err := showProgress(ctx, in, st); err != nil {
			return err
		}
		if res.Count < limit {
			return nil
		}
		if run+1 >= batchesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			next := in
			next.State = &st
			return workflow.NewContinueAsNewError(ctx, Rescreen, next)
		}
	}
}

func showProgress(ctx workflow.Context, in RescreenInput, st RescreenState) error {
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("rescreened %d of %d monitored customers against %s v%d; %d alerts raised",
		st.Done, st.Total, in.ListID, in.Version, st.Alerts))
	return workflow.UpsertMemo(ctx, map[string]any{"progress": Progress{ListID: in.ListID, Version: in.Version, Done: st.Done, Total: st.Total, Alerts: st.Alerts}})
}

// RescreenID is the workflow id of a list version's rescreen.
func RescreenID(listID string, version int) string {
	return "screening-rescreen-" + listID + "-v" + strconv.Itoa(version)
}

// CustomerRescreenInput rescreens one monitored customer whose data changed.
type CustomerRescreenInput struct {
	OrgID, CustomerID string
	// ChangedAt is the customer's updatedAt: the change this rescreen answers.
	ChangedAt time.Time
}

// CustomerRescreen screens a changed monitored customer against every list in service.
func CustomerRescreen(ctx workflow.Context, in CustomerRescreenInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 10},
	})
	return workflow.ExecuteActivity(ctx, ActivityRescreenCustomer, in).Get(ctx, nil)
}

// CustomerRescreenStartOptions start a customer's rescreen once per change.
func CustomerRescreenStartOptions(in CustomerRescreenInput) client.StartWorkflowOptions {
	id := "screening-customer-" + in.CustomerID + "-" + strconv.FormatInt(in.ChangedAt.UnixMilli(), 10)
	return workflows.ProductStart(id, workflows.QueueScreening, "screening rescreen of "+in.CustomerID, in.OrgID, "screening-customer-rescreen", "")
}

// RescreenStartOptions start a list version's rescreen once (an organisation list changed
// through the API).
func RescreenStartOptions(in RescreenInput) client.StartWorkflowOptions {
	return workflows.ProductStart(RescreenID(in.ListID, in.Version), workflows.QueueScreening,
		fmt.Sprintf("screening rescreen after %s v%d", in.ListID, in.Version), orgAttr(in.ListOrgID), "screening-rescreen", "")
}
