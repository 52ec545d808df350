package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	orchapi "github.com/svcplatform/svc/api/orchestration"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
)

// The orchestration endpoints without Temporal: definitions, validation, reading executions
// and approvals, and the refusals that come before any call to Temporal. What needs a running
// Execution workflow (starts, Updates, cancellation) is tested end to end in e2e.

// linearDefinition is a valid two-node definition.
const linearDefinition = `{"nodes": [
 {"id": "shape", "kind": "transform", "config": {"output": {"amount": "{{ inputs.amount }}"}}, "next": "done"},
 {"id": "done", "kind": "transform", "config": {"output": {"ok": true, "amount": "{{ steps.shape.output.amount }}"}}}]}`

// newWorkflow stores a workflow of org with linearDefinition.
func newWorkflow(t testing.TB, h *apitest.Harness, org string) *store.Workflow {
	t.Helper()
	w, _, err := h.Store.Orchestration.CreateWorkflow(context.Background(), org, "wf-"+strings.ToLower(ids.New(ids.Workflow)[10:]), "Test", linearDefinition, "")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// newExecution stores an execution of org in the given state, as the workflow's activities would.
func newExecution(t testing.TB, h *apitest.Harness, org string, status orchestration.ExecutionStatus) *store.Execution {
	t.Helper()
	ctx := context.Background()
	w := newWorkflow(t, h, org)
	e := &store.Execution{ID: ids.New(ids.Execution), OrgID: org, WorkflowID: w.ID, WorkflowSlug: w.Slug, WorkflowVersion: 1,
		Inputs: map[string]any{"amount": 5.0}, StartedBy: "usr_starter", RunID: "run-1"}
	if err := h.Store.Orchestration.CreateExecution(ctx, e); err != nil {
		t.Fatal(err)
	}
	if status == orchestration.ExecutionPending {
		return e
	}
	if err := h.Store.Orchestration.MarkExecutionRunning(ctx, e, time.Now()); err != nil {
		t.Fatal(err)
	}
	if orchestration.Executions.Terminal(status) {
		end := store.ExecutionEnd{Status: status, CompletedAt: time.Now(), Output: map[string]any{"ok": true}}
		if err := h.Store.Orchestration.FinishExecution(ctx, org, e.ID, end); err != nil {
			t.Fatal(err)
		}
	}
	got, err := h.Store.Orchestration.GetExecution(ctx, org, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// newApproval stores a pending approval of e assigned to assignTo, with its running step.
func newApproval(t testing.TB, h *apitest.Harness, e *store.Execution, assignTo string) *store.Approval {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	st := &store.Step{ID: ids.New(ids.Step), OrgID: e.OrgID, ExecutionID: e.ID, NodeID: "review", Kind: "human_approval",
		Status: orchestration.StepRunning, Attempts: 1, StartedAt: now}
	if err := h.Store.Orchestration.SaveStep(ctx, st); err != nil {
		t.Fatal(err)
	}
	a := &store.Approval{ID: ids.New(ids.Approval), OrgID: e.OrgID, ExecutionID: e.ID, StepID: st.ID, NodeID: "review",
		ActionLabel: "Pay 5 EUR?", AssignTo: assignTo, Data: map[string]any{"amount": 5.0}, StartedBy: e.StartedBy, CreatedAt: now}
	if err := h.Store.Orchestration.CreateApproval(ctx, a); err != nil {
		t.Fatal(err)
	}
	return a
}

// fieldErrors is details.fieldErrors of a validation failure.
func fieldErrors(t *testing.T, res *apitest.Response) map[string]any {
	t.Helper()
	wantStatus(t, res, 400)
	details, _ := res.JSON["details"].(map[string]any)
	fe, _ := details["fieldErrors"].(map[string]any)
	if res.Error() != api.MsgValidation || fe == nil {
		t.Fatalf("not a validation failure: %s", res.Body)
	}
	return fe
}

func TestWorkflowDefinitions(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	key := h.AdminKey
	res := h.Do("POST", "/api/workflows", key, map[string]any{"slug": "payout", "name": "Payout", "definition": json.RawMessage(linearDefinition)})
	wantStatus(t, res, 201)
	w := res.Data()
	id := str(w, "id")
	if !ids.Valid(ids.Workflow, id) || w["slug"] != "payout" || w["latestVersion"] != 1.0 || w["createdBy"] != h.Admin.ID {
		t.Fatalf("created workflow = %s", res.Body)
	}
	def, _ := json.Marshal(w["definition"])
	var want any
	_ = json.Unmarshal([]byte(linearDefinition), &want)
	if wantJSON, _ := json.Marshal(want); string(def) != string(wantJSON) {
		t.Errorf("definition = %s, want %s", def, wantJSON)
	}

	for _, ref := range []string{id, "payout"} {
		got := h.Do("GET", "/api/workflows/"+ref, key, nil)
		wantStatus(t, got, 200)
		if str(got.Data(), "id") != id {
			t.Errorf("GET /api/workflows/%s = %s", ref, got.Body)
		}
	}
	dup := h.Do("POST", "/api/workflows", key, map[string]any{"slug": "payout", "name": "Again", "definition": json.RawMessage(linearDefinition)})
	if fe := fieldErrors(t, dup); fe["slug"] == nil || len(fe) != 1 {
		t.Errorf("duplicate slug: %s", dup.Body)
	}

	v2def := `{"nodes": [{"id": "only", "kind": "delay", "config": {"duration": "1s"}}]}`
	v2 := h.Do("POST", "/api/workflows/payout/versions", key, map[string]any{"definition": json.RawMessage(v2def)})
	wantStatus(t, v2, 201)
	if v2.Data()["version"] != 2.0 || str(v2.Data(), "workflowId") != id {
		t.Fatalf("version 2 = %s", v2.Body)
	}
	// Versions are immutable: version 1 is still the first definition; the workflow shows the latest.
	if v1 := h.Do("GET", "/api/workflows/"+id+"/versions/1", key, nil); v1.Status != 200 || !strings.Contains(string(v1.Body), `"id":"shape"`) {
		t.Errorf("version 1 = %d %s", v1.Status, v1.Body)
	}
	if latest := h.Do("GET", "/api/workflows/payout", key, nil); latest.Data()["latestVersion"] != 2.0 || !strings.Contains(string(latest.Body), `"id":"only"`) {
		t.Errorf("latest = %s", latest.Body)
	}
	wantExactError(t, h.Do("GET", "/api/workflows/payout/versions/3", key, nil), 404, api.MsgNotFound)
	if fe := fieldErrors(t, h.Do("GET", "/api/workflows/payout/versions/first", key, nil)); fe["version"] == nil {
		t.Error("a version that is not a number must be a field error")
	}
	wantExactError(t, h.Do("GET", "/api/workflows/nope", key, nil), 404, api.MsgNotFound)

	// Idempotent creation: the same externalId and body replays the first answer.
	body := map[string]any{"slug": "kyc", "name": "KYC", "definition": json.RawMessage(v2def), "externalId": "create-kyc"}
	first := h.Do("POST", "/api/workflows", key, body)
	again := h.Do("POST", "/api/workflows", key, body)
	wantStatus(t, again, 201)
	if str(first.Data(), "id") != str(again.Data(), "id") || again.JSON["idempotent"] != true {
		t.Errorf("replay = %s, first %s", again.Body, first.Body)
	}

	list := h.Do("GET", "/api/workflows?q=KY&limit=10", key, nil)
	wantStatus(t, list, 200)
	rows, _ := list.JSON["data"].([]any)
	if list.JSON["total"] != 1.0 || len(rows) != 1 || rows[0].(map[string]any)["slug"] != "kyc" {
		t.Errorf("list q=KY = %s", list.Body)
	}
}

// TestWorkflowValidation: every problem of a request is a 400 with details.fieldErrors keyed
// by field path, the definition's down to the node config.
func TestWorkflowValidation(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	def := func(js string) json.RawMessage { return json.RawMessage(js) }
	tests := []struct {
		name string
		body any
		want []string
	}{
		{"empty body", map[string]any{}, []string{"slug", "name", "definition"}},
		{"slug with capitals", map[string]any{"slug": "Payout", "name": "P", "definition": def(linearDefinition)}, []string{"slug"}},
		{"slug with an underscore", map[string]any{"slug": "wkf_x", "name": "P", "definition": def(linearDefinition)}, []string{"slug"}},
		{"name too long", map[string]any{"slug": "p", "name": strings.Repeat("n", 201), "definition": def(linearDefinition)}, []string{"name"}},
		{"definition not an object", map[string]any{"slug": "p", "name": "P", "definition": "nodes"}, []string{"definition"}},
		{"unknown kind", map[string]any{"slug": "p", "name": "P", "definition": def(`{"nodes": [{"id": "a", "kind": "email"}]}`)},
			[]string{"definition.nodes[0].kind"}},
		{"bad url expression", map[string]any{"slug": "p", "name": "P", "definition": def(`{"nodes": [
			{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": "b"},
			{"id": "b", "kind": "http", "config": {"url": "https://x.test/{{ inputs. }}"}}]}`)}, []string{"definition.nodes[1].config.url"}},
		{"dangling next", map[string]any{"slug": "p", "name": "P", "definition": def(`{"nodes": [
			{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": "zzz"}]}`)}, []string{"definition.nodes[0].next"}},
		{"unreachable node", map[string]any{"slug": "p", "name": "P", "definition": def(`{"nodes": [
			{"id": "a", "kind": "delay", "config": {"duration": "1s"}},
			{"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`)}, []string{"definition.nodes[1]"}},
		{"cycle", map[string]any{"slug": "p", "name": "P", "definition": def(`{"nodes": [
			{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": "b"},
			{"id": "b", "kind": "delay", "config": {"duration": "1s"}, "next": "a"}]}`)}, []string{"definition.nodes[1].next"}},
		{"unknown field", map[string]any{"slug": "p", "name": "P", "definition": def(linearDefinition), "owner": "me"}, []string{"owner"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := fieldErrors(t, h.Do("POST", "/api/workflows", h.AdminKey, tt.body))
			var got []string
			for k := range fe {
				got = append(got, k)
			}
			for _, k := range tt.want {
				if fe[k] == nil {
					t.Errorf("fieldErrors %v lack %s", got, k)
				}
			}
			if len(fe) != len(tt.want) {
				t.Errorf("fieldErrors %v, want exactly %v", got, tt.want)
			}
		})
	}
	list := h.Do("GET", "/api/workflows", h.AdminKey, nil)
	if list.JSON["total"] != 0.0 {
		t.Errorf("a refused workflow was saved: %s", list.Body)
	}
	w := newWorkflow(t, h, h.Org.ID)
	if fe := fieldErrors(t, h.Do("POST", "/api/workflows/"+w.ID+"/versions", h.AdminKey, map[string]any{"definition": def(`{"nodes": []}`)})); fe["definition.nodes"] == nil {
		t.Error("an invalid new version must be refused with its field path")
	}
}

// TestStartExecutionRefusals: what is refused before the workflow starts, and 503 when the
// API has no Temporal client.
func TestStartExecutionRefusals(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	w := newWorkflow(t, h, h.Org.ID)
	path := "/api/workflows/" + w.Slug + "/executions"
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		field  string
	}{
		{"inputs not an object", path, map[string]any{"inputs": []int{1}}, 400, "inputs"},
		{"version zero", path, map[string]any{"version": 0}, 400, "version"},
		{"version not an integer", path, map[string]any{"version": 1.5}, 400, "version"},
		{"version that does not exist", path, map[string]any{"version": 2}, 400, "version"},
		{"externalId empty", path, map[string]any{"externalId": ""}, 400, "externalId"},
		{"unknown field", path, map[string]any{"input": map[string]any{}}, 400, "input"},
		{"inputs too large", path, map[string]any{"inputs": map[string]any{"blob": strings.Repeat("x", orchapi.MaxInputsBytes)}}, 413, ""},
		{"unknown workflow", "/api/workflows/nope/executions", map[string]any{}, 404, ""},
		{"no Temporal", path, map[string]any{"inputs": map[string]any{"amount": 5}}, 503, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := h.Do("POST", tt.path, h.AdminKey, tt.body)
			if tt.field != "" {
				if fe := fieldErrors(t, res); fe[tt.field] == nil || len(fe) != 1 {
					t.Errorf("fieldErrors = %v, want %s", fe, tt.field)
				}
				return
			}
			wantStatus(t, res, tt.status)
		})
	}
	page := h.Do("GET", "/api/executions", h.AdminKey, nil)
	if rows, _ := page.JSON["rows"].([]any); len(rows) != 0 {
		t.Errorf("a refused start left an execution: %s", page.Body)
	}
}

func TestExecutionsReadAndCancel(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	key := h.Key("executions:write")
	byStatus := map[string]*store.Execution{}
	for _, st := range []string{"pending", "running", "succeeded", "failed", "cancelled"} {
		byStatus[st] = newExecution(t, h, h.Org.ID, orchestration.ExecutionStatus(st))
	}
	newApproval(t, h, byStatus["running"], "role:reviewer")

	// Cursor pages of two, newest first, every execution once.
	var seen []string
	next := ""
	for n := 0; n < 5; n++ {
		p := "/api/executions?limit=2"
		if next != "" {
			p += "&cursor=" + next
		}
		res := h.Do("GET", p, key, nil)
		wantStatus(t, res, 200)
		for _, r := range res.JSON["rows"].([]any) {
			seen = append(seen, r.(map[string]any)["status"].(string))
		}
		if res.JSON["nextCursor"] == nil {
			break
		}
		next = res.JSON["nextCursor"].(string)
	}
	if fmt.Sprint(seen) != "[cancelled failed succeeded running pending]" {
		t.Errorf("pages = %v", seen)
	}

	sum := h.Do("GET", "/api/executions?status=running&summary=true", key, nil)
	wantStatus(t, sum, 200)
	rows := sum.JSON["rows"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["id"] != byStatus["running"].ID {
		t.Errorf("status=running rows = %s", sum.Body)
	}
	if b, _ := json.Marshal(sum.JSON["summary"]); string(b) != `{"cancelled":1,"failed":1,"pending":1,"running":1,"succeeded":1}` {
		t.Errorf("summary = %s", b)
	}
	if fe := fieldErrors(t, h.Do("GET", "/api/executions?status=done", key, nil)); fe["status"] == nil {
		t.Error("an unknown status must be refused")
	}

	// The detail: inputs, steps, approvals and the run in the Temporal UI.
	run := byStatus["running"]
	d := h.Do("GET", "/api/executions/"+run.ID, key, nil)
	wantStatus(t, d, 200)
	data := d.Data()
	wantURL := "http://127.0.0.1:8233/namespaces/default/workflows/" + run.ID + "/run-1/history"
	if data["temporalUrl"] != wantURL || data["inputs"].(map[string]any)["amount"] != 5.0 || data["startedBy"] != "usr_starter" {
		t.Errorf("detail = %s", d.Body)
	}
	steps, approvals := data["steps"].([]any), data["approvals"].([]any)
	if len(steps) != 1 || len(approvals) != 1 || approvals[0].(map[string]any)["status"] != "pending" ||
		steps[0].(map[string]any)["id"] != approvals[0].(map[string]any)["stepId"] {
		t.Errorf("steps %v approvals %v", steps, approvals)
	}

	// Cancelling an ended execution is the SPEC 3.5 conflict; cancelling needs Temporal.
	for _, st := range []string{"succeeded", "failed", "cancelled"} {
		res := h.Do("POST", "/api/executions/"+byStatus[st].ID+"/cancel", key, map[string]any{"reason": "stop"})
		wantExactError(t, res, 409, "state conflict: cannot transition "+st+" → cancelled")
	}
	wantExactError(t, h.Do("POST", "/api/executions/"+run.ID+"/cancel", key, map[string]any{}), 503, api.MsgUnavailable)
	if fe := fieldErrors(t, h.Do("POST", "/api/executions/"+run.ID+"/cancel", key, map[string]any{"reason": strings.Repeat("r", 1001)})); fe["reason"] == nil {
		t.Error("a reason over 1000 characters must be refused")
	}
	wantExactError(t, h.Do("GET", "/api/executions/exe_absent", key, nil), 404, api.MsgNotFound)
}

func TestApprovalsReadAndRefusals(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	reviewer := h.Key("approvals:write")
	e := newExecution(t, h, h.Org.ID, orchestration.ExecutionRunning)
	a := newApproval(t, h, e, "role:reviewer")
	other := newApproval(t, h, newExecution(t, h, h.Org.ID, orchestration.ExecutionRunning), "role:admin")

	for _, ref := range []string{a.ID, a.StepID} {
		res := h.Do("GET", "/api/approvals/"+ref, reviewer, nil)
		wantStatus(t, res, 200)
		if d := res.Data(); d["id"] != a.ID || d["actionLabel"] != "Pay 5 EUR?" || d["assignTo"] != "role:reviewer" || d["data"].(map[string]any)["amount"] != 5.0 {
			t.Errorf("GET /api/approvals/%s = %s", ref, res.Body)
		}
	}
	list := h.Do("GET", "/api/approvals?status=pending&assignTo=role:reviewer", reviewer, nil)
	wantStatus(t, list, 200)
	if rows := list.JSON["data"].([]any); len(rows) != 1 || rows[0].(map[string]any)["id"] != a.ID {
		t.Errorf("pending for role:reviewer = %s", list.Body)
	}
	if all := h.Do("GET", "/api/approvals?executionId="+other.ExecutionID, reviewer, nil); all.JSON["total"] != 1.0 {
		t.Errorf("approvals of one execution = %s", all.Body)
	}

	// Resolving needs an accountable human: a key without a bound user is 422.
	for _, d := range []string{"approve", "reject"} {
		res := h.Do("POST", "/api/approvals/"+a.ID+"/"+d, reviewer, map[string]any{"comment": "fine"})
		wantExactError(t, res, http.StatusUnprocessableEntity, api.MsgNotBound)
	}
	// A bound key passes that check; without Temporal the decision cannot be sent.
	bound, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"approvals:write"}, ActAsUserID: h.Admin.ID})
	wantExactError(t, h.Do("POST", "/api/approvals/"+a.ID+"/approve", bound, map[string]any{}), 503, api.MsgUnavailable)
	if fe := fieldErrors(t, h.Do("POST", "/api/approvals/"+a.ID+"/approve", bound, map[string]any{"comment": strings.Repeat("c", 2001)})); fe["comment"] == nil {
		t.Error("a comment over 2000 characters must be refused")
	}
	wantExactError(t, h.Do("POST", "/api/approvals/apr_absent/approve", bound, map[string]any{}), 404, api.MsgNotFound)
	if got, _ := h.Store.Orchestration.GetApproval(context.Background(), h.Org.ID, a.ID); got.Status != orchestration.ApprovalPending {
		t.Errorf("a refused call changed the approval: %s", got.Status)
	}
}

// FuzzOrchestrationBodies sends arbitrary bodies to the orchestration writes: the answer is a
// documented one (and matches openapi.yaml), never a 500. Without Temporal the starts, cancels
// and decisions that pass validation answer 503.
func FuzzOrchestrationBodies(f *testing.F) {
	h := apitest.New(f, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	w := newWorkflow(f, h, h.Org.ID)
	e := newExecution(f, h, h.Org.ID, orchestration.ExecutionRunning)
	a := newApproval(f, h, e, "role:admin")
	for _, s := range []string{
		`{"slug":"fz","name":"Fuzz","definition":` + linearDefinition + `}`,
		`{"definition":` + linearDefinition + `}`,
		`{"inputs":{"amount":5},"version":1,"externalId":"fz-1"}`,
		`{"slug":"fz","name":"Fuzz","definition":{"nodes":[{"id":"a","kind":"http","config":{"url":"{{ inputs.u }}","retry":{"maxAttempts":99}}}]}}`,
		`{"slug":"fz","name":"Fuzz","definition":{"start":"x","nodes":[{"id":"a","kind":"condition","config":{"expression":"1 +"},"next":{"then":"a","else":"b"}}]}}`,
		`{"definition":{"nodes":[{"id":"a","kind":"human_approval","config":{"actionLabel":"{{","assignTo":"role:"}}]}}`,
		`{"definition":{"nodes":[{"id":"a","kind":"delay","config":{"duration":"-1s"}}]}}`,
		`{"inputs":[],"version":"1"}`, `{"inputs":null,"version":-1}`, `{"reason":7}`, `{"comment":["x"]}`,
		`{"definition":null}`, `{"definition":"` + strings.Repeat("{", 5000) + `"}`, `[]`, `null`, `{`, ``, `{}{}`, `{"externalId":""}`,
	} {
		f.Add(s)
	}
	bound, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"write"}, ActAsUserID: h.Admin.ID})
	f.Fuzz(func(t *testing.T, body string) {
		hh := h.With(t)
		for _, tt := range []struct {
			path string
			ok   []int
		}{
			{"/api/workflows", []int{201, 400, 413, 422}},
			{"/api/workflows/" + w.ID + "/versions", []int{201, 400, 413, 422}},
			{"/api/workflows/" + w.Slug + "/executions", []int{400, 413, 422, 503}},
			{"/api/executions/" + e.ID + "/cancel", []int{400, 413, 503}},
			{"/api/approvals/" + a.ID + "/approve", []int{400, 413, 503}},
		} {
			res := hh.Send(apitest.Request{Method: "POST", Path: tt.path, Key: bound, Body: body})
			if !slices.Contains(tt.ok, res.Status) {
				t.Fatalf("POST %s %q → %d %s", tt.path, body, res.Status, res.Body)
			}
		}
	})
}
