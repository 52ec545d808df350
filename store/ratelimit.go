package store

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// RateLimitCounter counts the requests of one rate-limit key in one fixed window. Every API process
// increments the same row, so they share the limit.
type RateLimitCounter struct {
	// BucketKey is "<bucket>:<key id, user id or client IP>".
	BucketKey string `gorm:"primaryKey;size:200"`
	// WindowStart is the window's start, Unix seconds.
	WindowStart int64 `gorm:"primaryKey;autoIncrement:false"`
	Hits        int64 `gorm:"not null"`
	// ExpiresAt (Unix seconds) is when the row may be purged.
	ExpiresAt int64 `gorm:"not null;index"`
}

// RateLimitOverride raises (or lowers) one bucket's limit for one organisation, by arrangement
// (SPEC 8.1).
type RateLimitOverride struct {
	OrgID         string `gorm:"primaryKey;size:40"`
	Bucket        string `gorm:"primaryKey;size:40"`
	MaxRequests   int    `gorm:"not null"`
	WindowSeconds int    `gorm:"not null"`
	UpdatedAt     time.Time
}

// Hit counts one request for key in the window starting at windowStart (Unix seconds) and
// returns the window's count including it: one atomic upsert, on SQLite and PostgreSQL alike.
func (s *RateLimits) Hit(ctx context.Context, key string, windowStart, expiresAt int64) (int64, error) {
	return s.Add(ctx, key, windowStart, expiresAt, 1)
}

// Add counts n requests for key in the window starting at windowStart, like Hit.
func (s *RateLimits) Add(ctx context.Context, key string, windowStart, expiresAt, n int64) (int64, error) {
	var hits int64
	err := s.DB.WithContext(ctx).Raw(
		`INSERT INTO rate_limit_counters (bucket_key, window_start, hits, expires_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (bucket_key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + ?
		 RETURNING hits`, key, windowStart, n, expiresAt, n).Scan(&hits).Error
	return hits, err
}

// PurgeCounters deletes counters whose windows ended before now.
func (s *RateLimits) PurgeCounters(ctx context.Context, now time.Time) error {
	return s.DB.WithContext(ctx).Where("expires_at < ?", now.Unix()).Delete(&RateLimitCounter{}).Error
}

// Overrides lists the organisation's overrides.
func (s *RateLimits) Overrides(ctx context.Context, orgID string) ([]RateLimitOverride, error) {
	var out []RateLimitOverride
	err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Order("bucket").Find(&out).Error
	return out, err
}

// SetOverride creates or replaces the organisation's limit for a bucket.
func (s *RateLimits) SetOverride(ctx context.Context, o RateLimitOverride) error {
	return setOverride(s.DB.WithContext(ctx), o)
}

// DeleteOverride returns the organisation's bucket to the default limit.
func (s *RateLimits) DeleteOverride(ctx context.Context, orgID, bucket string) error {
	return deleteOverride(s.DB.WithContext(ctx), orgID, bucket)
}

func setOverride(tx *gorm.DB, o RateLimitOverride) error {
	o.UpdatedAt = time.Now().UTC()
	return tx.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "org_id"}, {Name: "bucket"}},
		DoUpdates: clause.AssignmentColumns([]string{"max_requests", "window_seconds", "updated_at"}),
	}).Create(&o).Error
}

func deleteOverride(tx *gorm.DB, orgID, bucket string) error {
	return tx.Where("org_id = ? AND bucket = ?", orgID, bucket).Delete(&RateLimitOverride{}).Error
}
