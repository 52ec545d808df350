package orchestration

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/store"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// Ping implements the ping workflow's activity.
type Ping struct {
	Store *store.Store
}

// CompletePing records the echo and completion time; running it twice writes the same thing.
func (p *Ping) CompletePing(ctx context.Context, in orchwf.PingInput) (string, error) {
	info := activity.GetInfo(ctx)
	if err := p.Store.Orchestration.CompletePing(ctx, in.OrgID, in.PingID, in.Message, info.StartedTime.UTC()); err != nil {
		return "", err
	}
	return in.Message, nil
}
