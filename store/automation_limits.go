package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// AIDailyTokenLimit is one organisation's own daily token allowance, arranged with the
// platform's operator (svc limits): it replaces config ai.daily_tokens for that organisation.
type AIDailyTokenLimit struct {
	OrgID string `gorm:"primaryKey;size:40"`
	// Tokens is the allowance; 0 means unlimited.
	Tokens    int64 `gorm:"not null"`
	UpdatedAt time.Time
}

// DailyTokens implements automation.Limits.
func (s *Automation) DailyTokens(ctx context.Context, orgID string) (int64, bool, error) {
	var l AIDailyTokenLimit
	err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Take(&l).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return l.Tokens, true, nil
}

// TableName names the table as the migration does.
func (AIDailyTokenLimit) TableName() string { return "ai_daily_token_limits" }
