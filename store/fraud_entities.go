package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/fraud"
)

// velocityEntity is one entity whose velocity is counted (FraudVelocityEntity).
type velocityEntity struct {
	OrgID     string
	Dimension fraud.Dimension
	Entity    string
}

// entitiesOf lists o's entities.
func entitiesOf(orgID string, o fraud.Observation) []velocityEntity {
	out := make([]velocityEntity, 0, len(o.Entities))
	for d, e := range o.Entities {
		out = append(out, velocityEntity{orgID, d, e})
	}
	return out
}

// lockKey is e's advisory lock key (lockVelocity): its names, not its id, which a new entity
// gets only once it is locked.
func (e velocityEntity) lockKey() int64 {
	return advisoryKey("svc-velocity:" + e.OrgID + "\x00" + string(e.Dimension) + "\x00" + e.Entity)
}

// entityIDs maps entities to the ids their velocity rows are keyed by.
type entityIDs map[velocityEntity]int64

// lockEntities is how every transaction that writes velocity starts: it locks entities
// (lockVelocity) and returns their ids: those the process knows from its cache, the others from
// the database, where the new ones get theirs in tx. The caller remembers them
// (fraudCache.rememberEntities) once tx has committed: an id given in a transaction that rolls
// back is not an entity's.
func (c *fraudCache) lockEntities(tx *gorm.DB, entities []velocityEntity) (entityIDs, error) {
	if err := lockVelocity(tx, entities); err != nil {
		return nil, err
	}
	ids := make(entityIDs, len(entities))
	var missing []velocityEntity
	for _, e := range entities {
		if _, done := ids[e]; done {
			continue
		}
		if id, ok := c.entities.Get(e); ok {
			ids[e] = id
			continue
		}
		ids[e] = 0
		missing = append(missing, e)
	}
	if len(missing) == 0 {
		return ids, nil
	}
	// One statement for the batch's new entities and those this process has not met yet. The
	// update that changes nothing makes the statement return the id of an entity that exists.
	// No other transaction inserts these entities meanwhile: this one holds their locks.
	args := make([]any, 0, 3*len(missing))
	for _, e := range missing {
		args = append(args, e.OrgID, string(e.Dimension), e.Entity)
	}
	q := numbered(`INSERT INTO fraud_velocity_entities (org_id, dimension, entity) VALUES ` + tuples(len(missing), "(?, ?, ?)") +
		` ON CONFLICT (org_id, dimension, entity) DO UPDATE SET entity = excluded.entity RETURNING id, org_id, dimension, entity`)
	rows, err := tx.Statement.ConnPool.QueryContext(tx.Statement.Context, q, args...)
	if err != nil {
		return nil, fmt.Errorf("velocity entities: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var e velocityEntity
		var dim string
		if err := rows.Scan(&id, &e.OrgID, &dim, &e.Entity); err != nil {
			return nil, fmt.Errorf("velocity entities: %w", err)
		}
		e.Dimension = fraud.Dimension(dim)
		ids[e] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("velocity entities: %w", err)
	}
	for _, e := range missing {
		if ids[e] == 0 {
			return nil, fmt.Errorf("velocity entities: no id returned for %s %q", e.Dimension, e.Entity)
		}
	}
	return ids, nil
}

// rememberEntities keeps the ids of entities a committed transaction resolved.
func (c *fraudCache) rememberEntities(ids entityIDs) {
	for e, id := range ids {
		c.entities.Add(e, id)
	}
}

// keyedObservation is an observation with the ids of its entities, by dimension: what its
// velocity rows are keyed by.
type keyedObservation struct {
	fraud.Observation
	ids map[fraud.Dimension]int64
}

// keyed returns o with the ids of its entities, which lockEntities resolved.
func (ids entityIDs) keyed(orgID string, o fraud.Observation) keyedObservation {
	k := keyedObservation{Observation: o, ids: make(map[fraud.Dimension]int64, len(o.Entities))}
	for d, e := range o.Entities {
		k.ids[d] = ids[velocityEntity{orgID, d, e}]
	}
	return k
}
