package orchestration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/workflows"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// fakeOrchestration stands in for activities/orchestration.Activities: it keeps what the workflow
// records in memory, checks every event against the catalog (events.NewEnvelope) and
// answers http nodes from a script.
type fakeOrchestration struct {
	t          *testing.T
	env        *testsuite.TestWorkflowEnvironment
	definition string
	http       func(attempt int, req orch.HTTPRequest) (HTTPResult, error)
	// ai answers ai nodes (RunAINode); nil answers every one "ai not configured".
	ai func(attempt int, in AINodeInput) (AINodeResult, error)

	mu        sync.Mutex
	marked    []MarkRunningInput
	events    []workflows.PublishEventInput
	steps     []StepRecord
	approvals []ApprovalRecord
	decisions []ApprovalDecision
	finishes  []FinishInput
	requests  []orch.HTTPRequest
	aiCalls   []AINodeInput
}

func (f *fakeOrchestration) publish(ev workflows.PublishEventInput) {
	f.events = workflowtest.CheckedEvent(f.t, f.events, ev)
}

func (f *fakeOrchestration) MarkRunning(_ context.Context, in MarkRunningInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.marked = append(f.marked, in)
	f.publish(in.Event)
	return nil
}

func (f *fakeOrchestration) LoadDefinition(_ context.Context, in LoadDefinitionInput) (json.RawMessage, error) {
	if f.definition == "" {
		return nil, temporal.NewNonRetryableApplicationError("workflow version not found", ErrTypeDefinitionNotFound, nil)
	}
	return json.RawMessage(f.definition), nil
}

func (f *fakeOrchestration) RecordStep(_ context.Context, rec StepRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.steps = append(f.steps, rec)
	if rec.Event != nil {
		f.publish(*rec.Event)
	}
	return nil
}

func (f *fakeOrchestration) RunHTTPNode(ctx context.Context, req orch.HTTPRequest) (HTTPResult, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	return f.http(int(activity.GetInfo(ctx).Attempt), req)
}

// RunAINode records the ai node's input and answers from f.ai.
func (f *fakeOrchestration) RunAINode(ctx context.Context, in AINodeInput) (AINodeResult, error) {
	f.mu.Lock()
	f.aiCalls = append(f.aiCalls, in)
	f.mu.Unlock()
	attempt := int(activity.GetInfo(ctx).Attempt)
	if f.ai == nil {
		return AINodeResult{}, temporal.NewNonRetryableApplicationError("ai not configured", automation.ErrTypeFinal, nil, automation.StepFailure{Attempt: attempt})
	}
	return f.ai(attempt, in)
}

func (f *fakeOrchestration) RecordApproval(_ context.Context, rec ApprovalRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.approvals = append(f.approvals, rec)
	f.publish(rec.Event)
	return nil
}

func (f *fakeOrchestration) ResolveApproval(_ context.Context, d ApprovalDecision) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, d)
	return nil
}

func (f *fakeOrchestration) FinishExecution(_ context.Context, in FinishInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finishes = append(f.finishes, in)
	f.publish(in.Event)
	return nil
}

// activities are the fake's activities by registered name.
func (f *fakeOrchestration) activities() map[string]any {
	return map[string]any{
		ActivityMarkRunning: f.MarkRunning, ActivityLoadDefinition: f.LoadDefinition, ActivityRecordStep: f.RecordStep,
		ActivityRunHTTPNode: f.RunHTTPNode, ActivityRecordApproval: f.RecordApproval, ActivityResolveApproval: f.ResolveApproval,
		ActivityFinishExecution: f.FinishExecution, ActivityRunAINode: f.RunAINode,
	}
}

// eventNames lists the published event names in order.
func (f *fakeOrchestration) eventNames() []string { return workflowtest.Names(f.events) }

// lastEvent returns the last event with the given name.
func (f *fakeOrchestration) lastEvent(name string) workflows.PublishEventInput {
	for i := len(f.events) - 1; i >= 0; i-- {
		if f.events[i].Event == name {
			return f.events[i]
		}
	}
	f.t.Fatalf("no %s event in %v", name, f.eventNames())
	return workflows.PublishEventInput{}
}

// stepLog lists "node:status" for every step record, in order.
func (f *fakeOrchestration) stepLog() []string {
	var out []string
	for _, s := range f.steps {
		out = append(out, s.NodeID+":"+string(s.Status))
	}
	return out
}

// finished returns the one terminal record.
func (f *fakeOrchestration) finished() FinishInput {
	if len(f.finishes) != 1 {
		f.t.Fatalf("%d FinishExecution calls, want 1", len(f.finishes))
	}
	return f.finishes[0]
}

func (f *fakeOrchestration) stepID(node string) string {
	for _, s := range f.steps {
		if s.NodeID == node {
			return s.StepID
		}
	}
	f.t.Fatalf("no step for node %s", node)
	return ""
}

var testInput = ExecutionInput{
	ExecutionID: "exe_01jx0000000000000000000000", OrgID: "org_test", WorkflowID: "wkf_test", WorkflowSlug: "payout",
	WorkflowVersion: 2, ExternalID: "ext-1", StartedBy: "usr_drafter",
	Inputs: map[string]any{"userId": "u42", "amount": 1500.0},
}

// newExecution prepares a test environment running definition with the fake activities.
func newExecution(t *testing.T, definition string) (*testsuite.TestWorkflowEnvironment, *fakeOrchestration) {
	t.Helper()
	env := workflowtest.NewEnv()
	f := &fakeOrchestration{t: t, env: env, definition: definition,
		http: func(int, orch.HTTPRequest) (HTTPResult, error) {
			return HTTPResult{Response: orch.HTTPResponse{Status: 200, Headers: map[string]string{}, Body: map[string]any{"ok": true}}, Attempt: 1}, nil
		}}
	env.RegisterWorkflowWithOptions(Execution, workflow.RegisterOptions{Name: ExecutionWorkflowName})
	for name, fn := range f.activities() {
		env.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	return env, f
}

const linearDef = `{"nodes": [
 {"id": "fetch", "kind": "http", "config": {"method": "POST", "url": "https://api.example.com/users/{{ inputs.userId }}",
  "body": {"amount": "{{ inputs.amount }}"}, "retry": {"maxAttempts": 3, "backoff": "1s"}}, "next": "wait"},
 {"id": "wait", "kind": "delay", "config": {"duration": "1h"}, "next": "shape"},
 {"id": "shape", "kind": "transform", "config": {"output": {"status": "{{ steps.fetch.output.status }}", "ok": "{{ steps.fetch.output.body.ok }}", "ref": "{{ execution.externalId }}"}}}
]}`

func TestExecutionLinear(t *testing.T) {
	env, f := newExecution(t, linearDef)
	start := env.Now()
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	res := workflowtest.Result[ExecutionResult](t, env)

	workflowtest.SameJSON(t, "result", res, ExecutionResult{Status: "succeeded", Output: map[string]any{"status": 200, "ok": true, "ref": "ext-1"}})
	if got, want := f.eventNames(), []string{
		events.WorkflowExecutionStarted, events.WorkflowStepCompleted, events.WorkflowStepCompleted,
		events.WorkflowStepCompleted, events.WorkflowExecutionCompleted,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if got, want := f.stepLog(), []string{"fetch:running", "fetch:succeeded", "wait:running", "wait:succeeded", "shape:succeeded"}; !reflect.DeepEqual(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	want := orch.HTTPRequest{Method: "POST", URL: "https://api.example.com/users/u42", Body: map[string]any{"amount": 1500.0}, Timeout: orch.DefaultHTTPTimeout}
	if len(f.requests) != 1 || !reflect.DeepEqual(f.requests[0], want) {
		t.Errorf("requests = %#v, want one %#v", f.requests, want)
	}
	for _, s := range f.steps {
		if !ids.Valid(ids.Step, s.StepID) {
			t.Errorf("step id %q is not a stp_ id", s.StepID)
		}
	}
	// The delay node slept an hour of workflow time between its running and succeeded records.
	if d := f.steps[3].CompletedAt.Sub(f.steps[2].StartedAt); d < time.Hour {
		t.Errorf("delay lasted %s of workflow time, want 1h", d)
	}
	if env.Now().Sub(start) < time.Hour {
		t.Errorf("workflow clock moved %s, want at least 1h", env.Now().Sub(start))
	}

	started := f.lastEvent(events.WorkflowExecutionStarted)
	workflowtest.SameJSON(t, "started data", started.Data, map[string]any{"executionId": testInput.ExecutionID, "workflowId": "wkf_test",
		"workflowSlug": "payout", "inputs": testInput.Inputs, "externalId": "ext-1"})
	completed := f.lastEvent(events.WorkflowExecutionCompleted)
	fin := f.finished()
	workflowtest.SameJSON(t, "completed data", completed.Data, map[string]any{"executionId": testInput.ExecutionID, "workflowSlug": "payout",
		"status": "succeeded", "output": res.Output, "completedAt": fin.CompletedAt.Format(events.TimeFormat),
		"workflowId": "wkf_test", "workflowVersion": 2, "externalId": "ext-1"})
	if fin.Status != orch.ExecutionSucceeded || fin.FailedStepID != "" {
		t.Errorf("finish = %+v", fin)
	}
	stepDone := f.events[1]
	workflowtest.SameJSON(t, "step.completed data", stepDone.Data, map[string]any{"executionId": testInput.ExecutionID,
		"stepId": f.stepID("fetch"), "nodeId": "fetch", "output": map[string]any{"status": 200, "headers": map[string]any{}, "body": map[string]any{"ok": true}}})
	// Every event id is distinct.
	seen := map[string]bool{}
	for _, e := range f.events {
		if seen[e.EventID] {
			t.Errorf("event id %s repeated", e.EventID)
		}
		seen[e.EventID] = true
	}
}

const conditionDef = `{"nodes": [
 {"id": "check", "kind": "condition", "config": {"expression": "inputs.amount > 1000"}, "next": {"then": "big", "else": "small"}},
 {"id": "big", "kind": "transform", "config": {"output": {"size": "big", "checked": "{{ steps.check.output.result }}"}}},
 {"id": "small", "kind": "transform", "config": {"output": {"size": "small"}}}
]}`

func TestExecutionCondition(t *testing.T) {
	tests := []struct {
		amount float64
		steps  []string
		output map[string]any
	}{
		{1500, []string{"check:succeeded", "big:succeeded"}, map[string]any{"size": "big", "checked": true}},
		{10, []string{"check:succeeded", "small:succeeded"}, map[string]any{"size": "small"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.amount), func(t *testing.T) {
			env, f := newExecution(t, conditionDef)
			in := testInput
			in.Inputs = map[string]any{"amount": tt.amount}
			env.ExecuteWorkflow(ExecutionWorkflowName, in)
			res := workflowtest.Result[ExecutionResult](t, env)
			workflowtest.SameJSON(t, "output", res.Output, tt.output)
			if got := f.stepLog(); !reflect.DeepEqual(got, tt.steps) {
				t.Errorf("steps = %v, want %v", got, tt.steps)
			}
		})
	}
}

// approvalDef waits for a reviewer; next routes the decision to "pay" and "declined",
// which are in the definition only when next names them.
func approvalDef(next, timeout string) string {
	cfg := `{"actionLabel": "Pay {{ inputs.amount }} EUR to {{ inputs.userId }}", "assignTo": "role:reviewer", "data": {"amount": "{{ inputs.amount }}"}` + timeout + `}`
	nodes := []string{`{"id": "review", "kind": "human_approval", "config": ` + cfg + `, "next": ` + next + `}`}
	if strings.Contains(next, `"pay"`) {
		nodes = append(nodes, `{"id": "pay", "kind": "transform", "config": {"output": {"paid": true, "by": "{{ steps.review.output.actorUserId }}"}}}`)
	}
	if strings.Contains(next, `"declined"`) {
		nodes = append(nodes, `{"id": "declined", "kind": "transform", "config": {"output": {"paid": false, "timedOut": "{{ steps.review.output.timedOut }}"}}}`)
	}
	return `{"nodes": [` + strings.Join(nodes, ",") + `]}`
}

type updateOutcome struct {
	accepted bool
	rejected error
	result   ApprovalResult
	err      error
}

// update sends resolve-approval after delay, with the request req builds then (it may read
// what the run recorded so far), and records the outcome.
func update(env *testsuite.TestWorkflowEnvironment, delay time.Duration, id string, req func() ResolveApprovalRequest) *updateOutcome {
	out := &updateOutcome{}
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateResolveApproval, id, &testsuite.TestUpdateCallback{
			OnAccept: func() { out.accepted = true },
			OnReject: func(err error) { out.rejected = err },
			OnComplete: func(v any, err error) {
				out.err = err
				out.result, _ = v.(ApprovalResult)
			},
		}, req())
	}, delay)
	return out
}

func approve(who string) ResolveApprovalRequest {
	return ResolveApprovalRequest{Decision: "approve", ActorUserID: who, ActorRoles: []string{"reviewer"}, Comment: "fine"}
}

func TestExecutionApprovalApproved(t *testing.T) {
	env, f := newExecution(t, approvalDef(`{"approve": "pay", "reject": "declined"}`, ""))
	var stepID string
	out := update(env, time.Hour, "u1", func() ResolveApprovalRequest {
		req := approve("usr_reviewer")
		req.StepID = f.approvals[0].StepID // the pending event carries the step id
		stepID = req.StepID
		return req
	})
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	res := workflowtest.Result[ExecutionResult](t, env)

	if !out.accepted || out.rejected != nil || out.err != nil {
		t.Fatalf("update: %+v", out)
	}
	ap := f.approvals[0]
	if !ids.Valid(ids.Approval, ap.ApprovalID) || ap.StepID != stepID || ap.AssignTo != "role:reviewer" || ap.StartedBy != "usr_drafter" {
		t.Errorf("approval record = %+v", ap)
	}
	if out.result.ApprovalID != ap.ApprovalID || out.result.Status != "approved" || out.result.DecidedBy != "usr_reviewer" || out.result.Comment != "fine" {
		t.Errorf("update result = %+v", out.result)
	}
	if len(f.decisions) != 1 || f.decisions[0].Status != "approved" || f.decisions[0].DecidedBy != "usr_reviewer" {
		t.Errorf("decisions = %+v", f.decisions)
	}
	workflowtest.SameJSON(t, "output", res.Output, map[string]any{"paid": true, "by": "usr_reviewer"})
	pending := f.lastEvent(events.WorkflowHumanApprovalPending)
	workflowtest.SameJSON(t, "pending data", pending.Data, map[string]any{"executionId": testInput.ExecutionID, "workflowSlug": "payout",
		"stepId": stepID, "actionLabel": "Pay 1500 EUR to u42", "assignTo": "role:reviewer", "data": map[string]any{"amount": 1500}})
	if got, want := f.stepLog(), []string{"review:running", "review:succeeded", "pay:succeeded"}; !reflect.DeepEqual(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	workflowtest.SameJSON(t, "review output", f.steps[1].Output, map[string]any{"decision": "approve", "actorUserId": "usr_reviewer", "comment": "fine", "timedOut": false})
}

// failure returns the workflow's error, failing the test unless the run failed.
func failure(t *testing.T, env *testsuite.TestWorkflowEnvironment) *temporal.ApplicationError {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	var ae *temporal.ApplicationError
	if err := env.GetWorkflowError(); !errors.As(err, &ae) || ae.Type() != ErrTypeExecutionFailed {
		t.Fatalf("workflow error = %v, want an %s application error", err, ErrTypeExecutionFailed)
	}
	return ae
}

func TestExecutionApprovalRejected(t *testing.T) {
	reject := func(f *fakeOrchestration) func() ResolveApprovalRequest {
		return func() ResolveApprovalRequest {
			return ResolveApprovalRequest{ApprovalID: f.approvals[0].ApprovalID, Decision: "reject", ActorUserID: "usr_reviewer",
				ActorRoles: []string{"reviewer"}, Comment: "too much"}
		}
	}
	t.Run("without a reject route the run fails", func(t *testing.T) {
		env, f := newExecution(t, approvalDef(`{"approve": "pay"}`, ""))
		out := update(env, 2*time.Hour, "u1", reject(f))
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		ae := failure(t, env)
		if !out.accepted || out.result.Status != "rejected" {
			t.Errorf("update = %+v", out)
		}
		stepID := f.stepID("review")
		fin := f.finished()
		wantMsg := "node review (human_approval): approval rejected by usr_reviewer: too much"
		if fin.Status != "failed" || fin.FailedStepID != stepID || fin.ErrorMessage != wantMsg || ae.Message() != wantMsg {
			t.Errorf("finish = %+v, error %q", fin, ae.Message())
		}
		workflowtest.SameJSON(t, "failed data", f.lastEvent(events.WorkflowExecutionFailed).Data, map[string]any{
			"executionId": testInput.ExecutionID, "workflowSlug": "payout", "failedStepId": stepID, "errorMessage": wantMsg})
		workflowtest.SameJSON(t, "step.failed data", f.lastEvent(events.WorkflowStepFailed).Data, map[string]any{
			"executionId": testInput.ExecutionID, "stepId": stepID, "nodeId": "review",
			"errorMessage": "approval rejected by usr_reviewer: too much", "attempts": 1})
		if got, want := f.stepLog(), []string{"review:running", "review:failed"}; !reflect.DeepEqual(got, want) {
			t.Errorf("steps = %v, want %v", got, want)
		}
		if len(f.decisions) != 1 || f.decisions[0].Status != "rejected" || f.decisions[0].Comment != "too much" {
			t.Errorf("decisions = %+v", f.decisions)
		}
	})
	t.Run("a reject route is followed", func(t *testing.T) {
		env, f := newExecution(t, approvalDef(`{"approve": "pay", "reject": "declined"}`, ""))
		update(env, 2*time.Hour, "u1", reject(f))
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		res := workflowtest.Result[ExecutionResult](t, env)
		workflowtest.SameJSON(t, "output", res.Output, map[string]any{"paid": false, "timedOut": false})
		if got, want := f.stepLog(), []string{"review:running", "review:succeeded", "declined:succeeded"}; !reflect.DeepEqual(got, want) {
			t.Errorf("steps = %v, want %v", got, want)
		}
	})
}

func TestExecutionApprovalTimeout(t *testing.T) {
	t.Run("without a reject route the run fails", func(t *testing.T) {
		env, f := newExecution(t, approvalDef(`{"approve": "pay"}`, `, "timeout": "48h", "onTimeout": "reject"`))
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		failure(t, env)
		fin := f.finished()
		if fin.FailedStepID != f.stepID("review") || fin.ErrorMessage != "node review (human_approval): approval timed out after 48h0m0s" {
			t.Errorf("finish = %+v", fin)
		}
		ap := f.approvals[0]
		if ap.ExpiresAt == nil || ap.ExpiresAt.Sub(ap.CreatedAt) != 48*time.Hour {
			t.Errorf("approval expires at %v, created %v", ap.ExpiresAt, ap.CreatedAt)
		}
		if len(f.decisions) != 1 || f.decisions[0].Status != "rejected" || !f.decisions[0].TimedOut || f.decisions[0].DecidedBy != "" {
			t.Errorf("decisions = %+v", f.decisions)
		}
		if got := f.decisions[0].DecidedAt.Sub(ap.CreatedAt); got != 48*time.Hour {
			t.Errorf("rejected %s after creation, want 48h", got)
		}
	})
	t.Run("a reject route is followed", func(t *testing.T) {
		env, _ := newExecution(t, approvalDef(`{"approve": "pay", "reject": "declined"}`, `, "timeout": "1h"`))
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		workflowtest.SameJSON(t, "output", workflowtest.Result[ExecutionResult](t, env).Output, map[string]any{"paid": false, "timedOut": true})
	})
	t.Run("a decision before the timeout wins", func(t *testing.T) {
		env, f := newExecution(t, approvalDef(`{"approve": "pay", "reject": "declined"}`, `, "timeout": "1h"`))
		out := update(env, 59*time.Minute, "u1", func() ResolveApprovalRequest {
			req := approve("usr_reviewer")
			req.ApprovalID = f.approvals[0].ApprovalID
			return req
		})
		// After the timeout fired, a late decision is a state conflict.
		late := update(env, 2*time.Hour, "u2", func() ResolveApprovalRequest {
			req := approve("usr_other")
			req.ApprovalID = f.approvals[0].ApprovalID
			return req
		})
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		workflowtest.SameJSON(t, "output", workflowtest.Result[ExecutionResult](t, env).Output, map[string]any{"paid": true, "by": "usr_reviewer"})
		if !out.accepted || late.accepted {
			t.Errorf("updates: first %+v, late %+v", out, late)
		}
	})
}

func TestExecutionApprovalTimeoutThenLateUpdate(t *testing.T) {
	// A definition that keeps running after the approval timed out, so a late update reaches a live run.
	def := `{"nodes": [
	 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "ok?", "assignTo": "role:reviewer", "timeout": "1h"}, "next": {"reject": "wait"}},
	 {"id": "wait", "kind": "delay", "config": {"duration": "5h"}}]}`
	env, f := newExecution(t, def)
	late := update(env, 2*time.Hour, "u1", func() ResolveApprovalRequest {
		req := approve("usr_reviewer")
		req.ApprovalID = f.approvals[0].ApprovalID
		return req
	})
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	workflowtest.Result[ExecutionResult](t, env)
	if status, msg, ok := workflows.UpdateErrorStatus(late.rejected); !ok || status != 409 || msg != "state conflict: cannot transition rejected → approved" {
		t.Errorf("late update: %v (%d %q)", late.rejected, status, msg)
	}
}

// validatorDef holds one approval and keeps the run alive afterwards, so updates sent after
// the decision still reach the validator.
const validatorDef = `{"nodes": [
 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "ok?", "assignTo": "role:reviewer"}, "next": {"approve": "wait"}},
 {"id": "wait", "kind": "delay", "config": {"duration": "24h"}}]}`

func TestExecutionApprovalValidator(t *testing.T) {
	env, f := newExecution(t, validatorDef)
	id := func(req ResolveApprovalRequest) func() ResolveApprovalRequest {
		return func() ResolveApprovalRequest {
			if req.ApprovalID == "" && req.StepID == "" {
				req.ApprovalID = f.approvals[0].ApprovalID
			}
			return req
		}
	}
	tests := []struct {
		name   string
		req    ResolveApprovalRequest
		status int
		msg    string
	}{
		{"unknown approval", ResolveApprovalRequest{ApprovalID: "apr_unknown", Decision: "approve", ActorUserID: "usr_r", ActorRoles: []string{"reviewer"}}, 404, "approval not found"},
		{"unknown step", ResolveApprovalRequest{StepID: "stp_unknown", Decision: "approve", ActorUserID: "usr_r", ActorRoles: []string{"reviewer"}}, 404, "approval not found"},
		{"bad decision", ResolveApprovalRequest{Decision: "maybe", ActorUserID: "usr_r", ActorRoles: []string{"reviewer"}}, 400, `decision must be "approve" or "reject", got "maybe"`},
		{"no actor", ResolveApprovalRequest{Decision: "approve", ActorRoles: []string{"reviewer"}}, 400, "actorUserId is required"},
		{"missing role", ResolveApprovalRequest{Decision: "approve", ActorUserID: "usr_r", ActorRoles: []string{"viewer"}}, 403, "missing role: reviewer"},
		{"four eyes", ResolveApprovalRequest{Decision: "approve", ActorUserID: "usr_drafter", ActorRoles: []string{"reviewer"}}, 422, "four-eyes violation: drafter cannot submit"},
	}
	outcomes := make([]*updateOutcome, len(tests))
	for i, tt := range tests {
		outcomes[i] = update(env, time.Duration(i+1)*time.Minute, fmt.Sprintf("bad-%d", i), id(tt.req))
	}
	good := update(env, time.Hour, "good", id(ResolveApprovalRequest{Decision: "approve", ActorUserID: "usr_r", ActorRoles: []string{"reviewer"}}))
	again := update(env, 2*time.Hour, "again", id(ResolveApprovalRequest{Decision: "reject", ActorUserID: "usr_s", ActorRoles: []string{"reviewer"}}))
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	workflowtest.Result[ExecutionResult](t, env)

	for i, tt := range tests {
		o := outcomes[i]
		status, msg, ok := workflows.UpdateErrorStatus(o.rejected)
		if o.accepted || !ok || status != tt.status || msg != tt.msg {
			t.Errorf("%s: accepted %v, rejected %v → %d %q; want %d %q", tt.name, o.accepted, o.rejected, status, msg, tt.status, tt.msg)
		}
	}
	if !good.accepted || good.err != nil || good.result.Status != "approved" {
		t.Errorf("good update = %+v", good)
	}
	status, msg, ok := workflows.UpdateErrorStatus(again.rejected)
	if again.accepted || !ok || status != 409 || msg != "state conflict: cannot transition approved → rejected" {
		t.Errorf("second decision: %+v → %d %q", again, status, msg)
	}
	var ae *temporal.ApplicationError
	var sc workflows.StateConflict
	if !errors.As(again.rejected, &ae) || ae.Details(&sc) != nil || sc != (workflows.StateConflict{From: "approved", To: "rejected"}) {
		t.Errorf("state conflict details = %+v", sc)
	}
	// Rejected updates wrote nothing: one decision only.
	if len(f.decisions) != 1 || f.decisions[0].DecidedBy != "usr_r" {
		t.Errorf("decisions = %+v", f.decisions)
	}
}

func TestExecutionApprovalAssignedToUser(t *testing.T) {
	def := `{"nodes": [{"id": "review", "kind": "human_approval", "config": {"actionLabel": "ok?", "assignTo": "user:usr_boss"}}]}`
	env, f := newExecution(t, def)
	wrong := update(env, time.Minute, "u1", func() ResolveApprovalRequest {
		return ResolveApprovalRequest{ApprovalID: f.approvals[0].ApprovalID, Decision: "approve", ActorUserID: "usr_r", ActorRoles: []string{"reviewer"}}
	})
	right := update(env, time.Hour, "u2", func() ResolveApprovalRequest {
		return ResolveApprovalRequest{ApprovalID: f.approvals[0].ApprovalID, Decision: "approve", ActorUserID: "usr_boss"}
	})
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	res := workflowtest.Result[ExecutionResult](t, env)
	if status, _, _ := workflows.UpdateErrorStatus(wrong.rejected); status != 403 {
		t.Errorf("wrong user: %v", wrong.rejected)
	}
	if !right.accepted {
		t.Errorf("assigned user: %+v", right)
	}
	workflowtest.SameJSON(t, "output", res.Output, map[string]any{"decision": "approve", "actorUserId": "usr_boss", "timedOut": false})
}

func TestExecutionCancel(t *testing.T) {
	t.Run("during a delay, with a reason", func(t *testing.T) {
		env, f := newExecution(t, linearDef)
		env.RegisterDelayedCallback(func() {
			env.SignalWorkflow(SignalCancelRequest, CancelRequest{Reason: "customer withdrew", ActorUserID: "usr_ops"})
			env.CancelWorkflow()
		}, 30*time.Minute)
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		if !env.IsWorkflowCompleted() || !temporal.IsCanceledError(env.GetWorkflowError()) {
			t.Fatalf("workflow error = %v, want cancelled", env.GetWorkflowError())
		}
		fin := f.finished()
		if fin.Status != "cancelled" || fin.Reason != "customer withdrew" || fin.ActorUserID != "usr_ops" {
			t.Errorf("finish = %+v", fin)
		}
		workflowtest.SameJSON(t, "cancelled data", f.lastEvent(events.WorkflowExecutionCancelled).Data, map[string]any{
			"executionId": testInput.ExecutionID, "workflowSlug": "payout", "reason": "customer withdrew", "actorUserId": "usr_ops"})
		if got, want := f.stepLog(), []string{"fetch:running", "fetch:succeeded", "wait:running", "wait:cancelled"}; !reflect.DeepEqual(got, want) {
			t.Errorf("steps = %v, want %v", got, want)
		}
	})
	t.Run("while waiting for an approval, without a reason", func(t *testing.T) {
		env, f := newExecution(t, approvalDef(`{"approve": "pay"}`, ""))
		env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		if !temporal.IsCanceledError(env.GetWorkflowError()) {
			t.Fatalf("workflow error = %v, want cancelled", env.GetWorkflowError())
		}
		if len(f.decisions) != 1 || f.decisions[0].Status != "cancelled" || f.decisions[0].ApprovalID != f.approvals[0].ApprovalID {
			t.Errorf("decisions = %+v", f.decisions)
		}
		workflowtest.SameJSON(t, "cancelled data", f.lastEvent(events.WorkflowExecutionCancelled).Data, map[string]any{
			"executionId": testInput.ExecutionID, "workflowSlug": "payout", "reason": nil, "actorUserId": nil})
		if got, want := f.stepLog(), []string{"review:running", "review:cancelled"}; !reflect.DeepEqual(got, want) {
			t.Errorf("steps = %v, want %v", got, want)
		}
	})
}

func TestExecutionHTTPFailure(t *testing.T) {
	tests := []struct {
		name     string
		answer   func(attempt int) (HTTPResult, error)
		attempts int
		msg      string
	}{
		{"final status fails at once", func(attempt int) (HTTPResult, error) {
			return HTTPResult{}, temporal.NewNonRetryableApplicationError("POST https://api.example.com/users/u42: status 404 Not Found",
				ErrTypeHTTPStatusFinal, nil, HTTPFailure{Attempt: attempt, Status: 404})
		}, 1, "POST https://api.example.com/users/u42: status 404 Not Found"},
		{"retryable status exhausts the policy", func(attempt int) (HTTPResult, error) {
			return HTTPResult{}, temporal.NewApplicationError("POST https://api.example.com/users/u42: status 503 Service Unavailable",
				ErrTypeHTTPStatus, HTTPFailure{Attempt: attempt, Status: 503})
		}, 3, "POST https://api.example.com/users/u42: status 503 Service Unavailable (after 3 attempts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, f := newExecution(t, linearDef)
			f.http = func(attempt int, _ orch.HTTPRequest) (HTTPResult, error) { return tt.answer(attempt) }
			env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
			failure(t, env)
			if len(f.requests) != tt.attempts {
				t.Errorf("%d requests, want %d", len(f.requests), tt.attempts)
			}
			stepID := f.stepID("fetch")
			fin := f.finished()
			if fin.FailedStepID != stepID || fin.ErrorMessage != "node fetch (http): "+tt.msg {
				t.Errorf("finish = %+v", fin)
			}
			workflowtest.SameJSON(t, "step.failed data", f.lastEvent(events.WorkflowStepFailed).Data, map[string]any{
				"executionId": testInput.ExecutionID, "stepId": stepID, "nodeId": "fetch", "errorMessage": tt.msg, "attempts": tt.attempts})
			if got, want := f.stepLog(), []string{"fetch:running", "fetch:failed"}; !reflect.DeepEqual(got, want) {
				t.Errorf("steps = %v, want %v", got, want)
			}
		})
	}
	t.Run("success on the second attempt counts two attempts", func(t *testing.T) {
		env, f := newExecution(t, linearDef)
		f.http = func(attempt int, _ orch.HTTPRequest) (HTTPResult, error) {
			if attempt == 1 {
				return HTTPResult{}, temporal.NewApplicationError("status 502", ErrTypeHTTPStatus, HTTPFailure{Attempt: 1, Status: 502})
			}
			return HTTPResult{Response: orch.HTTPResponse{Status: 201, Body: map[string]any{"ok": true}}, Attempt: attempt}, nil
		}
		env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
		workflowtest.Result[ExecutionResult](t, env)
		if f.steps[1].NodeID != "fetch" || f.steps[1].Status != "succeeded" || f.steps[1].Attempts != 2 {
			t.Errorf("fetch step = %+v", f.steps[1])
		}
	})
}

func TestExecutionEvaluationFailure(t *testing.T) {
	def := `{"nodes": [{"id": "call", "kind": "http", "config": {"url": "{{ inputs.target }}"}}]}`
	env, f := newExecution(t, def)
	in := testInput
	in.Inputs = map[string]any{"target": "ftp://files.example.com"}
	env.ExecuteWorkflow(ExecutionWorkflowName, in)
	failure(t, env)
	if len(f.requests) != 0 {
		t.Errorf("an invalid request was sent: %+v", f.requests)
	}
	fin := f.finished()
	if fin.FailedStepID != f.stepID("call") || !strings.Contains(fin.ErrorMessage, "URL scheme must be http or https") {
		t.Errorf("finish = %+v", fin)
	}
}

func TestExecutionDefinitionProblems(t *testing.T) {
	tests := []struct{ name, def, msg string }{
		{"version not found", "", "workflow version not found"},
		{"stored definition no longer valid", `{"nodes": [{"id": "a", "kind": "teleport"}]}`, `workflow wkf_test version 2: validation failed: definition.nodes[0].kind: unknown kind "teleport"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, f := newExecution(t, tt.def)
			env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
			failure(t, env)
			fin := f.finished()
			if fin.FailedStepID != "" || !strings.HasPrefix(fin.ErrorMessage, tt.msg) {
				t.Errorf("finish = %+v", fin)
			}
			if data := f.lastEvent(events.WorkflowExecutionFailed).Data; data["failedStepId"] != nil {
				t.Errorf("failedStepId = %v, want null", data["failedStepId"])
			}
			if len(f.steps) != 0 {
				t.Errorf("steps recorded: %v", f.stepLog())
			}
		})
	}
}

func TestExecutionStartOptions(t *testing.T) {
	o := ExecutionStartOptions(testInput)
	if o.ID != testInput.ExecutionID || o.TaskQueue != workflows.QueueOrchestration || o.StaticSummary != "payout v2 · ext-1" {
		t.Errorf("options = %+v", o)
	}
	if o.WorkflowIDConflictPolicy != enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING || o.WorkflowIDReusePolicy != enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE {
		t.Errorf("policies = %v, %v", o.WorkflowIDConflictPolicy, o.WorkflowIDReusePolicy)
	}
	for key, want := range map[temporal.SearchAttributeKeyKeyword]string{workflows.AttrOrgID: "org_test", workflows.AttrWorkflowSlug: "payout", workflows.AttrExternalID: "ext-1"} {
		if got, ok := o.TypedSearchAttributes.GetKeyword(key); !ok || got != want {
			t.Errorf("search attribute %s = %q, %v; want %q", key.GetName(), got, ok, want)
		}
	}
	in := testInput
	in.ExternalID = ""
	if _, ok := ExecutionStartOptions(in).TypedSearchAttributes.GetKeyword(workflows.AttrExternalID); ok {
		t.Error("ExternalId set without an externalId")
	}
}
