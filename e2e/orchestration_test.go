package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	temporalclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/devstack"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/webhook"
	mntwf "github.com/svcplatform/svc/workflows/maintenance"
)

// orchEvent is one webhook body the event sink received.
type orchEvent struct {
	ID         string         `json:"id"`
	Event      string         `json:"event"`
	OccurredAt string         `json:"occurredAt"`
	OrgID      string         `json:"orgId"`
	Data       map[string]any `json:"data"`
	// Header holds the delivery's request headers.
	Header http.Header `json:"-"`
}

// eventSink is a loopback webhook receiver: it verifies each delivery's signature with the
// public receiver package, checks its envelope and headers (wantDelivery), answers 200 and
// keeps the events, once per event id.
type eventSink struct {
	*httptest.Server
	mu     sync.Mutex
	secret []byte
	events []orchEvent
	seen   map[string]bool
}

func newEventSink(t *testing.T) *eventSink {
	s := &eventSink{seen: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := webhook.Verify(s.secret, r.Header, body); err != nil {
			t.Errorf("delivery does not verify: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var ev orchEvent
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Errorf("delivery body %q: %v", body, err)
		} else if wantDelivery(t, ev, r.Header); !s.seen[ev.ID] {
			ev.Header = r.Header.Clone()
			s.seen[ev.ID] = true
			s.events = append(s.events, ev)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// productPrefixes maps an event name's first part to its product's header prefix (SPEC 6.1).
var productPrefixes = map[string]string{"workflow": "X-Orch-", "document": "X-DocInt-", "extraction": "X-DocInt-", "template": "X-DocInt-", "identity": "X-Identity-",
	// Products with the unified headers only.
	"case": "X-Service-", "sar": "X-Service-"}

// wantDelivery checks what SPEC 2.2 and 6.1 say of every delivery: the envelope's id, orgId and
// occurredAt (UTC with milliseconds); the unified and the product header sets, each with the
// event name, the delivery id, the signature, the Unix timestamp and the attempt; the content
// type; and a User-Agent naming the service and, for orchestration, the product.
func wantDelivery(t *testing.T, ev orchEvent, h http.Header) {
	if !strings.HasPrefix(ev.ID, "evt_") || !strings.HasPrefix(ev.OrgID, "org_") {
		t.Errorf("%s: id %q, orgId %q", ev.Event, ev.ID, ev.OrgID)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", ev.OccurredAt); err != nil {
		t.Errorf("%s: occurredAt %q is not UTC with milliseconds: %v", ev.Event, ev.OccurredAt, err)
	}
	product, ok := productPrefixes[strings.SplitN(ev.Event, ".", 2)[0]]
	if !ok {
		t.Errorf("%s: no product for this event", ev.Event)
		return
	}
	for _, p := range []string{"X-Service-", product} {
		ts, tsErr := strconv.ParseInt(h.Get(p+"Timestamp"), 10, 64)
		attempt, attemptErr := strconv.Atoi(h.Get(p + "Attempt"))
		if h.Get(p+"Event") != ev.Event || !strings.HasPrefix(h.Get(p+"Delivery"), "whd_") || !strings.HasPrefix(h.Get(p+"Signature"), "sha256=") ||
			tsErr != nil || ts <= 0 || attemptErr != nil || attempt < 1 {
			t.Errorf("%s: %s* headers %v", ev.Event, p, h)
		}
		for _, suffix := range []string{"Delivery", "Signature", "Timestamp", "Attempt"} {
			if h.Get(p+suffix) != h.Get("X-Service-"+suffix) {
				t.Errorf("%s: %s%s %q differs from X-Service-%s %q", ev.Event, p, suffix, h.Get(p+suffix), suffix, h.Get("X-Service-"+suffix))
			}
		}
	}
	ua := h.Get("User-Agent")
	if h.Get("Content-Type") != "application/json" || !strings.HasPrefix(ua, "svc/") || (product == "X-Orch-" && !strings.Contains(ua, "orchestration")) {
		t.Errorf("%s: Content-Type %q, User-Agent %q", ev.Event, h.Get("Content-Type"), ua)
	}
}

// subscribe subscribes the sink to names through POST /api/webhooks.
func (s *eventSink) subscribe(c client, names ...string) {
	c.t.Helper()
	r := c.do("POST", "/api/webhooks", map[string]any{"url": s.URL + "/hooks", "events": names})
	if r.Status != 201 {
		c.t.Fatalf("POST /api/webhooks = %d %s", r.Status, r.Raw)
	}
	s.mu.Lock()
	s.secret = []byte(str(r.data(c.t)["secret"]))
	s.mu.Unlock()
}

// wait returns the event name of execution id, waiting for it.
func (s *eventSink) wait(t *testing.T, name, executionID string) orchEvent {
	t.Helper()
	var found orchEvent
	eventually(t, 30*time.Second, name+" of "+executionID, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ev := range s.events {
			if ev.Event == name && ev.Data["executionId"] == executionID {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// wantKeys fails unless data has exactly the keys of SPEC 6.4.
func wantKeys(t *testing.T, ev orchEvent, keys ...string) {
	t.Helper()
	var got []string
	for k := range ev.Data {
		got = append(got, k)
	}
	sort.Strings(got)
	sort.Strings(keys)
	if !reflect.DeepEqual(got, keys) {
		t.Errorf("%s data keys %v, want %v", ev.Event, got, keys)
	}
}

// jsonEqual compares two values as JSON.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// scoringService is the loopback service the definitions' http nodes call: /score/<customer>
// answers a score, /fail always 500.
func scoringService(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "scoring is down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"customer": %q, "score": 0.9}`, strings.TrimPrefix(r.URL.Path, "/score/"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// payoutDefinition scores the customer, asks a reviewer, then shapes the output.
func payoutDefinition(scoring string) json.RawMessage {
	return json.RawMessage(`{"nodes": [
	 {"id": "score", "kind": "http", "config": {"method": "POST", "url": "` + scoring + `/score/{{ inputs.customerId }}",
	  "body": {"amount": "{{ inputs.amount }}"}, "timeout": "5s", "retry": {"maxAttempts": 2, "backoff": "1s"}}, "next": "review"},
	 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "Pay {{ inputs.amount }} EUR to {{ inputs.customerId }}?",
	  "assignTo": "role:reviewer", "data": {"score": "{{ steps.score.output.body.score }}"}}, "next": {"approve": "done"}},
	 {"id": "done", "kind": "transform", "config": {"output": {"paid": true, "amount": "{{ inputs.amount }}",
	  "score": "{{ steps.score.output.body.score }}", "approvedBy": "{{ steps.review.output.actorUserId }}"}}}]}`)
}

// approvalDefinition is one human_approval assigned to assignTo.
func approvalDefinition(assignTo string) json.RawMessage {
	return json.RawMessage(`{"nodes": [{"id": "gate", "kind": "human_approval",
	 "config": {"actionLabel": "Go on?", "assignTo": "` + assignTo + `"}, "next": {"approve": "done"}},
	 {"id": "done", "kind": "transform", "config": {"output": {"decision": "{{ steps.gate.output.decision }}"}}}]}`)
}

// person is a user of the dev organisation with a key bound to them.
type person struct {
	userID, keyID, key string
}

// newPerson adds a user with role through the API and issues a key bound to them.
func newPerson(c client, role string, scopes ...string) person {
	c.t.Helper()
	u := c.do("POST", "/api/users", map[string]any{"email": role + fmt.Sprint(time.Now().UnixNano()) + "@example.com", "name": role, "role": role})
	if u.Status != 201 {
		c.t.Fatalf("POST /api/users = %d %s", u.Status, u.Raw)
	}
	id := str(u.data(c.t)["id"])
	k := c.do("POST", "/api/api-keys", map[string]any{"name": role + " key", "scopes": scopes, "actAsUserId": id})
	if k.Status != 201 {
		c.t.Fatalf("POST /api/api-keys = %d %s", k.Status, k.Raw)
	}
	return person{userID: id, keyID: str(k.data(c.t)["id"]), key: str(k.data(c.t)["key"])}
}

// start starts an execution and returns its id.
func start(c client, workflow string, body map[string]any) string {
	c.t.Helper()
	r := c.do("POST", "/api/workflows/"+workflow+"/executions", body)
	if r.Status != 202 {
		c.t.Fatalf("start %s = %d %s", workflow, r.Status, r.Raw)
	}
	return str(r.data(c.t)["id"])
}

// execution is GET /api/executions/:id.
func execution(c client, id string) map[string]any {
	c.t.Helper()
	r := c.do("GET", "/api/executions/"+id, nil)
	if r.Status != 200 {
		c.t.Fatalf("GET execution = %d %s", r.Status, r.Raw)
	}
	return r.data(c.t)
}

// TestOrchestrationEndToEnd runs executions through the API of the real dev stack (embedded
// Temporal, worker, SQLite) with a loopback scoring service for http nodes and a loopback
// webhook receiver subscribed through POST /api/webhooks; the last subtest restarts the
// stack while an execution waits for approval.
func TestOrchestrationEndToEnd(t *testing.T) {
	dir := t.TempDir()
	opts := bootOptions{env: []string{"SVC_WEBHOOKS_SCHEDULE=0s,1s,1s,1s,1s,1s"}}
	s := boot(t, dir, opts)
	as := func(t *testing.T, key string) client { return client{t: t, base: s.BaseURL, key: key} }
	admin := as(t, s.Credentials.APIKey)
	sink := newEventSink(t)
	sink.subscribe(admin, "workflow.execution.started", "workflow.execution.completed", "workflow.execution.failed",
		"workflow.execution.cancelled", "workflow.human_approval_pending", "workflow.step.failed")
	scoring := scoringService(t)
	reviewer := newPerson(admin, "reviewer", "approvals:write")
	for slug, def := range map[string]json.RawMessage{
		"payout": payoutDefinition(scoring.URL),
		"charge": json.RawMessage(`{"nodes": [{"id": "charge", "kind": "http", "config": {"url": "` + scoring.URL + `/fail", "retry": {"maxAttempts": 2, "backoff": "1s"}}}]}`),
	} {
		if r := admin.do("POST", "/api/workflows", map[string]any{"slug": slug, "name": slug, "definition": def}); r.Status != 201 {
			t.Fatalf("POST /api/workflows %s = %d %s", slug, r.Status, r.Raw)
		}
	}
	payout := map[string]any{"inputs": map[string]any{"customerId": "cus_1", "amount": 250}}

	t.Run("approved by a second user", func(t *testing.T) {
		c := as(t, s.Credentials.APIKey)
		body := map[string]any{"inputs": payout["inputs"], "externalId": "order-1"}
		id := start(c, "payout", body)

		started := sink.wait(t, "workflow.execution.started", id)
		wantKeys(t, started, "executionId", "workflowId", "workflowSlug", "inputs", "externalId")
		if started.Data["workflowSlug"] != "payout" || started.Data["externalId"] != "order-1" || !jsonEqual(started.Data["inputs"], payout["inputs"]) {
			t.Errorf("started = %v", started.Data)
		}
		pending := sink.wait(t, "workflow.human_approval_pending", id)
		wantKeys(t, pending, "executionId", "workflowSlug", "stepId", "actionLabel", "assignTo", "data")
		if pending.Data["actionLabel"] != "Pay 250 EUR to cus_1?" || pending.Data["assignTo"] != "role:reviewer" ||
			!jsonEqual(pending.Data["data"], map[string]any{"score": 0.9}) {
			t.Errorf("approval pending = %v", pending.Data)
		}
		e := execution(c, id)
		if e["status"] != "running" || !strings.HasPrefix(str(e["temporalUrl"]), s.UIURL+"/namespaces/default/workflows/"+id+"/") {
			t.Errorf("waiting execution = %v", e)
		}
		eventually(t, 30*time.Second, "the Temporal UI to show the run", func() bool {
			res, err := http.Get(str(e["temporalUrl"]))
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == 200
		})

		// The reviewer resolves it by the step id the event names.
		r := as(t, reviewer.key).do("POST", "/api/approvals/"+str(pending.Data["stepId"])+"/approve", map[string]any{"comment": "looks fine"})
		if r.Status != 200 || r.data(t)["status"] != "approved" || r.data(t)["decidedBy"] != reviewer.userID || r.data(t)["comment"] != "looks fine" {
			t.Fatalf("approve = %d %s", r.Status, r.Raw)
		}
		approvalID := str(r.data(t)["id"])

		completed := sink.wait(t, "workflow.execution.completed", id)
		wantKeys(t, completed, "executionId", "workflowSlug", "status", "output", "completedAt", "workflowId", "workflowVersion", "externalId")
		wantOutput := map[string]any{"paid": true, "amount": 250, "score": 0.9, "approvedBy": reviewer.userID}
		if completed.Data["status"] != "succeeded" || !jsonEqual(completed.Data["output"], wantOutput) ||
			completed.Data["workflowVersion"] != 1.0 || completed.Data["externalId"] != "order-1" {
			t.Errorf("completed = %v", completed.Data)
		}
		e = execution(c, id)
		steps, _ := e["steps"].([]any)
		if e["status"] != "succeeded" || !jsonEqual(e["output"], wantOutput) || len(steps) != 3 || e["completedAt"] == nil {
			t.Errorf("succeeded execution = %v", e)
		}

		// The audit log names the approval, the reviewer and the key they used.
		logs := c.do("GET", "/api/audit-logs?limit=50", nil)
		found := false
		for _, row := range logs.Body["rows"].([]any) {
			a := row.(map[string]any)
			if a["action"] == "POST /api/approvals/:id/approve" && a["resourceId"] == approvalID {
				found = a["userId"] == reviewer.userID && a["apiKeyId"] == reviewer.keyID
			}
		}
		if !found {
			t.Errorf("no audit record of the approval by %s with key %s: %s", reviewer.userID, reviewer.keyID, logs.Raw)
		}
	})

	t.Run("rejected", func(t *testing.T) {
		id := start(as(t, s.Credentials.APIKey), "payout", payout)
		pending := sink.wait(t, "workflow.human_approval_pending", id)
		r := as(t, reviewer.key).do("POST", "/api/approvals/"+str(pending.Data["stepId"])+"/reject", map[string]any{"comment": "too much"})
		if r.Status != 200 || r.data(t)["status"] != "rejected" {
			t.Fatalf("reject = %d %s", r.Status, r.Raw)
		}
		failed := sink.wait(t, "workflow.execution.failed", id)
		wantKeys(t, failed, "executionId", "workflowSlug", "failedStepId", "errorMessage")
		if failed.Data["failedStepId"] != pending.Data["stepId"] || !strings.Contains(str(failed.Data["errorMessage"]), "approval rejected by "+reviewer.userID+": too much") {
			t.Errorf("failed = %v", failed.Data)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		c := as(t, s.Credentials.APIKey)
		id := start(c, "payout", payout)
		sink.wait(t, "workflow.human_approval_pending", id)
		if r := c.do("POST", "/api/executions/"+id+"/cancel", map[string]any{"reason": "customer withdrew"}); r.Status != 202 {
			t.Fatalf("cancel = %d %s", r.Status, r.Raw)
		}
		cancelled := sink.wait(t, "workflow.execution.cancelled", id)
		wantKeys(t, cancelled, "executionId", "workflowSlug", "reason", "actorUserId")
		if cancelled.Data["reason"] != "customer withdrew" || cancelled.Data["actorUserId"] != s.Credentials.UserID {
			t.Errorf("cancelled = %v", cancelled.Data)
		}
		e := execution(c, id)
		approvals, _ := e["approvals"].([]any)
		if e["status"] != "cancelled" || e["cancelReason"] != "customer withdrew" || len(approvals) != 1 || approvals[0].(map[string]any)["status"] != "cancelled" {
			t.Errorf("cancelled execution = %v", e)
		}
		r := c.do("POST", "/api/executions/"+id+"/cancel", map[string]any{})
		if r.Status != 409 || r.Body["error"] != "state conflict: cannot transition cancelled → cancelled" {
			t.Errorf("cancel again = %d %s", r.Status, r.Raw)
		}
	})

	t.Run("failing http node", func(t *testing.T) {
		c := as(t, s.Credentials.APIKey)
		id := start(c, "charge", map[string]any{})
		failed := sink.wait(t, "workflow.execution.failed", id)
		e := execution(c, id)
		steps, _ := e["steps"].([]any)
		if len(steps) != 1 {
			t.Fatalf("steps = %v", e["steps"])
		}
		step := steps[0].(map[string]any)
		if failed.Data["failedStepId"] != step["id"] || e["failedStepId"] != step["id"] || step["status"] != "failed" || step["attempts"] != 2.0 ||
			!strings.Contains(str(failed.Data["errorMessage"]), "500") {
			t.Errorf("failed = %v, execution %v", failed.Data, e)
		}
		stepFailed := sink.wait(t, "workflow.step.failed", id)
		wantKeys(t, stepFailed, "executionId", "stepId", "nodeId", "errorMessage", "attempts")
		if stepFailed.Data["stepId"] != step["id"] || stepFailed.Data["attempts"] != 2.0 || stepFailed.Data["nodeId"] != "charge" {
			t.Errorf("step failed = %v", stepFailed.Data)
		}
	})

	t.Run("idempotent start", func(t *testing.T) {
		c := as(t, s.Credentials.APIKey)
		body := map[string]any{"inputs": payout["inputs"], "externalId": "order-idem"}
		first := c.do("POST", "/api/workflows/payout/executions", body)
		again := c.do("POST", "/api/workflows/payout/executions", body)
		if first.Status != 202 || again.Status != 202 || str(again.data(t)["id"]) != str(first.data(t)["id"]) || again.Body["idempotent"] != true {
			t.Fatalf("first %d %s, again %d %s", first.Status, first.Raw, again.Status, again.Raw)
		}
		// The same externalId for another workflow is another execution.
		other := c.do("POST", "/api/workflows/charge/executions", map[string]any{"externalId": "order-idem"})
		if other.Status != 202 || str(other.data(t)["id"]) == str(first.data(t)["id"]) || other.Body["idempotent"] != nil {
			t.Fatalf("other workflow = %d %s", other.Status, other.Raw)
		}
		list := c.do("GET", "/api/executions?externalId=order-idem&summary=true", nil)
		if rows, _ := list.Body["rows"].([]any); list.Status != 200 || len(rows) != 2 {
			t.Errorf("executions with externalId order-idem = %d %s", list.Status, list.Raw)
		}
	})

	t.Run("a retry after the first try's process died starts nothing twice", func(t *testing.T) {
		c := as(t, s.Credentials.APIKey)
		body := map[string]any{"inputs": payout["inputs"], "externalId": "order-died"}
		first := c.do("POST", "/api/workflows/payout/executions", body)
		if first.Status != 202 {
			t.Fatalf("first = %d %s", first.Status, first.Raw)
		}
		id := str(first.data(t)["id"])
		// What an API killed after starting the run, before storing its answer, leaves behind:
		// the record still pending, its lease (two minutes) run out.
		res := s.App.Store.DB.Model(&store.IdempotencyRecord{}).
			Where("org_id = ? AND external_id = ?", s.Credentials.OrgID, "order-died").
			Updates(map[string]any{"state": store.IdempotencyPending, "status": 0, "body": nil, "created_at": time.Now().Add(-3 * time.Minute).UTC()})
		if res.Error != nil || res.RowsAffected != 1 {
			t.Fatalf("rewind the record: %d rows, %v", res.RowsAffected, res.Error)
		}
		retry := c.do("POST", "/api/workflows/payout/executions", body)
		if retry.Status != 202 || str(retry.data(t)["id"]) != id || retry.Body["idempotent"] != nil {
			t.Fatalf("retry = %d %s, want the first try's execution %s, taken over (not a replay)", retry.Status, retry.Raw, id)
		}
		list := c.do("GET", "/api/executions?externalId=order-died", nil)
		if rows, _ := list.Body["rows"].([]any); list.Status != 200 || len(rows) != 1 {
			t.Errorf("executions with externalId order-died = %d %s, want one", list.Status, list.Raw)
		}
		replay := c.do("POST", "/api/workflows/payout/executions", body)
		if replay.Status != 202 || str(replay.data(t)["id"]) != id || replay.Body["idempotent"] != true {
			t.Errorf("after the takeover = %d %s, want the stored answer replayed", replay.Status, replay.Raw)
		}
	})

	t.Run("api contract on the real Temporal", func(t *testing.T) {
		apiContract(t, s.App.Store, s.App.Temporal)
	})

	t.Run("terminated in the Temporal UI, ended by the reconciler", func(t *testing.T) {
		c := as(t, s.Credentials.APIKey)
		id := start(c, "payout", payout)
		sink.wait(t, "workflow.human_approval_pending", id)
		ctx := context.Background()
		// What an operator's Terminate in the Temporal UI does: the run ends without its code.
		if err := s.App.Temporal.TerminateWorkflow(ctx, id, "", "operator: customer asked to stop"); err != nil {
			t.Fatal(err)
		}
		if e := execution(c, id); e["status"] != "running" {
			t.Fatalf("before reconciling: status %v, want the stale running", e["status"])
		}
		reconcileUntil(t, s, "the terminated execution ended", func() bool { return execution(c, id)["status"] != "running" })
		e := execution(c, id)
		if e["status"] != "failed" || !strings.Contains(str(e["errorMessage"]), "terminated: operator: customer asked to stop") {
			t.Errorf("reconciled execution = %v", e)
		}
		failed := sink.wait(t, "workflow.execution.failed", id)
		wantKeys(t, failed, "executionId", "workflowSlug", "failedStepId", "errorMessage")
		if failed.Data["workflowSlug"] != "payout" || !strings.Contains(str(failed.Data["errorMessage"]), "operator: customer asked to stop") {
			t.Errorf("failed = %v", failed.Data)
		}
	})

	t.Run("waiting execution survives a restart", func(t *testing.T) {
		id := start(as(t, s.Credentials.APIKey), "payout", payout)
		pending := sink.wait(t, "workflow.human_approval_pending", id)
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		s = boot(t, dir, opts)
		c := as(t, s.Credentials.APIKey)
		if e := execution(c, id); e["status"] != "running" {
			t.Fatalf("after restart = %v", e)
		}
		r := as(t, reviewer.key).do("POST", "/api/approvals/"+str(pending.Data["stepId"])+"/approve", map[string]any{})
		if r.Status != 200 {
			t.Fatalf("approve after restart = %d %s", r.Status, r.Raw)
		}
		completed := sink.wait(t, "workflow.execution.completed", id)
		if !jsonEqual(completed.Data["output"], map[string]any{"paid": true, "amount": 250, "score": 0.9, "approvedBy": reviewer.userID}) {
			t.Errorf("completed after restart = %v", completed.Data)
		}
		if e := execution(c, id); e["status"] != "succeeded" {
			t.Errorf("execution after restart = %v", e)
		}
	})
}

// apiContract drives a second API instance (apitest, which checks every answer against
// openapi.yaml) on the stack's store and Temporal: the refusals that only a running Execution
// workflow can give, with their exact SPEC messages.
func apiContract(t *testing.T, st *store.Store, tc temporalclient.Client) {
	h := apitest.New(t, apitest.Options{Store: st, Temporal: tc})
	h.NoRateLimits(h.Org.ID)
	for slug, assignTo := range map[string]string{"gate": "role:reviewer", "self": "role:admin"} {
		r := h.Do("POST", "/api/workflows", h.AdminKey, map[string]any{"slug": slug, "name": slug, "definition": approvalDefinition(assignTo)})
		if r.Status != 201 {
			t.Fatalf("create %s = %d %s", slug, r.Status, r.Body)
		}
	}
	// startAndWait starts a run as the harness admin and returns its pending approval's id.
	startAndWait := func(slug string) (string, string) {
		r := h.Do("POST", "/api/workflows/"+slug+"/executions", h.AdminKey, map[string]any{})
		if r.Status != 202 {
			t.Fatalf("start %s = %d %s", slug, r.Status, r.Body)
		}
		id := str(r.Data()["id"])
		var approvalID string
		eventually(t, 30*time.Second, "the approval of "+id, func() bool {
			l := h.Do("GET", "/api/approvals?status=pending&executionId="+id, h.AdminKey, nil)
			rows, _ := l.JSON["data"].([]any)
			if len(rows) == 1 {
				approvalID = str(rows[0].(map[string]any)["id"])
			}
			return approvalID != ""
		})
		return id, approvalID
	}
	user := func(role string) string {
		r := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": role + fmt.Sprint(time.Now().UnixNano()) + "@example.com", "role": role})
		if r.Status != 201 {
			t.Fatalf("POST /api/users = %d %s", r.Status, r.Body)
		}
		key, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"approvals:write", "executions:write"}, ActAsUserID: str(r.Data()["id"])})
		return key
	}
	wantError := func(res *apitest.Response, status int, msg string) {
		t.Helper()
		if res.Status != status || res.Error() != msg {
			t.Errorf("got %d %s, want %d %q", res.Status, res.Body, status, msg)
		}
	}

	gateRun, gate := startAndWait("gate")
	// The admin holds no reviewer role (403); a reviewer decides once (200), then a second
	// decision is a state conflict (409) while the same call again answers the same result.
	wantError(h.Do("POST", "/api/approvals/"+gate+"/approve", h.AdminKey, map[string]any{}), 403, "missing role: reviewer")
	rev := user("reviewer")
	if r := h.Do("POST", "/api/approvals/"+gate+"/approve", rev, map[string]any{"comment": "ok"}); r.Status != 200 || r.Data()["status"] != "approved" {
		t.Fatalf("reviewer approves = %d %s", r.Status, r.Body)
	}
	wantError(h.Do("POST", "/api/approvals/"+gate+"/reject", rev, map[string]any{}), 409, "state conflict: cannot transition approved → rejected")
	if r := h.Do("POST", "/api/approvals/"+gate+"/approve", rev, map[string]any{"comment": "ok"}); r.Status != 200 || r.Data()["status"] != "approved" {
		t.Errorf("the same approval again = %d %s", r.Status, r.Body)
	}
	eventually(t, 30*time.Second, gateRun+" to succeed", func() bool {
		return h.Do("GET", "/api/executions/"+gateRun, h.AdminKey, nil).Data()["status"] == "succeeded"
	})
	wantError(h.Do("POST", "/api/executions/"+gateRun+"/cancel", h.AdminKey, map[string]any{}), 409, "state conflict: cannot transition succeeded → cancelled")
	wantError(h.Do("POST", "/api/approvals/"+gate+"/reject", user("reviewer"), map[string]any{}), 409, "state conflict: cannot transition approved → rejected")

	// Four-eyes: the admin who started the run may not approve it; another admin may.
	_, self := startAndWait("self")
	wantError(h.Do("POST", "/api/approvals/"+self+"/approve", h.AdminKey, map[string]any{}), 422, "four-eyes violation: drafter cannot submit")
	if r := h.Do("POST", "/api/approvals/"+self+"/approve", user("admin"), map[string]any{}); r.Status != 200 {
		t.Errorf("a second admin approves = %d %s", r.Status, r.Body)
	}

	// Cancelling a running execution: 202, then cancelled.
	run, _ := startAndWait("gate")
	if r := h.Do("POST", "/api/executions/"+run+"/cancel", h.AdminKey, map[string]any{"reason": "stop"}); r.Status != 202 {
		t.Fatalf("cancel = %d %s", r.Status, r.Body)
	}
	eventually(t, 30*time.Second, run+" to be cancelled", func() bool {
		d := h.Do("GET", "/api/executions/"+run, h.AdminKey, nil).Data()
		return d["status"] == "cancelled" && d["cancelledBy"] == h.Admin.ID
	})
}

// reconcileUntil triggers the reconcile Schedule (it runs every reconcile.every) until done
// holds: visibility indexes a terminated run a moment after it closed.
func reconcileUntil(t *testing.T, s *devstack.Stack, what string, done func() bool) {
	t.Helper()
	ctx := context.Background()
	h := s.App.Temporal.ScheduleClient().GetHandle(ctx, mntwf.ReconcileScheduleID)
	deadline := time.Now().Add(90 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("the reconciler did not get %s within 90s", what)
		}
		if err := h.Trigger(ctx, temporalclient.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL}); err != nil {
			t.Fatal(err)
		}
		// One look a second keeps a minute of polling under the key's read limit.
		for i := 0; i < 5 && !done(); i++ {
			time.Sleep(time.Second)
		}
	}
}
