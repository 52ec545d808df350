package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/netguard"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/webhook"
	"github.com/svcplatform/svc/workflows"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

var ladder = []time.Duration{0, 10 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}

// starts records workflow starts; Temporal itself is exercised by the e2e tests.
type starts struct {
	mu   sync.Mutex
	runs map[string]hookwf.WebhookDeliveryInput
}

func (s *starts) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if wf != hookwf.WebhookDeliveryName || o.TaskQueue != workflows.QueueWebhooks || len(args) != 1 {
		return nil, fmt.Errorf("unexpected start %v %v", o, wf)
	}
	if _, ok := s.runs[o.ID]; ok {
		return nil, serviceerror.NewWorkflowExecutionAlreadyStarted("already started", "", "")
	}
	s.runs[o.ID] = args[0].(hookwf.WebhookDeliveryInput)
	return nil, nil
}

// hit is one request a receiver got.
type hit struct {
	header http.Header
	body   []byte
}

// receiver is a loopback webhook receiver answering from a script.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []hit
	answer func(n int, w http.ResponseWriter)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter)) *receiver {
	r := &receiver{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.hits = append(r.hits, hit{req.Header.Clone(), body})
		n := len(r.hits)
		r.mu.Unlock()
		r.answer(n, w)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.hits)
}

type fixture struct {
	ctx    context.Context
	s      *store.Store
	w      *Activities
	starts *starts
	org    string
}

func newFixture(t *testing.T, s *store.Store, allowLoopback bool) *fixture {
	t.Helper()
	box, err := secrets.NewBox(bytes.Repeat([]byte{3}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	cfg := netguard.Config{}
	if allowLoopback {
		cfg.AllowCIDRs = []string{"127.0.0.0/8"}
	}
	g, err := netguard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	org, err := s.Orgs.Create(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	st := &starts{runs: map[string]hookwf.WebhookDeliveryInput{}}
	// The inline wait is long here: on a loaded machine the default second turned answered first
	// attempts into ladders (a PostgreSQL fan-out of 50 failed 3 runs in 8). The tests of the wait
	// itself set their own.
	return &fixture{ctx: context.Background(), s: s, starts: st, org: org.ID,
		w: &Activities{Store: s, Box: box, HTTP: g.Client(), Temporal: st, Schedule: ladder, ReceiverTimeout: 2 * time.Second,
			InlineWait: 30 * time.Second}}
}

// subscribe creates an active subscription and returns it with its secret.
func (f *fixture) subscribe(t *testing.T, url string, names ...string) (*store.WebhookSubscription, string) {
	t.Helper()
	sub, secret, err := f.s.Webhooks.Create(f.ctx, f.w.Box, f.org, url, names, true)
	if err != nil {
		t.Fatal(err)
	}
	return sub, secret
}

var failedData = map[string]any{"documentId": "doc_1", "errorMessage": "corrupt file", "stage": "inspect"}

// publish publishes document.failed and returns the delivery ids.
func (f *fixture) publish(t *testing.T, key string) workflows.PublishEventResult {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	res, err := f.w.PublishEvent(f.ctx, workflows.PublishEventInput{
		EventID: events.DeriveID(at, "doc_1", key), Event: events.DocumentFailed, OrgID: f.org, OccurredAt: at, Data: failedData,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// stored writes document.failed and its deliveries as PublishEvent does before any attempt
// (as a publish that died right after writing them leaves them), and returns the delivery ids.
func (f *fixture) stored(t *testing.T, key string) workflows.PublishEventResult {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	env, err := events.NewEnvelope(events.DeriveID(at, "doc_1", key), events.DocumentFailed, f.org, at, failedData)
	if err != nil {
		t.Fatal(err)
	}
	_, ds, err := f.s.Webhooks.PublishEvent(f.ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	out := workflows.PublishEventResult{EventID: env.ID}
	for _, d := range ds {
		out.DeliveryIDs = append(out.DeliveryIDs, d.ID)
	}
	return out
}

func (f *fixture) attempt(t *testing.T, deliveryID string, n int) hookwf.WebhookAttemptResult {
	t.Helper()
	res, err := f.w.AttemptWebhookDelivery(f.ctx, hookwf.WebhookAttemptInput{
		DeliveryID: deliveryID, OrgID: f.org, Attempt: n, Schedule: ladder, ReceiverTimeout: f.w.ReceiverTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (f *fixture) delivery(t *testing.T, id string) store.Delivery {
	t.Helper()
	target, err := f.s.Webhooks.LoadDeliveryTarget(f.ctx, f.org, id)
	if err != nil {
		t.Fatal(err)
	}
	return target.Delivery
}

func TestAttemptSignsAndDelivers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		sub, secret := f.subscribe(t, rcv.URL+"/hook", events.DocumentFailed)
		pub := f.stored(t, "failed")
		if len(pub.DeliveryIDs) != 1 {
			t.Fatalf("deliveries %v", pub.DeliveryIDs)
		}
		did := pub.DeliveryIDs[0]
		res := f.attempt(t, did, 1)
		if res.StatusCode != 200 || res.Status != webhook.StatusDelivered || res.Error != "" {
			t.Fatalf("result %+v", res)
		}
		if rcv.count() != 1 {
			t.Fatalf("receiver got %d requests", rcv.count())
		}
		h := rcv.hits[0]
		if err := webhook.Verify([]byte(secret), h.header, h.body, webhook.WithStandardWebhooks(time.Minute)); err != nil {
			t.Fatalf("receiver cannot verify: %v", err)
		}
		target, _ := s.Webhooks.LoadDeliveryTarget(f.ctx, f.org, did)
		if !bytes.Equal(h.body, target.Event.Body) {
			t.Errorf("body %s, want stored %s", h.body, target.Event.Body)
		}
		want := map[string]string{
			"Content-Type": "application/json", "X-Service-Event": events.DocumentFailed, "X-Service-Delivery": did,
			"X-Service-Attempt": "1", "X-DocInt-Event": events.DocumentFailed, "X-DocInt-Attempt": "1",
			"X-DocInt-Delivery": did, "Webhook-Id": pub.EventID,
		}
		for k, v := range want {
			if got := h.header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
		if h.header.Get("X-Orch-Signature") != "" {
			t.Error("a document event carries X-Orch- headers")
		}
		if ua := h.header.Get("User-Agent"); !strings.HasPrefix(ua, "svc/") || !strings.Contains(ua, "documents") {
			t.Errorf("User-Agent %q", ua)
		}
		d := f.delivery(t, did)
		if d.Status != webhook.StatusDelivered || d.Attempts != 1 || d.LastStatusCode != 200 || d.SubscriptionID != sub.ID {
			t.Errorf("delivery %+v", d)
		}
		as, _ := s.Webhooks.DeliveryAttempts(f.ctx, f.org, did)
		if len(as) != 1 || as[0].StatusCode != 200 || as[0].LatencyMs < 0 {
			t.Errorf("attempts %+v", as)
		}
	})
}

func TestAttemptsFailTwiceThenSucceed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(n int, w http.ResponseWriter) {
			if n <= 2 {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
			}
		})
		_, secret := f.subscribe(t, rcv.URL, events.DocumentFailed)
		did := f.stored(t, "k").DeliveryIDs[0]
		for n, want := range []webhook.DeliveryStatus{webhook.StatusFailed, webhook.StatusFailed, webhook.StatusDelivered} {
			res := f.attempt(t, did, n+1)
			d := f.delivery(t, did)
			if res.Status != want || d.Status != want || d.Attempts != n+1 {
				t.Fatalf("attempt %d: result %+v, delivery %+v; want %s", n+1, res, d, want)
			}
			if (want == webhook.StatusFailed) != (d.NextAttemptAt != nil) {
				t.Errorf("attempt %d: next attempt at %v", n+1, d.NextAttemptAt)
			}
		}
		for i, h := range rcv.hits {
			if h.header.Get(webhook.HeaderAttempt) != fmt.Sprint(i+1) || !bytes.Equal(h.body, rcv.hits[0].body) ||
				h.header.Get(webhook.HeaderWebhookID) != rcv.hits[0].header.Get(webhook.HeaderWebhookID) {
				t.Errorf("request %d: attempt %q, same body %v", i+1, h.header.Get(webhook.HeaderAttempt), bytes.Equal(h.body, rcv.hits[0].body))
			}
			if err := webhook.Verify([]byte(secret), h.header, h.body); err != nil {
				t.Errorf("request %d: %v", i+1, err)
			}
		}
		as, _ := s.Webhooks.DeliveryAttempts(f.ctx, f.org, did)
		if len(as) != 3 || as[0].StatusCode != 500 || len(as[0].ResponseBody) != store.MaxResponseBody {
			t.Fatalf("attempts %d, first %d with %d body bytes", len(as), as[0].StatusCode, len(as[0].ResponseBody))
		}
	})
}

func TestAttemptRunTwiceSendsOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) })
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		did := f.stored(t, "k").DeliveryIDs[0]
		first := f.attempt(t, did, 1)
		again := f.attempt(t, did, 1)
		if rcv.count() != 1 || first != again || first.StatusCode != 502 {
			t.Fatalf("receiver got %d requests; results %+v, %+v", rcv.count(), first, again)
		}
		// Publishing it (again) sends nothing, writes no second delivery and starts the ladder
		// of the failed attempt from its second rung, once.
		for range 2 {
			if pub := f.publish(t, "k"); len(pub.DeliveryIDs) != 1 || pub.DeliveryIDs[0] != did || len(f.starts.runs) != 1 ||
				f.starts.runs[did].FromAttempt != 2 || rcv.count() != 1 {
				t.Fatalf("publish %+v, starts %+v, %d requests", pub, f.starts.runs, rcv.count())
			}
		}
	})
}

func TestAttemptOutcomes(t *testing.T) {
	tests := []struct {
		name       string
		attempt    int
		answer     func(w http.ResponseWriter)
		wantStatus webhook.DeliveryStatus
		wantCode   int
		wantRetry  int
	}{
		{"410 drops", 1, func(w http.ResponseWriter) { w.WriteHeader(http.StatusGone) }, webhook.StatusDropped, 410, 0},
		{"429 Retry-After seconds", 1, func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		}, webhook.StatusFailed, 429, 120},
		{"503 Retry-After date", 2, func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusServiceUnavailable)
		}, webhook.StatusFailed, 503, 3600},
		{"500 Retry-After ignored", 1, func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusInternalServerError)
		}, webhook.StatusFailed, 500, 0},
		{"redirect is a failure", 1, func(w http.ResponseWriter) {
			w.Header().Set("Location", "http://169.254.169.254/")
			w.WriteHeader(http.StatusFound)
		}, webhook.StatusFailed, 302, 0},
		{"last attempt fails", 6, func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) }, webhook.StatusDropped, 404, 0},
	}
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := newFixture(t, s, true)
				rcv := newReceiver(t, func(_ int, w http.ResponseWriter) { tt.answer(w) })
				f.subscribe(t, rcv.URL, events.DocumentFailed)
				did := f.stored(t, tt.name).DeliveryIDs[0]
				res := f.attempt(t, did, tt.attempt)
				if res.Status != tt.wantStatus || res.StatusCode != tt.wantCode || res.Gone {
					t.Fatalf("result %+v, want %s %d", res, tt.wantStatus, tt.wantCode)
				}
				if tt.wantRetry > 0 && (res.RetryAfterSeconds < tt.wantRetry-2 || res.RetryAfterSeconds > tt.wantRetry) {
					t.Errorf("retry-after %d, want about %d", res.RetryAfterSeconds, tt.wantRetry)
				}
				if tt.wantRetry == 0 && res.RetryAfterSeconds != 0 {
					t.Errorf("retry-after %d, want 0", res.RetryAfterSeconds)
				}
				if d := f.delivery(t, did); d.Status != tt.wantStatus || d.LastStatusCode != tt.wantCode {
					t.Errorf("delivery %+v", d)
				}
			})
		}
	})
}

func TestAttemptRefusedByGuard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, false) // loopback not allowed
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		did := f.stored(t, "k").DeliveryIDs[0]
		res := f.attempt(t, did, 1)
		if res.Status != webhook.StatusFailed || res.StatusCode != 0 || !strings.Contains(res.Error, "refused to connect to 127.0.0.1") {
			t.Fatalf("result %+v", res)
		}
		if rcv.count() != 0 {
			t.Fatal("the guarded client reached loopback")
		}
		if d := f.delivery(t, did); !strings.Contains(d.LastError, "loopback") {
			t.Errorf("delivery log error %q", d.LastError)
		}
	})
}

func TestAttemptTimeout(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		f.w.ReceiverTimeout = 100 * time.Millisecond
		release := make(chan struct{})
		rcv := newReceiver(t, func(int, http.ResponseWriter) { <-release })
		defer close(release)
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		did := f.stored(t, "k").DeliveryIDs[0]
		res := f.attempt(t, did, 1)
		if res.Status != webhook.StatusFailed || res.StatusCode != 0 || !strings.Contains(res.Error, "no answer within 100ms") {
			t.Fatalf("result %+v", res)
		}
	})
}

func TestAttemptGone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		a, _ := f.subscribe(t, rcv.URL, events.DocumentFailed)
		b, _ := f.subscribe(t, rcv.URL, events.DocumentFailed)
		dids := f.stored(t, "k").DeliveryIDs
		off := false
		if _, err := s.Webhooks.Update(f.ctx, f.org, a.ID, store.WebhookPatch{Active: &off}); err != nil {
			t.Fatal(err)
		}
		if err := s.Webhooks.Delete(f.ctx, f.org, b.ID); err != nil {
			t.Fatal(err)
		}
		for _, did := range dids {
			if res := f.attempt(t, did, 1); !res.Gone || res.Status != webhook.StatusDropped {
				t.Errorf("%s: %+v", did, res)
			}
		}
		if rcv.count() != 0 {
			t.Fatal("sent to an inactive or deleted subscription")
		}
	})
}

func TestPublishFanOutSignsEachWithItsSecret(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		secretByPath := map[string]string{}
		for i := 0; i < 50; i++ {
			path := fmt.Sprintf("/r/%d", i)
			_, secret := f.subscribe(t, rcv.URL+path, events.DocumentFailed)
			secretByPath[path] = secret
		}
		pub := f.publish(t, "fanout") // first attempts inline; every one answered, so no workflow
		if len(pub.DeliveryIDs) != 50 || len(f.starts.runs) != 0 || rcv.count() != 50 {
			t.Fatalf("%d deliveries, %d workflow starts, %d requests", len(pub.DeliveryIDs), len(f.starts.runs), rcv.count())
		}
		for _, did := range pub.DeliveryIDs {
			if d := f.delivery(t, did); d.Status != webhook.StatusDelivered || d.Attempts != 1 {
				t.Fatalf("%s: %+v", did, d)
			}
		}
		// Recover each request's path from its delivery, and check it verifies with that subscription's secret only.
		seen := map[string]bool{}
		for _, h := range rcv.hits {
			target, err := s.Webhooks.LoadDeliveryTarget(f.ctx, f.org, h.header.Get(webhook.HeaderDelivery))
			if err != nil {
				t.Fatal(err)
			}
			path := strings.TrimPrefix(target.Subscription.URL, rcv.URL)
			seen[path] = true
			if err := webhook.Verify([]byte(secretByPath[path]), h.header, h.body); err != nil {
				t.Errorf("%s: %v", path, err)
			}
			other := secretByPath[fmt.Sprintf("/r/%d", (len(seen))%50)]
			if other != secretByPath[path] && webhook.Verify([]byte(other), h.header, h.body) == nil {
				t.Errorf("%s verifies with another subscription's secret", path)
			}
		}
		if len(seen) != 50 {
			t.Fatalf("requests reached %d distinct subscriptions", len(seen))
		}
	})
}

func TestPublishRejectsInvalidEvent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		_, err := f.w.PublishEvent(f.ctx, workflows.PublishEventInput{
			EventID: events.DeriveID(time.Now(), "x"), Event: events.DocumentFailed, OrgID: f.org, OccurredAt: time.Now(),
			Data: map[string]any{"documentId": "doc_1"},
		})
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || !appErr.NonRetryable() || appErr.Type() != workflows.ErrTypeInvalidEvent ||
			!strings.Contains(err.Error(), `missing key "errorMessage"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDropWebhookDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		f.subscribe(t, "https://example.com", events.DocumentFailed)
		did := f.publish(t, "k").DeliveryIDs[0]
		if err := f.w.DropWebhookDelivery(f.ctx, hookwf.WebhookDropInput{DeliveryID: did, OrgID: f.org, Attempt: 6, Error: "activity timeout"}); err != nil {
			t.Fatal(err)
		}
		if d := f.delivery(t, did); d.Status != webhook.StatusDropped || !strings.Contains(d.LastError, "attempt 6") {
			t.Fatalf("%+v", d)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"0", 0}, {"30", 30}, {" 30 ", 30}, {"-5", 0}, {"abc", 0}, {"1.5", 0},
		{"99999999999999999999", 0}, {"9999999", maxRetryAfter},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{now.Add(30 * 24 * time.Hour).Format(http.TimeFormat), maxRetryAfter},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestNewWebhooksFromConfig(t *testing.T) {
	key, err := secrets.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     config.Config
		wantErr string
		// refused and allowed are target URLs the guard must refuse and accept on save.
		refused, allowed []string
	}{
		{name: "no key", cfg: config.Config{Environment: "sandbox"}, wantErr: "secrets.key"},
		{name: "bad key", cfg: config.Config{Environment: "sandbox", Secrets: config.SecretsConfig{Key: "c2hvcnQ="}}, wantErr: "secrets.key"},
		{name: "bad CIDR", cfg: config.Config{Environment: "sandbox", Secrets: config.SecretsConfig{Key: key},
			Webhooks: config.WebhooksConfig{AllowCIDRs: []string{"127.0.0.1/99"}}}, wantErr: "webhooks.allow_cidrs"},
		{name: "sandbox", cfg: config.Config{Environment: "sandbox", Secrets: config.SecretsConfig{Key: key}},
			refused: []string{"http://127.0.0.1:9/", "http://10.0.0.1/", "ftp://example.com/"},
			allowed: []string{"http://example.com/hook", "https://example.com/hook"}},
		{name: "live needs https", cfg: config.Config{Environment: "live", Secrets: config.SecretsConfig{Key: key}},
			refused: []string{"http://example.com/hook"}, allowed: []string{"https://example.com/hook"}},
		{name: "loopback allowed", cfg: config.Config{Environment: "sandbox", Secrets: config.SecretsConfig{Key: key},
			Webhooks: config.WebhooksConfig{AllowCIDRs: []string{"127.0.0.0/8"}, Schedule: ladder, ReceiverTimeout: 3 * time.Second}},
			refused: []string{"http://169.254.169.254/"}, allowed: []string{"http://127.0.0.1:9/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := New(&tt.cfg, nil, nil, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range tt.refused {
				if w.Guard.CheckURL(u) == nil {
					t.Errorf("CheckURL(%s) accepted", u)
				}
			}
			for _, u := range tt.allowed {
				if err := w.Guard.CheckURL(u); err != nil {
					t.Errorf("CheckURL(%s) = %v", u, err)
				}
			}
			if w.HTTP == nil || w.Box == nil || !slices.Equal(w.Schedule, tt.cfg.Webhooks.Schedule) || w.ReceiverTimeout != tt.cfg.Webhooks.ReceiverTimeout {
				t.Fatalf("not wired from config: %+v", w)
			}
			// The box is the config key's: a secret sealed with it opens.
			other, _ := secrets.NewBoxBase64(key)
			sealed, _ := other.Seal([]byte("s"), "ctx")
			if got, err := w.Box.Open(sealed, "ctx"); err != nil || string(got) != "s" {
				t.Fatalf("box does not use secrets.key: %q %v", got, err)
			}
			if err := w.StartDelivery(context.Background(), "org_1", "whd_1"); err == nil {
				t.Fatal("StartDelivery without a Temporal client did not fail")
			}
		})
	}
}

// TestStatementsEventsCarryBankStatementHeaders: an analysis event is signed with the
// unified headers and, during the header migration, the X-BankStatement- ones (SPEC 6.1).
func TestStatementsEventsCarryBankStatementHeaders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		_, secret := f.subscribe(t, rcv.URL+"/hook", events.AnalysisFailed)
		at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
		pub, err := f.w.PublishEvent(f.ctx, workflows.PublishEventInput{
			EventID: events.DeriveID(at, "ana_1", "failed"), Event: events.AnalysisFailed, OrgID: f.org, OccurredAt: at,
			Data: map[string]any{"analysisId": "ana_1", "errorMessage": "the CSV file is empty", "stage": "parse", "externalRef": nil},
		})
		if err != nil || len(pub.DeliveryIDs) != 1 {
			t.Fatalf("publish: %+v %v", pub, err)
		}
		did := pub.DeliveryIDs[0]
		if res := f.attempt(t, did, 1); res.Status != webhook.StatusDelivered {
			t.Fatalf("result %+v", res)
		}
		h := rcv.hits[0]
		if err := webhook.Verify([]byte(secret), h.header, h.body); err != nil {
			t.Fatalf("receiver cannot verify: %v", err)
		}
		for _, p := range []string{webhook.UnifiedPrefix, webhook.BankStatementPrefix} {
			want := map[string]string{p + "Event": events.AnalysisFailed, p + "Delivery": did, p + "Attempt": "1"}
			for k, v := range want {
				if got := h.header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if !strings.HasPrefix(h.header.Get(p+"Signature"), "sha256=") || h.header.Get(p+"Timestamp") == "" {
				t.Errorf("%s signature or timestamp missing: %v", p, h.header)
			}
		}
		if h.header.Get("X-DocInt-Signature") != "" || h.header.Get("X-Orch-Signature") != "" {
			t.Error("an analysis event carries another product's headers")
		}
		// A receiver that only knows the product prefix verifies it alone.
		only := http.Header{}
		for k, v := range h.header {
			if !strings.HasPrefix(k, webhook.UnifiedPrefix) && !strings.HasPrefix(strings.ToLower(k), "webhook-") {
				only[k] = v
			}
		}
		if err := webhook.Verify([]byte(secret), only, h.body); err != nil {
			t.Errorf("X-BankStatement- headers alone do not verify: %v", err)
		}
	})
}
