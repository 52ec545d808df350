package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/ids"
)

// Audit log actions of the limits an operator arranges for an organisation (svc limits); the
// resource is the bucket, or AIDailyTokensResource.
const (
	AuditLimitSet         = "platform: set limit"
	AuditLimitReset       = "platform: reset limit"
	AIDailyTokensResource = "ai.daily_tokens"
)

// LimitChange is one arrangement: a bucket's rate limit or the daily AI token allowance, set to
// the organisation's own value or reset to the platform's default.
type LimitChange struct {
	// Bucket names a rate-limit bucket; empty means the daily AI token allowance.
	Bucket string
	// Reset returns to the default; otherwise the limit is MaxRequests per WindowSeconds (a
	// bucket) or Tokens (the allowance; 0 means unlimited).
	Reset         bool
	MaxRequests   int
	WindowSeconds int
	Tokens        int64
}

// ArrangeLimits applies changes for the organisation in one transaction, each with its audit
// log entry (the organisation sees who changed its limits, and when).
func (s *Store) ArrangeLimits(ctx context.Context, orgID, environment string, changes []LimitChange) error {
	now := time.Now().UTC()
	return s.Tx(ctx, func(tx *gorm.DB) error {
		for _, c := range changes {
			action, resource := AuditLimitSet, c.Bucket
			if resource == "" {
				resource = AIDailyTokensResource
			}
			var err error
			switch {
			case c.Reset && c.Bucket != "":
				action = AuditLimitReset
				err = deleteOverride(tx, orgID, c.Bucket)
			case c.Reset:
				action = AuditLimitReset
				err = tx.Where("org_id = ?", orgID).Delete(&AIDailyTokenLimit{}).Error
			case c.Bucket != "":
				if c.MaxRequests <= 0 || c.WindowSeconds <= 0 {
					return errors.New("store: a rate limit needs a positive number of requests and window")
				}
				err = setOverride(tx, RateLimitOverride{OrgID: orgID, Bucket: c.Bucket, MaxRequests: c.MaxRequests, WindowSeconds: c.WindowSeconds})
			default:
				if c.Tokens < 0 {
					return errors.New("store: a daily token allowance cannot be negative")
				}
				err = tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&AIDailyTokenLimit{OrgID: orgID, Tokens: c.Tokens, UpdatedAt: now}).Error
			}
			if err != nil {
				return err
			}
			if err := tx.Create(&AuditLog{ID: ids.NewAt(ids.Audit, now), OrgID: orgID, Environment: environment,
				Action: action, ResourceID: resource, Status: 200, CreatedAt: now}).Error; err != nil {
				return err
			}
		}
		return nil
	})
}
