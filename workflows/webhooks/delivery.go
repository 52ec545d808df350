// Package webhooks holds the webhooks product's Temporal workflow: WebhookDelivery, the
// retry ladder of one delivery. Deterministic code only.
package webhooks

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/webhook"
	"github.com/svcplatform/svc/workflows"
)

// ActivityAttemptWebhookDelivery is the registered name of the one-attempt activity
// (activities/webhooks.Activities.AttemptWebhookDelivery).
const ActivityAttemptWebhookDelivery = "AttemptWebhookDelivery"

// ActivityDropWebhookDelivery is the registered name of the activity that marks a
// delivery dropped when its last attempt could not even record itself
// (activities/webhooks.Activities.DropWebhookDelivery).
const ActivityDropWebhookDelivery = "DropWebhookDelivery"

// DefaultReceiverTimeout is how long a receiver has to answer (SPEC 6.6, 8.3), used when the input gives none.
const DefaultReceiverTimeout = 10 * time.Second

// attemptOverhead is added to the receiver timeout for the activity's start-to-close
// timeout: loading the delivery, signing and recording the attempt.
const attemptOverhead = 20 * time.Second

// WebhookDeliveryInput starts one WebhookDelivery workflow; its workflow ID is DeliveryID.
type WebhookDeliveryInput struct {
	// DeliveryID is the delivery (whd_...); the activity loads event, subscription and secret from the store.
	DeliveryID string
	// OrgID scopes every store access.
	OrgID string
	// Schedule is the delay before each attempt (config webhooks.schedule; SPEC 6.6:
	// 0, 10s, 30s, 2m, 10m, 1h). Its length is the number of attempts; it must not be empty.
	Schedule []time.Duration
	// ReceiverTimeout bounds one POST (config webhooks.receiver_timeout); zero means DefaultReceiverTimeout.
	ReceiverTimeout time.Duration
	// FromAttempt is the rung the ladder begins at: 0 or 1 for the first, 2 when the publishing
	// activity made the first attempt inline and it failed (or did not answer in time). Zero in
	// every run started before inline first attempts, so their histories replay unchanged.
	FromAttempt int
	// FirstWait is the wait before attempt FromAttempt when FromAttempt > 1 (the delay the
	// failed attempt decided, Retry-After included); the first rung waits Schedule[0].
	FirstWait time.Duration
}

// WebhookAttemptInput is the input of one attempt.
type WebhookAttemptInput struct {
	DeliveryID string
	OrgID      string
	// Attempt is the attempt number, from 1 (X-Service-Attempt).
	Attempt int
	// Schedule is the workflow's ladder, so the activity records the same
	// status and next attempt time as the workflow will act on (DecideWebhookAttempt).
	Schedule        []time.Duration
	ReceiverTimeout time.Duration
}

// WebhookAttemptResult is what one attempt observed, after the activity recorded it.
type WebhookAttemptResult struct {
	// StatusCode is the receiver's HTTP status, 0 when there was no answer.
	StatusCode int
	// Error says why there was no answer (connection refused, timeout, address refused by the SSRF guard).
	Error string
	// RetryAfterSeconds is the receiver's Retry-After on a 429 or 503, 0 if none.
	RetryAfterSeconds int
	// Gone means the delivery can no longer be attempted: its subscription was
	// deleted or deactivated, or the delivery itself no longer exists. It is dropped.
	Gone bool
	// Status is the delivery status the activity recorded.
	Status webhook.DeliveryStatus
}

// WebhookDeliveryResult is the outcome of a delivery workflow.
type WebhookDeliveryResult struct {
	Status         webhook.DeliveryStatus
	Attempts       int
	LastStatusCode int
}

// WebhookDecision is what follows one attempt.
type WebhookDecision struct {
	// Status is the delivery's status after the attempt.
	Status webhook.DeliveryStatus
	// NextDelay is the wait before the next attempt when Status is failed.
	NextDelay time.Duration
}

// DecideWebhookAttempt applies the delivery rules (SPEC 6.6) to attempt number
// attempt (from 1) of schedule whose outcome is res (StatusCode 0: no answer):
//   - 2xx: delivered.
//   - 410 Gone from the receiver, or res.Gone: dropped at once.
//   - anything else on the last attempt: dropped.
//   - otherwise failed, and the next attempt waits schedule[attempt], the next rung.
//     On a 429 or 503 with Retry-After r the wait is max(next rung, r) but never
//     more than the largest delay of the schedule (1 h by default): the receiver
//     can slow the ladder down within its bounds, never add attempts or stretch it further.
//
// The workflow and the activity that records the status both call it, so they agree.
func DecideWebhookAttempt(schedule []time.Duration, attempt int, res WebhookAttemptResult) WebhookDecision {
	statusCode, retryAfter := res.StatusCode, time.Duration(res.RetryAfterSeconds)*time.Second
	switch {
	case res.Gone:
		return WebhookDecision{Status: webhook.StatusDropped}
	case statusCode >= 200 && statusCode < 300:
		return WebhookDecision{Status: webhook.StatusDelivered}
	case statusCode == 410:
		return WebhookDecision{Status: webhook.StatusDropped}
	case attempt >= len(schedule):
		return WebhookDecision{Status: webhook.StatusDropped}
	}
	next := max(schedule[attempt], 0)
	if (statusCode == 429 || statusCode == 503) && retryAfter > next {
		var largest time.Duration
		for _, d := range schedule {
			largest = max(largest, d)
		}
		next = max(next, min(retryAfter, largest))
	}
	return WebhookDecision{Status: webhook.StatusFailed, NextDelay: next}
}

// WebhookDeliveryStartOptions are the options to start the WebhookDelivery
// workflow of a delivery: workflow ID = delivery id on the webhooks queue, and a
// second start of the same delivery returns the existing run (running) or is
// rejected as a duplicate (finished), so starting twice never sends twice.
func WebhookDeliveryStartOptions(deliveryID string) client.StartWorkflowOptions {
	return workflows.StartOnce(deliveryID, workflows.QueueWebhooks, "webhook delivery "+deliveryID)
}

// WebhookDelivery runs the retry ladder of one delivery, from its first rung or, after a
// failed inline first attempt, from in.FromAttempt: before attempt i it
// waits the ladder's delay (Schedule[i-1], or more after a Retry-After, see
// DecideWebhookAttempt), then runs one attempt activity with no Temporal retries
// of its own. It stops on a 2xx (delivered) or a 410 (dropped), and after the
// last attempt (dropped). An attempt whose activity failed or timed out counts
// as a failed attempt with no answer.
func WebhookDelivery(ctx workflow.Context, in WebhookDeliveryInput) (WebhookDeliveryResult, error) {
	if len(in.Schedule) == 0 {
		return WebhookDeliveryResult{}, temporal.NewNonRetryableApplicationError(
			"webhook delivery "+in.DeliveryID+": empty schedule", "InvalidInput", nil)
	}
	receiverTimeout := in.ReceiverTimeout
	if receiverTimeout <= 0 {
		receiverTimeout = DefaultReceiverTimeout
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: receiverTimeout + attemptOverhead,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	logger := workflow.GetLogger(ctx)
	total := len(in.Schedule)
	from, wait := 1, max(in.Schedule[0], 0)
	if in.FromAttempt > 1 {
		from, wait = in.FromAttempt, max(in.FirstWait, 0)
	}
	if from > total {
		return WebhookDeliveryResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("webhook delivery %s: attempt %d is past the %d-rung schedule", in.DeliveryID, from, total), "InvalidInput", nil)
	}
	var res WebhookDeliveryResult
	for attempt := from; attempt <= total; attempt++ {
		if wait > 0 {
			workflow.SetCurrentDetails(ctx, fmt.Sprintf("attempt %d of %d at %s",
				attempt, total, workflow.Now(ctx).Add(wait).UTC().Format(time.RFC3339)))
			if err := workflow.Sleep(ctx, wait); err != nil {
				return res, err // cancelled
			}
		}
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("attempt %d of %d in progress", attempt, total))
		var out WebhookAttemptResult
		err := workflow.ExecuteActivity(actx, ActivityAttemptWebhookDelivery, WebhookAttemptInput{
			DeliveryID: in.DeliveryID, OrgID: in.OrgID, Attempt: attempt,
			Schedule: in.Schedule, ReceiverTimeout: receiverTimeout,
		}).Get(ctx, &out)
		if err != nil {
			// The attempt could not run or record itself (store down, activity timeout).
			logger.Warn("webhook attempt activity failed", "DeliveryID", in.DeliveryID, "Attempt", attempt, "Error", err)
			out = WebhookAttemptResult{Error: err.Error()}
		}
		res.Attempts, res.LastStatusCode = attempt, out.StatusCode
		d := DecideWebhookAttempt(in.Schedule, attempt, out)
		res.Status = d.Status
		if d.Status.Final() {
			if err != nil && d.Status == webhook.StatusDropped {
				if derr := dropDelivery(ctx, in, attempt, out.Error); derr != nil {
					return res, derr
				}
			}
			workflow.SetCurrentDetails(ctx, fmt.Sprintf("%s after %d attempt(s)", d.Status, attempt))
			return res, nil
		}
		wait = d.NextDelay
	}
	return res, nil // unreachable: the last attempt always decides a final status
}

// WebhookDropInput marks a delivery dropped.
type WebhookDropInput struct {
	DeliveryID string
	OrgID      string
	Attempt    int
	Error      string
}

// dropDelivery records "dropped" when the last attempt's activity could not;
// this bookkeeping activity is idempotent and may be retried.
func dropDelivery(ctx workflow.Context, in WebhookDeliveryInput, attempt int, reason string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, MaximumAttempts: 20},
	})
	return workflow.ExecuteActivity(ctx, ActivityDropWebhookDelivery, WebhookDropInput{
		DeliveryID: in.DeliveryID, OrgID: in.OrgID, Attempt: attempt, Error: reason,
	}).Get(ctx, nil)
}

// WebhookDeliveryName is the registered name of the WebhookDelivery workflow.
const WebhookDeliveryName = "WebhookDelivery"
