// Package screening holds the screening product's side effects: screening a party against
// the lists in service and recording the result with its alerts and events (shared by the API
// and the monitoring workflows), refreshing a list from its source, and rescreening monitored
// customers in batches.
package screening

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/internal/events"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
)

// Screener screens parties against list versions and records the result: the one path of
// the API's screenings and of monitoring's rescreens.
type Screener struct {
	Store   *store.Store
	Indexes *scr.IndexCache
	// Hooks publishes the product's events; nil logs them as not published (no secrets.key).
	Hooks  *hookacts.Activities
	Logger *slog.Logger
	// Threshold is the default hit threshold (config screening.threshold); 0 is the engine's.
	Threshold float64
	// Detached makes the events' first attempts off the caller's path (the API's Screener):
	// a screening answers without waiting on a receiver.
	Detached bool
}

// NewScreener builds a Screener with its own index cache.
func NewScreener(st *store.Store, hooks *hookacts.Activities, log *slog.Logger) *Screener {
	if log == nil {
		log = slog.Default()
	}
	return &Screener{Store: st, Indexes: scr.NewIndexCache(), Hooks: hooks, Logger: log}
}

// Index returns the index of a list's version in service, built once per version.
func (s *Screener) Index(ctx context.Context, l store.ScreeningList) (*scr.Index, error) {
	return s.Indexes.Get(l.ID+"@"+strconv.Itoa(l.Version), func() (*scr.Index, error) {
		v, err := s.Store.Screening.ListVersion(ctx, l.OrgID, l.ID, l.Version)
		if err != nil {
			return nil, err
		}
		return scr.NewIndex(l.ID, v.Entities), nil
	})
}

// Search screens q against the lists and merges their hits, best first.
func (s *Screener) Search(ctx context.Context, q scr.Query, lists []store.ScreeningList) ([]scr.Hit, error) {
	var hits []scr.Hit
	for _, l := range lists {
		ix, err := s.Index(ctx, l)
		if err != nil {
			return nil, err
		}
		hits = append(hits, ix.Search(q)...)
	}
	scr.SortHits(hits)
	return hits, nil
}

// Record completes r with hits (suppressing the customer's remembered false positives),
// stores it with its alerts and, in the same transaction, screening.completed and one
// screening.alert_raised per new alert, then makes the events' first attempts (Deliver).
// Recording the same r.ID twice stores it once.
func (s *Screener) Record(ctx context.Context, r *store.ScreeningRecord, hits []scr.Hit) error {
	sup, err := s.Store.Screening.Suppressions(ctx, r.OrgID, r.CustomerID)
	if err != nil {
		return err
	}
	r.Hits, r.HitCount = store.NewScreeningHits(hits, r.CustomerID, sup)
	r.Status = scr.StatusClear
	if r.HitCount > 0 {
		r.Status = scr.StatusPotentialMatch
	}
	_, published, err := s.Store.Screening.RecordScreening(ctx, r, func(h store.ScreeningHit) string {
		return fmt.Sprintf("screening hit: %s matches %s (%s), %.2f", r.FullName, h.Name, h.ListID, h.Score)
	}, func(raised []*store.Alert) ([]events.Envelope, error) { return screeningEvents(r, raised) })
	if err != nil {
		return err
	}
	s.Deliver(ctx, published)
	return nil
}

// screeningEvents are the events of a recorded screening: screening.completed, and
// screening.alert_raised per alert it raised; their ids derive from the screening and the
// alerts, so recording it again writes none twice.
func screeningEvents(r *store.ScreeningRecord, raised []*store.Alert) ([]events.Envelope, error) {
	at := r.CreatedAt.UTC().Truncate(time.Millisecond)
	completed, err := events.NewEnvelope(events.DeriveID(at, r.ID, events.ScreeningCompleted), events.ScreeningCompleted, r.OrgID, at,
		map[string]any{"screeningId": r.ID, "customerId": events.OrNull(r.CustomerID), "status": r.Status, "hitCount": r.HitCount})
	if err != nil {
		return nil, err
	}
	out := []events.Envelope{completed}
	for _, a := range raised {
		env, err := events.NewEnvelope(events.DeriveID(at, a.ID, events.ScreeningAlertRaised), events.ScreeningAlertRaised, r.OrgID, at,
			map[string]any{"alertId": a.ID, "customerId": events.OrNull(r.CustomerID), "screeningId": r.ID, "entityId": a.Details["entityId"], "score": a.Score})
		if err != nil {
			return nil, err
		}
		out = append(out, env)
	}
	return out, nil
}

// Deliver makes the first attempts of committed events: off the request path when the
// Screener serves the API (Detached), in the activity otherwise. A failure is logged: the
// events are stored, and the stranded-delivery sweep starts what was not attempted.
func (s *Screener) Deliver(ctx context.Context, published []*store.Published) {
	switch {
	case !store.AnyDeliveries(published...):
	case s.Hooks == nil:
		s.Logger.Warn("screening events stored, their first attempts left to the worker's sweep: no secrets.key")
	case s.Detached:
		s.Hooks.DeliverDetached(published...)
	default:
		if err := s.Hooks.Deliver(ctx, published...); err != nil {
			s.Logger.Error("screening events stored, first attempts failed (the sweep retries)", "error", err)
		}
	}
}

// DefaultThreshold is an organisation's hit threshold when a request names none: its own
// setting, else config screening.threshold, else the engine's.
func (s *Screener) DefaultThreshold(ctx context.Context, orgID string) (float64, error) {
	set, err := s.Store.Screening.Settings(ctx, orgID)
	if err != nil {
		return 0, err
	}
	switch {
	case set.Threshold > 0:
		return set.Threshold, nil
	case s.Threshold > 0:
		return s.Threshold, nil
	}
	return scr.DefaultThreshold, nil
}
