package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/fraud"
)

// Velocity upserts: one row each. A counter adds the event and its amount; a distinct value seen
// again no later than its last sighting leaves its row untouched (no write of the row or of its
// window index).
const (
	counterColumns = "INSERT INTO fraud_velocity_counters (entity_id, bucket_size, bucket_start, currency, events, amount_minor) VALUES "
	counterTuple   = "(?, ?, ?, ?, 1, ?)"
	counterUpsert  = ` ON CONFLICT (entity_id, bucket_size, bucket_start, currency) DO UPDATE SET
			events = fraud_velocity_counters.events + 1, amount_minor = fraud_velocity_counters.amount_minor + excluded.amount_minor`
	seenColumns = "INSERT INTO fraud_velocity_seen (entity_id, attribute, value, last_seen) VALUES "
	seenTuple   = "(?, ?, ?, ?)"
	seenUpsert  = ` ON CONFLICT (entity_id, attribute, value) DO UPDATE SET last_seen = excluded.last_seen
			WHERE excluded.last_seen > fraud_velocity_seen.last_seen`
)

// writeVelocity adds an observation to the velocity counters and the last-seen values. Its
// transaction has locked the observation's entities (lockVelocity).
func writeVelocity(tx *gorm.DB, o keyedObservation, counters bool) error {
	w := newVelocityWrite(o, counters)
	if tx.Name() == "sqlite" {
		return writeVelocityRows(tx, w.counters, w.seen, w.args)
	}
	stmts := w.statements()
	if len(stmts) == 0 {
		return nil
	}
	if err := tx.Exec(withWrites(stmts[:len(stmts)-1], stmts[len(stmts)-1]), w.args...).Error; err != nil {
		return fmt.Errorf("velocity: %w", err)
	}
	return nil
}

// observeVelocity adds o to the counters and the last-seen values and returns the features as
// of o, o itself counted. On SQLite the read follows the write. On PostgreSQL both are one
// statement, one round trip fewer while the transaction holds hot rows; its read runs on the
// statement's snapshot, taken before its own write, so o's own part is added to what it reads.
// That is exact because lockVelocity has locked o's rows: no other transaction writes them
// between that snapshot and this one's commit.
func observeVelocity(tx *gorm.DB, o keyedObservation, features []fraud.Feature) (fraud.Features, error) {
	if tx.Name() == "sqlite" {
		if err := writeVelocity(tx, o, true); err != nil {
			return nil, err
		}
		return readVelocity(tx, o, features)
	}
	r := observeRead(o, features)
	return r.run(tx)
}

// observeRead is PostgreSQL's one statement adding o to the counters and reading its features.
func observeRead(o keyedObservation, features []fraud.Feature) *velocityRead {
	w := newVelocityWrite(o, true)
	return newVelocityRead(o, features, &w)
}

// velocityWrite is the rows writeVelocity writes: the arguments of counters counter rows, then
// of seen last-seen rows.
type velocityWrite struct {
	counters, seen int
	args           []any
}

func newVelocityWrite(o keyedObservation, counters bool) velocityWrite {
	var keys []fraud.CounterKey
	if counters {
		keys = o.Counters()
	}
	seen := o.Seen()
	w := velocityWrite{counters: len(keys), seen: len(seen), args: make([]any, 0, 5*len(keys)+4*len(seen))}
	for _, k := range keys {
		w.args = append(w.args, o.ids[k.Dimension], k.Bucket.Size, k.Bucket.Start, k.Currency, o.AmountMinor)
	}
	for _, k := range seen {
		w.args = append(w.args, o.ids[k.Dimension], k.Attribute, k.Value, o.At.Unix())
	}
	return w
}

// statements are PostgreSQL's statements writing w's rows, several rows each: the counter
// rows', then the last-seen rows', each present only when it has rows.
func (w *velocityWrite) statements() []string {
	var stmts []string
	if w == nil {
		return nil
	}
	if w.counters > 0 {
		stmts = append(stmts, counterColumns+tuples(w.counters, counterTuple)+counterUpsert)
	}
	if w.seen > 0 {
		stmts = append(stmts, seenColumns+tuples(w.seen, seenTuple)+seenUpsert)
	}
	return stmts
}

// withWrites makes writes data-modifying CTEs of query, in one statement: one round trip while
// the transaction holds its entities. PostgreSQL runs every one of them whether query reads it
// or not.
func withWrites(writes []string, query string) string {
	if len(writes) == 0 {
		return query
	}
	with := make([]string, len(writes))
	for i, st := range writes {
		with[i] = fmt.Sprintf("w%d AS (%s)", i, st)
	}
	return "WITH " + strings.Join(with, ", ") + " " + query
}

// lockVelocity takes, on PostgreSQL, the transaction-scoped advisory locks of entities, sorted,
// before any counter row is written. Every transaction writing velocity rows takes its
// entities' first (fraudCache.lockEntities), so:
//   - the rows of an entity are written by one transaction at a time, which reads them as they
//     are (observeVelocity's one round trip relies on that: exact velocity);
//   - two API processes' batches, whose decisions would otherwise lock rows in batch order,
//     never wait for each other in a cycle.
//
// SQLite has one writer: no other transaction holds a row.
func lockVelocity(tx *gorm.DB, entities []velocityEntity) error {
	if tx.Name() == "sqlite" || len(entities) == 0 {
		return nil
	}
	keys := make([]int64, len(entities))
	for i, e := range entities {
		keys[i] = e.lockKey()
	}
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	// The array is one argument, so the statement's text, and its prepared statement, is the
	// same for every batch; the locks are taken in the array's order.
	if err := execRow(tx, `SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) WITH ORDINALITY AS u(k, n) ORDER BY n`, []any{keys}); err != nil {
		return fmt.Errorf("velocity lock: %w", err)
	}
	return nil
}

// writeVelocityRows writes each row in a statement of its own, on SQLite, for the reason
// insertRows gives.
func writeVelocityRows(tx *gorm.DB, counters, seen int, args []any) error {
	for i := range counters {
		if err := execRow(tx, counterColumns+counterTuple+counterUpsert, args[5*i:5*i+5]); err != nil {
			return fmt.Errorf("velocity: %w", err)
		}
	}
	args = args[5*counters:]
	for i := range seen {
		if err := execRow(tx, seenColumns+seenTuple+seenUpsert, args[4*i:4*i+4]); err != nil {
			return fmt.Errorf("velocity: %w", err)
		}
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
func readVelocity(tx *gorm.DB, o keyedObservation, features []fraud.Feature) (fraud.Features, error) {
	return newVelocityRead(o, features, nil).run(tx)
}

// run runs the query in tx.
func (r *velocityRead) run(tx *gorm.DB) (fraud.Features, error) {
	if r.query == "" {
		return r.out, nil
	}
	// Straight to the connection: gorm's statement building costs more than reading the rows,
	// and would take the query's $n for nothing.
	rows, err := tx.Statement.ConnPool.QueryContext(tx.Statement.Context, r.query, r.args...)
	if err != nil {
		return nil, fmt.Errorf("velocity read: %w", err)
	}
	defer rows.Close()
	return r.scan(rows)
}

// velocityRead is one observation's velocity query (velocityQuery) and the features it fills.
// With a write (PostgreSQL, observeRead) the query first writes the observation, and its own
// part, which the statement's snapshot does not show, is added to what it reads (ownPart).
type velocityRead struct {
	query string
	args  []any
	o     fraud.Observation
	asked []fraud.Feature
	own   bool
	out   fraud.Features
}

func newVelocityRead(o keyedObservation, features []fraud.Feature, write *velocityWrite) *velocityRead {
	r := &velocityRead{o: o.Observation, own: write != nil, out: fraud.Features{}}
	stmts := write.statements()
	var base int
	if len(stmts) > 0 {
		base = len(write.args)
	}
	r.query, r.args, r.asked = velocityQuery(o, features, base)
	for _, f := range features {
		r.out.Set(f, 0)
	}
	if len(stmts) > 0 {
		if r.query == "" {
			r.query = "SELECT 0, 0, 0 WHERE false"
		}
		// The writes' ? become $1 ... $base, ahead of the read's own.
		r.query, r.args = numbered(withWrites(stmts, ""))+r.query, append(slices.Clip(write.args), r.args...)
	}
	return r
}

// rowScanner is what scan reads: database/sql's rows, or pgx's in a pipeline.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scan reads the query's rows into the features.
func (r *velocityRead) scan(rows rowScanner) (fraud.Features, error) {
	for rows.Next() {
		var i int
		var events, amount int64
		if err := rows.Scan(&i, &events, &amount); err != nil {
			return nil, fmt.Errorf("velocity read: %w", err)
		}
		f := r.asked[i]
		if r.own {
			events, amount = ownPart(f, r.o, events, amount)
		}
		switch f.Metric {
		case fraud.MetricSum:
			r.out.Set(f, fraud.MinorToMajor(amount, r.o.Currency))
		default:
			r.out.Set(f, float64(events))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("velocity read: %w", err)
	}
	return r.out, nil
}

// ownPart adds to feature f's row of velocityQuery what o itself adds: one event and its amount
// (its own buckets are in every window, which ends with it); for a distinct count its value,
// unless the row says that value was already counted.
func ownPart(f fraud.Feature, o fraud.Observation, events, amount int64) (int64, int64) {
	if f.Metric != fraud.MetricDistinct {
		return events + 1, amount + o.AmountMinor
	}
	if o.Attribute(f.Of) != "" && amount == 0 {
		events++
	}
	return events, amount
}

// velocityQuery is readVelocity's query: a UNION ALL of one aggregate per feature of a dimension
// o has ("" when there is none), its arguments, and the features in the order of their i. Its
// parameters are numbered from base+1 ($n: PostgreSQL's, and SQLite's by ordinal), each value
// bound once however often the query uses it: binding a string costs SQLite's driver an
// allocation, and a window's spans would repeat the entity seven times.
func velocityQuery(o keyedObservation, features []fraud.Feature, base int) (string, []any, []fraud.Feature) {
	var parts []string
	var asked []fraud.Feature
	p := &params{base: base}
	currency := p.lazy(o.Currency)
	for _, f := range features {
		id, ok := o.ids[f.Dimension]
		if !ok {
			continue
		}
		i := len(asked)
		asked = append(asked, f)
		ent := p.add(id)
		if f.Metric == fraud.MetricDistinct {
			// amount: whether o's own value is among those counted (ownPart), found by its key, so
			// the count needs no column outside the window index (PostgreSQL's lacks the value).
			attr, own, ws := p.add(f.Of), p.add(o.Attribute(f.Of)), p.add(fraud.WindowStart(o.At, f.Window.Length))
			where := fmt.Sprintf("entity_id = %s AND attribute = %s", ent, attr)
			parts = append(parts, fmt.Sprintf(`SELECT %d AS i, COUNT(*) AS events, (SELECT COUNT(*) FROM fraud_velocity_seen
				WHERE %s AND value = %s AND last_seen >= %s) AS amount FROM fraud_velocity_seen WHERE %s AND last_seen >= %s`, i, where, own, ws, where, ws))
			continue
		}
		spans := fraud.WindowSpans(o.At, f.Window.Length)
		rows := make([]string, fraud.MaxWindowSpans)
		for j := range rows {
			var s fraud.Span
			if j < len(spans) {
				s = spans[j]
			}
			size := p.add(s.Size)
			rows[j] = fmt.Sprintf(spanRow, currency(), size, ent, size, p.add(s.From), p.add(s.To))
		}
		parts = append(parts, fmt.Sprintf(`SELECT %d AS i, CAST(COALESCE(SUM(events), 0) AS BIGINT) AS events,
			CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS amount FROM (%s) AS spans`, i, strings.Join(rows, " UNION ALL ")))
	}
	return strings.Join(parts, " UNION ALL "), p.args, asked
}

// spanRow reads the counter rows of one span, a range search of the primary key. (Written as one
// condition with an OR per span, SQLite read every row of the entity instead, and an entity
// keeps a row a second it was active, for 30 days.) An empty span's "size > 0" is false before
// any search: SQLite tests a condition on no table first.
const spanRow = `SELECT events, CASE WHEN currency = %s THEN amount_minor ELSE 0 END AS amount
	FROM fraud_velocity_counters WHERE %s > 0 AND entity_id = %s AND bucket_size = %s AND bucket_start >= %s AND bucket_start < %s`

// params numbers a query's parameters ($n) from base+1.
type params struct {
	base int
	args []any
}

// add binds v to the next parameter and returns its name.
func (p *params) add(v any) string {
	p.args = append(p.args, v)
	return "$" + strconv.Itoa(p.base+len(p.args))
}

// lazy binds v to a parameter the first time its name is asked for, so a query that never uses
// it has no parameter PostgreSQL could not type.
func (p *params) lazy(v any) func() string {
	name := ""
	return func() string {
		if name == "" {
			name = p.add(v)
		}
		return name
	}
}

// pipelineVelocity runs reads' queries, in order, in one pipeline on conn (PostgreSQL, inside
// the transaction conn holds) and returns each one's features.
func pipelineVelocity(ctx context.Context, conn *sql.Conn, reads []*velocityRead) ([]fraud.Features, error) {
	out := make([]fraud.Features, len(reads))
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("velocity: a pipeline needs a pgx connection, not %T", dc)
		}
		b := &pgx.Batch{}
		for _, r := range reads {
			if r.query != "" {
				b.Queue(r.query, r.args...)
			}
		}
		results := c.Conn().SendBatch(ctx, b)
		for i, r := range reads {
			if r.query == "" {
				out[i] = r.out
				continue
			}
			rows, err := results.Query()
			if err == nil {
				out[i], err = r.scan(rows)
				rows.Close()
			}
			if err != nil {
				_ = results.Close()
				return fmt.Errorf("velocity read: %w", err)
			}
		}
		return results.Close()
	})
	return out, err
}

// numbered writes q's ? placeholders as $1, $2, ... (gorm does it for the queries it runs;
// velocity reads go to the connection directly). Velocity statements have no ? in a literal.
func numbered(q string) string {
	var b strings.Builder
	b.Grow(len(q) + len(q)/8)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
