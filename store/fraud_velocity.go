package store

import (
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/fraud"
)

// Velocity upserts: one row each. A counter adds the event and its amount; a distinct value seen
// again no later than its last sighting leaves its row untouched (no write of the row or of its
// window index).
const (
	counterColumns = "INSERT INTO fraud_velocity_counters (org_id, dimension, entity, bucket_size, bucket_start, currency, events, amount_minor) VALUES "
	counterTuple   = "(?, ?, ?, ?, ?, ?, 1, ?)"
	counterUpsert  = ` ON CONFLICT (org_id, dimension, entity, bucket_size, bucket_start, currency) DO UPDATE SET
			events = fraud_velocity_counters.events + 1, amount_minor = fraud_velocity_counters.amount_minor + excluded.amount_minor`
	seenColumns = "INSERT INTO fraud_velocity_seen (org_id, dimension, entity, attribute, value, last_seen) VALUES "
	seenTuple   = "(?, ?, ?, ?, ?, ?)"
	seenUpsert  = ` ON CONFLICT (org_id, dimension, entity, attribute, value) DO UPDATE SET last_seen = excluded.last_seen
			WHERE excluded.last_seen > fraud_velocity_seen.last_seen`
)

// writeVelocity adds an observation to the velocity counters and the last-seen values, each
// table's rows in a fixed order (dimension, then bucket or attribute) so concurrent transactions
// lock them in the same order. (On PostgreSQL one statement writes both tables, in whichever
// order it runs them: the same for every decision, as the statement's shape is.)
func writeVelocity(tx *gorm.DB, orgID string, o fraud.Observation, counters bool) error {
	var keys []fraud.CounterKey
	if counters {
		keys = o.Counters()
	}
	seen := o.Seen()
	args := make([]any, 0, 7*len(keys)+6*len(seen))
	for _, k := range keys {
		args = append(args, orgID, string(k.Dimension), k.Entity, k.Bucket.Size, k.Bucket.Start, k.Currency, o.AmountMinor)
	}
	for _, k := range seen {
		args = append(args, orgID, string(k.Dimension), k.Entity, k.Attribute, k.Value, o.At.Unix())
	}
	if tx.Name() == "sqlite" {
		return writeVelocityRows(tx, len(keys), len(seen), args)
	}
	var stmts []string
	if len(keys) > 0 {
		stmts = append(stmts, counterColumns+tuples(len(keys), counterTuple)+counterUpsert)
	}
	if len(seen) > 0 {
		stmts = append(stmts, seenColumns+tuples(len(seen), seenTuple)+seenUpsert)
	}
	switch len(stmts) {
	case 0:
		return nil
	case 2:
		// One round trip: while it holds the rows of hot counters, every round trip of this
		// transaction is time other decisions of the same entity wait.
		return execVelocity(tx, "WITH counters AS ("+stmts[0]+") "+stmts[1], args)
	default:
		return execVelocity(tx, stmts[0], args)
	}
}

// writeVelocityRows writes each row in a statement of its own, on SQLite, for the reason
// insertRows gives.
func writeVelocityRows(tx *gorm.DB, counters, seen int, args []any) error {
	for i := range counters {
		if err := execRow(tx, counterColumns+counterTuple+counterUpsert, args[7*i:7*i+7]); err != nil {
			return fmt.Errorf("velocity: %w", err)
		}
	}
	args = args[7*counters:]
	for i := range seen {
		if err := execRow(tx, seenColumns+seenTuple+seenUpsert, args[6*i:6*i+6]); err != nil {
			return fmt.Errorf("velocity: %w", err)
		}
	}
	return nil
}

func execVelocity(tx *gorm.DB, q string, args []any) error {
	if err := tx.Exec(q, args...).Error; err != nil {
		return fmt.Errorf("velocity: %w", err)
	}
	return nil
}

// execRow runs one statement on tx's connection directly: gorm's statement building costs more
// than the one-row statement it would run.
func execRow(tx *gorm.DB, q string, args []any) error {
	_, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, q, args...)
	return err
}

// tuples returns n copies of tuple separated by commas: a multi-row VALUES list.
func tuples(n int, tuple string) string {
	return strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ")
}

// readVelocity computes the features for the entities of o as of o.At in one query: a UNION ALL
// of one aggregate per feature over the exact buckets of its window (fraud.WindowSpans).
// Features of a dimension o lacks are 0. Each window is asked as fraud.MaxWindowSpans spans,
// the missing ones empty (bucket size 0), so the query's text depends only on the features and
// its prepared statement serves every decision of a version (parsing it was half the read).
func readVelocity(tx *gorm.DB, orgID string, o fraud.Observation, features []fraud.Feature) (fraud.Features, error) {
	out := fraud.Features{}
	q, args, asked := velocityQuery(orgID, o, features)
	for _, f := range features {
		out.Set(f, 0)
	}
	if q == "" {
		return out, nil
	}
	// Rows, not Scan: three integers per feature do not need gorm's reflection.
	rows, err := tx.Raw(q, args...).Rows()
	if err != nil {
		return nil, fmt.Errorf("velocity read: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var events, amount int64
		if err := rows.Scan(&i, &events, &amount); err != nil {
			return nil, fmt.Errorf("velocity read: %w", err)
		}
		f := asked[i]
		switch f.Metric {
		case fraud.MetricSum:
			out.Set(f, fraud.MinorToMajor(amount, o.Currency))
		default:
			out.Set(f, float64(events))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("velocity read: %w", err)
	}
	return out, nil
}

// velocityQuery is readVelocity's query: a UNION ALL of one aggregate per feature of a dimension
// o has ("" when there is none), its arguments, and the features in the order of their i.
func velocityQuery(orgID string, o fraud.Observation, features []fraud.Feature) (string, []any, []fraud.Feature) {
	var parts []string
	var args []any
	var asked []fraud.Feature
	for _, f := range features {
		entity, ok := o.Entities[f.Dimension]
		if !ok {
			continue
		}
		i := len(asked)
		asked = append(asked, f)
		if f.Metric == fraud.MetricDistinct {
			parts = append(parts, fmt.Sprintf(`SELECT %d AS i, COUNT(*) AS events, 0 AS amount FROM fraud_velocity_seen
				WHERE org_id = ? AND dimension = ? AND entity = ? AND attribute = ? AND last_seen >= ?`, i))
			args = append(args, orgID, string(f.Dimension), entity, f.Of, fraud.WindowStart(o.At, f.Window.Length))
			continue
		}
		spans := fraud.WindowSpans(o.At, f.Window.Length)
		for j := range fraud.MaxWindowSpans {
			var s fraud.Span
			if j < len(spans) {
				s = spans[j]
			}
			args = append(args, o.Currency, s.Size, orgID, string(f.Dimension), entity, s.Size, s.From, s.To)
		}
		parts = append(parts, fmt.Sprintf(`SELECT %d AS i, CAST(COALESCE(SUM(events), 0) AS BIGINT) AS events,
			CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS amount FROM (%s) AS spans`, i, spanRows))
	}
	return strings.Join(parts, " UNION ALL "), args, asked
}

// spanRows reads the counter rows of fraud.MaxWindowSpans spans, each span a range search of
// the primary key. (Written as one condition with an OR per span, SQLite read every row of the
// entity instead, and an entity keeps a row a second it was active, for 30 days.) An empty
// span's "? > 0" is false before any search: SQLite tests a condition on no table first.
var spanRows = strings.TrimSuffix(strings.Repeat(`SELECT events, CASE WHEN currency = ? THEN amount_minor ELSE 0 END AS amount
	FROM fraud_velocity_counters WHERE ? > 0 AND org_id = ? AND dimension = ? AND entity = ? AND bucket_size = ? AND bucket_start >= ? AND bucket_start < ?
	UNION ALL `, fraud.MaxWindowSpans), "UNION ALL ")
