package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ScreeningSettings are an organisation's screening defaults: the hit threshold its
// screenings and monitoring use when a request names none (0: config screening.threshold).
type ScreeningSettings struct {
	OrgID     string  `gorm:"primaryKey;size:40"`
	Threshold float64 `gorm:"not null"`
	UpdatedBy string  `gorm:"size:40"`
	UpdatedAt time.Time
}

// Settings loads the organisation's screening settings; zero values when never set.
func (s *Screening) Settings(ctx context.Context, orgID string) (*ScreeningSettings, error) {
	var v ScreeningSettings
	err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Take(&v).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return &ScreeningSettings{OrgID: orgID}, nil
	}
	return &v, err
}

// SaveSettings stores the organisation's screening settings.
func (s *Screening) SaveSettings(ctx context.Context, v *ScreeningSettings) error {
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(v).Error
}
