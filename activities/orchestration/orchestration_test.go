package orchestration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	hookacts "github.com/svcplatform/svc/activities/webhooks"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/netguard"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/workflows"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// runHTTPNode runs the activity in Temporal's activity test environment.
func runHTTPNode(t *testing.T, o *Activities, req orch.HTTPRequest) (orchwf.HTTPResult, error) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(o)
	val, err := env.ExecuteActivity(o.RunHTTPNode, req)
	if err != nil {
		return orchwf.HTTPResult{}, err
	}
	var res orchwf.HTTPResult
	if err := val.Get(&res); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

func loopbackClient(t *testing.T, allow bool) *http.Client {
	t.Helper()
	cfg := netguard.Config{}
	if allow {
		cfg.AllowCIDRs = []string{"127.0.0.0/8"}
	}
	g, err := netguard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g.Client()
}

func TestRunHTTPNode(t *testing.T) {
	type seen struct {
		method, path, query, auth, contentType, userAgent string
		body                                              string
	}
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), string(b)})
		mu.Unlock()
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("X-Internal-Secret", "not for the output")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id": 7, "items": ["a"]}`))
		case "/text":
			_, _ = w.Write([]byte("plain answer"))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/problem":
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"title": "no"}`))
		case "/busy":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/limited":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/moved":
			http.Redirect(w, r, "/json", http.StatusFound)
		case "/big":
			_, _ = w.Write([]byte(strings.Repeat("x", 2048)))
		case "/slow":
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	o := &Activities{HTTP: loopbackClient(t, true), MaxResponseBytes: 1024}

	t.Run("JSON request and answer", func(t *testing.T) {
		mu.Lock()
		got = nil
		mu.Unlock()
		res, err := runHTTPNode(t, o, orch.HTTPRequest{
			Method: "POST", URL: srv.URL + "/json?token=abc", Headers: map[string]string{"Authorization": "Bearer t0k"},
			Body: map[string]any{"amount": 12.5}, Timeout: 5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		want := orchwf.HTTPResult{Attempt: 1, Response: orch.HTTPResponse{
			Status:  201,
			Headers: map[string]string{"content-type": "application/json; charset=utf-8", "etag": `"v1"`},
			Body:    map[string]any{"id": 7.0, "items": []any{"a"}},
		}}
		if a, b := fmt.Sprint(res), fmt.Sprint(want); a != b {
			t.Errorf("result = %s\nwant     %s", a, b)
		}
		if len(got) != 1 {
			t.Fatalf("%d requests", len(got))
		}
		r := got[0]
		if r.method != "POST" || r.query != "token=abc" || r.auth != "Bearer t0k" || r.contentType != "application/json" ||
			r.body != `{"amount":12.5}` || !strings.HasPrefix(r.userAgent, "svc/") {
			t.Errorf("request = %+v", r)
		}
	})

	t.Run("text body and answers", func(t *testing.T) {
		res, err := runHTTPNode(t, o, orch.HTTPRequest{Method: "PUT", URL: srv.URL + "/text", Body: "hello", Timeout: 5 * time.Second})
		if err != nil || res.Response.Body != "plain answer" {
			t.Fatalf("text: %+v, %v", res, err)
		}
		if last := got[len(got)-1]; last.contentType != "text/plain; charset=utf-8" || last.body != "hello" {
			t.Errorf("request = %+v", last)
		}
		res, err = runHTTPNode(t, o, orch.HTTPRequest{Method: "DELETE", URL: srv.URL + "/empty", Timeout: 5 * time.Second})
		if err != nil || res.Response.Status != 204 || res.Response.Body != nil {
			t.Fatalf("empty: %+v, %v", res, err)
		}
	})

	tests := []struct {
		name, path string
		client     *http.Client
		timeout    time.Duration
		errType    string
		status     int
		retryable  bool
		msg        string
	}{
		{"4xx is final", "/problem", nil, 0, orchwf.ErrTypeHTTPStatusFinal, 422, false, "status 422 Unprocessable Entity"},
		{"5xx is retried", "/busy", nil, 0, orchwf.ErrTypeHTTPStatus, 503, true, "status 503 Service Unavailable"},
		{"429 is retried", "/limited", nil, 0, orchwf.ErrTypeHTTPStatus, 429, true, "status 429 Too Many Requests"},
		{"redirects are not followed", "/moved", nil, 0, orchwf.ErrTypeHTTPStatusFinal, 302, false, "status 302 Found"},
		{"body too large", "/big", nil, 0, orchwf.ErrTypeHTTPInvalid, 200, false, "response body is larger than 1024 bytes"},
		{"timeout", "/slow", nil, 50 * time.Millisecond, orchwf.ErrTypeHTTPTransport, 0, true, "no answer within 50ms"},
		{"SSRF guard refuses loopback", "/json", loopbackClient(t, false), 0, orchwf.ErrTypeHTTPInvalid, 0, false, "refused to connect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oo := *o
			if tt.client != nil {
				oo.HTTP = tt.client
			}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			_, err := runHTTPNode(t, &oo, orch.HTTPRequest{Method: "GET", URL: srv.URL + tt.path + "?secret=s3cr3t", Timeout: timeout})
			var ae *temporal.ApplicationError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an application error", err)
			}
			var d orchwf.HTTPFailure
			if ae.Type() != tt.errType || ae.NonRetryable() == tt.retryable || ae.Details(&d) != nil || d != (orchwf.HTTPFailure{Attempt: 1, Status: tt.status}) {
				t.Errorf("error type %s nonRetryable %v details %+v; want %s retryable %v status %d", ae.Type(), ae.NonRetryable(), d, tt.errType, tt.retryable, tt.status)
			}
			if !strings.HasPrefix(ae.Message(), "GET "+srv.URL+tt.path+": ") || !strings.Contains(ae.Message(), tt.msg) {
				t.Errorf("message = %q, want it to name the request and contain %q", ae.Message(), tt.msg)
			}
			if strings.Contains(ae.Error(), "s3cr3t") {
				t.Errorf("error leaks the query: %v", ae)
			}
		})
	}

	t.Run("invalid URL", func(t *testing.T) {
		_, err := runHTTPNode(t, o, orch.HTTPRequest{Method: "GET", URL: "gopher://x.test", Timeout: time.Second})
		var ae *temporal.ApplicationError
		if !errors.As(err, &ae) || ae.Type() != orchwf.ErrTypeHTTPInvalid || !ae.NonRetryable() {
			t.Fatalf("err = %v", err)
		}
	})
}

// startRecorder records the WebhookDelivery starts that publishing asks for.
type startRecorder struct {
	mu  sync.Mutex
	ids []string
}

func (s *startRecorder) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, o.ID)
	return nil, nil
}

// TestOrchestrationBookkeeping runs every store-backed activity twice, as Temporal may,
// against a real database and the real publisher: one row and one event each time.
func TestOrchestrationBookkeeping(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, err := s.Orgs.Create(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		box, err := secrets.NewBox(bytes.Repeat([]byte{7}, secrets.KeySize))
		if err != nil {
			t.Fatal(err)
		}
		sub, _, err := s.Webhooks.Create(ctx, box, org.ID, "https://hooks.example.com/in", []string{events.All}, true)
		if err != nil {
			t.Fatal(err)
		}
		starts := &startRecorder{}
		o := &Activities{Store: s, Publisher: &hookacts.Activities{Store: s, Temporal: starts}}
		def := `{"nodes": [{"id": "review", "kind": "human_approval", "config": {"actionLabel": "ok?", "assignTo": "role:reviewer"}}]}`
		w, _, err := s.Orchestration.CreateWorkflow(ctx, org.ID, "payout", "Payout", def, "usr_1")
		if err != nil {
			t.Fatal(err)
		}
		exe := orchwf.ExecutionInput{ExecutionID: ids.New(ids.Execution), OrgID: org.ID, WorkflowID: w.ID, WorkflowSlug: "payout",
			WorkflowVersion: 1, StartedBy: "usr_1", Inputs: map[string]any{"amount": 3.0}}
		if err := s.Orchestration.CreateExecution(ctx, &store.Execution{ID: exe.ExecutionID, OrgID: org.ID, WorkflowID: w.ID, WorkflowSlug: "payout", WorkflowVersion: 1, Inputs: exe.Inputs}); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		event := func(name, key string, data map[string]any) workflows.PublishEventInput {
			return workflows.PublishEventInput{EventID: events.DeriveID(at, exe.ExecutionID, key, name), Event: name, OrgID: org.ID, OccurredAt: at, Data: data}
		}
		stepID, aprID := ids.NewAt(ids.Step, at), ids.NewAt(ids.Approval, at)
		done := at.Add(time.Hour)
		calls := []func() error{
			func() error {
				return o.MarkRunning(ctx, orchwf.MarkRunningInput{Execution: exe, StartedAt: at, Event: event(events.WorkflowExecutionStarted, "started",
					map[string]any{"executionId": exe.ExecutionID, "workflowId": w.ID, "workflowSlug": "payout", "inputs": exe.Inputs, "externalId": nil})})
			},
			func() error {
				return o.RecordStep(ctx, orchwf.StepRecord{StepID: stepID, OrgID: org.ID, ExecutionID: exe.ExecutionID, NodeID: "review",
					Kind: "human_approval", Status: orch.StepRunning, Attempts: 1, StartedAt: at})
			},
			func() error {
				return o.RecordApproval(ctx, orchwf.ApprovalRecord{ApprovalID: aprID, StepID: stepID, OrgID: org.ID, ExecutionID: exe.ExecutionID,
					NodeID: "review", ActionLabel: "ok?", AssignTo: "role:reviewer", Data: map[string]any{}, StartedBy: "usr_1", CreatedAt: at,
					Event: event(events.WorkflowHumanApprovalPending, aprID, map[string]any{"executionId": exe.ExecutionID, "workflowSlug": "payout",
						"stepId": stepID, "actionLabel": "ok?", "assignTo": "role:reviewer", "data": map[string]any{}})})
			},
			func() error {
				return o.ResolveApproval(ctx, orchwf.ApprovalDecision{ApprovalID: aprID, OrgID: org.ID, Status: orch.ApprovalApproved,
					DecidedBy: "usr_2", Comment: "ok", DecidedAt: done})
			},
			func() error {
				ev := event(events.WorkflowStepCompleted, stepID, map[string]any{"executionId": exe.ExecutionID, "stepId": stepID, "nodeId": "review",
					"output": map[string]any{"decision": "approve"}})
				return o.RecordStep(ctx, orchwf.StepRecord{StepID: stepID, OrgID: org.ID, ExecutionID: exe.ExecutionID, NodeID: "review",
					Kind: "human_approval", Status: orch.StepSucceeded, Attempts: 1, StartedAt: at, CompletedAt: &done,
					Output: map[string]any{"decision": "approve"}, Event: &ev})
			},
			func() error {
				return o.FinishExecution(ctx, orchwf.FinishInput{ExecutionID: exe.ExecutionID, OrgID: org.ID, Status: orch.ExecutionSucceeded,
					Output: map[string]any{"decision": "approve"}, CompletedAt: done, Event: event(events.WorkflowExecutionCompleted, "terminal",
						map[string]any{"executionId": exe.ExecutionID, "workflowSlug": "payout", "status": "succeeded", "output": map[string]any{"decision": "approve"},
							"completedAt": done.Format(events.TimeFormat), "workflowId": w.ID, "workflowVersion": 1, "externalId": nil})})
			},
		}
		for i, call := range calls {
			for twice := 0; twice < 2; twice++ {
				if err := call(); err != nil {
					t.Fatalf("call %d (run %d): %v", i, twice+1, err)
				}
			}
		}

		raw, err := o.LoadDefinition(ctx, orchwf.LoadDefinitionInput{OrgID: org.ID, WorkflowID: w.ID, Version: 1})
		if err != nil || string(raw) != def {
			t.Errorf("LoadDefinition = %s, %v", raw, err)
		}
		_, err = o.LoadDefinition(ctx, orchwf.LoadDefinitionInput{OrgID: org.ID, WorkflowID: w.ID, Version: 9})
		var ae *temporal.ApplicationError
		if !errors.As(err, &ae) || ae.Type() != orchwf.ErrTypeDefinitionNotFound || !ae.NonRetryable() {
			t.Errorf("missing version: %v", err)
		}

		got, _ := s.Orchestration.GetExecution(ctx, org.ID, exe.ExecutionID)
		if b, _ := json.Marshal(got.Output); got.Status != "succeeded" || string(b) != `{"decision":"approve"}` || got.StartedAt == nil {
			t.Errorf("execution = %+v", got)
		}
		steps, _ := s.Orchestration.ExecutionSteps(ctx, org.ID, exe.ExecutionID)
		if len(steps) != 1 || steps[0].Status != "succeeded" {
			t.Errorf("steps = %+v", steps)
		}
		a, _ := s.Orchestration.GetApproval(ctx, org.ID, aprID)
		if a.Status != "approved" || a.DecidedBy != "usr_2" {
			t.Errorf("approval = %+v", a)
		}
		var names []string
		if err := s.DB.Model(&store.Event{}).Where("org_id = ?", org.ID).Order("name").Pluck("name", &names).Error; err != nil {
			t.Fatal(err)
		}
		want := []string{events.WorkflowExecutionCompleted, events.WorkflowExecutionStarted, events.WorkflowHumanApprovalPending, events.WorkflowStepCompleted}
		if fmt.Sprint(names) != fmt.Sprint(want) {
			t.Errorf("events = %v, want each once: %v", names, want)
		}
		// The subscription names "*", which leaves out the off-by-default step.completed: three deliveries.
		var deliveries int64
		s.DB.Model(&store.Delivery{}).Where("subscription_id = ?", sub.ID).Count(&deliveries)
		if deliveries != 3 {
			t.Errorf("%d deliveries, want 3", deliveries)
		}
	})
}
