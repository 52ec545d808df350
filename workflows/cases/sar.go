package cases

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/workflows"
)

// Error types of a SAR delivery that retrying cannot mend.
const (
	// ErrTypeNoRegulator: cases.regulator_url is not set.
	ErrTypeNoRegulator = "NoRegulator"
)

// SARSubmission delivers a submitted filing (the four-eyes check happened in the store's
// conditional write that submitted it): it publishes sar.submitted, renders the filing (JSON
// and a PDF for the record), delivers it to the regulator endpoint with retries, and records
// the acknowledgement or the rejection with its event. A delivery that never succeeds leaves
// the filing submitted with its last error.
func SARSubmission(ctx workflow.Context, in SARInput) (DeliveryResult, error) {
	data := func() map[string]any {
		return map[string]any{"filingId": in.FilingID, "caseId": in.CaseID, "filedById": in.FiledByID, "submittedById": in.SubmittedByID}
	}
	if _, err := workflows.PublishEvent(ctx, in.OrgID, events.SARSubmitted, "submitted", data()); err != nil {
		return DeliveryResult{}, err
	}
	if err := workflow.ExecuteActivity(storeCtx(ctx), ActivityRenderSAR, in).Get(ctx, nil); err != nil {
		return DeliveryResult{}, err
	}
	workflow.SetCurrentDetails(ctx, "Delivering "+in.FilingID+" to the regulator")
	deliver := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue: workflows.QueueCases, StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute,
			MaximumAttempts: int32(max(in.Attempts, 1)), NonRetryableErrorTypes: []string{ErrTypeNoRegulator}},
	})
	var res DeliveryResult
	if err := workflow.ExecuteActivity(deliver, ActivityDeliverSAR, in).Get(ctx, &res); err != nil {
		workflow.SetCurrentDetails(ctx, "Delivery of "+in.FilingID+" failed: "+err.Error())
		return DeliveryResult{}, nil // the activity recorded its last error on the filing
	}
	name, d := events.SARAcknowledged, data()
	if res.Status == domain.SARRejected {
		name, d["reason"] = events.SARRejected, res.Reason
	} else {
		d["reference"] = workflows.OrNull(res.Reference)
	}
	at := workflow.Now(ctx).UTC()
	ans := AnswerInput{OrgID: in.OrgID, FilingID: in.FilingID, Result: res, At: at,
		Event: workflows.EventInput(ctx, in.OrgID, in.FilingID, name, "answer", d)}
	if err := workflow.ExecuteActivity(storeCtx(ctx), ActivityRecordAnswer, ans).Get(ctx, nil); err != nil {
		return DeliveryResult{}, err
	}
	return res, nil
}
