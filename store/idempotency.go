package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Idempotency record states.
const (
	IdempotencyPending = "pending" // the first request is still being handled
	IdempotencyDone    = "done"    // the response is stored and replayed
)

// IdempotencyRecord remembers a POST that carried an externalId (SPEC 4.7), unique per
// (organisation, environment, endpoint, externalId).
type IdempotencyRecord struct {
	ID          string `gorm:"primaryKey;size:40"`
	OrgID       string `gorm:"size:40;not null;uniqueIndex:ux_idempotency_scope,priority:1"`
	Environment string `gorm:"size:16;not null;uniqueIndex:ux_idempotency_scope,priority:2"`
	Endpoint    string `gorm:"size:200;not null;uniqueIndex:ux_idempotency_scope,priority:3"`
	ExternalID  string `gorm:"size:200;not null;uniqueIndex:ux_idempotency_scope,priority:4"`
	// RequestHash is the SHA-256 of the canonical request body: a different body is refused.
	RequestHash string `gorm:"size:64;not null"`
	State       string `gorm:"size:16;not null"`
	Status      int
	Body        []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time `gorm:"index"`
}

// Claim stores rec (state pending) unless a record with the same scope exists, and then
// returns that record instead. A nil record and nil error mean rec was stored: the caller owns it.
func (s *Idempotency) Claim(ctx context.Context, rec *IdempotencyRecord) (*IdempotencyRecord, error) {
	rec.State = IdempotencyPending
	rec.CreatedAt, rec.ExpiresAt = rec.CreatedAt.UTC(), rec.ExpiresAt.UTC()
	for attempt := 0; attempt < 5; attempt++ {
		res := s.DB.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(rec)
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected == 1 {
			return nil, nil
		}
		var existing IdempotencyRecord
		err := s.DB.WithContext(ctx).Where("org_id = ? AND environment = ? AND endpoint = ? AND external_id = ?",
			rec.OrgID, rec.Environment, rec.Endpoint, rec.ExternalID).Take(&existing).Error
		if err == nil {
			return &existing, nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, err
		}
		// Deleted between our insert and our read (expired or released): try again.
	}
	return nil, errors.New("store: idempotency record kept changing")
}

// Get reloads a record by id.
func (s *Idempotency) Get(ctx context.Context, id string) (*IdempotencyRecord, error) {
	var r IdempotencyRecord
	if err := s.DB.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, NotFound(err)
	}
	return &r, nil
}

// Complete stores the response of the request that owns record id.
func (s *Idempotency) Complete(ctx context.Context, id string, status int, body []byte) error {
	return s.DB.WithContext(ctx).Model(&IdempotencyRecord{}).Where("id = ?", id).
		Updates(map[string]any{"state": IdempotencyDone, "status": status, "body": body}).Error
}

// Relet takes over a pending record whose request's lease ran out (the process handling it
// died): one conditional write, so that of two retries exactly one wins (true). The record
// keeps its id, so that the retry creates what the first try may have begun under the same
// ids (api.NewID) instead of a second resource.
func (s *Idempotency) Relet(ctx context.Context, rec *IdempotencyRecord, now time.Time) (bool, error) {
	res := s.DB.WithContext(ctx).Model(&IdempotencyRecord{}).
		Where("id = ? AND state = ? AND created_at = ?", rec.ID, IdempotencyPending, rec.CreatedAt.UTC()).
		Update("created_at", now.UTC())
	if res.Error != nil || res.RowsAffected == 0 {
		return false, res.Error
	}
	rec.CreatedAt = now.UTC()
	return true, nil
}

// Release deletes record id: its request failed and is not remembered, or it expired.
func (s *Idempotency) Release(ctx context.Context, id string) error {
	return s.DB.WithContext(ctx).Where("id = ?", id).Delete(&IdempotencyRecord{}).Error
}

// Purge deletes records whose window ended before now.
func (s *Idempotency) Purge(ctx context.Context, now time.Time) error {
	return s.DB.WithContext(ctx).Where("expires_at < ?", now.UTC()).Delete(&IdempotencyRecord{}).Error
}
