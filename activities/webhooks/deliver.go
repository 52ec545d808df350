package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/svcplatform/svc/store"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// Deliver makes the first attempts of events a hot path wrote in its own transaction
// (store.PublishEventIn) once that transaction is committed, as PublishEvent does for its own:
// inline, bounded, and a ladder workflow only for those that need one. A delivery this never
// attempts (the process died, Temporal was away) is started by SweepStranded.
func (w *Activities) Deliver(ctx context.Context, published ...*store.Published) error {
	for _, p := range published {
		if p == nil || len(p.Deliveries) == 0 {
			continue
		}
		if err := w.Store.Webhooks.PruneFull(ctx, p.Event.OrgID, p.Deliveries); err != nil {
			return err
		}
		if err := w.deliverFirst(ctx, p.Event, p.Deliveries); err != nil {
			return err
		}
	}
	return nil
}

// DeliverDetachedTimeout bounds the first attempts DeliverDetached makes.
const DeliverDetachedTimeout = 30 * time.Second

// DeliverDetached is Deliver off the caller's path, for an API answer that must not wait on a
// receiver: the attempts run in the background with their own deadline, and a failure is
// logged, never returned (the events are stored; the sweep sends what was not attempted).
func (w *Activities) DeliverDetached(published ...*store.Published) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), DeliverDetachedTimeout)
		defer cancel()
		if err := w.Deliver(ctx, published...); err != nil {
			w.logger().Error("events stored, first attempts failed (the sweep retries)", "error", err)
		}
	}()
}

// SweepStranded starts the ladder of every delivery written more than in.Grace ago and never
// attempted, in.Batch at most per run: the safety net under Deliver, whose caller may die
// between its commit and the first attempt. A ladder already started is not started twice
// (workflow id per delivery), and the grace outlasts an inline attempt, so a delivery being
// attempted inline is not also swept.
func (w *Activities) SweepStranded(ctx context.Context, in hookwf.SweepInput) (hookwf.SweepResult, error) {
	ds, err := w.Store.Webhooks.Stranded(ctx, time.Now().Add(-in.Grace), in.Batch)
	if err != nil {
		return hookwf.SweepResult{}, fmt.Errorf("stranded deliveries: %w", err)
	}
	var out hookwf.SweepResult
	for _, d := range ds {
		if err := w.StartDelivery(ctx, d.OrgID, d.ID); err != nil {
			return out, err
		}
		out.Started++
	}
	return out, nil
}
