package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/automation/aitest"
)

// TestAINodeEndToEnd runs a workflow whose ai node asks an OpenAI-compatible model (a loopback
// server of the test: the model is outside our control) and whose human_approval node then
// shows a reviewer what the model answered, on the real dev stack.
func TestAINodeEndToEnd(t *testing.T) {
	const providerKey = "sk-e2e-provider-key-never-logged-0123"
	model := aitest.New()
	t.Cleanup(model.Close)
	model.Fallback = func(aitest.Request) aitest.Reply {
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
	sink.subscribe(admin, "workflow.execution.completed", "workflow.execution.failed", "workflow.human_approval_pending")
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

	// Tokens and latency by organisation and model at /metrics.
	res, err := http.Get(s.BaseURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, line := range []string{
		`svc_ai_tokens_total{kind="prompt",model="test-model",org="` + s.Credentials.OrgID + `"} 120`,
		`svc_ai_request_duration_seconds_count{model="test-model",org="` + s.Credentials.OrgID + `"} 1`,
	} {
		if !strings.Contains(string(body), line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}
