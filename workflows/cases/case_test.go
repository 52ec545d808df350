package cases

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/workflows"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// fakeCases records what the Case workflow's activities were asked to write.
type fakeCases struct {
	mu      sync.Mutex
	changes []Change
	overdue []OverdueInput
	events  []workflows.PublishEventInput
}

func (f *fakeCases) register(t *testing.T, env *testsuite.TestWorkflowEnvironment) {
	env.RegisterActivityWithOptions(func(context.Context, string, string) error { return nil }, activity.RegisterOptions{Name: ActivityCaseStarted})
	env.RegisterActivityWithOptions(func(_ context.Context, ch Change) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.changes = append(f.changes, ch)
		return nil
	}, activity.RegisterOptions{Name: ActivityApplyChange})
	env.RegisterActivityWithOptions(func(_ context.Context, in OverdueInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.overdue = append(f.overdue, in)
		return nil
	}, activity.RegisterOptions{Name: ActivityRecordOverdue})
	env.RegisterActivityWithOptions(func(_ context.Context, in workflows.PublishEventInput) (workflows.PublishEventResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.events = workflowtest.CheckedEvent(t, f.events, in)
		return workflows.PublishEventResult{EventID: in.EventID}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityPublishEvent})
}

// send sends one act Update; check gets its result or its refusal.
func send(env *testsuite.TestWorkflowEnvironment, id string, req ActRequest, check func(ActResult, error)) {
	env.UpdateWorkflow(UpdateAct, id, &testsuite.TestUpdateCallback{
		OnReject: func(err error) { check(ActResult{}, err) },
		OnAccept: func() {},
		OnComplete: func(v any, err error) {
			res, _ := v.(ActResult)
			check(res, err)
		},
	}, req)
}

func refusedAs(t *testing.T, what string, err error, errType string) {
	t.Helper()
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != errType {
		t.Errorf("%s: %v, want %s", what, err, errType)
	}
}

func TestCaseFourEyesClosure(t *testing.T) {
	env := workflowtest.NewEnv()
	f := &fakeCases{}
	f.register(t, env)
	start := env.Now().UTC()
	type step struct {
		req     ActRequest
		errType string
		want    domain.State
	}
	steps := []step{
		{ActRequest{Action: domain.ActionApproveClose, ActorUserID: "usr_b", ActorRole: "reviewer"}, workflows.ErrTypeStateConflict, ""},
		{ActRequest{Action: domain.ActionAssign, ActorUserID: "usr_admin", AssigneeID: "usr_a"}, "", domain.StateInvestigating},
		{ActRequest{Action: domain.ActionProposeClose, ActorUserID: "usr_a", Outcome: "bogus", Rationale: "x"}, workflows.ErrTypeInvalidArgument, ""},
		{ActRequest{Action: domain.ActionProposeClose, ActorUserID: "usr_a", ActorRole: "analyst", Outcome: "confirmed_risk", Rationale: "structuring"}, "", domain.StatePendingClose},
		{ActRequest{Action: domain.ActionApproveClose, ActorUserID: "usr_a", ActorRole: "reviewer"}, workflows.ErrTypeFourEyes, ""},
		{ActRequest{Action: domain.ActionApproveClose, ActorUserID: "usr_c", ActorRole: "analyst"}, workflows.ErrTypeForbidden, ""},
		{ActRequest{Action: domain.ActionApproveClose, ActorUserID: "usr_b", ActorRole: "reviewer"}, "", domain.StateClosed},
		{ActRequest{Action: domain.ActionAssign, ActorUserID: "usr_admin", AssigneeID: "usr_a"}, workflows.ErrTypeStateConflict, ""},
		{ActRequest{Action: domain.ActionReopen, ActorUserID: "usr_a"}, "", domain.StateInvestigating},
		{ActRequest{Action: domain.ActionReopen, ActorUserID: "usr_a"}, workflows.ErrTypeStateConflict, ""},
	}
	for i, st := range steps {
		env.RegisterDelayedCallback(func() {
			send(env, "upd"+string(rune('a'+i)), st.req, func(res ActResult, err error) {
				if st.errType != "" {
					refusedAs(t, string(st.req.Action), err, st.errType)
				} else if err != nil || res.Status != st.want {
					t.Errorf("step %d %s: %v %v, want %s", i, st.req.Action, res.Status, err, st.want)
				}
			})
		}, time.Duration(i+1)*time.Minute)
	}
	env.RegisterDelayedCallback(env.CancelWorkflow, 30*time.Minute)
	env.ExecuteWorkflow(Case, CaseInput{OrgID: "org_1", CaseID: "cas_1", Title: "t", Priority: "high", State: domain.StateOpen, DueAt: start.Add(24 * time.Hour)})
	if err := env.GetWorkflowError(); err == nil || !temporal.IsCanceledError(err) {
		t.Fatalf("workflow ended with %v, want cancelled", err)
	}
	if got := workflowtest.Names(f.events); len(got) != 3 || got[0] != "case.created" || got[1] != "case.assigned" || got[2] != "case.closed" {
		t.Fatalf("events %v", got)
	}
	closed := f.events[2].Data
	if closed["proposedBy"] != "usr_a" || closed["approvedBy"] != "usr_b" || closed["outcome"] != "confirmed_risk" {
		t.Errorf("case.closed = %v", closed)
	}
	if len(f.changes) != 4 || f.changes[2].ActorID != "usr_b" || f.changes[2].Action != domain.ActionApproveClose || f.changes[2].Outcome != "confirmed_risk" || f.changes[2].Proposer != "usr_a" {
		t.Errorf("changes %+v", f.changes)
	}
}

func TestCaseOverdueEscalatesOnce(t *testing.T) {
	env := workflowtest.NewEnv()
	f := &fakeCases{}
	f.register(t, env)
	start := env.Now().UTC()
	// After the first due date passes, a person sets a new one, which passes too.
	env.RegisterDelayedCallback(func() {
		due := start.Add(5 * time.Hour)
		send(env, "later", ActRequest{Action: domain.ActionUpdate, DueAt: &due}, func(_ ActResult, err error) {
			if err != nil {
				t.Errorf("update: %v", err)
			}
		})
	}, 3*time.Hour)
	env.RegisterDelayedCallback(env.CancelWorkflow, 10*time.Hour)
	env.ExecuteWorkflow(Case, CaseInput{OrgID: "org_1", CaseID: "cas_2", Title: "t", Priority: "low", State: domain.StateOpen, DueAt: start.Add(time.Hour)})
	if got := workflowtest.Names(f.events); len(got) != 4 || got[1] != "case.overdue" || got[2] != "case.escalated" || got[3] != "case.overdue" {
		t.Fatalf("events %v: the first due date escalates, the second (already escalated) only reports", got)
	}
	if len(f.overdue) != 2 {
		t.Errorf("overdue entries %d, want 2", len(f.overdue))
	}
}

// TestCaseReplay replays the recorded histories of the cases workflows (recorded by
// SVC_RECORD_HISTORIES=1 go test ./e2e -run TestCasesEndToEnd).
func TestCaseReplay(t *testing.T) {
	workflowtest.ReplayHistories(t, "testdata", "*.json", 4, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(Case, workflow.RegisterOptions{Name: CaseName})
		r.RegisterWorkflowWithOptions(SARSubmission, workflow.RegisterOptions{Name: SARSubmissionName})
	})
}
