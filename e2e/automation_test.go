package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/automation/aitest"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// TestAINodeEndToEnd runs a workflow whose ai node asks an OpenAI-compatible model (a loopback
// server of the test: the model is outside our control) and whose human_approval node then
// shows a reviewer what the model answered, on the real dev stack.
func TestAINodeEndToEnd(t *testing.T) {
	const providerKey = "sk-e2e-provider-key-never-logged-0123"
	model := aitest.New()
	t.Cleanup(model.Close)
	model.Fallback = func(r aitest.Request) aitest.Reply {
		if strings.Contains(string(r.Body), "card_number") { // the document_fields automation
			return aitest.Reply{Content: `{"card_number": "TC-0042", "holder": null}`, PromptTokens: 300, CompletionTokens: 12}
		}
		return aitest.Reply{Content: `{"risk": "high", "reason": "five transfers in ten minutes"}`, PromptTokens: 120, CompletionTokens: 18}
	}
	s := boot(t, t.TempDir(), bootOptions{
		env: []string{
			"SVC_WEBHOOKS_SCHEDULE=0s,1s,1s", "SVC_AI_BASE_URL=" + model.BaseURL(), "SVC_AI_MODEL=test-model",
			"SVC_AI_API_KEY=" + providerKey, "SVC_AI_ALLOW_CIDRS=127.0.0.0/8",
		},
		secrets: []string{providerKey},
	})
	admin := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	sink := newEventSink(t)
	sink.subscribe(admin, "workflow.execution.completed", "workflow.execution.failed", "workflow.human_approval_pending",
		"automation.completed", "automation.failed")
	reviewer := newPerson(admin, "reviewer", "approvals:write")

	def := json.RawMessage(`{"nodes": [
	 {"id": "assess", "kind": "ai", "config": {
	   "system": "You assess payout risk.",
	   "prompt": "Customer {{ inputs.customerId }} asks for {{ inputs.amount }} EUR. Notes: {{ inputs.notes }}",
	   "schema": {"type": "object", "required": ["risk", "reason"], "properties": {"risk": {"enum": ["low", "high"]}, "reason": {"type": "string"}}},
	   "temperature": 0, "maxTokens": 200, "timeout": "20s"}, "next": "review"},
	 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "Model says {{ steps.assess.output.answer.risk }}: {{ steps.assess.output.answer.reason }}",
	   "assignTo": "role:reviewer", "data": {"risk": "{{ steps.assess.output.answer.risk }}"}}, "next": {"approve": "done"}},
	 {"id": "done", "kind": "transform", "config": {"output": {"risk": "{{ steps.assess.output.answer.risk }}", "model": "{{ steps.assess.output.model }}",
	   "tokens": "{{ steps.assess.output.usage.totalTokens }}", "decision": "{{ steps.review.output.decision }}"}}}]}`)
	if r := admin.do("POST", "/api/workflows", map[string]any{"slug": "risk-review", "name": "Risk review", "definition": def}); r.Status != 201 {
		t.Fatalf("POST /api/workflows = %d %s", r.Status, r.Raw)
	}
	// An invalid ai node is refused when saved, like every other kind.
	bad := json.RawMessage(`{"nodes": [{"id": "a", "kind": "ai", "config": {"prompt": "x", "schema": {"type": "thing"}, "temperature": 5}}]}`)
	if r := admin.do("POST", "/api/workflows", map[string]any{"slug": "bad-ai", "name": "x", "definition": bad}); r.Status != 400 ||
		!strings.Contains(string(r.Raw), "definition.nodes[0].config.schema") || !strings.Contains(string(r.Raw), "definition.nodes[0].config.temperature") {
		t.Fatalf("invalid ai node = %d %s", r.Status, r.Raw)
	}

	leaked := "svc_sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	id := start(admin, "risk-review", map[string]any{"inputs": map[string]any{"customerId": "cus_9", "amount": 900, "notes": "pasted key " + leaked}})
	pending := sink.wait(t, "workflow.human_approval_pending", id)
	if pending.Data["actionLabel"] != "Model says high: five transfers in ten minutes" || !jsonEqual(pending.Data["data"], map[string]any{"risk": "high"}) {
		t.Fatalf("approval pending = %v", pending.Data)
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model was called %d times, want 1", len(reqs))
	}
	if got := model.Received(); strings.Contains(got, leaked) || !strings.Contains(got, "Customer cus_9 asks for 900 EUR") {
		t.Fatalf("prompt sent: %s", got)
	}
	if reqs[0].Authorization != "Bearer "+providerKey || reqs[0].Parsed.Model != "test-model" {
		t.Fatalf("request auth %q model %q", reqs[0].Authorization, reqs[0].Parsed.Model)
	}

	r := client{t: t, base: s.BaseURL, key: reviewer.key}.do("POST", "/api/approvals/"+str(pending.Data["stepId"])+"/approve", map[string]any{"comment": "agreed"})
	if r.Status != 200 {
		t.Fatalf("approve = %d %s", r.Status, r.Raw)
	}
	completed := sink.wait(t, "workflow.execution.completed", id)
	want := map[string]any{"risk": "high", "model": "test-model", "tokens": 138, "decision": "approve"}
	if !jsonEqual(completed.Data["output"], want) {
		t.Fatalf("output = %v, want %v", completed.Data["output"], want)
	}
	e := execution(admin, id)
	steps, _ := e["steps"].([]any)
	if len(steps) != 3 {
		t.Fatalf("steps = %v", e["steps"])
	}
	ai := steps[0].(map[string]any)
	out, _ := ai["output"].(map[string]any)
	usage, _ := out["usage"].(map[string]any)
	if ai["kind"] != "ai" || ai["status"] != "succeeded" || out["model"] != "test-model" || usage["totalTokens"] != 138.0 || out["latencyMs"] == nil {
		t.Fatalf("ai step = %v", ai)
	}

	// The step keeps its prompt and answer for audit, without the key the inputs carried.
	audit := admin.do("GET", "/api/executions/"+id+"/steps/"+str(ai["id"])+"/exchanges", nil)
	xs, _ := audit.Body["data"].([]any)
	if audit.Status != 200 || len(xs) != 1 || strings.Contains(string(audit.Raw), leaked) ||
		!strings.Contains(string(audit.Raw), "Customer cus_9 asks for 900 EUR") || !strings.Contains(string(audit.Raw), "five transfers in ten minutes") {
		t.Fatalf("step exchanges = %d %s", audit.Status, audit.Raw)
	}

	runID := documentFieldsAutomation(t, admin, sink)
	recordHistoryAt(t, s.App.Temporal, runID, filepath.Join("..", "workflows", "automation", "testdata", "run_document_fields.json"))

	// Tokens and latency by organisation and model at /metrics.
	res, err := http.Get(s.BaseURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, line := range []string{
		`svc_ai_tokens_total{kind="prompt",model="test-model",org="` + s.Credentials.OrgID + `"} 420`, // the ai node's 120, the automation's 300
		`svc_ai_request_duration_seconds_count{model="test-model",org="` + s.Credentials.OrgID + `"} 2`,
	} {
		if !strings.Contains(string(body), line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}

// documentFieldsAutomation uploads a document of a custom type whose template rules find none
// of its fields, runs the document_fields automation on it and checks that the fields the
// model read put the document in requires_review, never extracted.
func documentFieldsAutomation(t *testing.T, admin client, sink *eventSink) (runID string) {
	t.Helper()
	tpl := admin.do("POST", "/api/templates", map[string]any{"type": "tax_card", "mustInclude": []string{"NPWP"},
		"fields": []map[string]any{{"name": "card_number", "label": "Card Number", "required": true}, {"name": "holder", "label": "Holder"}}})
	if tpl.Status != 201 {
		t.Fatalf("POST /api/templates = %d %s", tpl.Status, tpl.Raw)
	}
	docID := str(uploadFile(admin, "card.pdf", fixtures.NPWPTextPDF(t), map[string]string{"type": "tax_card"}).data(t)["id"])
	d := document(t, admin, docID, 90*time.Second, "requires_review", "extracted", "failed")
	if d["status"] != "requires_review" || len(fieldValues(d)) != 0 {
		t.Fatalf("document before the automation = %v", d)
	}
	r := admin.do("POST", "/api/automations", map[string]any{"kind": "document_fields", "subjectId": docID})
	if r.Status != 202 {
		t.Fatalf("POST /api/automations = %d %s", r.Status, r.Raw)
	}
	runID = str(r.data(t)["id"])
	done := waitAutomation(t, sink, runID)
	if done.Event != "automation.completed" || done.Data["resultStatus"] != "requires_review" || done.Data["model"] != "test-model" ||
		done.Data["kind"] != "document_fields" || done.Data["subjectId"] != docID || done.Data["totalTokens"] != 312.0 {
		t.Fatalf("automation event = %s %v", done.Event, done.Data)
	}
	d = document(t, admin, docID, 10*time.Second, "requires_review")
	x, _ := d["latestExtraction"].(map[string]any)
	if !jsonEqual(fieldValues(d), map[string]any{"card_number": "TC-0042"}) || x["source"] != "model" || !jsonEqual(x["flags"], []any{"machine_extracted"}) {
		t.Fatalf("document after the automation = %v", d)
	}
	run := admin.do("GET", "/api/automations/"+runID, nil).data(t)
	xs, _ := run["exchanges"].([]any)
	if run["status"] != "completed" || !jsonEqual(run["result"], map[string]any{"card_number": "TC-0042"}) || run["machineWritten"] != true || len(xs) != 1 {
		t.Fatalf("run = %v", run)
	}
	return runID
}

// waitAutomation returns the automation.completed or automation.failed event of run id.
func waitAutomation(t *testing.T, s *eventSink, id string) orchEvent {
	t.Helper()
	var found orchEvent
	eventually(t, 60*time.Second, "the end of automation "+id, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ev := range s.events {
			if ev.Data["automationId"] == id {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}
