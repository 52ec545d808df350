package webhooks

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/webhook"
)

// The first attempt is made inline, after the delivery row was written; an answered
// delivery costs no workflow.
func TestPublishFirstAttemptInline(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rowFirst := make(chan bool, 1)
		var rcv *receiver
		rcv = newReceiver(t, func(_ int, w http.ResponseWriter) {
			rcv.mu.Lock()
			did := rcv.hits[len(rcv.hits)-1].header.Get(webhook.HeaderDelivery)
			rcv.mu.Unlock()
			_, err := s.Webhooks.LoadDeliveryTarget(f.ctx, f.org, did)
			rowFirst <- err == nil
		})
		_, secret := f.subscribe(t, rcv.URL, events.DocumentFailed)
		did := f.publish(t, "inline").DeliveryIDs[0]
		if rcv.count() != 1 || !<-rowFirst {
			t.Fatalf("%d requests; the delivery row existed when it arrived: false", rcv.count())
		}
		if err := webhook.Verify([]byte(secret), rcv.hits[0].header, rcv.hits[0].body); err != nil || rcv.hits[0].header.Get(webhook.HeaderAttempt) != "1" {
			t.Fatalf("attempt %q: %v", rcv.hits[0].header.Get(webhook.HeaderAttempt), err)
		}
		if d := f.delivery(t, did); d.Status != webhook.StatusDelivered || d.Attempts != 1 || len(f.starts.runs) != 0 {
			t.Fatalf("delivery %+v, %d workflow starts", d, len(f.starts.runs))
		}
	})
}

// Only a failed first attempt starts the ladder, at its second rung, after the wait the
// attempt decided (Retry-After included).
func TestPublishFailedFirstAttemptStartsLadderAtSecondRung(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		ok := newReceiver(t, func(int, http.ResponseWriter) {})
		down := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
		busy := newReceiver(t, func(_ int, w http.ResponseWriter) {
			w.Header().Set("Retry-After", "45")
			w.WriteHeader(http.StatusTooManyRequests)
		})
		gone := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusGone) })
		subOK, _ := f.subscribe(t, ok.URL, events.DocumentFailed)
		subDown, _ := f.subscribe(t, down.URL, events.DocumentFailed)
		subBusy, _ := f.subscribe(t, busy.URL, events.DocumentFailed)
		subGone, _ := f.subscribe(t, gone.URL, events.DocumentFailed)
		dids := f.publish(t, "mixed").DeliveryIDs
		bySub := map[string]store.Delivery{}
		for _, did := range dids {
			d := f.delivery(t, did)
			bySub[d.SubscriptionID] = d
		}
		want := map[string]webhook.DeliveryStatus{subOK.ID: webhook.StatusDelivered, subDown.ID: webhook.StatusFailed,
			subBusy.ID: webhook.StatusFailed, subGone.ID: webhook.StatusDropped}
		for sub, st := range want {
			if bySub[sub].Status != st || bySub[sub].Attempts != 1 {
				t.Errorf("delivery of %s: %+v, want %s", sub, bySub[sub], st)
			}
		}
		if len(f.starts.runs) != 2 {
			t.Fatalf("%d ladders started, want 2: %+v", len(f.starts.runs), f.starts.runs)
		}
		if in := f.starts.runs[bySub[subDown.ID].ID]; in.FromAttempt != 2 || in.FirstWait != ladder[1] || len(in.Schedule) != 6 {
			t.Errorf("ladder after a 500: %+v", in)
		}
		if in := f.starts.runs[bySub[subBusy.ID].ID]; in.FromAttempt != 2 || in.FirstWait != 45*time.Second {
			t.Errorf("ladder after a 429 with Retry-After 45: %+v", in)
		}
	})
}

// A receiver slower than the inline wait does not hold up the publish: its ladder starts at
// the second rung no earlier than the first attempt's receiver timeout, and the first
// attempt still ends and records itself.
func TestPublishSlowReceiverHandedToLadder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		f.w.InlineWait = 50 * time.Millisecond
		release := make(chan struct{})
		rcv := newReceiver(t, func(int, http.ResponseWriter) { <-release })
		var once sync.Once
		let := func() { once.Do(func() { close(release) }) }
		t.Cleanup(let) // before the receiver closes, which waits for its handlers
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		start := time.Now()
		did := f.publish(t, "slow").DeliveryIDs[0]
		if took := time.Since(start); took > time.Second {
			t.Errorf("publish waited %s for a slow receiver", took)
		}
		in, ok := f.starts.runs[did]
		if !ok || in.FromAttempt != 2 || in.FirstWait < f.w.ReceiverTimeout || in.FirstWait < ladder[1] {
			t.Fatalf("ladder %+v (started %v)", in, ok)
		}
		let()
		waitUntil(t, "the first attempt to record itself", func() bool { return f.delivery(t, did).Status == webhook.StatusDelivered })
		if rcv.count() != 1 {
			t.Fatalf("%d requests", rcv.count())
		}
	})
}

// At least once: a publish retried after its process died sends again only what has no
// recorded answer. Here the first run wrote the rows and one delivery's 2xx was recorded
// before the process died; the retry sends the other one only.
func TestPublishRetriedAfterCrashSendsOnlyUnanswered(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		a := newReceiver(t, func(int, http.ResponseWriter) {})
		b := newReceiver(t, func(int, http.ResponseWriter) {})
		subA, _ := f.subscribe(t, a.URL, events.DocumentFailed)
		f.subscribe(t, b.URL, events.DocumentFailed)
		for _, did := range f.stored(t, "crash").DeliveryIDs { // the first run: rows written …
			if f.delivery(t, did).SubscriptionID == subA.ID {
				f.attempt(t, did, 1) // … and A's attempt answered and recorded, then the process died
			}
		}
		if a.count() != 1 || b.count() != 0 {
			t.Fatalf("before the retry: %d, %d requests", a.count(), b.count())
		}
		for range 2 { // Temporal retries the activity; then once more for good measure
			for _, did := range f.publish(t, "crash").DeliveryIDs {
				if d := f.delivery(t, did); d.Status != webhook.StatusDelivered || d.Attempts != 1 {
					t.Errorf("delivery %+v", d)
				}
			}
		}
		if a.count() != 1 || b.count() != 1 || len(f.starts.runs) != 0 {
			t.Fatalf("after the retries: A got %d, B got %d requests, %d ladders", a.count(), b.count(), len(f.starts.runs))
		}
	})
}

// First attempts are bounded per process: a delivery that finds no free slot within the
// inline wait is not attempted inline but given its whole ladder.
func TestPublishWithoutFreeSlotStartsWholeLadder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		f.w.InlineWait = 20 * time.Millisecond
		slots := f.w.inlineSlots()
		for range cap(slots) { // other publishes hold every slot
			slots <- struct{}{}
		}
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		dids := f.publish(t, "busy").DeliveryIDs
		if rcv.count() != 0 || len(f.starts.runs) != 2 {
			t.Fatalf("%d requests, %d ladders", rcv.count(), len(f.starts.runs))
		}
		for _, did := range dids {
			if in := f.starts.runs[did]; in.FromAttempt != 0 || in.FirstWait != 0 {
				t.Errorf("ladder %+v, want the whole ladder", in)
			}
		}
	})
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
