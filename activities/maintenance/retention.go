// Package maintenance holds the activities of the platform's housekeeping workflows
// (workflows/maintenance). Each prune is one short batch statement: idempotent, since
// deleting what is already gone deletes nothing.
package maintenance

import (
	"context"

	"github.com/svcplatform/svc/store"
	mntwf "github.com/svcplatform/svc/workflows/maintenance"
)

// Activities prune the store.
type Activities struct {
	Store *store.Store
}

// PruneDeliveries deletes final deliveries (and their attempts) last changed before in.Before.
func (a *Activities) PruneDeliveries(ctx context.Context, in mntwf.PruneInput) (int64, error) {
	return a.Store.Webhooks.PruneDeliveriesBefore(ctx, in.Before, in.Limit)
}

// PruneEvents deletes events created before in.Before that no delivery refers to.
func (a *Activities) PruneEvents(ctx context.Context, in mntwf.PruneInput) (int64, error) {
	return a.Store.Webhooks.PruneEvents(ctx, in.Before, in.Limit)
}

// PruneIdempotency deletes idempotency records whose window ended before in.Before.
func (a *Activities) PruneIdempotency(ctx context.Context, in mntwf.PruneInput) (int64, error) {
	return a.Store.Idempotency.PruneExpired(ctx, in.Before, in.Limit)
}

// PruneRateLimitCounters deletes rate-limit counters whose window ended before in.Before.
func (a *Activities) PruneRateLimitCounters(ctx context.Context, in mntwf.PruneInput) (int64, error) {
	return a.Store.RateLimits.PruneExpiredCounters(ctx, in.Before, in.Limit)
}
