package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	temporalclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/webhook"
	"github.com/svcplatform/svc/workflows"
)

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receivers is a loopback webhook receiver: each path keeps what it got and answers from a script
// (the status for its n-th request, from 1).
type receivers struct {
	*httptest.Server
	mu     sync.Mutex
	got    map[string][]received
	script map[string]func(n int) int
}

func newReceivers(t *testing.T) *receivers {
	r := &receivers{got: map[string][]received{}, script: map[string]func(int) int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got[req.URL.Path] = append(r.got[req.URL.Path], received{req.Header.Clone(), body})
		n, answer := len(r.got[req.URL.Path]), r.script[req.URL.Path]
		r.mu.Unlock()
		status := http.StatusOK
		if answer != nil {
			status = answer(n)
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d to request %d", status, n)
	}))
	t.Cleanup(r.Close)
	return r
}

// on sets the script of a path.
func (r *receivers) on(path string, answer func(n int) int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.script[path] = answer
}

// requests returns what path got so far.
func (r *receivers) requests(path string) []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got[path]...)
}

// publishQueue is the task queue of the test's own publishing workflow.
const publishQueue = "e2e-publisher"

// publishWorkflow publishes document.failed from workflow code, exactly as the products do.
func publishWorkflow(ctx workflow.Context, orgID, key string) (workflows.PublishEventResult, error) {
	return workflows.PublishEvent(ctx, orgID, events.DocumentFailed, key,
		map[string]any{"documentId": "doc_e2e", "errorMessage": "corrupt file", "stage": "inspect"})
}

// subscription is a webhook created through the API.
type subscription struct {
	id     string
	secret []byte
}

func subscribe(t *testing.T, c client, url string, names ...string) subscription {
	t.Helper()
	r := c.do("POST", "/api/webhooks", map[string]any{"url": url, "events": names})
	if r.Status != 201 {
		t.Fatalf("POST /api/webhooks = %d %s", r.Status, r.Raw)
	}
	d := r.data(t)
	return subscription{id: str(d["id"]), secret: []byte(str(d["secret"]))}
}

// deliveryDetail is GET /api/webhooks/:id/deliveries/:deliveryId.
func deliveryDetail(t *testing.T, c client, subID, deliveryID string) map[string]any {
	t.Helper()
	r := c.do("GET", "/api/webhooks/"+subID+"/deliveries/"+deliveryID, nil)
	if r.Status != 200 {
		t.Fatalf("GET delivery = %d %s", r.Status, r.Raw)
	}
	return r.data(t)
}

// waitStatus polls the delivery log until the delivery has status.
func waitStatus(t *testing.T, c client, subID, deliveryID, status string, within time.Duration) map[string]any {
	t.Helper()
	var d map[string]any
	eventually(t, within, "delivery "+deliveryID+" to be "+status, func() bool {
		d = deliveryDetail(t, c, subID, deliveryID)
		return d["status"] == status
	})
	return d
}

// checkSigned verifies a request with the public receiver package (Standard Webhooks headers
// included, whose webhook-id must be the event id) and returns its body's event id.
func checkSigned(t *testing.T, secret []byte, r received) string {
	t.Helper()
	if err := webhook.Verify(secret, r.header, r.body, webhook.WithStandardWebhooks(0)); err != nil {
		t.Fatalf("signature does not verify: %v (headers %v)", err, r.header)
	}
	var env struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatal(err)
	}
	// The Standard Webhooks id is the event id, stable across attempts (SPEC 2.2).
	if got := r.header.Get(webhook.HeaderWebhookID); got != env.ID {
		t.Fatalf("%s %q, want the event id %q", webhook.HeaderWebhookID, got, env.ID)
	}
	return env.ID
}

// TestWebhooksEndToEnd runs deliveries through the real embedded Temporal and worker to receivers
// on loopback, with the ladder shrunk to 0s,1s,1s,1s,1s,1s.
func TestWebhooksEndToEnd(t *testing.T) {
	s := boot(t, t.TempDir(), bootOptions{env: []string{"SVC_WEBHOOKS_SCHEDULE=0s,1s,1s,1s,1s,1s"}})
	c := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	rcv := newReceivers(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "http://" + ln.Addr().String() + "/down" // a receiver that is down: nothing listens here
	ln.Close()

	w := sdkworker.New(s.App.Temporal, publishQueue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(publishWorkflow, workflow.RegisterOptions{Name: "E2EPublish"})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	flaky := subscribe(t, c, rcv.URL+"/flaky", events.DocumentFailed)
	down := subscribe(t, c, downURL, "*")
	rcv.on("/flaky", func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})

	// One event from a workflow: written once, one delivery per subscription, each its own ladder.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := s.App.Temporal.ExecuteWorkflow(ctx, temporalclient.StartWorkflowOptions{ID: "e2e-publish-1", TaskQueue: publishQueue},
		"E2EPublish", s.Credentials.OrgID, "step-1")
	if err != nil {
		t.Fatal(err)
	}
	var pub workflows.PublishEventResult
	if err := run.Get(ctx, &pub); err != nil {
		t.Fatal(err)
	}
	if len(pub.DeliveryIDs) != 2 {
		t.Fatalf("published to %d subscriptions, want 2: %+v", len(pub.DeliveryIDs), pub)
	}
	deliveryOf := map[string]string{} // subscription id -> delivery id
	for _, sub := range []subscription{flaky, down} {
		r := c.do("GET", "/api/webhooks/"+sub.id+"/deliveries", nil)
		rows, _ := r.Body["rows"].([]any)
		if r.Status != 200 || len(rows) != 1 {
			t.Fatalf("delivery log of %s = %d %s", sub.id, r.Status, r.Raw)
		}
		deliveryOf[sub.id] = str(rows[0].(map[string]any)["id"])
	}

	t.Run("receiver fails twice then accepts", func(t *testing.T) {
		d := waitStatus(t, c, flaky.id, deliveryOf[flaky.id], "delivered", 30*time.Second)
		got := rcv.requests("/flaky")
		if len(got) != 3 {
			t.Fatalf("receiver got %d requests, want 3", len(got))
		}
		for i, r := range got {
			if id := checkSigned(t, flaky.secret, r); id != pub.EventID {
				t.Fatalf("attempt %d carries event %s, want %s", i+1, id, pub.EventID)
			}
			if string(r.body) != string(got[0].body) {
				t.Fatalf("attempt %d body differs:\n%s\n%s", i+1, r.body, got[0].body)
			}
			h := r.header
			if h.Get(webhook.HeaderAttempt) != strconv.Itoa(i+1) || h.Get(webhook.DocIntPrefix+webhook.SuffixAttempt) != strconv.Itoa(i+1) ||
				h.Get(webhook.HeaderEvent) != events.DocumentFailed || h.Get(webhook.HeaderDelivery) != deliveryOf[flaky.id] ||
				h.Get("Content-Type") != "application/json" || h.Get("User-Agent") == "" {
				t.Fatalf("attempt %d headers: %v", i+1, h)
			}
		}
		if d["attempt"] != 3.0 || d["lastStatusCode"] != 200.0 || d["nextAttemptAt"] != nil {
			t.Fatalf("delivery = %v", d)
		}
		atts := d["attempts"].([]any)
		for i, want := range []float64{500, 500, 200} {
			if a := atts[i].(map[string]any); a["statusCode"] != want || a["attempt"] != float64(i+1) {
				t.Fatalf("attempt %d = %v", i+1, a)
			}
		}
	})

	t.Run("receiver down gets six attempts and is dropped", func(t *testing.T) {
		waitStatus(t, c, down.id, deliveryOf[down.id], "dropped", 60*time.Second)
		r := c.do("GET", "/api/webhooks/"+down.id+"/deliveries?status=dropped", nil)
		rows, _ := r.Body["rows"].([]any)
		if len(rows) != 1 {
			t.Fatalf("dropped deliveries = %s", r.Raw)
		}
		row := rows[0].(map[string]any)
		if row["id"] != deliveryOf[down.id] || row["attempt"] != 6.0 || row["eventId"] != pub.EventID || row["lastStatusCode"] != nil {
			t.Fatalf("log row = %v", row)
		}
		atts := deliveryDetail(t, c, down.id, deliveryOf[down.id])["attempts"].([]any)
		if len(atts) != 6 {
			t.Fatalf("%d attempts recorded, want 6", len(atts))
		}
		for i, a := range atts {
			a := a.(map[string]any)
			if a["attempt"] != float64(i+1) || a["statusCode"] != nil || str(a["error"]) == "" || a["error"] == nil {
				t.Fatalf("attempt %d = %v", i+1, a)
			}
		}
	})

	t.Run("redeliver sends the same event again", func(t *testing.T) {
		before := len(rcv.requests("/flaky"))
		r := c.do("POST", "/api/webhooks/"+flaky.id+"/deliveries/"+deliveryOf[flaky.id]+"/redeliver", nil)
		if r.Status != 202 {
			t.Fatalf("redeliver = %d %s", r.Status, r.Raw)
		}
		again := str(r.data(t)["id"])
		if again == deliveryOf[flaky.id] || r.data(t)["eventId"] != pub.EventID {
			t.Fatalf("redelivery = %s", r.Raw)
		}
		waitStatus(t, c, flaky.id, again, "delivered", 30*time.Second)
		got := rcv.requests("/flaky")
		if len(got) != before+1 {
			t.Fatalf("receiver got %d more requests, want 1", len(got)-before)
		}
		last, first := got[len(got)-1], got[0]
		if checkSigned(t, flaky.secret, last) != pub.EventID || string(last.body) != string(first.body) ||
			last.header.Get(webhook.HeaderDelivery) != again || last.header.Get(webhook.HeaderAttempt) != "1" {
			t.Fatalf("redelivered request: %v %s", last.header, last.body)
		}
	})

	t.Run("test endpoint and secret rotation", func(t *testing.T) {
		ok := subscribe(t, c, rcv.URL+"/ok", events.DocumentExtracted)
		send := func() received {
			t.Helper()
			n := len(rcv.requests("/ok"))
			r := c.do("POST", "/api/webhooks/"+ok.id+"/test", nil)
			if r.Status != 202 || r.data(t)["event"] != events.WebhookTest {
				t.Fatalf("test = %d %s", r.Status, r.Raw)
			}
			waitStatus(t, c, ok.id, str(r.data(t)["id"]), "delivered", 30*time.Second)
			got := rcv.requests("/ok")
			if len(got) != n+1 {
				t.Fatalf("receiver got %d requests, want 1", len(got)-n)
			}
			return got[n]
		}
		first := send()
		checkSigned(t, ok.secret, first)
		var env struct {
			Event string         `json:"event"`
			OrgID string         `json:"orgId"`
			Data  map[string]any `json:"data"`
		}
		if err := json.Unmarshal(first.body, &env); err != nil || env.Event != events.WebhookTest || env.Data["source"] != "test" ||
			env.OrgID != s.Credentials.OrgID || first.header.Get(webhook.HeaderEvent) != events.WebhookTest {
			t.Fatalf("test body %s: %v", first.body, err)
		}

		r := c.do("POST", "/api/webhooks/"+ok.id+"/rotate-secret", nil)
		if r.Status != 200 {
			t.Fatalf("rotate = %d %s", r.Status, r.Raw)
		}
		fresh := []byte(str(r.data(t)["secret"]))
		if string(fresh) == string(ok.secret) {
			t.Fatal("rotation kept the secret")
		}
		second := send()
		checkSigned(t, fresh, second)
		if err := webhook.Verify(ok.secret, second.header, second.body); err == nil {
			t.Fatal("the old secret still verifies after rotation")
		}
	})
}
