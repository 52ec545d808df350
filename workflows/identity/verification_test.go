package identity_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/workflows"
	idvwf "github.com/svcplatform/svc/workflows/identity"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// fakeIdentity stands in for the identity activities: outcomes are scripted per attempt.
type fakeIdentity struct {
	t        *testing.T
	outcomes map[int]idv.Status
	expired  bool
	events   []workflows.PublishEventInput
}

func (f *fakeIdentity) register(env *testsuite.TestWorkflowEnvironment) {
	env.RegisterActivityWithOptions(func(_ context.Context, ref idvwf.AttemptRef) (idvwf.ReadResult, error) {
		return idvwf.ReadResult{Readable: true, Type: "passport"}, nil
	}, activity.RegisterOptions{Name: idvwf.ActivityReadDocument})
	env.RegisterActivityWithOptions(func(_ context.Context, in idvwf.EvaluateInput) (idvwf.EvaluateResult, error) {
		st := f.outcomes[in.Ref.Number]
		var reasons []string
		if st != idv.StatusVerified {
			reasons = []string{"document_expired"}
		}
		return idvwf.EvaluateResult{AttemptStatus: idv.AttemptCompleted, Outcome: idv.Outcome{Status: st, Reasons: reasons},
			Checks: []idv.CheckResult{{Type: idv.CheckExpiry, Status: idv.Passed}}, Applied: true}, nil
	}, activity.RegisterOptions{Name: idvwf.ActivityEvaluate})
	env.RegisterActivityWithOptions(func(_ context.Context, in idvwf.ExpireInput) (bool, error) {
		f.expired = true
		return true, nil
	}, activity.RegisterOptions{Name: idvwf.ActivityExpire})
	env.RegisterActivityWithOptions(func(_ context.Context, in idvwf.ReviewInput) (idvwf.ReviewResult, error) {
		return idvwf.ReviewResult{Status: in.Request.Decision.Target()}, nil
	}, activity.RegisterOptions{Name: idvwf.ActivityReview})
	env.RegisterActivityWithOptions(func(_ context.Context, ev workflows.PublishEventInput) (workflows.PublishEventResult, error) {
		f.events = workflowtest.CheckedEvent(f.t, f.events, ev)
		return workflows.PublishEventResult{EventID: ev.EventID}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityPublishEvent})
}

var input = idvwf.VerificationInput{OrgID: "org_t", VerificationID: "idv_t", CustomerID: "cus_1", MaxAttempts: 2}

func start(env *testsuite.TestWorkflowEnvironment) idvwf.VerificationInput {
	in := input
	in.ExpiresAt = env.Now().Add(24 * time.Hour)
	return in
}

func TestResubmissionThenVerified(t *testing.T) {
	env := workflowtest.NewEnv()
	f := &fakeIdentity{t: t, outcomes: map[int]idv.Status{1: idv.StatusResubmissionRequested, 2: idv.StatusVerified}}
	f.register(env)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(idvwf.SignalAttempt, idvwf.AttemptSignal{AttemptID: "att_1", Number: 1})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(idvwf.SignalAttempt, idvwf.AttemptSignal{AttemptID: "att_2", Number: 2})
	}, 2*time.Hour)
	env.ExecuteWorkflow(idvwf.Verification, start(env))
	if st := workflowtest.Result[idv.Status](t, env); st != idv.StatusVerified {
		t.Fatalf("ended %s", st)
	}
	want := []string{"identity.attempt.completed", "identity.verification.resubmission_requested", "identity.attempt.completed", "identity.verification.verified"}
	if got := workflowtest.Names(f.events); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if f.expired {
		t.Error("expired although attempts came in time")
	}
	if ids := []string{f.events[0].EventID, f.events[1].EventID, f.events[2].EventID, f.events[3].EventID}; len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 4 {
		t.Errorf("event ids repeat: %v", ids)
	}
}

func TestExpiresByDurableTimer(t *testing.T) {
	env := workflowtest.NewEnv()
	f := &fakeIdentity{t: t}
	f.register(env)
	in := start(env)
	env.ExecuteWorkflow(idvwf.Verification, in)
	if st := workflowtest.Result[idv.Status](t, env); st != idv.StatusExpired || !f.expired {
		t.Fatalf("ended %s (expired activity ran: %v)", st, f.expired)
	}
	if got := workflowtest.Names(f.events); !slices.Equal(got, []string{"identity.verification.expired"}) {
		t.Errorf("events %v", got)
	}
	if d := f.events[0].OccurredAt.Sub(in.ExpiresAt); d < -time.Millisecond || d > time.Minute {
		t.Errorf("expired at %s, deadline %s", f.events[0].OccurredAt, in.ExpiresAt)
	}
}

func TestReviewerDecides(t *testing.T) {
	env := workflowtest.NewEnv()
	f := &fakeIdentity{t: t, outcomes: map[int]idv.Status{1: idv.StatusReview}}
	f.register(env)
	var early, late error
	var answer idvwf.ReviewResult
	env.RegisterDelayedCallback(func() { // before any attempt: refused by the validator
		env.UpdateWorkflow(idvwf.UpdateReview, "u0", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { early = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
		}, idvwf.ReviewRequest{Decision: idv.DecisionApprove, ActorUserID: "usr_r"})
	}, 30*time.Minute)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(idvwf.SignalAttempt, idvwf.AttemptSignal{AttemptID: "att_1", Number: 1})
	}, time.Hour)
	env.RegisterDelayedCallback(func() { // the last attempt is used: no resubmission
		env.UpdateWorkflow(idvwf.UpdateReview, "u1", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { late = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
		}, idvwf.ReviewRequest{Decision: idv.DecisionRequestResubmission, ActorUserID: "usr_r"})
	}, 90*time.Minute)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(idvwf.UpdateReview, "u2", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("approve refused: %v", err) }, OnAccept: func() {},
			OnComplete: func(v any, err error) {
				if err != nil {
					t.Errorf("approve failed: %v", err)
					return
				}
				answer = v.(idvwf.ReviewResult)
			},
		}, idvwf.ReviewRequest{Decision: idv.DecisionApprove, ActorUserID: "usr_r"})
	}, 2*time.Hour)
	in := start(env)
	in.MaxAttempts = 1
	env.ExecuteWorkflow(idvwf.Verification, in)
	if st := workflowtest.Result[idv.Status](t, env); st != idv.StatusVerified || answer.Status != idv.StatusVerified {
		t.Fatalf("ended %s, answered %+v", st, answer)
	}
	if msg(early) != "state conflict: cannot transition requires_input → verified" {
		t.Errorf("decision before review: %v", early)
	}
	if msg(late) != "state conflict: cannot transition review → resubmission_requested" {
		t.Errorf("resubmission without attempts left: %v", late)
	}
	want := []string{"identity.attempt.completed", "identity.verification.review", "identity.verification.verified"}
	if got := workflowtest.Names(f.events); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if d := f.events[2].Data["decision"]; d != "approve" {
		t.Errorf("decision in the event: %v", d)
	}
}

// msg is the message of an Update's refusal (what the API answers with).
func msg(err error) string {
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) {
		return fmt.Sprint(err)
	}
	return ae.Message()
}
