package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// ReplaceList makes values the whole of the organisation's value list name, in one
// transaction, so a decision reads the list before or after the change, never half of it.
func (s *Fraud) ReplaceList(ctx context.Context, orgID, name string, values []string) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("org_id = ? AND list = ?", orgID, name).Delete(&FraudValue{}).Error; err != nil {
			return err
		}
		if len(values) == 0 {
			return nil
		}
		now := time.Now().UTC()
		rows := make([]FraudValue, len(values))
		for i, v := range values {
			rows[i] = FraudValue{OrgID: orgID, List: name, Value: v, CreatedAt: now}
		}
		return tx.CreateInBatches(rows, 500).Error
	})
}

// ListOf returns the values of the organisation's value list name, sorted (none when the
// list was never set).
func (s *Fraud) ListOf(ctx context.Context, orgID, name string) ([]string, error) {
	var out []string
	err := s.DB.WithContext(ctx).Model(&FraudValue{}).Where("org_id = ? AND list = ?", orgID, name).Order("value").Pluck("value", &out).Error
	return out, err
}
