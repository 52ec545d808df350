package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/webhook"
	"github.com/svcplatform/svc/workflows"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// workflowStarts stands in for the Temporal service, which e2e/webhooks_test.go runs for real:
// it records the workflows the API starts, or refuses them with fail.
type workflowStarts struct {
	client.Client
	mu     sync.Mutex
	starts []client.StartWorkflowOptions
	inputs []hookwf.WebhookDeliveryInput
	fail   error
}

func (w *workflowStarts) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail != nil {
		return nil, w.fail
	}
	if wf != hookwf.WebhookDeliveryName || len(args) != 1 {
		return nil, fmt.Errorf("unexpected start of %v", wf)
	}
	w.starts = append(w.starts, o)
	w.inputs = append(w.inputs, args[0].(hookwf.WebhookDeliveryInput))
	return nil, nil
}

func (w *workflowStarts) last() (client.StartWorkflowOptions, hookwf.WebhookDeliveryInput, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.starts)
	if n == 0 {
		return client.StartWorkflowOptions{}, hookwf.WebhookDeliveryInput{}, 0
	}
	return w.starts[n-1], w.inputs[n-1], n
}

// webhookHarness is an API with a secrets key, in environment env, starting workflows on temporal.
func webhookHarness(t *testing.T, env string, temporal *workflowStarts) (*apitest.Harness, *secrets.Box) {
	t.Helper()
	key, err := secrets.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	o := apitest.Options{Config: func(c *config.Config) {
		c.Environment = env
		c.Secrets.Key = key
		c.Webhooks.Schedule = []time.Duration{0, time.Second}
	}}
	if temporal != nil {
		o.Temporal = temporal
	}
	h := apitest.New(t, o)
	h.NoRateLimits(h.Org.ID)
	box, err := secrets.NewBoxBase64(key)
	if err != nil {
		t.Fatal(err)
	}
	return h, box
}

// createWebhook creates a subscription through the API and returns its data.
func createWebhook(t *testing.T, h *apitest.Harness, key string, body map[string]any) map[string]any {
	t.Helper()
	res := h.Do("POST", "/api/webhooks", key, body)
	wantStatus(t, res, 201)
	return res.Data()
}

func TestWebhookCreateShowsSecretOnce(t *testing.T) {
	h, box := webhookHarness(t, "sandbox", nil)
	d := createWebhook(t, h, h.AdminKey, map[string]any{"url": " https://example.com/hooks ", "events": []string{"document.failed", "*", "document.failed"}})
	inner, _ := d["webhook"].(map[string]any)
	if inner == nil {
		t.Fatalf("no data.webhook in %v", d)
	}
	for _, k := range []string{"id", "url", "secret", "active"} {
		if fmt.Sprint(d[k]) != fmt.Sprint(inner[k]) {
			t.Errorf("data.%s = %v, data.webhook.%s = %v: both placements must agree", k, d[k], k, inner[k])
		}
	}
	id, secret := str(d, "id"), str(d, "secret")
	if !strings.HasPrefix(id, "whk_") || !strings.HasPrefix(secret, webhook.SecretPrefix) || len(secret) < len(webhook.SecretPrefix)+43 {
		t.Fatalf("id %q secret %q", id, secret)
	}
	if str(d, "url") != "https://example.com/hooks" || d["active"] != true || fmt.Sprint(d["events"]) != "[document.failed *]" {
		t.Fatalf("created = %v", d)
	}
	// Never shown again, and stored only sealed.
	for _, path := range []string{"/api/webhooks", "/api/webhooks/" + id} {
		res := h.Do("GET", path, h.AdminKey, nil)
		wantStatus(t, res, 200)
		if strings.Contains(string(res.Body), secret[len(webhook.SecretPrefix):]) || strings.Contains(string(res.Body), `"secret"`) {
			t.Fatalf("GET %s shows the secret: %s", path, res.Body)
		}
	}
	sub, err := h.Store.Webhooks.Get(context.Background(), h.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sub.SecretSealed, secret[len(webhook.SecretPrefix):]) {
		t.Fatal("secret stored in clear")
	}
	if got, err := store.WebhookSecret(box, sub); err != nil || string(got) != secret {
		t.Fatalf("sealed secret opens to %q, %v", got, err)
	}
	// Inactive on request; listed newest first; q matches the URL.
	d2 := createWebhook(t, h, h.AdminKey, map[string]any{"url": "http://example.org/other", "events": []string{"document.extracted"}, "active": false})
	if d2["active"] != false {
		t.Fatalf("active false ignored: %v", d2)
	}
	list := h.Do("GET", "/api/webhooks?limit=1", h.AdminKey, nil)
	wantStatus(t, list, 200)
	rows := list.JSON["data"].([]any)
	if list.JSON["total"].(float64) != 2 || len(rows) != 1 || str(rows[0].(map[string]any), "id") != str(d2, "id") {
		t.Fatalf("list = %s", list.Body)
	}
	if q := h.Do("GET", "/api/webhooks?q=EXAMPLE.COM", h.AdminKey, nil); q.JSON["total"].(float64) != 1 {
		t.Fatalf("q = %s", q.Body)
	}
	// The write is in the audit log.
	audit := h.Do("GET", "/api/audit-logs?q=POST%20/api/webhooks", h.AdminKey, nil)
	if !strings.Contains(string(audit.Body), `"resourceId":"`+id+`"`) {
		t.Fatalf("no audit entry for the create: %s", audit.Body)
	}
}

func TestWebhookValidation(t *testing.T) {
	sandbox, _ := webhookHarness(t, "sandbox", nil)
	live, _ := webhookHarness(t, "live", nil)
	tests := []struct {
		name  string
		h     *apitest.Harness
		body  any
		field string
		msg   string
	}{
		{"missing url and events", sandbox, map[string]any{}, "url", "is required"},
		{"missing events", sandbox, map[string]any{"url": "https://example.com"}, "events", "is required"},
		{"empty events", sandbox, map[string]any{"url": "https://example.com", "events": []string{}}, "events", "at least one"},
		{"unknown event", sandbox, map[string]any{"url": "https://example.com", "events": []string{"document.nope"}}, "events", `unknown event "document.nope"`},
		{"wildcard prefix is not a name", sandbox, map[string]any{"url": "https://example.com", "events": []string{"document.*"}}, "events", "unknown event"},
		{"events not an array", sandbox, map[string]any{"url": "https://example.com", "events": "document.failed"}, "events", "must be an array"},
		{"active not a boolean", sandbox, map[string]any{"url": "https://example.com", "events": []string{"*"}, "active": "yes"}, "active", "must be a boolean"},
		{"unknown field", sandbox, map[string]any{"url": "https://example.com", "events": []string{"*"}, "secret": "mine"}, "secret", "unknown field"},
		{"externalId is not accepted", sandbox, map[string]any{"url": "https://example.com", "events": []string{"*"}, "externalId": "x"}, "externalId", "unknown field"},
		{"empty url", sandbox, map[string]any{"url": " ", "events": []string{"*"}}, "url", "is required"},
		{"no scheme", sandbox, map[string]any{"url": "example.com/hook", "events": []string{"*"}}, "url", "absolute http or https"},
		{"ftp", sandbox, map[string]any{"url": "ftp://example.com/", "events": []string{"*"}}, "url", "absolute http or https"},
		{"user info", sandbox, map[string]any{"url": "https://u:p@example.com/", "events": []string{"*"}}, "url", "without user info"},
		{"loopback literal", sandbox, map[string]any{"url": "http://127.0.0.1:8080/", "events": []string{"*"}}, "url", "internal address (127.0.0.1 is loopback)"},
		{"metadata service", sandbox, map[string]any{"url": "http://169.254.169.254/latest", "events": []string{"*"}}, "url", "link-local"},
		{"IPv4-mapped IPv6", sandbox, map[string]any{"url": "http://[::ffff:10.0.0.1]/", "events": []string{"*"}}, "url", "internal address"},
		{"too long", sandbox, map[string]any{"url": "https://example.com/" + strings.Repeat("a", 2048), "events": []string{"*"}}, "url", "at most 2048"},
		{"http in live", live, map[string]any{"url": "http://example.com/hook", "events": []string{"*"}}, "url", "https URL in the live environment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.h.Do("POST", "/api/webhooks", tt.h.AdminKey, tt.body)
			wantStatus(t, res, 400)
			if res.Error() != api.MsgValidation {
				t.Fatalf("error %q", res.Error())
			}
			fe, _ := res.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
			if !strings.Contains(fmt.Sprint(fe[tt.field]), tt.msg) {
				t.Fatalf("fieldErrors = %v, want %s: …%s…", fe, tt.field, tt.msg)
			}
		})
	}
	var n int64
	sandbox.Store.DB.Model(&store.WebhookSubscription{}).Count(&n)
	if n != 0 {
		t.Fatalf("%d subscriptions saved from bad input", n)
	}
	// https passes in live.
	createWebhook(t, live, live.AdminKey, map[string]any{"url": "https://example.com/hook", "events": []string{"*"}})
}

func TestWebhookScopes(t *testing.T) {
	h, _ := webhookHarness(t, "sandbox", nil)
	body := map[string]any{"url": "https://example.com/hook", "events": []string{"*"}}
	// webhooks:write is accepted for webhooks:manage (the orchestration contract's scope).
	d := createWebhook(t, h, h.Key("webhooks:write"), body)
	viewer := h.Key("webhooks:view")
	wantExactError(t, h.Do("POST", "/api/webhooks", viewer, body), 403, "missing scope: webhooks:manage")
	wantExactError(t, h.Do("POST", "/api/webhooks/"+str(d, "id")+"/rotate-secret", h.Key("read"), nil), 403, "missing scope: webhooks:manage")
	for _, key := range []string{viewer, h.Key("read")} {
		wantStatus(t, h.Do("GET", "/api/webhooks/"+str(d, "id"), key, nil), 200)
		wantStatus(t, h.Do("GET", "/api/webhooks/"+str(d, "id")+"/deliveries", key, nil), 200)
	}
}

func TestWebhookUpdateAndDelete(t *testing.T) {
	h, _ := webhookHarness(t, "sandbox", nil)
	d := createWebhook(t, h, h.AdminKey, map[string]any{"url": "https://example.com/hook", "events": []string{"document.failed"}})
	path := "/api/webhooks/" + str(d, "id")

	res := h.Do("PATCH", path, h.AdminKey, map[string]any{"events": []string{"*", "workflow.step.completed"}, "active": false})
	wantStatus(t, res, 200)
	if u := res.Data(); fmt.Sprint(u["events"]) != "[* workflow.step.completed]" || u["active"] != false || str(u, "url") != "https://example.com/hook" {
		t.Fatalf("patched = %s", res.Body)
	}
	res = h.Do("PATCH", path, h.AdminKey, map[string]any{"url": "https://example.org/new"})
	wantStatus(t, res, 200)
	if str(res.Data(), "url") != "https://example.org/new" || fmt.Sprint(res.Data()["events"]) != "[* workflow.step.completed]" {
		t.Fatalf("url patch = %s", res.Body)
	}
	for _, bad := range []map[string]any{
		{"url": "http://10.1.2.3/"}, {"events": []string{}}, {"events": []string{"nope"}}, {"active": nil, "id": "whk_x"},
	} {
		res := h.Do("PATCH", path, h.AdminKey, bad)
		wantStatus(t, res, 400)
	}
	if got := h.Do("GET", path, h.AdminKey, nil); str(got.Data(), "url") != "https://example.org/new" {
		t.Fatalf("a refused patch changed the subscription: %s", got.Body)
	}
	wantStatus(t, h.Do("DELETE", path, h.AdminKey, nil), 204)
	wantExactError(t, h.Do("GET", path, h.AdminKey, nil), 404, api.MsgNotFound)
	wantExactError(t, h.Do("DELETE", path, h.AdminKey, nil), 404, api.MsgNotFound)
	wantExactError(t, h.Do("PATCH", path, h.AdminKey, map[string]any{"active": true}), 404, api.MsgNotFound)
}

func TestWebhookRotateSecret(t *testing.T) {
	h, box := webhookHarness(t, "sandbox", nil)
	d := createWebhook(t, h, h.AdminKey, map[string]any{"url": "https://example.com/hook", "events": []string{"*"}})
	res := h.Do("POST", "/api/webhooks/"+str(d, "id")+"/rotate-secret", h.AdminKey, nil)
	wantStatus(t, res, 200)
	r := res.Data()
	inner, _ := r["webhook"].(map[string]any)
	fresh := str(r, "secret")
	if inner == nil || str(inner, "secret") != fresh || str(r, "id") != str(d, "id") || !strings.HasPrefix(fresh, webhook.SecretPrefix) || fresh == str(d, "secret") {
		t.Fatalf("rotated = %s", res.Body)
	}
	sub, _ := h.Store.Webhooks.Get(context.Background(), h.Org.ID, str(d, "id"))
	if got, err := store.WebhookSecret(box, sub); err != nil || string(got) != fresh {
		t.Fatalf("stored secret is not the new one: %v", err)
	}
}

func TestWebhookTestAndRedeliver(t *testing.T) {
	temporal := &workflowStarts{}
	h, _ := webhookHarness(t, "sandbox", temporal)
	d := createWebhook(t, h, h.AdminKey, map[string]any{"url": "https://example.com/hook", "events": []string{"document.failed"}})
	base := "/api/webhooks/" + str(d, "id")

	res := h.Do("POST", base+"/test", h.AdminKey, nil)
	wantStatus(t, res, 202)
	del := res.Data()
	opts, in, n := temporal.last()
	if n != 1 || opts.ID != str(del, "id") || opts.TaskQueue != workflows.QueueWebhooks || in.DeliveryID != str(del, "id") ||
		in.OrgID != h.Org.ID || len(in.Schedule) != 2 {
		t.Fatalf("started %d: %+v %+v for %s", n, opts, in, res.Body)
	}
	if str(del, "status") != "pending" || str(del, "event") != "webhook.test" || del["attempt"] != 0.0 || str(del, "webhookId") != str(d, "id") {
		t.Fatalf("test delivery = %s", res.Body)
	}
	var evt store.Event
	if err := h.Store.DB.Where("id = ?", str(del, "eventId")).Take(&evt).Error; err != nil {
		t.Fatal(err)
	}
	var body struct {
		ID, Event, OrgID string
		Data             map[string]any
	}
	if err := json.Unmarshal(evt.Body, &body); err != nil || body.ID != str(del, "eventId") || body.Event != "webhook.test" ||
		body.OrgID != h.Org.ID || fmt.Sprint(body.Data) != "map[source:test]" {
		t.Fatalf("event body %s: %v", evt.Body, err)
	}

	// The worker records attempts; the log shows them.
	at := h.Clock.Now().Add(-time.Second)
	next := at.Add(time.Second)
	if err := h.Store.Webhooks.RecordAttempt(context.Background(), store.DeliveryAttempt{DeliveryID: str(del, "id"), Attempt: 1, OrgID: h.Org.ID,
		AttemptedAt: at, StatusCode: 503, LatencyMs: 12, RetryAfterSeconds: 1, ResponseBody: "busy"}, webhook.StatusFailed, &next); err != nil {
		t.Fatal(err)
	}
	detail := h.Do("GET", base+"/deliveries/"+str(del, "id"), h.AdminKey, nil)
	wantStatus(t, detail, 200)
	dd := detail.Data()
	atts := dd["attempts"].([]any)
	if str(dd, "status") != "failed" || dd["attempt"] != 1.0 || dd["lastStatusCode"] != 503.0 || dd["lastLatencyMs"] != 12.0 ||
		str(dd, "nextAttemptAt") != api.Timestamp(next) || len(atts) != 1 {
		t.Fatalf("detail = %s", detail.Body)
	}
	if a := atts[0].(map[string]any); a["statusCode"] != 503.0 || a["latencyMs"] != 12.0 || str(a, "responseBody") != "busy" ||
		a["error"] != nil || a["retryAfterSeconds"] != 1.0 || str(a, "attemptedAt") != api.Timestamp(at) {
		t.Fatalf("attempt = %v", a)
	}

	// Redeliver: a new delivery of the same event, started from attempt 1.
	res = h.Do("POST", base+"/deliveries/"+str(del, "id")+"/redeliver", h.AdminKey, nil)
	wantStatus(t, res, 202)
	re := res.Data()
	opts, _, n = temporal.last()
	if n != 2 || str(re, "id") == str(del, "id") || opts.ID != str(re, "id") || str(re, "eventId") != str(del, "eventId") || str(re, "status") != "pending" {
		t.Fatalf("redelivered = %s (start %d %s)", res.Body, n, opts.ID)
	}
	wantExactError(t, h.Do("POST", base+"/deliveries/whd_00000000000000000000000000/redeliver", h.AdminKey, nil), 404, api.MsgNotFound)
	wantExactError(t, h.Do("GET", base+"/deliveries/whd_00000000000000000000000000", h.AdminKey, nil), 404, api.MsgNotFound)
	// A delivery of another subscription is not found under this one.
	other := createWebhook(t, h, h.AdminKey, map[string]any{"url": "https://example.com/other", "events": []string{"*"}})
	wantExactError(t, h.Do("GET", "/api/webhooks/"+str(other, "id")+"/deliveries/"+str(del, "id"), h.AdminKey, nil), 404, api.MsgNotFound)

	// When Temporal refuses the start, the answer is 503 and the delivery is not left pending.
	temporal.mu.Lock()
	temporal.fail = errors.New("unavailable")
	temporal.mu.Unlock()
	wantExactError(t, h.Do("POST", base+"/test", h.AdminKey, nil), 503, api.MsgUnavailable)
	list := h.Do("GET", base+"/deliveries?status=dropped", h.AdminKey, nil)
	rows := list.JSON["rows"].([]any)
	if len(rows) != 1 || !strings.Contains(str(rows[0].(map[string]any), "lastError"), "could not be scheduled") {
		t.Fatalf("unscheduled delivery: %s", list.Body)
	}
}

func TestWebhookDeliveryLogPages(t *testing.T) {
	h, _ := webhookHarness(t, "sandbox", &workflowStarts{})
	d := createWebhook(t, h, h.AdminKey, map[string]any{"url": "https://example.com/hook", "events": []string{"*"}})
	base := "/api/webhooks/" + str(d, "id") + "/deliveries"
	var made []string
	for i := 0; i < 25; i++ {
		h.Clock.Advance(time.Millisecond)
		del, err := h.Store.Webhooks.CreateTestDelivery(context.Background(), h.Org.ID, str(d, "id"), h.Clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, del.ID)
	}
	if err := h.Store.Webhooks.DropDelivery(context.Background(), h.Org.ID, made[3], "test"); err != nil {
		t.Fatal(err)
	}
	var seen []string
	cursor := ""
	for page := 0; page < 10; page++ {
		path := base + "?limit=10"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := h.Do("GET", path, h.AdminKey, nil)
		wantStatus(t, res, 200)
		for _, r := range res.JSON["rows"].([]any) {
			seen = append(seen, str(r.(map[string]any), "id"))
		}
		if res.JSON["nextCursor"] == nil {
			break
		}
		cursor = res.JSON["nextCursor"].(string)
	}
	if len(seen) != 25 {
		t.Fatalf("paged %d deliveries, want 25", len(seen))
	}
	for i, id := range seen {
		if id != made[24-i] {
			t.Fatalf("row %d is %s, want %s (newest first)", i, id, made[24-i])
		}
	}
	res := h.Do("GET", base+"?status=dropped,delivered", h.AdminKey, nil)
	if rows := res.JSON["rows"].([]any); len(rows) != 1 || str(rows[0].(map[string]any), "id") != made[3] {
		t.Fatalf("status filter = %s", res.Body)
	}
	for _, q := range []string{"?status=lost", "?limit=201", "?cursor=nope", "?page=2"} {
		wantStatus(t, h.Do("GET", base+q, h.AdminKey, nil), 400)
	}
	wantStatus(t, h.Do("GET", base+"?limit=200", h.AdminKey, nil), 200)
}

func TestWebhooksWithoutSecretsKey(t *testing.T) {
	h := apitest.New(t, apitest.Options{}) // no secrets.key configured
	wantExactError(t, h.Do("POST", "/api/webhooks", h.AdminKey, map[string]any{"url": "https://example.com", "events": []string{"*"}}), 503, api.MsgUnavailable)
	// Bad input is still told apart from the missing key.
	wantStatus(t, h.Do("POST", "/api/webhooks", h.AdminKey, map[string]any{"events": []string{"*"}}), 400)
	wantStatus(t, h.Do("GET", "/api/webhooks", h.AdminKey, nil), 200)
}
