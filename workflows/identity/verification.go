package identity

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/workflows"
)

// ReadTimeout bounds one reading of an attempt's document (OCR of a photo: seconds; a
// degraded one can take a minute on a busy core).
const ReadTimeout = 5 * time.Minute

// Verification runs one identity verification from creation to a final state:
//
//   - while it waits for input (requires_input, resubmission_requested) a durable timer runs
//     to the policy's deadline; when it fires, the verification expires
//     (identity.verification.expired) unless an attempt was stored meanwhile;
//   - each attempt the API stores (SignalAttempt; the API has already moved the verification
//     to processing with a conditional write) is read by the documents engine on the OCR
//     queue, then checked and decided (the extracted data stays in the store, never in this
//     history), and announced: identity.attempt.completed and identity.verification.<state>;
//   - in review it waits for a reviewer's decision (UpdateReview, whose validator refuses a
//     verification in another state with 409 before anything is written to the history).
func Verification(ctx workflow.Context, in VerificationInput) (idv.Status, error) {
	r := &verificationRun{in: in, status: idv.StatusRequiresInput}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateReview, r.review,
		workflow.UpdateHandlerOptions{Validator: r.validateReview, Description: "a reviewer's decision on a verification in review"}); err != nil {
		return "", err
	}
	signals := workflow.GetSignalChannel(ctx, SignalAttempt)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var a AttemptSignal
			signals.Receive(ctx, &a)
			r.pending = append(r.pending, a)
		}
	})
	err := r.run(ctx)
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return r.status, err
}

// verificationRun is the state of one verification's run.
type verificationRun struct {
	in      VerificationInput
	status  idv.Status
	pending []AttemptSignal
	// moves counts the verification's moves, for the keys of their events.
	moves int
	// attempts is the number of the last attempt.
	attempts int
}

func (r *verificationRun) run(ctx workflow.Context) error {
	for !r.status.Terminal() {
		switch {
		case len(r.pending) > 0:
			a := r.pending[0]
			r.pending = r.pending[1:]
			if err := r.attempt(ctx, a); err != nil {
				return err
			}
		case r.status.AwaitsInput():
			workflow.SetCurrentDetails(ctx, "Waiting for a document until "+r.in.ExpiresAt.UTC().Format(time.RFC3339))
			wait := r.in.ExpiresAt.Sub(workflow.Now(ctx))
			arrived := wait > 0 && r.awaitAttempt(ctx, wait)
			if arrived {
				continue
			}
			expired, err := r.expire(ctx)
			if err != nil {
				return err
			}
			if !expired {
				// The API stored an attempt just before the deadline: its signal is on its way.
				_ = workflow.Await(ctx, func() bool { return len(r.pending) > 0 })
			}
		default: // review: a reviewer decides; processing: an attempt is on its way
			workflow.SetCurrentDetails(ctx, "In "+string(r.status))
			before := r.status
			_ = workflow.Await(ctx, func() bool { return r.status != before || len(r.pending) > 0 })
		}
	}
	return nil
}

func (r *verificationRun) awaitAttempt(ctx workflow.Context, wait time.Duration) bool {
	ok, _ := workflow.AwaitWithTimeout(ctx, wait, func() bool { return len(r.pending) > 0 })
	return ok
}

// attempt reads, checks and decides one attempt, then announces the outcome.
func (r *verificationRun) attempt(ctx workflow.Context, a AttemptSignal) error {
	r.status, r.attempts = idv.StatusProcessing, a.Number
	ref := AttemptRef{OrgID: r.in.OrgID, VerificationID: r.in.VerificationID, AttemptID: a.AttemptID, Number: a.Number}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Reading the document of attempt %d", a.Number))
	var read ReadResult
	readErr := workflow.ExecuteActivity(readCtx(ctx), ActivityReadDocument, ref).Get(ctx, &read)
	if readErr != nil && temporal.IsCanceledError(readErr) {
		return readErr
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Checking attempt %d", a.Number))
	var res EvaluateResult
	in := EvaluateInput{Ref: ref, ReadFailed: readErr != nil, Now: workflow.Now(ctx)}
	if err := workflow.ExecuteLocalActivity(bookkeepingCtx(ctx, "evaluate"), ActivityEvaluate, in).Get(ctx, &res); err != nil {
		return err
	}
	if !res.Applied {
		return errors.New("identity: the verification left processing while an attempt ran")
	}
	r.status = res.Outcome.Status
	checks := make([]any, len(res.Checks))
	for i, c := range res.Checks {
		checks[i] = map[string]any{"type": string(c.Type), "status": string(c.Status), "reasons": nonNil(c.Reasons)}
	}
	if _, err := workflows.PublishEvent(ctx, r.in.OrgID, events.IdentityAttemptCompleted, a.AttemptID, map[string]any{
		"attemptId": a.AttemptID, "verificationId": r.in.VerificationID, "number": a.Number,
		"status": string(res.AttemptStatus), "outcome": string(res.Outcome.Status), "reasons": nonNil(res.Outcome.Reasons), "checks": checks,
		"customerId": workflows.OrNull(r.in.CustomerID),
	}); err != nil {
		return err
	}
	return r.announce(ctx, res.Outcome.Reasons, a.AttemptID, "")
}

// announce publishes the verification event of its current state.
func (r *verificationRun) announce(ctx workflow.Context, reasons []string, attemptID string, decision idv.ReviewDecision) error {
	r.moves++
	name, ok := events.IdentityVerificationEvent(string(r.status))
	if !ok {
		return nil
	}
	_, err := workflows.PublishEvent(ctx, r.in.OrgID, name, fmt.Sprintf("move-%d", r.moves), map[string]any{
		"verificationId": r.in.VerificationID, "status": string(r.status), "reasons": nonNil(reasons),
		"attemptId": workflows.OrNull(attemptID), "customerId": workflows.OrNull(r.in.CustomerID),
		"reference": workflows.OrNull(r.in.Reference), "externalId": workflows.OrNull(r.in.ExternalID),
		"decision": workflows.OrNull(string(decision)),
	})
	return err
}

// expire moves the verification to expired with a conditional write; false when it had left
// the states that wait for input.
func (r *verificationRun) expire(ctx workflow.Context) (bool, error) {
	var moved bool
	in := ExpireInput{OrgID: r.in.OrgID, VerificationID: r.in.VerificationID, Now: workflow.Now(ctx)}
	if err := workflow.ExecuteLocalActivity(bookkeepingCtx(ctx, "expire"), ActivityExpire, in).Get(ctx, &moved); err != nil {
		return false, err
	}
	if !moved {
		r.status = idv.StatusProcessing
		return false, nil
	}
	r.status = idv.StatusExpired
	return true, r.announce(ctx, nil, "", "")
}

// validateReview refuses a decision the verification's state does not allow; nothing is
// written to the history then.
func (r *verificationRun) validateReview(ctx workflow.Context, req ReviewRequest) error {
	to := req.Decision.Target()
	if to == "" {
		return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, "decision must be approve, reject or request_resubmission")
	}
	if err := idv.Table.Check(r.status, to); err != nil {
		return workflows.StateConflictError(string(r.status), string(to))
	}
	if to == idv.StatusResubmissionRequested && r.attempts >= r.in.MaxAttempts {
		// No attempt left: the verification cannot go back to input.
		return workflows.StateConflictError(string(r.status), string(to))
	}
	return nil
}

// review records the decision (a conditional write from review), then announces it.
func (r *verificationRun) review(ctx workflow.Context, req ReviewRequest) (ReviewResult, error) {
	var out ReviewResult
	in := ReviewInput{OrgID: r.in.OrgID, VerificationID: r.in.VerificationID, Request: req, Now: workflow.Now(ctx)}
	if err := workflow.ExecuteLocalActivity(bookkeepingCtx(ctx, "review", workflows.ErrTypeStateConflict), ActivityReview, in).Get(ctx, &out); err != nil {
		return out, err
	}
	r.status = out.Status
	return out, r.announce(ctx, nil, "", req.Decision)
}

func readCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           workflows.QueueDocumentsText, // OCR: one per core, beside the documents' text stage
		StartToCloseTimeout: ReadTimeout,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 3},
		Summary:             "read the document",
	})
}

// bookkeepingCtx sets the options of the store writes: local activities retried until they
// succeed, except for the error types named.
func bookkeepingCtx(ctx workflow.Context, summary string, nonRetryable ...string) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         workflows.BookkeepingRetry(nonRetryable...),
		Summary:             summary,
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
