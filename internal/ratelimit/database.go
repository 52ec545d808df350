package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/svcplatform/svc/store"
)

// Database counts in the application database (config ratelimit.store=database, the default),
// shared by every API process on it: each process leases slices of a window's budget with one
// atomic INSERT … ON CONFLICT DO UPDATE … RETURNING (Lease) and spends them locally, so the
// database sees one write per slice (a twentieth of the limit), not one per request.
type Database struct {
	store *store.Store
	log   *slog.Logger

	mu     sync.Mutex
	purged time.Time
	// writes serialises this process's upserts on SQLite, which has one writer at a time anyway:
	// queueing here is cheaper than SQLite's busy handler, which sleeps for milliseconds.
	writes sync.Mutex
}

// NewDatabase makes a store on the application database; log receives purge failures (nil: default).
func NewDatabase(s *store.Store, log *slog.Logger) *Database {
	if log == nil {
		log = slog.Default()
	}
	return &Database{store: s, log: log}
}

// Hit implements Store.
func (d *Database) Hit(ctx context.Context, key string, start time.Time, window time.Duration) (int64, error) {
	d.purgeNowAndThen(ctx, start)
	if d.store.Dialect == "sqlite" {
		d.writes.Lock()
		defer d.writes.Unlock()
	}
	return d.store.RateLimits.Hit(ctx, key, start.Unix(), start.Add(window).Unix())
}

// Lease implements Leaser.
func (d *Database) Lease(ctx context.Context, key string, start time.Time, window time.Duration, n int64) (int64, error) {
	d.purgeNowAndThen(ctx, start)
	if d.store.Dialect == "sqlite" {
		d.writes.Lock()
		defer d.writes.Unlock()
	}
	return d.store.RateLimits.Add(ctx, key, start.Unix(), start.Add(window).Unix(), n)
}

// purgeNowAndThen deletes ended windows at most once a minute per process. now is a window's
// start, so it is earlier for a long window than for a short one at the same moment: an earlier
// value is not a clock going back, and is not a reason to purge again.
func (d *Database) purgeNowAndThen(ctx context.Context, now time.Time) {
	d.mu.Lock()
	due := now.Sub(d.purged) >= time.Minute
	if due {
		d.purged = now
	}
	d.mu.Unlock()
	if due {
		if err := d.store.RateLimits.PurgeCounters(ctx, now); err != nil {
			d.log.Warn("ratelimit: purge ended windows", "error", err)
		}
	}
}
