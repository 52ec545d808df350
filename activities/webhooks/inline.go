package webhooks

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/webhook"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// DefaultInlineWait is how long PublishEvent waits for the first attempts it makes inline
// before it hands those still running, or not yet begun, to their ladder workflows: long
// enough for a receiver that answers at once, short enough that a slow receiver does not
// hold up the workflow that published the event.
const DefaultInlineWait = time.Second

// InlineConcurrency bounds the first attempts one worker process makes at once, across every
// event it publishes; an attempt that finds no free slot within the inline wait is left to
// its ladder workflow.
const InlineConcurrency = 64

// handoff is a delivery whose ladder workflow PublishEvent starts: at rung from, after wait.
type handoff struct {
	deliveryID string
	from       int
	wait       time.Duration
}

// firstTry is the inline first attempt of one delivery; its fields are guarded by tries.mu.
type firstTry struct {
	delivery store.Delivery
	state    tryState
	res      hookwf.WebhookAttemptResult
	err      error
}

// tryState is where a firstTry stands when PublishEvent stops waiting.
type tryState int

const (
	tryWaiting   tryState = iota // no slot yet
	tryRunning                   // POST in flight
	tryDone                      // answered (or not) and recorded
	tryAbandoned                 // never began: its ladder makes attempt 1
)

// deliverFirst makes the first attempt of each fresh delivery of evt inline, at most
// InlineConcurrency at once per process, and starts a ladder workflow only where one is
// needed: for a first attempt that failed (from rung 2, after the wait it decided), one
// still running when the inline wait ends (from rung 2, once it can no longer be in
// flight; it still ends and records itself), and one that never began (from rung 1).
//
// Deliveries come from the store as they stand, so a retried publish sends nothing whose
// answer was recorded: delivered and dropped ones are skipped, failed ones only get their
// ladder started (at most once, by workflow id). Only store failures are returned.
func (w *Activities) deliverFirst(ctx context.Context, evt *store.Event, ds []store.Delivery) error {
	var fresh []store.Delivery
	var handoffs []handoff
	for _, d := range ds {
		switch {
		case d.Status.Final():
		case d.Attempts == 0:
			fresh = append(fresh, d)
		default: // an earlier run of this publish recorded a failed first attempt
			handoffs = append(handoffs, handoff{deliveryID: d.ID, from: d.Attempts + 1, wait: untilNext(d.NextAttemptAt)})
		}
	}
	more, err := w.tryFirst(ctx, evt, fresh)
	handoffs = append(handoffs, more...)
	return errors.Join(err, w.startLadders(ctx, evt.OrgID, handoffs))
}

// tryFirst runs the first attempts of ds and returns the ladders to start.
func (w *Activities) tryFirst(ctx context.Context, evt *store.Event, ds []store.Delivery) ([]handoff, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	if w.HTTP == nil || w.Box == nil { // cannot send (a publisher built without them): every ladder whole
		out := make([]handoff, len(ds))
		for i, d := range ds {
			out[i] = handoff{deliveryID: d.ID, from: 1}
		}
		return out, nil
	}
	subIDs := make([]string, len(ds))
	for i, d := range ds {
		subIDs[i] = d.SubscriptionID
	}
	subs, err := w.Store.Webhooks.SubscriptionsByID(ctx, evt.OrgID, subIDs)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	tries := make([]*firstTry, len(ds))
	stop := make(chan struct{})
	finished := make(chan struct{}, len(ds))
	// An attempt handed to its ladder still ends and records itself after this activity returns.
	sendCtx := context.WithoutCancel(ctx)
	slots := w.inlineSlots()
	for i, d := range ds {
		tries[i] = &firstTry{delivery: d}
		sub, ok := subs[d.SubscriptionID]
		if !ok { // deleted since: the ladder's attempt drops the delivery
			tries[i].state = tryAbandoned
			finished <- struct{}{}
			continue
		}
		go func(t *firstTry, target *store.DeliveryTarget) {
			defer func() { finished <- struct{}{} }()
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			mu.Lock()
			if t.state == tryAbandoned {
				mu.Unlock()
				<-slots
				return
			}
			t.state = tryRunning
			mu.Unlock()
			in := w.firstAttemptInput(target.Delivery)
			a, res := w.sendAttempt(sendCtx, target, in)
			<-slots // the slot bounds requests in flight; recording waits on the database, not the receiver
			err := w.recordAttempt(sendCtx, in, a, res)
			mu.Lock()
			t.state, t.res, t.err = tryDone, res, err
			mu.Unlock()
			if err != nil {
				w.logger().Error("webhook first attempt not recorded", "delivery_id", target.Delivery.ID, "error", err)
			}
		}(tries[i], &store.DeliveryTarget{Delivery: d, Event: *evt, Subscription: sub})
	}
	w.awaitFirst(finished, len(ds))
	close(stop)

	mu.Lock()
	defer mu.Unlock()
	var out []handoff
	var errs []error
	for _, t := range tries {
		switch t.state {
		case tryWaiting, tryAbandoned:
			t.state = tryAbandoned
			out = append(out, handoff{deliveryID: t.delivery.ID, from: 1})
		case tryRunning:
			// Rung 2 waits until attempt 1 can no longer be in flight, so the two never overlap.
			out = append(out, handoff{deliveryID: t.delivery.ID, from: 2, wait: max(w.Schedule[1], w.receiverTimeout())})
		case tryDone:
			if t.err != nil {
				errs = append(errs, t.err) // the retried publish sends it again (at least once)
			} else if t.res.Status == webhook.StatusFailed {
				d := hookwf.DecideWebhookAttempt(w.Schedule, 1, t.res)
				out = append(out, handoff{deliveryID: t.delivery.ID, from: 2, wait: d.NextDelay})
			}
		}
	}
	return out, errors.Join(errs...)
}

// awaitFirst waits until n first attempts finished or, when the ladder has a second rung to
// hand the rest to, until the inline wait is over.
func (w *Activities) awaitFirst(finished <-chan struct{}, n int) {
	var timeout <-chan time.Time
	if len(w.Schedule) > 1 {
		wait := w.InlineWait
		if wait <= 0 {
			wait = DefaultInlineWait
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	for i := 0; i < n; i++ {
		select {
		case <-finished:
		case <-timeout:
			return
		}
	}
}

// startLadders starts the workflows of hs, PublishStartConcurrency at a time (one start is a
// round trip to Temporal).
func (w *Activities) startLadders(ctx context.Context, orgID string, hs []handoff) error {
	errs := make([]error, len(hs))
	sem := make(chan struct{}, PublishStartConcurrency)
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = w.startLadder(ctx, orgID, h.deliveryID, h.from, h.wait)
		}()
	}
	wg.Wait()
	if len(hs) > 0 {
		w.logger().Info("webhook ladders started", "org_id", orgID, "count", len(hs))
	}
	return errors.Join(errs...)
}

// firstAttemptInput is attempt 1 of d, with the ladder the workflow would use.
func (w *Activities) firstAttemptInput(d store.Delivery) hookwf.WebhookAttemptInput {
	return hookwf.WebhookAttemptInput{DeliveryID: d.ID, OrgID: d.OrgID, Attempt: 1, Schedule: w.Schedule, ReceiverTimeout: w.receiverTimeout()}
}

func (w *Activities) receiverTimeout() time.Duration {
	if w.ReceiverTimeout > 0 {
		return w.ReceiverTimeout
	}
	return hookwf.DefaultReceiverTimeout
}

// inlineSlots is the process's bound on concurrent first attempts.
func (w *Activities) inlineSlots() chan struct{} {
	w.slotsOnce.Do(func() { w.slots = make(chan struct{}, InlineConcurrency) })
	return w.slots
}

// untilNext is the wait until a recorded next attempt time, zero when it passed or is unset.
func untilNext(at *time.Time) time.Duration {
	if at == nil {
		return 0
	}
	return max(time.Until(*at), 0)
}
