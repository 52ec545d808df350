package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/webhook"
)

// DeliveryHistory is how many deliveries per subscription are kept (SPEC 6.6, 8.3);
// older finished ones are pruned.
const DeliveryHistory = 200

// MaxResponseBody is how much of a receiver's answer an attempt keeps.
const MaxResponseBody = 1024

// maxErrorText is how much of an error message a delivery or an attempt keeps (its column size).
const maxErrorText = 1024

// finalStatuses are the delivery statuses after which no attempt follows (webhook.DeliveryStatus.Final).
var finalStatuses = []webhook.DeliveryStatus{webhook.StatusDelivered, webhook.StatusDropped}

// WebhookSubscription is a URL that receives the events it names (SPEC 2.3).
// The signing secret is stored only sealed (secrets.Box, bound to the id).
type WebhookSubscription struct {
	ID           string   `gorm:"primaryKey;size:40"`
	OrgID        string   `gorm:"size:40;not null;index"`
	URL          string   `gorm:"size:2048;not null"`
	Events       []string `gorm:"serializer:json;not null"`
	Active       bool     `gorm:"not null"`
	SecretSealed string   `gorm:"size:255;not null"`
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Event is one published event; Body is the envelope JSON exactly as it is sent.
type Event struct {
	ID         string    `gorm:"primaryKey;size:40"`
	OrgID      string    `gorm:"size:40;not null;index"`
	Name       string    `gorm:"size:100;not null"`
	OccurredAt time.Time `gorm:"not null"`
	Body       []byte    `gorm:"not null"`
	CreatedAt  time.Time
}

// Delivery is one event on its way to one subscription (SPEC 2.4).
type Delivery struct {
	ID             string                 `gorm:"primaryKey;size:40"`
	OrgID          string                 `gorm:"size:40;not null;index"`
	SubscriptionID string                 `gorm:"size:40;not null;index"`
	EventID        string                 `gorm:"size:40;not null;index"`
	EventName      string                 `gorm:"size:100;not null"`
	Status         webhook.DeliveryStatus `gorm:"size:16;not null;index:ix_deliveries_status_created,priority:1"`
	// Attempts is the number of the last attempt made, 0 before the first.
	Attempts       int `gorm:"not null"`
	LastStatusCode int
	LastLatencyMs  int64
	LastError      string `gorm:"size:1024"`
	NextAttemptAt  *time.Time
	CreatedAt      time.Time `gorm:"index:ix_deliveries_status_created,priority:2"`
	UpdatedAt      time.Time
}

// DeliveryAttempt is one POST of a delivery; (DeliveryID, Attempt) is unique, so an
// attempt recorded twice is one row.
type DeliveryAttempt struct {
	DeliveryID        string    `gorm:"primaryKey;size:40"`
	Attempt           int       `gorm:"primaryKey;autoIncrement:false"`
	OrgID             string    `gorm:"size:40;not null;index"`
	AttemptedAt       time.Time `gorm:"not null"`
	StatusCode        int
	LatencyMs         int64
	RetryAfterSeconds int
	// ResponseBody is the start of the receiver's answer, at most MaxResponseBody bytes.
	ResponseBody string `gorm:"size:1024"`
	Error        string `gorm:"size:1024"`
}

func secretContext(subscriptionID string) string { return "webhook-secret:" + subscriptionID }

// ErrInvalidWebhook is wrapped by validation errors of webhook subscriptions.
var ErrInvalidWebhook = errors.New("invalid webhook subscription")

func checkEventNames(names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("%w: events: at least one event name is required", ErrInvalidWebhook)
	}
	for _, n := range names {
		if !events.Subscribable(n) {
			return fmt.Errorf("%w: events: unknown event %q", ErrInvalidWebhook, n)
		}
	}
	return nil
}

// Create stores a subscription with a fresh secret, sealed with box, and
// returns the subscription and the secret in clear (to be shown exactly once).
// The URL is checked by the caller (netguard.Guard.CheckURL).
func (s *Webhooks) Create(ctx context.Context, box *secrets.Box, orgID, url string, eventNames []string, active bool) (*WebhookSubscription, string, error) {
	if err := checkEventNames(eventNames); err != nil {
		return nil, "", err
	}
	sub := &WebhookSubscription{ID: ids.New(ids.Webhook), OrgID: orgID, URL: url, Events: dedupe(eventNames), Active: active}
	secret, err := sealNewSecret(box, sub)
	if err != nil {
		return nil, "", err
	}
	if err := s.DB.WithContext(ctx).Create(sub).Error; err != nil {
		return nil, "", fmt.Errorf("store: create webhook: %w", err)
	}
	return sub, secret, nil
}

func sealNewSecret(box *secrets.Box, sub *WebhookSubscription) (string, error) {
	secret, err := webhook.NewSecret()
	if err != nil {
		return "", err
	}
	sealed, err := box.Seal([]byte(secret), secretContext(sub.ID))
	if err != nil {
		return "", err
	}
	sub.SecretSealed = sealed
	return secret, nil
}

func dedupe(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Get loads a subscription of the organisation.
func (s *Webhooks) Get(ctx context.Context, orgID, id string) (*WebhookSubscription, error) {
	return takeInOrg[WebhookSubscription](s.DB.WithContext(ctx), orgID, id)
}

// List returns one page of the organisation's subscriptions, newest
// first; f.Q matches the URL.
func (s *Webhooks) List(ctx context.Context, orgID string, page Offset, f Filter) ([]WebhookSubscription, int64, error) {
	return ListOffset[WebhookSubscription](ctx, s.DB, page, "created_at DESC, id DESC",
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"url"}}))
}

// WebhookPatch changes the fields that are set.
type WebhookPatch struct {
	URL    *string
	Events []string
	Active *bool
}

// Update applies patch to a subscription of the organisation.
func (s *Webhooks) Update(ctx context.Context, orgID, id string, patch WebhookPatch) (*WebhookSubscription, error) {
	if patch.Events != nil {
		if err := checkEventNames(patch.Events); err != nil {
			return nil, err
		}
	}
	var out *WebhookSubscription
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		sub, err := takeInOrg[WebhookSubscription](tx, orgID, id)
		if err != nil {
			return err
		}
		if patch.URL != nil {
			sub.URL = *patch.URL
		}
		if patch.Events != nil {
			sub.Events = dedupe(patch.Events)
		}
		if patch.Active != nil {
			sub.Active = *patch.Active
		}
		if err := tx.Select("url", "events", "active", "updated_at").Save(sub).Error; err != nil {
			return err
		}
		out = sub
		return nil
	})
	return out, err
}

// Delete deletes a subscription; deliveries still in flight are dropped
// at their next attempt, and its delivery log goes with it.
func (s *Webhooks) Delete(ctx context.Context, orgID, id string) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		res := tx.Where("org_id = ? AND id = ?", orgID, id).Delete(&WebhookSubscription{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		sub := tx.Model(&Delivery{}).Select("id").Where("org_id = ? AND subscription_id = ?", orgID, id)
		if err := tx.Where("org_id = ? AND delivery_id IN (?)", orgID, sub).Delete(&DeliveryAttempt{}).Error; err != nil {
			return err
		}
		return tx.Where("org_id = ? AND subscription_id = ?", orgID, id).Delete(&Delivery{}).Error
	})
}

// RotateSecret replaces a subscription's secret and returns the new one in clear.
// Attempts made from now on are signed with it.
func (s *Webhooks) RotateSecret(ctx context.Context, box *secrets.Box, orgID, id string) (string, error) {
	sub, err := s.Get(ctx, orgID, id)
	if err != nil {
		return "", err
	}
	secret, err := sealNewSecret(box, sub)
	if err != nil {
		return "", err
	}
	res := s.DB.WithContext(ctx).Model(&WebhookSubscription{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"secret_sealed": sub.SecretSealed, "updated_at": time.Now().UTC()})
	if res.Error != nil {
		return "", res.Error
	}
	if res.RowsAffected == 0 {
		return "", ErrNotFound
	}
	return secret, nil
}

// WebhookSecret opens a subscription's secret.
func WebhookSecret(box *secrets.Box, sub *WebhookSubscription) ([]byte, error) {
	return box.Open(sub.SecretSealed, secretContext(sub.ID))
}

// deliveryIDFor is the id of the delivery of event to subscription made by
// publishing, so publishing twice makes one delivery.
func deliveryIDFor(eventID, subscriptionID string, at time.Time) string {
	return ids.DeriveFrom(ids.Delivery, at, eventID, subscriptionID)
}

// PublishEvent writes env once and one pending delivery per active subscription
// of its organisation that wants it (events.Wants), and returns every delivery
// of the event made by publishing. Running it again with the same envelope
// writes nothing new for existing subscriptions and returns the same
// deliveries (ids derived from event and subscription), so the caller can
// (re)start their workflows. An existing event keeps its stored body.
func (s *Webhooks) PublishEvent(ctx context.Context, env events.Envelope) (*Event, []Delivery, error) {
	var p *Published
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		var err error
		p, err = PublishEventIn(tx, env)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if err := s.PruneFull(ctx, env.OrgID, p.Deliveries); err != nil {
		return nil, nil, err
	}
	return p.Event, p.Deliveries, nil
}

// Published is an event written with its deliveries, their first attempts still to make.
type Published struct {
	Event      *Event
	Deliveries []Delivery
}

// AnyDeliveries reports whether any of published has a delivery to attempt: an event no
// subscription wants has none.
func AnyDeliveries(published ...*Published) bool {
	for _, p := range published {
		if p != nil && len(p.Deliveries) > 0 {
			return true
		}
	}
	return false
}

// PublishEventIn is PublishEvent inside the caller's transaction: a hot path (a fraud
// decision, a screening) writes the events it announces with what they announce, so no
// crash between the two loses an event. The caller makes the first attempts after its
// commit (the webhooks activities' Deliver); deliveries it never attempts are started by
// the stranded-delivery sweep (Stranded).
func PublishEventIn(tx *gorm.DB, env events.Envelope) (*Published, error) {
	evt, err := eventRow(env)
	if err != nil {
		return nil, err
	}
	ds, err := writeEvent(tx, env, &evt)
	if err != nil {
		return nil, fmt.Errorf("store: publish %s: %w", env.ID, err)
	}
	return &Published{Event: &evt, Deliveries: ds}, nil
}

// eventRow is the stored row of env: its envelope JSON exactly as it is sent.
func eventRow(env events.Envelope) (Event, error) {
	body, err := json.Marshal(env)
	if err != nil {
		return Event{}, fmt.Errorf("store: publish: %w", err)
	}
	return Event{ID: env.ID, OrgID: env.OrgID, Name: env.Event, OccurredAt: env.OccurredAt, Body: body}, nil
}

// writeEvent writes evt once and a pending delivery per active subscription that wants it, and
// returns the event's deliveries made by publishing.
func writeEvent(tx *gorm.DB, env events.Envelope, evt *Event) ([]Delivery, error) {
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(evt)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		// Written before (a retry): the stored event, and its body, are the ones that count.
		if err := tx.Where("id = ?", env.ID).Take(evt).Error; err != nil {
			return nil, err
		}
		if evt.OrgID != env.OrgID || evt.Name != env.Event {
			return nil, fmt.Errorf("event id %s already used by another event", env.ID)
		}
	}
	subs, err := activeSubscriptions(tx, env.OrgID)
	if err != nil {
		return nil, err
	}
	fresh := deliveriesFor(evt, subs, nil)
	if len(fresh) == 0 {
		return nil, nil
	}
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(fresh, 100).Error; err != nil {
		return nil, err
	}
	ids := make([]string, len(fresh))
	for i, d := range fresh {
		ids[i] = d.ID
	}
	var out []Delivery
	err = tx.Where("org_id = ? AND id IN ?", env.OrgID, ids).Order("id").Find(&out).Error
	return out, err
}

// activeSubscriptions lists the organisation's active subscriptions.
func activeSubscriptions(tx *gorm.DB, orgID string) ([]WebhookSubscription, error) {
	var subs []WebhookSubscription
	err := tx.Where("org_id = ? AND active = ?", orgID, true).Order("id").Find(&subs).Error
	return subs, err
}

// deliveriesFor appends to ds a pending delivery of evt to each of subs that wants it.
func deliveriesFor(evt *Event, subs []WebhookSubscription, ds []Delivery) []Delivery {
	for _, sub := range subs {
		if events.Wants(sub.Events, evt.Name) {
			ds = append(ds, Delivery{ID: deliveryIDFor(evt.ID, sub.ID, evt.OccurredAt), OrgID: evt.OrgID,
				SubscriptionID: sub.ID, EventID: evt.ID, EventName: evt.Name, Status: webhook.StatusPending})
		}
	}
	return ds
}

// publishNewEventsIn is PublishEventIn for events whose ids are new, derived from records the
// caller's transaction creates (a batch's decisions): with no earlier copy to look for, their
// events and deliveries take one insert each, and their subscriptions one query per
// organisation. An id written before fails the transaction.
func publishNewEventsIn(tx *gorm.DB, envs []events.Envelope) ([]*Published, error) {
	evts := make([]Event, len(envs))
	for i, env := range envs {
		var err error
		if evts[i], err = eventRow(env); err != nil {
			return nil, err
		}
	}
	if err := insertRows(tx, evts); err != nil {
		return nil, fmt.Errorf("store: publish: %w", err)
	}
	subs := map[string][]WebhookSubscription{}
	var ds []Delivery
	ends := make([]int, len(evts))
	for i := range evts {
		org := evts[i].OrgID
		if _, ok := subs[org]; !ok {
			ss, err := activeSubscriptions(tx, org)
			if err != nil {
				return nil, fmt.Errorf("store: publish: %w", err)
			}
			subs[org] = ss
		}
		ds = deliveriesFor(&evts[i], subs[org], ds)
		ends[i] = len(ds)
	}
	if err := insertRows(tx, ds); err != nil {
		return nil, fmt.Errorf("store: publish: %w", err)
	}
	out := make([]*Published, len(evts))
	from := 0
	for i := range evts {
		out[i] = &Published{Event: &evts[i], Deliveries: ds[from:ends[i]:ends[i]]}
		from = ends[i]
	}
	return out, nil
}

// Stranded lists up to limit deliveries (any organisation) that were written before
// before and never attempted: their publisher died, or had no way to deliver, between
// writing them and making their first attempt. The sweep starts their ladders.
func (s *Webhooks) Stranded(ctx context.Context, before time.Time, limit int) ([]Delivery, error) {
	var out []Delivery
	err := s.DB.WithContext(ctx).Where("status = ? AND attempts = 0 AND created_at < ?", webhook.StatusPending, before.UTC()).
		Order("created_at").Limit(limit).Find(&out).Error
	return out, err
}

// PruneFull prunes the delivery history of those subscriptions of ds that hold more than
// DeliveryHistory deliveries, found with one query, so a wide fan-out does not cost a query per
// subscription.
func (s *Webhooks) PruneFull(ctx context.Context, orgID string, ds []Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	subs := make([]string, 0, len(ds))
	for _, d := range ds {
		subs = append(subs, d.SubscriptionID)
	}
	var full []string
	if err := s.DB.WithContext(ctx).Model(&Delivery{}).Where("org_id = ? AND subscription_id IN ?", orgID, subs).
		Group("subscription_id").Having("COUNT(*) > ?", DeliveryHistory).Pluck("subscription_id", &full).Error; err != nil {
		return fmt.Errorf("store: prune deliveries: %w", err)
	}
	for _, sub := range full {
		if err := s.PruneDeliveries(ctx, orgID, sub); err != nil {
			return err
		}
	}
	return nil
}

// CreateTestDelivery makes a webhook.test event (data.source = "test") and one
// delivery of it to the subscription, whatever events it names.
func (s *Webhooks) CreateTestDelivery(ctx context.Context, orgID, subscriptionID string, now time.Time) (*Delivery, error) {
	sub, err := s.Get(ctx, orgID, subscriptionID)
	if err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Millisecond)
	env, err := events.NewEnvelope(ids.NewAt(ids.Event, now), events.WebhookTest, orgID, now, map[string]any{"source": "test"})
	if err != nil {
		return nil, err
	}
	evt, err := eventRow(env)
	if err != nil {
		return nil, err
	}
	d := &Delivery{ID: ids.NewAt(ids.Delivery, now), OrgID: orgID, SubscriptionID: sub.ID, EventID: env.ID,
		EventName: env.Event, Status: webhook.StatusPending}
	err = s.Tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&evt).Error; err != nil {
			return err
		}
		return tx.Create(d).Error
	})
	if err != nil {
		return nil, fmt.Errorf("store: test delivery: %w", err)
	}
	return d, s.PruneDeliveries(ctx, orgID, sub.ID)
}

// Redeliver makes a new delivery of a delivery's event (same event id and body)
// to the same subscription, to go through the whole ladder again.
func (s *Webhooks) Redeliver(ctx context.Context, orgID, subscriptionID, deliveryID string) (*Delivery, error) {
	old, err := s.GetDelivery(ctx, orgID, subscriptionID, deliveryID)
	if err != nil {
		return nil, err
	}
	d := &Delivery{ID: ids.New(ids.Delivery), OrgID: orgID, SubscriptionID: subscriptionID, EventID: old.EventID,
		EventName: old.EventName, Status: webhook.StatusPending}
	if err := s.DB.WithContext(ctx).Create(d).Error; err != nil {
		return nil, fmt.Errorf("store: redeliver: %w", err)
	}
	return d, s.PruneDeliveries(ctx, orgID, subscriptionID)
}

// GetDelivery loads a delivery of a subscription of the organisation.
func (s *Webhooks) GetDelivery(ctx context.Context, orgID, subscriptionID, id string) (*Delivery, error) {
	var d Delivery
	err := s.DB.WithContext(ctx).Where("org_id = ? AND subscription_id = ? AND id = ?", orgID, subscriptionID, id).Take(&d).Error
	if err != nil {
		return nil, NotFound(err)
	}
	return &d, nil
}

// DeliveryAttempts lists a delivery's attempts in order.
func (s *Webhooks) DeliveryAttempts(ctx context.Context, orgID, deliveryID string) ([]DeliveryAttempt, error) {
	var as []DeliveryAttempt
	err := s.DB.WithContext(ctx).Where("org_id = ? AND delivery_id = ?", orgID, deliveryID).Order("attempt").Find(&as).Error
	return as, err
}

// ListDeliveries returns one page of a subscription's deliveries, newest first
// (by created_at, then id), at most DeliveryHistory at a time, with the common
// filters status (f.Status) and from/to (on created_at); next is nil at the end.
func (s *Webhooks) ListDeliveries(ctx context.Context, orgID, subscriptionID string, page CursorPage, f Filter) ([]Delivery, *Cursor, error) {
	page.Limit = min(page.Limit, DeliveryHistory)
	page.TimeColumn = "created_at"
	return ListCursor(ctx, s.DB, page, func(d *Delivery) Cursor { return Cursor{Time: d.CreatedAt, ID: d.ID} },
		ForOrg(orgID), Where("subscription_id = ?", subscriptionID), f.Scope(FilterColumns{Status: "status"}))
}

// PruneDeliveries deletes a subscription's finished deliveries (and their
// attempts) older than its newest DeliveryHistory. Deliveries still in flight
// are kept until they finish.
func (s *Webhooks) PruneDeliveries(ctx context.Context, orgID, subscriptionID string) error {
	db := s.DB.WithContext(ctx)
	var boundary []string
	if err := db.Model(&Delivery{}).Where("org_id = ? AND subscription_id = ?", orgID, subscriptionID).
		Order("id DESC").Offset(DeliveryHistory-1).Limit(1).Pluck("id", &boundary).Error; err != nil {
		return fmt.Errorf("store: prune deliveries: %w", err)
	}
	if len(boundary) == 0 {
		return nil
	}
	return s.Tx(ctx, func(tx *gorm.DB) error {
		var old []string
		if err := tx.Model(&Delivery{}).Where("org_id = ? AND subscription_id = ? AND id < ? AND status IN ?",
			orgID, subscriptionID, boundary[0], finalStatuses).
			Pluck("id", &old).Error; err != nil || len(old) == 0 {
			return err
		}
		if err := tx.Where("org_id = ? AND delivery_id IN ?", orgID, old).Delete(&DeliveryAttempt{}).Error; err != nil {
			return err
		}
		return tx.Where("org_id = ? AND id IN ?", orgID, old).Delete(&Delivery{}).Error
	})
}

// SubscriptionsByID loads the organisation's subscriptions among ids, by id: the publishing
// activity makes the first attempts of an event's deliveries with one query for all their
// subscriptions instead of one per delivery.
func (s *Webhooks) SubscriptionsByID(ctx context.Context, orgID string, ids []string) (map[string]WebhookSubscription, error) {
	out := make(map[string]WebhookSubscription, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var subs []WebhookSubscription
	if err := s.DB.WithContext(ctx).Where("org_id = ? AND id IN ?", orgID, ids).Find(&subs).Error; err != nil {
		return nil, fmt.Errorf("store: load subscriptions: %w", err)
	}
	for _, sub := range subs {
		out[sub.ID] = sub
	}
	return out, nil
}

// DeliveryTarget is everything one attempt needs.
type DeliveryTarget struct {
	Delivery     Delivery
	Event        Event
	Subscription WebhookSubscription
}

// LoadDeliveryTarget loads a delivery with its event and subscription.
// It returns ErrNotFound when the delivery or its subscription no longer exists.
func (s *Webhooks) LoadDeliveryTarget(ctx context.Context, orgID, deliveryID string) (*DeliveryTarget, error) {
	db := s.DB.WithContext(ctx)
	d, err := takeInOrg[Delivery](db, orgID, deliveryID)
	if err != nil {
		return nil, err
	}
	sub, err := takeInOrg[WebhookSubscription](db, orgID, d.SubscriptionID)
	if err != nil {
		return nil, err
	}
	ev, err := takeInOrg[Event](db, orgID, d.EventID)
	if err != nil {
		return nil, err
	}
	return &DeliveryTarget{Delivery: *d, Event: *ev, Subscription: *sub}, nil
}

// RecordedAttempt returns attempt number n of a delivery if it was recorded.
func (s *Webhooks) RecordedAttempt(ctx context.Context, orgID, deliveryID string, n int) (*DeliveryAttempt, error) {
	var a DeliveryAttempt
	err := s.DB.WithContext(ctx).Where("org_id = ? AND delivery_id = ? AND attempt = ?", orgID, deliveryID, n).Take(&a).Error
	if err != nil {
		return nil, NotFound(err)
	}
	return &a, nil
}

// RecordAttempt stores one attempt and the delivery's new status in one
// transaction. Recording the same (delivery, attempt) again overwrites that
// row rather than adding one, and a delivery already delivered or dropped
// keeps its status. nextAttemptAt is set only for status failed.
func (s *Webhooks) RecordAttempt(ctx context.Context, a DeliveryAttempt, status webhook.DeliveryStatus, nextAttemptAt *time.Time) error {
	a.ResponseBody = truncateText(a.ResponseBody, MaxResponseBody)
	a.Error = truncateText(a.Error, maxErrorText)
	a.AttemptedAt = a.AttemptedAt.UTC()
	if status != webhook.StatusFailed {
		nextAttemptAt = nil
	}
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "delivery_id"}, {Name: "attempt"}},
			DoUpdates: clause.AssignmentColumns([]string{"attempted_at", "status_code", "latency_ms", "retry_after_seconds", "response_body", "error"}),
		}).Create(&a).Error; err != nil {
			return err
		}
		return tx.Model(&Delivery{}).
			Where("org_id = ? AND id = ? AND status IN ?", a.OrgID, a.DeliveryID, webhook.Deliveries.Sources(status)).
			Updates(map[string]any{
				"status": status, "attempts": a.Attempt, "last_status_code": a.StatusCode, "last_latency_ms": a.LatencyMs,
				"last_error": a.Error, "next_attempt_at": nextAttemptAt, "updated_at": time.Now().UTC(),
			}).Error
	})
	if err != nil {
		return fmt.Errorf("store: record attempt %d of %s: %w", a.Attempt, a.DeliveryID, err)
	}
	return nil
}

// DropDelivery marks a delivery dropped (unless already delivered or dropped),
// noting why in its last error.
func (s *Webhooks) DropDelivery(ctx context.Context, orgID, deliveryID, reason string) error {
	err := s.DB.WithContext(ctx).Model(&Delivery{}).
		Where("org_id = ? AND id = ? AND status IN ?", orgID, deliveryID, webhook.Deliveries.Sources(webhook.StatusDropped)).
		Updates(map[string]any{"status": webhook.StatusDropped, "last_error": truncateText(reason, maxErrorText),
			"next_attempt_at": nil, "updated_at": time.Now().UTC()}).Error
	if err != nil {
		return fmt.Errorf("store: drop delivery %s: %w", deliveryID, err)
	}
	return nil
}

// truncateText cuts s to at most n bytes of valid UTF-8 without NUL bytes (PostgreSQL text rejects both).
func truncateText(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	return strings.ReplaceAll(s, "\x00", "")
}
