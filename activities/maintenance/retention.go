// Package maintenance holds the activities of the platform's housekeeping workflows
// (workflows/maintenance). Each prune is one short batch statement: idempotent, since
// deleting what is already gone deletes nothing.
package maintenance

import (
	"context"

	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/store"
	mntwf "github.com/svcplatform/svc/workflows/maintenance"
)

// Activities prune the store and the blob store.
type Activities struct {
	Store *store.Store
	Blobs blobs.Store
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

// PruneFraudVelocity deletes velocity counters that ended, and distinct values last seen,
// before in.Before (store.Fraud.PruneVelocity).
func (a *Activities) PruneFraudVelocity(ctx context.Context, in mntwf.PruneInput) (int64, error) {
	return a.Store.Fraud.PruneVelocity(ctx, in.Before, in.Limit)
}

// PruneDocumentFiles deletes the file and the read text of up to in.Limit documents that ended
// before in.Before, and returns how many documents it did. A blob another record still names
// (equal bytes are stored once) stays. The blobs go first: a crash in between leaves names of
// deleted blobs, which the retry deletes again (deleting a missing blob is not an error).
func (a *Activities) PruneDocumentFiles(ctx context.Context, in mntwf.PruneInput) (int64, error) {
	docs, err := a.Store.Documents.FilesToPrune(ctx, in.Before, in.Limit)
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		for _, key := range []string{d.BlobKey, d.TextKey} {
			if key == "" {
				continue
			}
			used, err := a.Store.Documents.FileInUse(ctx, key, d.ID)
			if err != nil {
				return 0, err
			}
			if !used {
				if err := a.Blobs.Delete(ctx, key); err != nil {
					return 0, err
				}
			}
		}
		if err := a.Store.Documents.ForgetFiles(ctx, d.OrgID, d.ID); err != nil {
			return 0, err
		}
	}
	return int64(len(docs)), nil
}
