package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// velocityPruneChunks bounds the chunks of entities one PruneVelocity call walks, so that a call
// that finds little to delete still ends soon; the walk goes on at the next call.
const velocityPruneChunks = 100

// PruneVelocity deletes velocity rows older than before: counter buckets that ended by then and
// distinct values last seen before it. Every window ends with its decision and is at most
// fraud.MaxWindow long, so a decision at before+MaxWindow or later reads nothing pruned; an
// event evaluated later than that (its occurredAt long past) counts only what is kept, which
// retention.fraud_velocity bounds from below.
//
// Old rows are found by entity: the tables are keyed by entity first, and an index on time
// alone would cost every decision a write. So the prune walks the entities in id order, limit
// at a time, from where the last call stopped (FraudVelocityPrune), deleting at most limit rows
// of each table per statement. It returns the rows deleted: fewer than limit when the walk
// reached the last entity (the next call starts over) or walked velocityPruneChunks chunks.
func (s *Fraud) PruneVelocity(ctx context.Context, before time.Time, limit int) (int64, error) {
	var deleted int64
	for range velocityPruneChunks {
		var n int64
		var more, wrapped bool
		// A chunk is one write transaction on the hot path's writer (WriteTx): on SQLite it queues
		// for the writer with the decisions' batches instead of meeting them at SQLite's lock.
		err := s.WriteTx(ctx, func(tx *gorm.DB) error {
			var err error
			n, more, wrapped, err = pruneVelocityChunk(tx, before.Unix(), limit)
			return err
		})
		if err != nil {
			return deleted, fmt.Errorf("velocity prune: %w", err)
		}
		deleted += n
		if more {
			return deleted, nil // this chunk may hold more: the next call goes on with it
		}
		if wrapped || deleted >= int64(limit) {
			return deleted, nil
		}
	}
	return deleted, nil
}

// pruneVelocityChunk deletes, in tx, up to limit old rows of each velocity table among the
// limit entities after the cursor, and moves the cursor past them unless more may be left
// there (more). wrapped: the chunk was the last one, and the cursor went back to the start.
func pruneVelocityChunk(tx *gorm.DB, cutoff int64, limit int) (deleted int64, more, wrapped bool, err error) {
	cur := FraudVelocityPrune{ID: 1}
	if err := tx.Take(&cur, 1).Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, false, false, err
	}
	var ids []int64
	if err := tx.Model(&FraudVelocityEntity{}).Where("id > ?", cur.AfterEntityID).Order("id").Limit(limit).Pluck("id", &ids).Error; err != nil {
		return 0, false, false, err
	}
	from, to := cur.AfterEntityID, cur.AfterEntityID
	if len(ids) > 0 {
		to = ids[len(ids)-1]
	}
	counters := tx.Exec(`DELETE FROM fraud_velocity_counters WHERE (entity_id, bucket_size, bucket_start, currency) IN
		(SELECT entity_id, bucket_size, bucket_start, currency FROM fraud_velocity_counters
		WHERE entity_id > ? AND entity_id <= ? AND bucket_start + bucket_size <= ? LIMIT ?)`, from, to, cutoff, limit)
	if counters.Error != nil {
		return 0, false, false, counters.Error
	}
	seen := tx.Exec(`DELETE FROM fraud_velocity_seen WHERE (entity_id, attribute, value) IN
		(SELECT entity_id, attribute, value FROM fraud_velocity_seen
		WHERE entity_id > ? AND entity_id <= ? AND last_seen < ? LIMIT ?)`, from, to, cutoff, limit)
	if seen.Error != nil {
		return 0, false, false, seen.Error
	}
	deleted = counters.RowsAffected + seen.RowsAffected
	if counters.RowsAffected == int64(limit) || seen.RowsAffected == int64(limit) {
		return deleted, true, false, nil
	}
	cur.AfterEntityID, wrapped = to, len(ids) < limit
	if wrapped {
		cur.AfterEntityID = 0
	}
	return deleted, false, wrapped, tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&cur).Error
}
