package activities

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/events"
	"github.com/svcplatform/svc/ids"
	"github.com/svcplatform/svc/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/workflows"
)

// EnvTestTemporal names a Temporal frontend (host:port) for tests that need a real server;
// without it they are skipped. `svc dev` runs one (default 127.0.0.1:7233).
const EnvTestTemporal = "SVC_TEST_TEMPORAL_ADDRESS"

// TestExecutionAgainstTemporal runs the Execution workflow with the real activities, a real
// database, the real event publisher and a loopback HTTP service on a real Temporal server:
// http → condition → human_approval (resolved by Updates through the server) → transform,
// and a cancelled run. It is the workflow's integration test below the API.
func TestExecutionAgainstTemporal(t *testing.T) {
	addr := os.Getenv(EnvTestTemporal)
	if addr == "" {
		t.Skipf("set %s to run against a Temporal server", EnvTestTemporal)
	}
	c, err := client.Dial(client.Options{HostPort: addr, Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := storetest.Open(t, storetest.Backends(t)[0])
	ctx := context.Background()

	scoring := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"customer": "` + strings.TrimPrefix(r.URL.Path, "/score/") + `", "score": 0.9, "sent": ` + string(b) + `}`))
	}))
	defer scoring.Close()

	org, err := s.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	starts := &startRecorder{}
	acts := &Orchestration{Store: s, Publisher: &Webhooks{Store: s, Temporal: starts}, HTTP: loopbackClient(t, true)}
	queue := "it-" + ids.New(ids.Execution)
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(workflows.Execution, workflow.RegisterOptions{Name: workflows.ExecutionWorkflowName})
	w.RegisterActivity(acts)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	start := func(t *testing.T, def string, inputs map[string]any) (workflows.ExecutionInput, client.WorkflowRun) {
		t.Helper()
		if _, err := orchestration.Parse([]byte(def)); err != nil {
			t.Fatal(err)
		}
		wf, _, err := s.CreateWorkflow(ctx, org.ID, "wf-"+strings.ToLower(ids.New(ids.Workflow)[4:14]), "IT", def, "usr_drafter")
		if err != nil {
			t.Fatal(err)
		}
		in := workflows.ExecutionInput{ExecutionID: ids.New(ids.Execution), OrgID: org.ID, WorkflowID: wf.ID, WorkflowSlug: wf.Slug,
			WorkflowVersion: 1, ExternalID: "order-1", StartedBy: "usr_drafter", Inputs: inputs}
		if err := s.CreateExecution(ctx, &store.Execution{ID: in.ExecutionID, OrgID: org.ID, WorkflowID: wf.ID, WorkflowSlug: wf.Slug,
			WorkflowVersion: 1, Inputs: inputs, ExternalID: in.ExternalID, StartedBy: in.StartedBy}); err != nil {
			t.Fatal(err)
		}
		opts := workflows.ExecutionStartOptions(in)
		opts.TaskQueue = queue
		opts.TypedSearchAttributes = temporal.NewSearchAttributes() // the test namespace may lack ours
		run, err := c.ExecuteWorkflow(ctx, opts, workflows.ExecutionWorkflowName, in)
		if err != nil {
			t.Fatal(err)
		}
		return in, run
	}
	approvalOf := func(t *testing.T, executionID string) store.Approval {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if as, err := s.ExecutionApprovals(ctx, org.ID, executionID); err == nil && len(as) == 1 {
				return as[0]
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("no approval recorded")
		return store.Approval{}
	}
	resolve := func(executionID string, req workflows.ResolveApprovalRequest) (workflows.ApprovalResult, error) {
		h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: executionID, UpdateName: workflows.UpdateResolveApproval, WaitForStage: client.WorkflowUpdateStageCompleted,
			UpdateID: req.ApprovalID + ":" + req.ActorUserID + ":" + req.Decision, Args: []any{req},
		})
		if err != nil {
			return workflows.ApprovalResult{}, err
		}
		var res workflows.ApprovalResult
		return res, h.Get(ctx, &res)
	}

	t.Run("approved", func(t *testing.T) {
		def := `{"nodes": [
		 {"id": "fetch", "kind": "http", "config": {"method": "POST", "url": "` + scoring.URL + `/score/{{ inputs.customerId }}", "body": {"amount": "{{ inputs.amount }}"}}, "next": "check"},
		 {"id": "check", "kind": "condition", "config": {"expression": "steps.fetch.output.body.score > 0.5"}, "next": {"then": "review", "else": "low"}},
		 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "Approve {{ inputs.customerId }}", "assignTo": "role:reviewer",
		  "data": {"score": "{{ steps.fetch.output.body.score }}"}}, "next": {"approve": "done"}},
		 {"id": "done", "kind": "transform", "config": {"output": {"customer": "{{ steps.fetch.output.body.customer }}", "amount": "{{ steps.fetch.output.body.sent.amount }}", "approvedBy": "{{ steps.review.output.actorUserId }}"}}},
		 {"id": "low", "kind": "transform", "config": {"output": {"low": true}}}]}`
		in, run := start(t, def, map[string]any{"customerId": "cus_7", "amount": 250.0})
		ap := approvalOf(t, in.ExecutionID)
		if ap.Status != "pending" || ap.AssignTo != "role:reviewer" || ap.ActionLabel != "Approve cus_7" || ap.Data["score"] != 0.9 {
			t.Errorf("approval = %+v", ap)
		}
		req := workflows.ResolveApprovalRequest{StepID: ap.StepID, Decision: "approve", ActorUserID: "usr_drafter", ActorRoles: []string{"reviewer"}}
		if _, err := resolve(in.ExecutionID, req); err == nil {
			t.Fatal("self-approval accepted")
		} else if status, msg, _ := workflows.UpdateErrorStatus(err); status != 422 || msg != workflows.FourEyesMessage {
			t.Errorf("self-approval: %d %q", status, msg)
		}
		req.ActorUserID, req.ActorRoles = "usr_reviewer", []string{"viewer"}
		if _, err := resolve(in.ExecutionID, req); err == nil {
			t.Fatal("approval without the role accepted")
		} else if status, _, _ := workflows.UpdateErrorStatus(err); status != 403 {
			t.Errorf("missing role: %d (%v)", status, err)
		}
		req.ActorRoles = []string{"reviewer"}
		res, err := resolve(in.ExecutionID, req)
		if err != nil || res.Status != "approved" || res.ApprovalID != ap.ID || res.DecidedBy != "usr_reviewer" {
			t.Fatalf("approve: %+v, %v", res, err)
		}
		// The Update answered after the store held the decision.
		if got, _ := s.GetApproval(ctx, org.ID, ap.ID); got.Status != "approved" || got.DecidedBy != "usr_reviewer" {
			t.Errorf("stored approval = %+v", got)
		}
		var result workflows.ExecutionResult
		if err := run.Get(ctx, &result); err != nil {
			t.Fatal(err)
		}
		wantOut := `{"amount":250,"approvedBy":"usr_reviewer","customer":"cus_7"}`
		if b, _ := json.Marshal(result.Output); string(b) != wantOut {
			t.Errorf("output = %s, want %s", b, wantOut)
		}
		e, _ := s.GetExecution(ctx, org.ID, in.ExecutionID)
		if b, _ := json.Marshal(e.Output); e.Status != "succeeded" || string(b) != wantOut || e.StartedAt == nil || e.CompletedAt == nil {
			t.Errorf("execution = %+v", e)
		}
		steps, _ := s.ExecutionSteps(ctx, org.ID, in.ExecutionID)
		var log []string
		for _, st := range steps {
			log = append(log, st.NodeID+":"+st.Status)
		}
		if strings.Join(log, " ") != "fetch:succeeded check:succeeded review:succeeded done:succeeded" {
			t.Errorf("steps = %v", log)
		}
		var rows []store.Event
		if err := s.DB.Where("org_id = ?", org.ID).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		var names []string
		counts := map[string]int{}
		for _, ev := range rows {
			var env struct {
				Data struct {
					ExecutionID string `json:"executionId"`
				} `json:"data"`
			}
			if json.Unmarshal(ev.Body, &env) == nil && env.Data.ExecutionID == in.ExecutionID {
				names = append(names, ev.Name)
				counts[ev.Name]++
			}
		}
		if counts[events.WorkflowExecutionStarted] != 1 || counts[events.WorkflowStepCompleted] != 4 ||
			counts[events.WorkflowHumanApprovalPending] != 1 || counts[events.WorkflowExecutionCompleted] != 1 || len(names) != 7 {
			t.Errorf("events = %v", names)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		in, run := start(t, `{"nodes": [{"id": "review", "kind": "human_approval", "config": {"actionLabel": "ok?", "assignTo": "role:reviewer"}}]}`, map[string]any{})
		ap := approvalOf(t, in.ExecutionID)
		if err := c.SignalWorkflow(ctx, in.ExecutionID, "", workflows.SignalCancelRequest, workflows.CancelRequest{Reason: "duplicate order", ActorUserID: "usr_ops"}); err != nil {
			t.Fatal(err)
		}
		if err := c.CancelWorkflow(ctx, in.ExecutionID, ""); err != nil {
			t.Fatal(err)
		}
		if err := run.Get(ctx, nil); !temporal.IsCanceledError(err) {
			t.Fatalf("run = %v, want cancelled", err)
		}
		e, _ := s.GetExecution(ctx, org.ID, in.ExecutionID)
		if e.Status != "cancelled" || e.CancelReason != "duplicate order" || e.CancelledBy != "usr_ops" {
			t.Errorf("execution = %+v", e)
		}
		if got, _ := s.GetApproval(ctx, org.ID, ap.ID); got.Status != "cancelled" {
			t.Errorf("approval = %+v", got)
		}
		if _, err := resolve(in.ExecutionID, workflows.ResolveApprovalRequest{ApprovalID: ap.ID, Decision: "approve", ActorUserID: "usr_reviewer", ActorRoles: []string{"reviewer"}}); err == nil {
			t.Error("an approval of a cancelled run was accepted")
		}
	})
}
