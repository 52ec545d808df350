package webhooks

import (
	"fmt"
	"log/slog"
	"net/http"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/webhook"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// runLadder runs the WebhookDelivery workflow (time skipped) with the real
// attempt activities against the store and a loopback receiver.
func runLadder(t *testing.T, f *fixture, deliveryID string) hookwf.WebhookDeliveryResult {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(hookwf.WebhookDelivery, workflow.RegisterOptions{Name: hookwf.WebhookDeliveryName})
	env.RegisterActivityWithOptions(f.w.AttemptWebhookDelivery, activity.RegisterOptions{Name: hookwf.ActivityAttemptWebhookDelivery})
	env.RegisterActivityWithOptions(f.w.DropWebhookDelivery, activity.RegisterOptions{Name: hookwf.ActivityDropWebhookDelivery})
	env.ExecuteWorkflow(hookwf.WebhookDeliveryName, f.starts.runs[deliveryID])
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("workflow: completed %v, error %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
	}
	var res hookwf.WebhookDeliveryResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestLadderReceiverFailsTwiceThenAccepts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(n int, w http.ResponseWriter) {
			if n <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		})
		sub, secret := f.subscribe(t, rcv.URL, events.DocumentFailed)
		did := f.publish(t, "ladder").DeliveryIDs[0]
		res := runLadder(t, f, did)
		if res.Status != webhook.StatusDelivered || res.Attempts != 3 || res.LastStatusCode != 200 {
			t.Fatalf("result %+v", res)
		}
		if rcv.count() != 3 {
			t.Fatalf("receiver got %d requests, want 3", rcv.count())
		}
		first := rcv.hits[0]
		for i, h := range rcv.hits {
			if h.header.Get(webhook.HeaderAttempt) != fmt.Sprint(i+1) || string(h.body) != string(first.body) ||
				h.header.Get(webhook.HeaderWebhookID) != first.header.Get(webhook.HeaderWebhookID) {
				t.Errorf("request %d differs: attempt %q", i+1, h.header.Get(webhook.HeaderAttempt))
			}
			if err := webhook.Verify([]byte(secret), h.header, h.body); err != nil {
				t.Errorf("request %d: %v", i+1, err)
			}
		}
		d, err := s.Webhooks.GetDelivery(f.ctx, f.org, sub.ID, did)
		if err != nil || d.Status != webhook.StatusDelivered || d.Attempts != 3 {
			t.Fatalf("delivery %+v, %v", d, err)
		}
		if as, _ := s.Webhooks.DeliveryAttempts(f.ctx, f.org, did); len(as) != 3 || as[0].StatusCode != 503 || as[2].StatusCode != 200 {
			t.Fatalf("attempt log %+v", as)
		}
	})
}

func TestLadderReceiverDownIsDropped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		url := rcv.URL
		rcv.Close() // nothing listens there any more
		sub, _ := f.subscribe(t, url, events.DocumentFailed)
		did := f.publish(t, "down").DeliveryIDs[0]
		res := runLadder(t, f, did)
		if res.Status != webhook.StatusDropped || res.Attempts != 6 {
			t.Fatalf("result %+v", res)
		}
		d, _ := s.Webhooks.GetDelivery(f.ctx, f.org, sub.ID, did)
		as, _ := s.Webhooks.DeliveryAttempts(f.ctx, f.org, did)
		if d.Status != webhook.StatusDropped || d.Attempts != 6 || len(as) != 6 || d.LastError == "" || d.NextAttemptAt != nil {
			t.Fatalf("delivery %+v with %d attempts", d, len(as))
		}
		for i, a := range as {
			if a.Attempt != i+1 || a.StatusCode != 0 || a.Error == "" {
				t.Errorf("attempt %+v", a)
			}
		}
	})
}
