package webhooks

import (
	"net/http"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/webhook"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// writeInTx writes document.failed in a transaction of the caller's, as a hot path does with
// what the event announces (store.PublishEventIn).
func (f *fixture) writeInTx(t *testing.T, key string) *store.Published {
	t.Helper()
	at := time.Now().UTC().Truncate(time.Millisecond)
	env, err := events.NewEnvelope(events.DeriveID(at, "doc_1", key), events.DocumentFailed, f.org, at, failedData)
	if err != nil {
		t.Fatal(err)
	}
	var p *store.Published
	if err := f.s.Tx(f.ctx, func(tx *gorm.DB) error {
		p, err = store.PublishEventIn(tx, env)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// An event written in the caller's transaction is delivered once the caller calls Deliver:
// first attempt inline, no workflow.
func TestDeliverAfterTheCallersCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		p := f.writeInTx(t, "tx")
		if len(p.Deliveries) != 1 || p.Deliveries[0].Status != webhook.StatusPending {
			t.Fatalf("written deliveries = %+v", p.Deliveries)
		}
		if err := f.w.Deliver(f.ctx, p); err != nil {
			t.Fatal(err)
		}
		if d := f.delivery(t, p.Deliveries[0].ID); rcv.count() != 1 || d.Status != webhook.StatusDelivered || len(f.starts.runs) != 0 {
			t.Fatalf("%d requests, delivery %+v, %d workflow starts", rcv.count(), d, len(f.starts.runs))
		}
	})
}

// A delivery written and never attempted (its publisher died after the commit) is found by
// the sweep once older than the grace, and its whole ladder is started, once; an attempted
// delivery and a recent one are left alone.
func TestSweepStartsStrandedDeliveries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, true)
		rcv := newReceiver(t, func(int, http.ResponseWriter) {})
		f.subscribe(t, rcv.URL, events.DocumentFailed)
		stranded := f.writeInTx(t, "died").Deliveries[0].ID
		answered := f.writeInTx(t, "answered")
		if err := f.w.Deliver(f.ctx, answered); err != nil {
			t.Fatal(err)
		}
		res, err := f.w.SweepStranded(f.ctx, hookwf.SweepInput{Grace: time.Hour, Batch: 10})
		if err != nil || res.Started != 0 {
			t.Fatalf("sweep within the grace started %d: %v", res.Started, err)
		}
		res, err = f.w.SweepStranded(f.ctx, hookwf.SweepInput{Grace: -time.Minute, Batch: 10})
		if err != nil || res.Started != 1 {
			t.Fatalf("sweep started %d: %v", res.Started, err)
		}
		run, ok := f.starts.runs[stranded]
		if !ok || len(f.starts.runs) != 1 || run.FromAttempt > 1 {
			t.Fatalf("ladders started: %+v", f.starts.runs)
		}
		// A second sweep finds it again (its ladder has not attempted it yet) and starts nothing twice.
		if _, err := f.w.SweepStranded(f.ctx, hookwf.SweepInput{Grace: -time.Minute, Batch: 10}); err != nil || len(f.starts.runs) != 1 {
			t.Fatalf("second sweep: %d ladders: %v", len(f.starts.runs), err)
		}
		if rcv.count() != 1 {
			t.Fatalf("the sweep sent %d requests itself; the ladder sends", rcv.count()-1)
		}
	})
}
