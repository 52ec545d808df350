package orchestration

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/ids"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/workflows"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// historyDir holds recorded histories of the Execution workflow: each file is one
// representative run, replayed by TestExecutionReplay so that a change to the workflow
// that would break running executions fails `make test`. Add workflow.GetVersion to the
// change rather than re-recording; re-record only when adding scenarios.
const historyDir = "testdata"

// recordTag names the histories TestRecordExecutionHistories records now: runs of
// VersionStableIDs (execution_stable_ids_<scenario>.json). The files of earlier versions stay,
// so every version keeps replaying: untagged ones are runs with regular bookkeeping activities,
// local_bookkeeping_ ones runs of VersionLocalBookkeeping whose ids still carried the time.
const recordTag = "stable_ids_"

// localTag names the histories of VersionLocalBookkeeping recorded before VersionStableIDs.
const localTag = "local_bookkeeping_"

func TestExecutionReplay(t *testing.T) {
	// Record them with TestRecordExecutionHistories: 8 scenarios of each of the three versions.
	workflowtest.ReplayHistories(t, historyDir, "execution_*.json", 24, func(r worker.WorkflowReplayer) {
		r.RegisterWorkflowWithOptions(Execution, workflow.RegisterOptions{Name: ExecutionWorkflowName})
	})
}

// TestRecordedHistoriesOfLocalBookkeeping checks that each recorded history is a run of the
// version its name says: untagged ones have no version marker and schedule their bookkeeping as
// regular activities; local_bookkeeping_ ones have VersionLocalBookkeeping's marker only;
// stable_ids_ ones both markers; neither of the latter schedules bookkeeping as an activity.
func TestRecordedHistoriesOfLocalBookkeeping(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(historyDir, "execution_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	marker := func(raw []byte, change string) bool {
		// The Version marker's change id, a JSON string payload, base64 in the history's JSON.
		return strings.Contains(string(raw), base64.StdEncoding.EncodeToString([]byte(`"`+change+`"`)))
	}
	count := map[string]int{}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(file)
		local := strings.HasPrefix(base, "execution_"+localTag)
		stable := strings.HasPrefix(base, "execution_"+recordTag)
		count[fmt.Sprint(local, stable)]++
		scheduled := strings.Contains(string(raw), `"name": "`+ActivityMarkRunning+`"`)
		if marker(raw, VersionLocalBookkeeping) != (local || stable) || marker(raw, VersionStableIDs) != stable || scheduled == (local || stable) {
			t.Errorf("%s: markers local %v stable %v, MarkRunning scheduled as an activity %v", file,
				marker(raw, VersionLocalBookkeeping), marker(raw, VersionStableIDs), scheduled)
		}
	}
	for _, v := range []string{"false false", "true false", "false true"} {
		if count[v] < 8 {
			t.Errorf("%d histories recorded of version (local, stable) = %s, want 8", count[v], v)
		}
	}
}

// Environment of TestRecordExecutionHistories.
const (
	envRecord          = "SVC_RECORD_HISTORIES"
	envTemporalAddress = "SVC_TEMPORAL_ADDRESS"
	envNamespace       = "SVC_TEMPORAL_NAMESPACE"
)

// recordScenario is one representative execution to record.
type recordScenario struct {
	name       string
	definition string
	inputs     map[string]any
	http       func(attempt int, req orch.HTTPRequest) (HTTPResult, error)
	ai         func(attempt int, in AINodeInput) (AINodeResult, error)
	// drive acts on the running execution (updates, cancel) and returns when done.
	drive func(t *testing.T, c client.Client, id string, f *fakeOrchestration)
	// want is the execution's terminal state.
	want orch.ExecutionStatus
}

// TestRecordExecutionHistories records the histories TestExecutionReplay replays. It needs a
// real Temporal server (the embedded one of `svc dev`, or the e2e harness):
//
//	SVC_RECORD_HISTORIES=1 SVC_TEMPORAL_ADDRESS=127.0.0.1:7233 go test ./workflows -run TestRecordExecutionHistories
//
// It runs the workflow on a task queue of its own with in-memory activities (the same fakes
// as the unit tests), so it needs no database, and writes testdata/execution_<recordTag><name>.json.
func TestRecordExecutionHistories(t *testing.T) {
	addr := os.Getenv(envTemporalAddress)
	if os.Getenv(envRecord) != "1" || addr == "" {
		t.Skipf("set %s=1 and %s to record histories", envRecord, envTemporalAddress)
	}
	ns := os.Getenv(envNamespace)
	if ns == "" {
		ns = "default"
	}
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: ns, Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	ok := func(int, orch.HTTPRequest) (HTTPResult, error) {
		return HTTPResult{Response: orch.HTTPResponse{Status: 200, Headers: map[string]string{"content-type": "application/json"},
			Body: map[string]any{"id": "u42", "score": 0.7}}, Attempt: 1}, nil
	}
	approveAfter := func(req ResolveApprovalRequest, bad ...ResolveApprovalRequest) func(*testing.T, client.Client, string, *fakeOrchestration) {
		return func(t *testing.T, c client.Client, id string, f *fakeOrchestration) {
			apr := waitForApproval(t, f)
			for _, b := range bad {
				b.ApprovalID = apr
				// Through a real server the validator's answer still maps to its HTTP status.
				if _, err := sendResolve(c, id, b); err == nil {
					t.Fatalf("update %+v was accepted", b)
				} else if status, _, ok := workflows.UpdateErrorStatus(err); !ok || status != 422 {
					t.Fatalf("update %+v: %v (status %d)", b, err, status)
				}
			}
			req.ApprovalID = apr
			if res, err := sendResolve(c, id, req); err != nil || res.Status != orch.DecisionState(req.Decision) {
				t.Fatalf("update %+v: %+v, %v", req, res, err)
			}
		}
	}
	reviewer := ResolveApprovalRequest{Decision: "approve", ActorUserID: "usr_reviewer", ActorRoles: []string{"reviewer"}, Comment: "checked"}
	selfApproval := ResolveApprovalRequest{Decision: "approve", ActorUserID: "usr_drafter", ActorRoles: []string{"reviewer"}}
	rejection := ResolveApprovalRequest{Decision: "reject", ActorUserID: "usr_reviewer", ActorRoles: []string{"reviewer"}, Comment: "no"}
	scenarios := []recordScenario{
		{name: "linear", definition: `{"nodes": [
		 {"id": "fetch", "kind": "http", "config": {"method": "POST", "url": "https://api.example.com/users/{{ inputs.userId }}", "body": {"amount": "{{ inputs.amount }}"}}, "next": "wait"},
		 {"id": "wait", "kind": "delay", "config": {"duration": "1s"}, "next": "shape"},
		 {"id": "shape", "kind": "transform", "config": {"output": {"user": "{{ steps.fetch.output.body.id }}", "score": "{{ steps.fetch.output.body.score }}"}}}]}`,
			http: ok, want: "succeeded"},
		{name: "branching", definition: `{"nodes": [
		 {"id": "check", "kind": "condition", "config": {"expression": "inputs.amount > 1000"}, "next": {"then": "big", "else": "small"}},
		 {"id": "big", "kind": "transform", "config": {"output": {"size": "big"}}},
		 {"id": "small", "kind": "transform", "config": {"output": {"size": "small"}}}]}`, want: "succeeded"},
		{name: "approval_approved", definition: approvalDef(`{"approve": "pay", "reject": "declined"}`, ""),
			drive: approveAfter(reviewer, selfApproval), want: "succeeded"},
		{name: "approval_rejected", definition: approvalDef(`{"approve": "pay"}`, ""),
			drive: approveAfter(rejection), want: "failed"},
		{name: "approval_timeout", definition: approvalDef(`{"approve": "pay", "reject": "declined"}`, `, "timeout": "1s", "onTimeout": "reject"`), want: "succeeded"},
		{name: "cancel", definition: `{"nodes": [{"id": "wait", "kind": "delay", "config": {"duration": "1h"}}]}`,
			drive: func(t *testing.T, c client.Client, id string, f *fakeOrchestration) {
				waitFor(t, "the delay to start", func() bool { return len(f.stepsSnapshot()) > 0 })
				ctx := context.Background()
				if err := c.SignalWorkflow(ctx, id, "", SignalCancelRequest, CancelRequest{Reason: "no longer needed", ActorUserID: "usr_ops"}); err != nil {
					t.Fatal(err)
				}
				if err := c.CancelWorkflow(ctx, id, ""); err != nil {
					t.Fatal(err)
				}
			}, want: "cancelled"},
		{name: "ai_node", definition: `{"nodes": [
		 {"id": "assess", "kind": "ai", "config": {"prompt": "Assess a payout of {{ inputs.amount }}", "schema": {"type": "object", "required": ["risk"]}}, "next": "review"},
		 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "Model says {{ steps.assess.output.answer.risk }}", "assignTo": "role:reviewer"}, "next": {"approve": "done"}},
		 {"id": "done", "kind": "transform", "config": {"output": {"risk": "{{ steps.assess.output.answer.risk }}"}}}]}`,
			ai: func(attempt int, _ AINodeInput) (AINodeResult, error) {
				if attempt == 1 {
					return AINodeResult{}, temporal.NewApplicationErrorWithOptions("ai provider rate limited (retry after 1s)", automation.ErrTypeRateLimited,
						temporal.ApplicationErrorOptions{NextRetryDelay: time.Second, Details: []any{automation.StepFailure{Attempt: 1}}})
				}
				return aiAnswer(attempt), nil
			},
			drive: approveAfter(reviewer), want: "succeeded"},
		{name: "http_failure", definition: linearDef,
			http: func(attempt int, _ orch.HTTPRequest) (HTTPResult, error) {
				if attempt == 1 {
					return HTTPResult{}, temporal.NewApplicationError("status 503", ErrTypeHTTPStatus, HTTPFailure{Attempt: 1, Status: 503})
				}
				return HTTPResult{}, temporal.NewNonRetryableApplicationError("status 404 Not Found", ErrTypeHTTPStatusFinal, nil, HTTPFailure{Attempt: attempt, Status: 404})
			}, want: "failed"},
	}
	if err := os.MkdirAll(historyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) { recordOne(t, c, sc) })
	}
}

func recordOne(t *testing.T, c client.Client, sc recordScenario) {
	f := &fakeOrchestration{t: t, definition: sc.definition, http: sc.http, ai: sc.ai}
	queue := "record-" + strings.ToLower(ids.New(ids.Execution))
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(Execution, workflow.RegisterOptions{Name: ExecutionWorkflowName})
	for name, fn := range f.activities() {
		w.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	in := testInput
	in.ExecutionID = ids.New(ids.Execution)
	if sc.inputs != nil {
		in.Inputs = sc.inputs
	}
	opts := ExecutionStartOptions(in)
	opts.TaskQueue = queue
	opts.TypedSearchAttributes = temporal.SearchAttributes{} // the recording namespace may not have ours
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, opts, ExecutionWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	if sc.drive != nil {
		sc.drive(t, c, in.ExecutionID, f)
	}
	runErr := run.Get(ctx, nil)
	if f.finishes == nil || f.finished().Status != sc.want {
		t.Fatalf("run ended %v (%+v), want %s", runErr, f.finishes, sc.want)
	}
	hist := &historypb.History{}
	it := c.GetWorkflowHistory(ctx, in.ExecutionID, run.GetRunID(), false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, ev)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(historyDir, "execution_"+recordTag+sc.name+".json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s: %d events, execution %s", path, len(hist.Events), sc.want)
}

func (f *fakeOrchestration) stepsSnapshot() []StepRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]StepRecord(nil), f.steps...)
}

func waitForApproval(t *testing.T, f *fakeOrchestration) string {
	var id string
	waitFor(t, "the approval to be recorded", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.approvals) > 0 {
			id = f.approvals[0].ApprovalID
		}
		return id != ""
	})
	return id
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sendResolve sends the resolve-approval Update as the API does (UpdateID = approval,
// actor and decision) and waits for its result.
func sendResolve(c client.Client, executionID string, req ResolveApprovalRequest) (ApprovalResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: executionID, UpdateName: UpdateResolveApproval, WaitForStage: client.WorkflowUpdateStageCompleted,
		UpdateID: fmt.Sprintf("%s:%s:%s", req.ApprovalID, req.ActorUserID, req.Decision), Args: []any{req},
	})
	if err != nil {
		return ApprovalResult{}, err
	}
	var res ApprovalResult
	err = h.Get(ctx, &res)
	return res, err
}
