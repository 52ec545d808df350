// Package activities holds svc's Temporal activities: every side effect. Activities are
// idempotent, because Temporal may run one twice.
package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
)

// Ping implements the ping workflow's activity.
type Ping struct {
	Store *store.Store
}

// CompletePing records the echo and completion time; running it twice writes the same thing.
func (p *Ping) CompletePing(ctx context.Context, in workflows.PingInput) (string, error) {
	info := activity.GetInfo(ctx)
	if err := p.Store.CompletePing(ctx, in.OrgID, in.PingID, in.Message, info.StartedTime.UTC()); err != nil {
		return "", err
	}
	return in.Message, nil
}
