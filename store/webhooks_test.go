package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/webhook"
)

func testBox(t *testing.T) *secrets.Box {
	t.Helper()
	b, err := secrets.NewBox(bytes.Repeat([]byte{7}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newOrg(t *testing.T, s *store.Store) string {
	t.Helper()
	o, err := s.Orgs.Create(context.Background(), "org")
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

func envelope(t *testing.T, orgID, name string, data map[string]any) events.Envelope {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	env, err := events.NewEnvelope(events.DeriveID(at, "exe_test", name), name, orgID, at, data)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// subscribed makes an organisation with one active subscription to names.
func subscribed(t *testing.T, s *store.Store, names ...string) (context.Context, string, *store.WebhookSubscription) {
	t.Helper()
	ctx := context.Background()
	org := newOrg(t, s)
	sub, _, err := s.Webhooks.Create(ctx, testBox(t), org, "https://example.com", names, true)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, org, sub
}

var failedData = map[string]any{"documentId": "doc_1", "errorMessage": "corrupt", "stage": "inspect"}

func TestWebhookSubscriptions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, box := context.Background(), testBox(t)
		org, other := newOrg(t, s), newOrg(t, s)
		sub, secret, err := s.Webhooks.Create(ctx, box, org, "https://example.com/hook",
			[]string{events.DocumentExtracted, events.DocumentFailed, events.DocumentExtracted}, true)
		if err != nil {
			t.Fatal(err)
		}
		if !ids.Valid(ids.Webhook, sub.ID) || !strings.HasPrefix(secret, webhook.SecretPrefix) || len(sub.Events) != 2 || !sub.Active {
			t.Fatalf("created %+v secret %q", sub, secret)
		}
		// At rest the secret is sealed, never in clear.
		var raw string
		if err := s.DB.Raw("SELECT secret_sealed FROM webhook_subscriptions WHERE id = ?", sub.ID).Scan(&raw).Error; err != nil {
			t.Fatal(err)
		}
		if strings.Contains(raw, strings.TrimPrefix(secret, webhook.SecretPrefix)) {
			t.Fatal("secret stored in clear")
		}
		got, err := s.Webhooks.Get(ctx, org, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := store.WebhookSecret(box, got); err != nil || string(plain) != secret {
			t.Fatalf("WebhookSecret = %q, %v", plain, err)
		}
		if _, err := s.Webhooks.Get(ctx, other, sub.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other org sees the webhook: %v", err)
		}

		inactive, _, err := s.Webhooks.Create(ctx, box, org, "https://example.com/b", []string{events.All}, false)
		if err != nil || inactive.Active {
			t.Fatalf("inactive create: %+v %v", inactive, err)
		}
		for _, bad := range [][]string{nil, {"document.nope"}, {"document.*"}} {
			if _, _, err := s.Webhooks.Create(ctx, box, org, "https://example.com", bad, true); !errors.Is(err, store.ErrInvalidWebhook) {
				t.Errorf("events %v: err = %v", bad, err)
			}
		}
		list, total, err := s.Webhooks.List(ctx, org, store.Offset{Page: 1, Limit: 20}, store.Filter{})
		if err != nil || len(list) != 2 || total != 2 {
			t.Fatalf("ListWebhooks = %d of %d, %v", len(list), total, err)
		}
		if l, _, _ := s.Webhooks.List(ctx, other, store.Offset{Page: 1, Limit: 20}, store.Filter{}); len(l) != 0 {
			t.Fatal("other org lists our webhooks")
		}

		url, off := "https://example.com/new", false
		upd, err := s.Webhooks.Update(ctx, org, sub.ID, store.WebhookPatch{URL: &url, Active: &off})
		if err != nil || upd.URL != url || upd.Active || len(upd.Events) != 2 {
			t.Fatalf("UpdateWebhook = %+v, %v", upd, err)
		}
		if _, err := s.Webhooks.Update(ctx, org, sub.ID, store.WebhookPatch{Events: []string{"nope"}}); !errors.Is(err, store.ErrInvalidWebhook) {
			t.Fatalf("bad events patch: %v", err)
		}
		if _, err := s.Webhooks.Update(ctx, other, sub.ID, store.WebhookPatch{URL: &url}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other org patch: %v", err)
		}

		rotated, err := s.Webhooks.RotateSecret(ctx, box, org, sub.ID)
		if err != nil || rotated == secret {
			t.Fatalf("rotate: %q %v", rotated, err)
		}
		got, _ = s.Webhooks.Get(ctx, org, sub.ID)
		if plain, _ := store.WebhookSecret(box, got); string(plain) != rotated {
			t.Fatal("rotated secret not stored")
		}
		if _, err := s.Webhooks.RotateSecret(ctx, box, other, sub.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other org rotate: %v", err)
		}

		if err := s.Webhooks.Delete(ctx, other, sub.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other org delete: %v", err)
		}
		if err := s.Webhooks.Delete(ctx, org, sub.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Webhooks.Get(ctx, org, sub.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted webhook still there: %v", err)
		}
	})
}

func TestPublishEvent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, box := context.Background(), testBox(t)
		org, other := newOrg(t, s), newOrg(t, s)
		mk := func(org string, active bool, names ...string) string {
			sub, _, err := s.Webhooks.Create(ctx, box, org, "https://example.com", names, active)
			if err != nil {
				t.Fatal(err)
			}
			return sub.ID
		}
		named := mk(org, true, events.DocumentFailed)
		wildcard := mk(org, true, events.All)
		mk(org, true, events.DocumentExtracted)     // does not want it
		mk(org, false, events.DocumentFailed)       // inactive
		mk(other, true, events.DocumentFailed, "*") // other organisation
		stepSub := mk(org, true, events.WorkflowStepCompleted)

		env := envelope(t, org, events.DocumentFailed, failedData)
		evt, ds, err := s.Webhooks.PublishEvent(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(env)
		if !bytes.Equal(evt.Body, want) || evt.ID != env.ID {
			t.Fatalf("event body %s, want %s", evt.Body, want)
		}
		subs := map[string]bool{}
		for _, d := range ds {
			subs[d.SubscriptionID] = true
			if d.Status != webhook.StatusPending || d.EventID != env.ID || d.EventName != events.DocumentFailed || d.OrgID != org || !ids.Valid(ids.Delivery, d.ID) {
				t.Errorf("delivery %+v", d)
			}
		}
		if len(ds) != 2 || !subs[named] || !subs[wildcard] {
			t.Fatalf("deliveries to %v, want %s and %s", subs, named, wildcard)
		}

		// Publishing again (a retried activity) writes nothing new and returns the same deliveries.
		_, again, err := s.Webhooks.PublishEvent(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != 2 || again[0].ID != ds[0].ID || again[1].ID != ds[1].ID {
			t.Fatalf("second publish: %+v, first %+v", again, ds)
		}
		var nEvents, nDeliveries int64
		s.DB.Model(&store.Event{}).Where("id = ?", env.ID).Count(&nEvents)
		s.DB.Model(&store.Delivery{}).Where("event_id = ?", env.ID).Count(&nDeliveries)
		if nEvents != 1 || nDeliveries != 2 {
			t.Fatalf("%d events, %d deliveries after two publishes", nEvents, nDeliveries)
		}

		// workflow.step.completed is off by default: only the subscription naming it gets it.
		step := envelope(t, org, events.WorkflowStepCompleted, map[string]any{"executionId": "exe_1", "stepId": "stp_1", "nodeId": "n1", "output": nil})
		_, ds, err = s.Webhooks.PublishEvent(ctx, step)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 1 || ds[0].SubscriptionID != stepSub {
			t.Fatalf("step.completed deliveries %+v, want only %s", ds, stepSub)
		}

		// The same id for a different event is refused.
		clash := env
		clash.Event = events.DocumentExtracted
		if _, _, err := s.Webhooks.PublishEvent(ctx, clash); err == nil {
			t.Fatal("event id reuse accepted")
		}
	})
}

func TestPublishFanOut(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, box := context.Background(), testBox(t)
		org := newOrg(t, s)
		for i := 0; i < 50; i++ {
			if _, _, err := s.Webhooks.Create(ctx, box, org, fmt.Sprintf("https://example.com/%d", i), []string{events.DocumentFailed}, true); err != nil {
				t.Fatal(err)
			}
		}
		_, ds, err := s.Webhooks.PublishEvent(ctx, envelope(t, org, events.DocumentFailed, failedData))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, d := range ds {
			seen[d.SubscriptionID] = true
		}
		if len(ds) != 50 || len(seen) != 50 {
			t.Fatalf("%d deliveries to %d subscriptions, want 50", len(ds), len(seen))
		}
	})
}

// TestPublishPrunesFullHistories: publishing keeps each receiving subscription's log at the
// last DeliveryHistory deliveries, and leaves a subscription below it alone.
func TestPublishPrunesFullHistories(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, full := subscribed(t, s, events.DocumentFailed)
		small, _, err := s.Webhooks.Create(ctx, testBox(t), org, "https://example.com/small", []string{events.DocumentFailed}, true)
		if err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var rows []store.Delivery
		for i := 0; i < store.DeliveryHistory+5; i++ {
			at := base.Add(time.Duration(i) * time.Second)
			rows = append(rows, store.Delivery{ID: ids.NewAt(ids.Delivery, at), OrgID: org, SubscriptionID: full.ID,
				EventID: "evt_x", EventName: events.DocumentFailed, Status: webhook.StatusDelivered, CreatedAt: at})
		}
		rows = append(rows, store.Delivery{ID: ids.NewAt(ids.Delivery, base), OrgID: org, SubscriptionID: small.ID,
			EventID: "evt_x", EventName: events.DocumentFailed, Status: webhook.StatusDelivered, CreatedAt: base})
		if err := s.DB.CreateInBatches(rows, 100).Error; err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Webhooks.PublishEvent(ctx, envelope(t, org, events.DocumentFailed, failedData)); err != nil {
			t.Fatal(err)
		}
		for sub, want := range map[string]int64{full.ID: store.DeliveryHistory, small.ID: 2} {
			var n int64
			s.DB.Model(&store.Delivery{}).Where("subscription_id = ?", sub).Count(&n)
			if n != want {
				t.Errorf("subscription %s keeps %d deliveries, want %d", sub, n, want)
			}
		}
	})
}

func TestRecordAttempt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, sub := subscribed(t, s, events.DocumentFailed)
		_, ds, err := s.Webhooks.PublishEvent(ctx, envelope(t, org, events.DocumentFailed, failedData))
		if err != nil || len(ds) != 1 {
			t.Fatal(err)
		}
		d := ds[0]
		target, err := s.Webhooks.LoadDeliveryTarget(ctx, org, d.ID)
		if err != nil || target.Subscription.ID != sub.ID || target.Event.ID != d.EventID {
			t.Fatalf("LoadDeliveryTarget = %+v, %v", target, err)
		}
		if _, err := s.Webhooks.LoadDeliveryTarget(ctx, newOrg(t, s), d.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other org loads the delivery: %v", err)
		}

		next := time.Now().Add(10 * time.Second).UTC()
		long := strings.Repeat("é", 600) + "\x00tail" // 1200+ bytes, a NUL
		a1 := store.DeliveryAttempt{DeliveryID: d.ID, Attempt: 1, OrgID: org, AttemptedAt: time.Now(), StatusCode: 500, LatencyMs: 12, ResponseBody: long}
		for i := 0; i < 2; i++ { // recorded twice (activity ran twice): one row
			if err := s.Webhooks.RecordAttempt(ctx, a1, webhook.StatusFailed, &next); err != nil {
				t.Fatal(err)
			}
		}
		as, err := s.Webhooks.DeliveryAttempts(ctx, org, d.ID)
		if err != nil || len(as) != 1 {
			t.Fatalf("attempts = %d, %v; want 1", len(as), err)
		}
		if len(as[0].ResponseBody) > store.MaxResponseBody || !strings.HasPrefix(as[0].ResponseBody, "éé") || strings.ContainsRune(as[0].ResponseBody, 0xFFFD) {
			t.Errorf("response body %d bytes: %q", len(as[0].ResponseBody), as[0].ResponseBody[:20])
		}
		got, _ := s.Webhooks.GetDelivery(ctx, org, sub.ID, d.ID)
		if got.Status != webhook.StatusFailed || got.Attempts != 1 || got.LastStatusCode != 500 || got.NextAttemptAt == nil {
			t.Fatalf("after failed attempt: %+v", got)
		}
		if rec, err := s.Webhooks.RecordedAttempt(ctx, org, d.ID, 1); err != nil || rec.StatusCode != 500 {
			t.Fatalf("RecordedAttempt = %+v, %v", rec, err)
		}
		if _, err := s.Webhooks.RecordedAttempt(ctx, org, d.ID, 2); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("attempt 2 before it ran: %v", err)
		}

		a2 := store.DeliveryAttempt{DeliveryID: d.ID, Attempt: 2, OrgID: org, AttemptedAt: time.Now(), StatusCode: 204, LatencyMs: 3}
		if err := s.Webhooks.RecordAttempt(ctx, a2, webhook.StatusDelivered, &next); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Webhooks.GetDelivery(ctx, org, sub.ID, d.ID)
		if got.Status != webhook.StatusDelivered || got.Attempts != 2 || got.LastStatusCode != 204 || got.NextAttemptAt != nil {
			t.Fatalf("after delivered: %+v", got)
		}
		// A delivered delivery is final: a stray later record or a drop does not move it.
		if err := s.Webhooks.RecordAttempt(ctx, store.DeliveryAttempt{DeliveryID: d.ID, Attempt: 3, OrgID: org, AttemptedAt: time.Now()}, webhook.StatusFailed, &next); err != nil {
			t.Fatal(err)
		}
		if err := s.Webhooks.DropDelivery(ctx, org, d.ID, "late"); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.Webhooks.GetDelivery(ctx, org, sub.ID, d.ID); got.Status != webhook.StatusDelivered {
			t.Fatalf("final status moved to %s", got.Status)
		}
	})
}

func TestDropDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, sub := subscribed(t, s, events.DocumentFailed)
		_, ds, _ := s.Webhooks.PublishEvent(ctx, envelope(t, org, events.DocumentFailed, failedData))
		if err := s.Webhooks.DropDelivery(ctx, org, ds[0].ID, "activity timed out"); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Webhooks.GetDelivery(ctx, org, sub.ID, ds[0].ID)
		if got.Status != webhook.StatusDropped || got.LastError != "activity timed out" {
			t.Fatalf("%+v", got)
		}
	})
}

func TestTestDeliveryAndRedeliver(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, sub := subscribed(t, s, events.DocumentFailed)
		d, err := s.Webhooks.CreateTestDelivery(ctx, org, sub.ID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		target, err := s.Webhooks.LoadDeliveryTarget(ctx, org, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		var env events.Envelope
		if err := json.Unmarshal(target.Event.Body, &env); err != nil {
			t.Fatal(err)
		}
		if env.Event != events.WebhookTest || string(env.Data) != `{"source":"test"}` || env.OrgID != org || d.EventName != events.WebhookTest {
			t.Fatalf("test event %s", target.Event.Body)
		}
		if _, err := s.Webhooks.CreateTestDelivery(ctx, newOrg(t, s), sub.ID, time.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("test of another org's webhook: %v", err)
		}

		again, err := s.Webhooks.Redeliver(ctx, org, sub.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if again.ID == d.ID || again.EventID != d.EventID || again.Status != webhook.StatusPending {
			t.Fatalf("redelivery %+v of %+v", again, d)
		}
		if _, err := s.Webhooks.Redeliver(ctx, org, sub.ID, "whd_nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("redeliver unknown: %v", err)
		}
	})
}

func TestDeliveryHistory(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, sub := subscribed(t, s, events.DocumentFailed)
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var rows []store.Delivery
		for i := 0; i < store.DeliveryHistory+5; i++ {
			status := webhook.StatusDelivered
			if i == 1 {
				status = webhook.StatusFailed // still in flight: kept although old
			}
			at := base.Add(time.Duration(i) * time.Second)
			rows = append(rows, store.Delivery{ID: ids.NewAt(ids.Delivery, at), OrgID: org,
				SubscriptionID: sub.ID, EventID: "evt_x", EventName: events.DocumentFailed, Status: status, CreatedAt: at})
		}
		if err := s.DB.CreateInBatches(rows, 100).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB.Create(&store.DeliveryAttempt{DeliveryID: rows[0].ID, Attempt: 1, OrgID: org, AttemptedAt: base}).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.Webhooks.PruneDeliveries(ctx, org, sub.ID); err != nil {
			t.Fatal(err)
		}
		var n int64
		s.DB.Model(&store.Delivery{}).Where("subscription_id = ?", sub.ID).Count(&n)
		if n != store.DeliveryHistory+1 {
			t.Fatalf("%d deliveries after pruning, want %d (200 newest + 1 in flight)", n, store.DeliveryHistory+1)
		}
		if _, err := s.Webhooks.GetDelivery(ctx, org, sub.ID, rows[1].ID); err != nil {
			t.Fatalf("in-flight delivery pruned: %v", err)
		}
		if as, _ := s.Webhooks.DeliveryAttempts(ctx, org, rows[0].ID); len(as) != 0 {
			t.Fatal("attempts of a pruned delivery remain")
		}

		// Cursor pages, newest first, never more than 200.
		var all []store.Delivery
		var cursor *store.Cursor
		for page := 0; ; page++ {
			got, next, err := s.Webhooks.ListDeliveries(ctx, org, sub.ID, store.CursorPage{Limit: 75, After: cursor}, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, got...)
			if next == nil {
				break
			}
			cursor = next
			if page > 5 {
				t.Fatal("cursor does not end")
			}
		}
		if len(all) != store.DeliveryHistory+1 || all[0].ID != rows[len(rows)-1].ID {
			t.Fatalf("listed %d, first %s", len(all), all[0].ID)
		}
		for i := 1; i < len(all); i++ {
			if all[i].ID >= all[i-1].ID {
				t.Fatalf("not newest first at %d", i)
			}
		}
		if got, _, _ := s.Webhooks.ListDeliveries(ctx, org, sub.ID, store.CursorPage{Limit: 1000}, store.Filter{}); len(got) != store.DeliveryHistory {
			t.Fatalf("limit 1000 gave %d rows, want %d", len(got), store.DeliveryHistory)
		}
		failed, _, err := s.Webhooks.ListDeliveries(ctx, org, sub.ID, store.CursorPage{Limit: 10}, store.Filter{Status: []string{"failed"}})
		if err != nil || len(failed) != 1 || failed[0].ID != rows[1].ID {
			t.Fatalf("status filter: %d rows, %v", len(failed), err)
		}
		if got, _, _ := s.Webhooks.ListDeliveries(ctx, newOrg(t, s), sub.ID, store.CursorPage{Limit: 10}, store.Filter{}); len(got) != 0 {
			t.Fatal("other org lists the deliveries")
		}
	})
}
