package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Retention: what the platform keeps only for a while is pruned by a Temporal Schedule
// (workflows/maintenance), in batches of at most limit rows, each batch its own short
// statement, so that no prune holds a lock on a whole table. Each method returns how many rows
// it deleted; fewer than limit means nothing older is left.

// PruneDeliveriesBefore deletes up to limit deliveries that reached a final status before before,
// with their attempts. Deliveries still pending are kept whatever their age.
func (s *Webhooks) PruneDeliveriesBefore(ctx context.Context, before time.Time, limit int) (int64, error) {
	var n int64
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ids []string
		if err := tx.Model(&Delivery{}).Where("status IN ? AND updated_at < ?", finalStatuses, before.UTC()).
			Order("updated_at").Limit(limit).Pluck("id", &ids).Error; err != nil || len(ids) == 0 {
			return err
		}
		if err := tx.Where("delivery_id IN ?", ids).Delete(&DeliveryAttempt{}).Error; err != nil {
			return err
		}
		res := tx.Where("id IN ?", ids).Delete(&Delivery{})
		n = res.RowsAffected
		return res.Error
	})
	return n, err
}

// PruneEvents deletes up to limit events created before before that no delivery refers to any
// more (PruneDeliveriesBefore runs first): an event whose delivery is still pending is kept.
func (s *Webhooks) PruneEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	res := s.DB.WithContext(ctx).Exec(`DELETE FROM events WHERE id IN (
		SELECT e.id FROM events e WHERE e.created_at < ?
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
		ORDER BY e.created_at LIMIT ?)`, before.UTC(), limit)
	return res.RowsAffected, res.Error
}

// PruneExpired deletes up to limit idempotency records whose window ended before now.
func (s *Idempotency) PruneExpired(ctx context.Context, now time.Time, limit int) (int64, error) {
	res := s.DB.WithContext(ctx).Exec(`DELETE FROM idempotency_records WHERE id IN (
		SELECT id FROM idempotency_records WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`, now.UTC(), limit)
	return res.RowsAffected, res.Error
}

// PruneExpiredCounters deletes up to limit rate-limit counters whose windows ended before now.
func (s *RateLimits) PruneExpiredCounters(ctx context.Context, now time.Time, limit int) (int64, error) {
	res := s.DB.WithContext(ctx).Exec(`DELETE FROM rate_limit_counters WHERE (bucket_key, window_start) IN (
		SELECT bucket_key, window_start FROM rate_limit_counters WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`, now.Unix(), limit)
	return res.RowsAffected, res.Error
}
